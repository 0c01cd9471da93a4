// SPDX-License-Identifier: GPL-2.0-only
/*
 * cxib: port statistics for "rdma statistic" / sysfs hw_counters, from a Q counter set
 * (PRM ALLOC_Q_COUNTER / QUERY_Q_COUNTER / DEALLOC_Q_COUNTER, issued by fw_verbs.c).
 *
 * The driver allocates one counter set when it registers the device and reports it as port
 * 1's counters, under the names mlx5_ib uses.  The device counts in 32 bits and wraps.
 * QPs count into the set their qpc counter_set_id names; the cxfw model counts device-wide
 * (every set sees every QP), so the numbers are the device's either way.  A device that
 * does not offer Q counters (ALLOC_Q_COUNTER fails) simply has no hw_counters.
 */

#include <kunit/visibility.h>
#include <rdma/ib_verbs.h>

#include "cxib.h"

/* The counters reported, in this order; names as mlx5_ib's. */
enum {
	CXIB_QC_RX_WRITE_REQUESTS,
	CXIB_QC_RX_READ_REQUESTS,
	CXIB_QC_RX_ATOMIC_REQUESTS,
	CXIB_QC_OUT_OF_BUFFER,
	CXIB_QC_OUT_OF_SEQUENCE,
	CXIB_QC_DUPLICATE_REQUEST,
	CXIB_QC_RNR_NAK_RETRY_ERR,
	CXIB_QC_PACKET_SEQ_ERR,
	CXIB_QC_IMPLIED_NAK_SEQ_ERR,
	CXIB_QC_LOCAL_ACK_TIMEOUT_ERR,
	CXIB_QC_RESP_LOCAL_LENGTH_ERROR,
	CXIB_QC_RESP_CQE_ERROR,
	CXIB_QC_REQ_CQE_ERROR,
	CXIB_QC_REQ_REMOTE_INVALID_REQUEST,
	CXIB_QC_REQ_REMOTE_ACCESS_ERRORS,
	CXIB_QC_RESP_REMOTE_ACCESS_ERRORS,
	CXIB_QC_RESP_CQE_FLUSH_ERROR,
	CXIB_QC_REQ_CQE_FLUSH_ERROR,
	CXIB_QC_REQ_TRANSPORT_RETRIES_EXCEEDED,
	CXIB_QC_REQ_RNR_RETRIES_EXCEEDED,
	CXIB_QC_NUM
};

VISIBLE_IF_KUNIT const struct rdma_stat_desc cxib_q_counter_descs[] = {
	[CXIB_QC_RX_WRITE_REQUESTS] = { .name = "rx_write_requests" },
	[CXIB_QC_RX_READ_REQUESTS] = { .name = "rx_read_requests" },
	[CXIB_QC_RX_ATOMIC_REQUESTS] = { .name = "rx_atomic_requests" },
	[CXIB_QC_OUT_OF_BUFFER] = { .name = "out_of_buffer" },
	[CXIB_QC_OUT_OF_SEQUENCE] = { .name = "out_of_sequence" },
	[CXIB_QC_DUPLICATE_REQUEST] = { .name = "duplicate_request" },
	[CXIB_QC_RNR_NAK_RETRY_ERR] = { .name = "rnr_nak_retry_err" },
	[CXIB_QC_PACKET_SEQ_ERR] = { .name = "packet_seq_err" },
	[CXIB_QC_IMPLIED_NAK_SEQ_ERR] = { .name = "implied_nak_seq_err" },
	[CXIB_QC_LOCAL_ACK_TIMEOUT_ERR] = { .name = "local_ack_timeout_err" },
	[CXIB_QC_RESP_LOCAL_LENGTH_ERROR] = { .name = "resp_local_length_error" },
	[CXIB_QC_RESP_CQE_ERROR] = { .name = "resp_cqe_error" },
	[CXIB_QC_REQ_CQE_ERROR] = { .name = "req_cqe_error" },
	[CXIB_QC_REQ_REMOTE_INVALID_REQUEST] = { .name = "req_remote_invalid_request" },
	[CXIB_QC_REQ_REMOTE_ACCESS_ERRORS] = { .name = "req_remote_access_errors" },
	[CXIB_QC_RESP_REMOTE_ACCESS_ERRORS] = { .name = "resp_remote_access_errors" },
	[CXIB_QC_RESP_CQE_FLUSH_ERROR] = { .name = "resp_cqe_flush_error" },
	[CXIB_QC_REQ_CQE_FLUSH_ERROR] = { .name = "req_cqe_flush_error" },
	[CXIB_QC_REQ_TRANSPORT_RETRIES_EXCEEDED] = { .name = "req_transport_retries_exceeded" },
	[CXIB_QC_REQ_RNR_RETRIES_EXCEEDED] = { .name = "req_rnr_retries_exceeded" },
};
EXPORT_SYMBOL_IF_KUNIT(cxib_q_counter_descs);

/* The dword of the QUERY_Q_COUNTER output each reported counter is read from. */
VISIBLE_IF_KUNIT const u8 cxib_q_counter_dws[] = {
	[CXIB_QC_RX_WRITE_REQUESTS] = CXIB_Q_COUNTER_RX_WRITE_REQUESTS,
	[CXIB_QC_RX_READ_REQUESTS] = CXIB_Q_COUNTER_RX_READ_REQUESTS,
	[CXIB_QC_RX_ATOMIC_REQUESTS] = CXIB_Q_COUNTER_RX_ATOMIC_REQUESTS,
	[CXIB_QC_OUT_OF_BUFFER] = CXIB_Q_COUNTER_OUT_OF_BUFFER,
	[CXIB_QC_OUT_OF_SEQUENCE] = CXIB_Q_COUNTER_OUT_OF_SEQUENCE,
	[CXIB_QC_DUPLICATE_REQUEST] = CXIB_Q_COUNTER_DUPLICATE_REQUEST,
	[CXIB_QC_RNR_NAK_RETRY_ERR] = CXIB_Q_COUNTER_RNR_NAK_RETRY_ERR,
	[CXIB_QC_PACKET_SEQ_ERR] = CXIB_Q_COUNTER_PACKET_SEQ_ERR,
	[CXIB_QC_IMPLIED_NAK_SEQ_ERR] = CXIB_Q_COUNTER_IMPLIED_NAK_SEQ_ERR,
	[CXIB_QC_LOCAL_ACK_TIMEOUT_ERR] = CXIB_Q_COUNTER_LOCAL_ACK_TIMEOUT_ERR,
	[CXIB_QC_RESP_LOCAL_LENGTH_ERROR] = CXIB_Q_COUNTER_RESP_LOCAL_LENGTH_ERROR,
	[CXIB_QC_RESP_CQE_ERROR] = CXIB_Q_COUNTER_RESP_CQE_ERROR,
	[CXIB_QC_REQ_CQE_ERROR] = CXIB_Q_COUNTER_REQ_CQE_ERROR,
	[CXIB_QC_REQ_REMOTE_INVALID_REQUEST] = CXIB_Q_COUNTER_REQ_REMOTE_INVALID_REQUEST,
	[CXIB_QC_REQ_REMOTE_ACCESS_ERRORS] = CXIB_Q_COUNTER_REQ_REMOTE_ACCESS_ERRORS,
	[CXIB_QC_RESP_REMOTE_ACCESS_ERRORS] = CXIB_Q_COUNTER_RESP_REMOTE_ACCESS_ERRORS,
	[CXIB_QC_RESP_CQE_FLUSH_ERROR] = CXIB_Q_COUNTER_RESP_CQE_FLUSH_ERROR,
	[CXIB_QC_REQ_CQE_FLUSH_ERROR] = CXIB_Q_COUNTER_REQ_CQE_FLUSH_ERROR,
	[CXIB_QC_REQ_TRANSPORT_RETRIES_EXCEEDED] = CXIB_Q_COUNTER_REQ_TRANSPORT_RETRIES_EXCEEDED,
	[CXIB_QC_REQ_RNR_RETRIES_EXCEEDED] = CXIB_Q_COUNTER_REQ_RNR_RETRIES_EXCEEDED,
};
EXPORT_SYMBOL_IF_KUNIT(cxib_q_counter_dws);

static_assert(CXIB_QC_NUM == CXIB_NUM_Q_COUNTERS);
static_assert(ARRAY_SIZE(cxib_q_counter_descs) == CXIB_NUM_Q_COUNTERS);
static_assert(ARRAY_SIZE(cxib_q_counter_dws) == CXIB_NUM_Q_COUNTERS);

static struct rdma_hw_stats *cxib_alloc_hw_port_stats(struct ib_device *ibdev, u32 port)
{
	return rdma_alloc_hw_stats_struct(cxib_q_counter_descs, CXIB_NUM_Q_COUNTERS,
					  RDMA_HW_STATS_DEFAULT_LIFESPAN);
}

static int cxib_get_hw_stats(struct ib_device *ibdev, struct rdma_hw_stats *stats, u32 port,
			     int index)
{
	struct cxib_dev *dev = to_cxib_dev(ibdev);
	int err;

	/* Port counters only (no alloc_hw_device_stats); port 1 is the only port. */
	if (!port || stats->num_counters != CXIB_NUM_Q_COUNTERS)
		return -EINVAL;
	err = cxib_cmd_query_q_counter(dev, dev->q_counter, cxib_q_counter_dws,
				       CXIB_NUM_Q_COUNTERS, stats->value);
	return err ? err : CXIB_NUM_Q_COUNTERS;
}

static const struct ib_device_ops cxib_counters_ops = {
	.alloc_hw_port_stats = cxib_alloc_hw_port_stats,
	.get_hw_stats = cxib_get_hw_stats,
};

/**
 * cxib_counters_init() - allocate the Q counter set and offer hw_counters
 * @dev: the device, before ib_register_device()
 *
 * Sleeps.  Without Q counters the device registers without statistics: not an error.
 *
 * Return: 0.
 */
int cxib_counters_init(struct cxib_dev *dev)
{
	int err;

	err = cxib_cmd_alloc_q_counter(dev, &dev->q_counter);
	if (err) {
		dev_info(&dev->pdev->dev, "no Q counters (%d): no hardware statistics\n", err);
		return 0;
	}
	dev->q_counter_valid = true;
	ib_set_device_ops(&dev->ibdev, &cxib_counters_ops);
	return 0;
}

/**
 * cxib_counters_cleanup() - free the Q counter set, after ib_unregister_device()
 * @dev: the device
 */
void cxib_counters_cleanup(struct cxib_dev *dev)
{
	int err;

	if (!dev->q_counter_valid)
		return;
	err = cxib_cmd_dealloc_q_counter(dev, dev->q_counter);
	if (err && !cxib_dev_dead(dev))
		dev_dbg(&dev->pdev->dev, "DEALLOC_Q_COUNTER %u failed: %d\n", dev->q_counter, err);
	dev->q_counter_valid = false;
}
