// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * cxfw HCA function lifecycle and identity (PRM sections 4.1, 4.2, 4.4, 5.1):
 * ENABLE_HCA / DISABLE_HCA, QUERY_ISSI / SET_ISSI, QUERY_HCA_CAP / SET_HCA_CAP, INIT_HCA /
 * TEARDOWN_HCA, QUERY_ADAPTER, ALLOC_UAR / DEALLOC_UAR, NOP.
 *
 * States: DISABLED -ENABLE_HCA-> ENABLED -INIT_HCA-> INITIALIZED -TEARDOWN_HCA-> TORN_DOWN
 * -DISABLE_HCA-> DISABLED (DISABLE_HCA also from ENABLED).  The command table in cmd.c says
 * which commands run in which state (others get BAD_SYS_STATE).
 *
 * Capabilities: two types exist (PRM: HCA capabilities): the general capabilities (type 0),
 * describing an IB-only ConnectX-4-class PF with cfg.num_ports ports, and the atomic
 * capabilities (type 3), which the general cap "atomic" tells a driver to read.  Every other
 * type is one whose gating general cap is 0, so no driver asks for it; the command table
 * refuses its op_mod (BAD_OP).  "max" is what the model can do; "current" starts as max
 * except for the driver-writable fields, which SET_HCA_CAP may change within max (a value
 * the model cannot honour -> BAD_PARAM, nothing applied).  Read-only fields in a SET are
 * ignored, as firmware does.
 */
#include <stddef.h>
#include <string.h>

#include "cxfw_priv.h"

#define CXFW_IEEE_VENDOR_ID	0x0002c9	/* Mellanox */
#define CXFW_PSID		"CXIB000001"	/* board id: the cxib model board */

/* Driver-writable general capability fields and how a SET value is checked. */
enum cxfw_cap_rule {
	CXFW_CAP_LE_MAX,	/* 0 <= value <= max */
	CXFW_CAP_1_TO_MAX,	/* 1 <= value <= max */
	CXFW_CAP_CHECKSUM,	/* 0 (off) or 3 (on) */
	CXFW_CAP_ZERO,		/* only 0 (e.g. 4 KiB UAR pages) */
};

struct cxfw_cap_field {
	unsigned int dw, hi, lo;
	enum cxfw_cap_rule rule;
	const char *name;
};

#define CAPF(f, r)	{ CXIB_FIELD_POS(CXIB_HCA_CAP_##f), CXFW_CAP_##r, #f }

static const struct cxfw_cap_field cxfw_writable_caps[] = {
	CAPF(PKEY_TABLE_SIZE, LE_MAX),
	CAPF(LOG_MAX_QP, 1_TO_MAX),
	CAPF(CMDIF_CHECKSUM, CHECKSUM),
	CAPF(DRAIN_SIGERR, LE_MAX),
	CAPF(LOG_UAR_PAGE_SZ, ZERO),
	CAPF(UAR_4K, LE_MAX),
	CAPF(CACHE_LINE_128BYTE, LE_MAX),
	CAPF(DCT, LE_MAX),
	CAPF(ROCE, LE_MAX),
	CAPF(RELEASE_ALL_PAGES, LE_MAX),
	CAPF(MKEY_BY_NAME, LE_MAX),
	CAPF(NUM_VHCA_PORTS, LE_MAX),
	CAPF(ATOMIC, LE_MAX),
	CAPF(CQE_VERSION, LE_MAX),
	CAPF(PG, LE_MAX),
};

/* The atomic capabilities' one writable field: 1 (host order) is within max only if
 * supported_atomic_req_8B_endianness_mode_1 is. */
static const struct cxfw_cap_field cxfw_writable_atomic_caps[] = {
	{ CXIB_FIELD_POS(CXIB_ATOMIC_CAP_REQ_8B_ENDIANNESS_MODE), CXFW_CAP_LE_MAX,
	  "REQ_8B_ENDIANNESS_MODE" },
};

/* One capability type the model answers: its two pages and the fields a SET may change. */
struct cxfw_cap_type {
	uint16_t type;
	size_t max, cur;				/* offsets of the pages in cxfw_dev */
	const struct cxfw_cap_field *writable;
	size_t nwritable;
};

#define CAPT(t, m, c, w) \
	{ CXIB_HCA_CAP_TYPE_##t, offsetof(struct cxfw_dev, m), offsetof(struct cxfw_dev, c), \
	  w, sizeof(w) / sizeof((w)[0]) }

static const struct cxfw_cap_type cxfw_cap_types[] = {
	CAPT(GENERAL, cap_max, cap_cur, cxfw_writable_caps),
	CAPT(ATOMIC, atomic_cap_max, atomic_cap_cur, cxfw_writable_atomic_caps),
};

static const struct cxfw_cap_type *cxfw_cap_type(uint16_t type)
{
	size_t i;

	for (i = 0; i < sizeof(cxfw_cap_types) / sizeof(cxfw_cap_types[0]); i++)
		if (cxfw_cap_types[i].type == type)
			return &cxfw_cap_types[i];
	return NULL;
}

static struct cxib_hca_cap *cxfw_cap_page(struct cxfw_dev *dev, size_t off)
{
	return (struct cxib_hca_cap *)((char *)dev + off);
}

/* What the model can do; lock held or device not shared. */
static void cxfw_caps_max(struct cxfw_dev *dev, __be32 *c)
{
	memset(c, 0, CXIB_HCA_CAP_SIZE);
	/* no pages EQ needed unless the firmware asks for pages at run time */
	CXIB_SET(c, CXIB_HCA_CAP_PAGE_REQUEST_DISABLE, !dev->cfg.runtime_pages);
	CXIB_SET(c, CXIB_HCA_CAP_LOG_MAX_SRQ_SZ, CXFW_LOG_MAX_SRQ_SZ);
	CXIB_SET(c, CXIB_HCA_CAP_LOG_MAX_QP_SZ, CXFW_LOG_MAX_QP_SZ);
	CXIB_SET(c, CXIB_HCA_CAP_LOG_MAX_QP, CXFW_LOG_MAX_QP);
	CXIB_SET(c, CXIB_HCA_CAP_LOG_MAX_SRQ, CXFW_LOG_MAX_SRQ);
	CXIB_SET(c, CXIB_HCA_CAP_LOG_MAX_CQ_SZ, CXFW_LOG_MAX_CQ_SZ);
	CXIB_SET(c, CXIB_HCA_CAP_LOG_MAX_CQ, CXFW_LOG_MAX_CQ);
	CXIB_SET(c, CXIB_HCA_CAP_LOG_MAX_EQ_SZ, CXFW_LOG_MAX_EQ_SZ);
	CXIB_SET(c, CXIB_HCA_CAP_MAX_QP_CNT, CXFW_MAX_Q_COUNTERS - 1);	/* set 0 is reserved */
	CXIB_SET(c, CXIB_HCA_CAP_CQ_MODERATION, 1);		/* cq.c: count, period, both modes */
	CXIB_SET(c, CXIB_HCA_CAP_CQ_PERIOD_MODE_MODIFY, 1);
	CXIB_SET(c, CXIB_HCA_CAP_SCQE_BREAK_MODERATION, 1);
	CXIB_SET(c, CXIB_HCA_CAP_CQ_PERIOD_START_FROM_CQE, 1);
	CXIB_SET(c, CXIB_HCA_CAP_ATOMIC, 1);	/* 8-byte CS / FA (resp.c); not the masked forms */
	CXIB_SET(c, CXIB_HCA_CAP_CQE_VERSION, CXIB_CQE_VERSION_1);	/* user indexes */
	CXIB_SET(c, CXIB_HCA_CAP_LOG_MAX_MKEY, CXFW_LOG_MAX_MKEY);
	CXIB_SET(c, CXIB_HCA_CAP_LOG_MAX_EQ, CXFW_LOG_MAX_EQ);
	CXIB_SET(c, CXIB_HCA_CAP_LOG_MAX_MRW_SZ, CXFW_LOG_MAX_MRW_SZ);
	CXIB_SET(c, CXIB_HCA_CAP_LOG_MAX_KLM_LIST_SIZE, CXFW_LOG_MAX_KLM_LIST_SIZE);
	CXIB_SET(c, CXIB_HCA_CAP_LOG_MAX_RA_REQ_QP, CXFW_LOG_MAX_RA_REQ_QP);
	CXIB_SET(c, CXIB_HCA_CAP_LOG_MAX_RA_RES_QP, CXFW_LOG_MAX_RA_RES_QP);
	CXIB_SET(c, CXIB_HCA_CAP_GID_TABLE_SIZE, CXFW_CAP_GID_TABLE_SIZE);
	CXIB_SET(c, CXIB_HCA_CAP_PKEY_TABLE_SIZE, CXFW_CAP_PKEY_TABLE_SIZE);
	CXIB_SET(c, CXIB_HCA_CAP_IB_VIRT, 0);			/* port data via MAD_IFC */
	CXIB_SET(c, CXIB_HCA_CAP_LOCAL_CA_ACK_DELAY, CXFW_LOCAL_CA_ACK_DELAY);
	CXIB_SET(c, CXIB_HCA_CAP_PORT_TYPE, CXIB_CAP_PORT_TYPE_IB);
	CXIB_SET(c, CXIB_HCA_CAP_NUM_PORTS, dev->cfg.num_ports);
	CXIB_SET(c, CXIB_HCA_CAP_LOG_MAX_MSG, CXFW_LOG_MAX_MSG);
	/* UMR may change a key's page size (req.c), so fast registration works: 0 */
	CXIB_SET(c, CXIB_HCA_CAP_UMR_MODIFY_ENTITY_SIZE_DISABLED, 0);
	CXIB_SET(c, CXIB_HCA_CAP_UMR_EXTENDED_TRANSLATION_OFFSET, 1);	/* xlt_offset_47_16 */
	CXIB_SET(c, CXIB_HCA_CAP_DRAIN_SIGERR, 1);		/* vacuous: no signature offload */
	CXIB_SET(c, CXIB_HCA_CAP_CMDIF_CHECKSUM, CXIB_CAP_CMDIF_CHECKSUM_ENABLED);
	CXIB_SET(c, CXIB_HCA_CAP_QKV, 1);
	CXIB_SET(c, CXIB_HCA_CAP_PKV, 1);
	CXIB_SET(c, CXIB_HCA_CAP_XRC, 1);
	CXIB_SET(c, CXIB_HCA_CAP_UD, 1);
	CXIB_SET(c, CXIB_HCA_CAP_IPOIB_BASIC_OFFLOADS, 1);	/* ipoib.c: checksums, LSO */
	CXIB_SET(c, CXIB_HCA_CAP_UC, 1);
	CXIB_SET(c, CXIB_HCA_CAP_RC, 1);
	CXIB_SET(c, CXIB_HCA_CAP_UAR_SZ, CXFW_LOG_UAR_AREA);
	CXIB_SET(c, CXIB_HCA_CAP_LOG_PG_SZ, CXIB_ADAPTER_PAGE_SHIFT);
	CXIB_SET(c, CXIB_HCA_CAP_BF, 1);
	CXIB_SET(c, CXIB_HCA_CAP_LOG_BF_REG_SIZE, CXIB_LOG_BF_REG_SIZE);
	CXIB_SET(c, CXIB_HCA_CAP_MAX_WQE_SZ_SQ, CXFW_MAX_SQ_WQE_BYTES);
	CXIB_SET(c, CXIB_HCA_CAP_MAX_WQE_SZ_RQ, CXFW_MAX_RQ_WQE_BYTES);
	CXIB_SET(c, CXIB_HCA_CAP_MAX_QP_MCG, CXFW_MAX_QP_MCG);
	CXIB_SET(c, CXIB_HCA_CAP_LOG_MAX_MCG, CXFW_LOG_MAX_MCG);
	CXIB_SET(c, CXIB_HCA_CAP_LOG_MAX_PD, CXFW_LOG_MAX_PD);
	CXIB_SET(c, CXIB_HCA_CAP_LOG_MAX_XRCD, CXFW_LOG_MAX_XRCD);
	CXIB_SET(c, CXIB_HCA_CAP_LOG_MAX_RMP, CXFW_LOG_MAX_RMP);
	CXIB_SET(c, CXIB_HCA_CAP_DEVICE_FREQUENCY_KHZ, dev->cfg.device_frequency_khz);
	CXIB_SET(c, CXIB_HCA_CAP_NUM_OF_UARS_PER_PAGE, CXFW_UARS_PER_PAGE);
}

/*
 * The atomics the responder executes (resp.c): 8-byte compare-and-swap and fetch-and-add on
 * RC QPs, not the masked forms; the requester returns the original value big-endian or, once
 * the driver sets mode 1, in the HOST_ENDIANNESS register's order (req.c).
 */
static void cxfw_atomic_caps_max(__be32 *c)
{
	memset(c, 0, CXIB_HCA_CAP_SIZE);
	CXIB_SET(c, CXIB_ATOMIC_CAP_REQ_8B_ENDIANNESS_MODE, CXIB_ATOMIC_REQ_MODE_HOST);
	CXIB_SET(c, CXIB_ATOMIC_CAP_SUPPORTED_REQ_8B_ENDIANNESS_MODE_1, 1);
	CXIB_SET(c, CXIB_ATOMIC_CAP_OPERATIONS, CXIB_ATOMIC_OPS_CMP_SWAP | CXIB_ATOMIC_OPS_FETCH_ADD);
	CXIB_SET(c, CXIB_ATOMIC_CAP_SIZE_QP, CXIB_ATOMIC_SIZE_8B);
}

/* Reset both capability sets; lock held or device not shared. */
void cxfw_hca_caps_init(struct cxfw_dev *dev)
{
	cxfw_caps_max(dev, dev->cap_max.dw);
	dev->cap_cur = dev->cap_max;
	/* driver-writable fields start at the firmware defaults */
	CXIB_SET(dev->cap_cur.dw, CXIB_HCA_CAP_LOG_MAX_QP, CXFW_DEFAULT_LOG_MAX_QP);
	CXIB_SET(dev->cap_cur.dw, CXIB_HCA_CAP_CMDIF_CHECKSUM, CXIB_CAP_CMDIF_CHECKSUM_DISABLED);
	CXIB_SET(dev->cap_cur.dw, CXIB_HCA_CAP_DRAIN_SIGERR, 0);
	/* CQE version 0 until the driver asks for 1 (mlx5_core does when the max allows) */
	CXIB_SET(dev->cap_cur.dw, CXIB_HCA_CAP_CQE_VERSION, CXIB_CQE_VERSION_0);

	cxfw_atomic_caps_max(dev->atomic_cap_max.dw);
	dev->atomic_cap_cur = dev->atomic_cap_max;
	/* big-endian results until the driver asks for host order (mlx5_core does) */
	CXIB_SET(dev->atomic_cap_cur.dw, CXIB_ATOMIC_CAP_REQ_8B_ENDIANNESS_MODE,
		 CXIB_ATOMIC_REQ_MODE_BE);
}

/* Release every resource of an initialized function (TEARDOWN_HCA, reset); lock held. */
void cxfw_hca_release_resources(struct cxfw_dev *dev)
{
	cxfw_mcg_destroy_all(dev);
	cxfw_qp_destroy_all(dev);
	cxfw_srq_destroy_all(dev);
	cxfw_cq_destroy_all(dev);
	cxfw_mr_destroy_all(dev);
	cxfw_eq_destroy_all(dev);
	cxfw_q_counters_release(dev);
	memset(dev->uar_map, 0, sizeof(dev->uar_map));
}

/* function_id / embedded_cpu_function: only the PF itself (0) exists. */
static uint8_t cxfw_check_function(struct cxfw_cmd *cmd, uint32_t ecpu, uint32_t function_id)
{
	if (ecpu)
		return cxfw_fail(cmd, CXIB_CMD_STAT_BAD_PARAM, CXFW_SYND(CXFW_SYND_BAD_PARAM, 1));
	if (function_id)
		return cxfw_fail(cmd, CXIB_CMD_STAT_BAD_PARAM,
				 CXFW_SYND(CXFW_SYND_BAD_PARAM, function_id));
	return CXIB_CMD_STAT_OK;
}

uint8_t cxfw_cmd_enable_hca(struct cxfw_dev *dev, struct cxfw_cmd *cmd)
{
	const struct cxib_enable_hca_in *in = (const void *)cmd->in;
	uint8_t st = cxfw_check_function(cmd,
					 CXIB_GET(in, CXIB_ENABLE_HCA_IN_EMBEDDED_CPU_FUNCTION),
					 CXIB_GET(in, CXIB_ENABLE_HCA_IN_FUNCTION_ID));

	if (st)
		return st;
	pthread_mutex_lock(&dev->lock);
	dev->hca_state = CXFW_HCA_ENABLED;
	dev->issi = CXIB_ISSI_0;
	dev->issi_set = false;
	dev->init_pages_requested = false;
	cxfw_hca_caps_init(dev);
	memcpy(dev->cur_node_desc, dev->node_desc, sizeof(dev->cur_node_desc));
	pthread_mutex_unlock(&dev->lock);
	cxfw_log(dev, CXFW_LOG_INFO, "cxfw: HCA enabled");
	return CXIB_CMD_STAT_OK;
}

uint8_t cxfw_cmd_disable_hca(struct cxfw_dev *dev, struct cxfw_cmd *cmd)
{
	const struct cxib_disable_hca_in *in = (const void *)cmd->in;
	uint8_t st = cxfw_check_function(cmd,
					 CXIB_GET(in, CXIB_DISABLE_HCA_IN_EMBEDDED_CPU_FUNCTION),
					 CXIB_GET(in, CXIB_DISABLE_HCA_IN_FUNCTION_ID));

	if (st)
		return st;
	cxfw_pages_drop(dev, "DISABLE_HCA");
	pthread_mutex_lock(&dev->lock);
	dev->hca_state = CXFW_HCA_DISABLED;
	pthread_mutex_unlock(&dev->lock);
	cxfw_log(dev, CXFW_LOG_INFO, "cxfw: HCA disabled");
	return CXIB_CMD_STAT_OK;
}

uint8_t cxfw_cmd_query_issi(struct cxfw_dev *dev, struct cxfw_cmd *cmd)
{
	struct cxib_query_issi_out *out = (void *)cmd->out;
	pthread_mutex_lock(&dev->lock);
	CXIB_SET(out, CXIB_QUERY_ISSI_OUT_CURRENT_ISSI, dev->issi);
	pthread_mutex_unlock(&dev->lock);
	CXIB_SET(out, CXIB_QUERY_ISSI_OUT_SUPPORTED_ISSI_DW0, dev->cfg.supported_issi);
	return CXIB_CMD_STAT_OK;
}

uint8_t cxfw_cmd_set_issi(struct cxfw_dev *dev, struct cxfw_cmd *cmd)
{
	const struct cxib_set_issi_in *in = (const void *)cmd->in;
	uint32_t issi = CXIB_GET(in, CXIB_SET_ISSI_IN_CURRENT_ISSI);

	if (issi >= 32 || !(dev->cfg.supported_issi & (1u << issi)))
		return cxfw_fail(cmd, CXIB_CMD_STAT_BAD_PARAM, CXFW_SYND(CXFW_SYND_BAD_PARAM, issi));
	pthread_mutex_lock(&dev->lock);
	dev->issi = (uint16_t)issi;
	dev->issi_set = true;
	pthread_mutex_unlock(&dev->lock);
	return CXIB_CMD_STAT_OK;
}

uint8_t cxfw_cmd_query_hca_cap(struct cxfw_dev *dev, struct cxfw_cmd *cmd)
{
	const struct cxib_query_hca_cap_in *in = (const void *)cmd->in;
	uint8_t *cap = cxfw_out_bytes(cmd, CXIB_QUERY_HCA_CAP_OUT_CAPABILITY_OFFSET);
	uint8_t st = cxfw_check_function(cmd,
					 CXIB_GET(in, CXIB_QUERY_HCA_CAP_IN_OTHER_FUNCTION),
					 CXIB_GET(in, CXIB_QUERY_HCA_CAP_IN_FUNCTION_ID));
	const struct cxfw_cap_type *t = cxfw_cap_type(cmd->op_mod >> 1);

	if (st)
		return st;
	if (!t)		/* the command table lets only the types of cxfw_cap_types through */
		return cxfw_fail(cmd, CXIB_CMD_STAT_BAD_OP,
				 CXFW_SYND(CXFW_SYND_BAD_PARAM, cmd->op_mod));
	pthread_mutex_lock(&dev->lock);
	memcpy(cap, cxfw_cap_page(dev, (cmd->op_mod & 1) == CXIB_HCA_CAP_MODE_CUR ? t->cur : t->max),
	       CXIB_HCA_CAP_SIZE);
	pthread_mutex_unlock(&dev->lock);
	return CXIB_CMD_STAT_OK;
}

static bool cxfw_cap_value_ok(const struct cxfw_cap_field *f, uint32_t v, uint32_t max)
{
	switch (f->rule) {
	case CXFW_CAP_LE_MAX:
		return v <= max;
	case CXFW_CAP_1_TO_MAX:
		return v >= 1 && v <= max;
	case CXFW_CAP_CHECKSUM:
		return v == CXIB_CAP_CMDIF_CHECKSUM_DISABLED ||
		       (v == CXIB_CAP_CMDIF_CHECKSUM_ENABLED && v == max);
	case CXFW_CAP_ZERO:
	default:
		return v == 0;
	}
}

uint8_t cxfw_cmd_set_hca_cap(struct cxfw_dev *dev, struct cxfw_cmd *cmd)
{
	const struct cxib_set_hca_cap_in *in = (const void *)cmd->in;
	const __be32 *set = (const __be32 *)cxfw_in_bytes(cmd,
							   CXIB_SET_HCA_CAP_IN_CAPABILITY_OFFSET);
	const struct cxfw_cap_type *t = cxfw_cap_type(cmd->op_mod >> 1);
	struct cxib_hca_cap cur;
	const struct cxib_hca_cap *max;
	uint8_t st = cxfw_check_function(cmd,
					 CXIB_GET(in, CXIB_SET_HCA_CAP_IN_OTHER_FUNCTION),
					 CXIB_GET(in, CXIB_SET_HCA_CAP_IN_FUNCTION_ID));
	size_t i;

	if (st)
		return st;
	if (!t || (cmd->op_mod & 1))	/* SET's op_mod is the type alone */
		return cxfw_fail(cmd, CXIB_CMD_STAT_BAD_OP,
				 CXFW_SYND(CXFW_SYND_BAD_PARAM, cmd->op_mod));
	pthread_mutex_lock(&dev->lock);
	cur = *cxfw_cap_page(dev, t->cur);
	max = cxfw_cap_page(dev, t->max);
	for (i = 0; i < t->nwritable; i++) {
		const struct cxfw_cap_field *f = &t->writable[i];
		uint32_t v = CXIB_GET(set, f->dw, f->hi, f->lo);
		uint32_t m = CXIB_GET(max->dw, f->dw, f->hi, f->lo);

		if (!cxfw_cap_value_ok(f, v, m)) {
			pthread_mutex_unlock(&dev->lock);
			cxfw_log(dev, CXFW_LOG_ERR,
				 "cxfw: SET_HCA_CAP type %u: %s = %u cannot be honoured (max %u)",
				 t->type, f->name, v, m);
			return cxfw_fail(cmd, CXIB_CMD_STAT_BAD_PARAM,
					 CXFW_SYND(CXFW_SYND_BAD_PARAM, 4 * f->dw + (31 - f->hi) / 8));
		}
		CXIB_SET(cur.dw, f->dw, f->hi, f->lo, v);
	}
	*cxfw_cap_page(dev, t->cur) = cur;
	pthread_mutex_unlock(&dev->lock);
	return CXIB_CMD_STAT_OK;
}

uint8_t cxfw_cmd_init_hca(struct cxfw_dev *dev, struct cxfw_cmd *cmd)
{
	const struct cxib_init_hca_in *in = (const void *)cmd->in;
	uint32_t missing;

	/* sw_vhca_id needs hca_cap_2 and sw_owner_id needs its cap: both are 0 here */
	if (CXIB_GET(in, CXIB_INIT_HCA_IN_SW_VHCA_ID))
		return cxfw_fail(cmd, CXIB_CMD_STAT_BAD_PARAM, CXFW_SYND(CXFW_SYND_RESERVED, 3));

	pthread_mutex_lock(&dev->lock);
	missing = cxfw_pages_needed(dev);
	if (!missing) {
		dev->hca_state = CXFW_HCA_INITIALIZED;
		dev->runtime_extra = 0;		/* no QP exists yet */
		dev->live_qps = dev->peak_qps = 0;
	}
	pthread_mutex_unlock(&dev->lock);
	if (missing) {
		cxfw_log(dev, CXFW_LOG_ERR,
			 "cxfw: INIT_HCA without the pages it needs (%u missing; QUERY_PAGES init + MANAGE_PAGES give)",
			 missing);
		return cxfw_fail(cmd, CXIB_CMD_STAT_NO_RESOURCES,
				 CXFW_SYND(CXFW_SYND_PAGES, missing));
	}
	cxfw_log(dev, CXFW_LOG_INFO, "cxfw: HCA initialized");
	return CXIB_CMD_STAT_OK;
}

uint8_t cxfw_cmd_teardown_hca(struct cxfw_dev *dev, struct cxfw_cmd *cmd)
{
	const struct cxib_teardown_hca_in *in = (const void *)cmd->in;
	struct cxib_teardown_hca_out *out = (void *)cmd->out;
	uint32_t profile = CXIB_GET(in, CXIB_TEARDOWN_HCA_IN_PROFILE);
	unsigned int eqs = 0, uars = 0, i;

	/* fast teardown needs cap fast_teardown, which is 0 */
	if (profile != CXIB_TEARDOWN_HCA_PROFILE_GRACEFUL_CLOSE &&
	    profile != CXIB_TEARDOWN_HCA_PROFILE_FORCE_CLOSE)
		return cxfw_fail(cmd, CXIB_CMD_STAT_BAD_PARAM,
				 CXFW_SYND(CXFW_SYND_BAD_PARAM, profile));

	pthread_mutex_lock(&dev->lock);
	for (i = 0; i < CXFW_MAX_EQS; i++)
		eqs += dev->eqs[i].valid;
	for (i = 0; i < CXFW_NUM_UAR_PAGES / 64; i++)
		uars += (unsigned int)__builtin_popcountll(dev->uar_map[i]);
	cxfw_hca_release_resources(dev);
	dev->hca_state = CXFW_HCA_TORN_DOWN;
	pthread_mutex_unlock(&dev->lock);

	CXIB_SET(out, CXIB_TEARDOWN_HCA_OUT_STATE, CXIB_TEARDOWN_HCA_STATE_SUCCESS);
	if (eqs || uars)
		cxfw_log(dev, CXFW_LOG_INFO,
			 "cxfw: TEARDOWN_HCA closed %u EQ(s) and %u UAR(s) still open", eqs, uars);
	cxfw_log(dev, CXFW_LOG_INFO, "cxfw: HCA torn down (profile %u)", profile);
	return CXIB_CMD_STAT_OK;
}

uint8_t cxfw_cmd_query_adapter(struct cxfw_dev *dev, struct cxfw_cmd *cmd)
{
	struct cxib_query_adapter_out *out = (void *)cmd->out;
	static const char psid[CXIB_QUERY_ADAPTER_PSID_LEN] = CXFW_PSID;

	(void)dev;
	CXIB_SET(out, CXIB_QUERY_ADAPTER_OUT_IEEE_VENDOR_ID, CXFW_IEEE_VENDOR_ID);
	CXIB_SET(out, CXIB_QUERY_ADAPTER_OUT_VSD_VENDOR_ID, CXIB_PCI_VENDOR_ID);
	memcpy(cxfw_out_bytes(cmd, CXIB_QUERY_ADAPTER_OUT_PSID_OFFSET), psid, sizeof(psid));
	return CXIB_CMD_STAT_OK;
}

/* ---- UARs ----------------------------------------------------------------------------- */

uint8_t cxfw_cmd_alloc_uar(struct cxfw_dev *dev, struct cxfw_cmd *cmd)
{
	struct cxib_alloc_uar_out *out = (void *)cmd->out;
	uint32_t uar;

	pthread_mutex_lock(&dev->lock);
	for (uar = CXIB_FIRST_UAR_INDEX; uar < CXFW_NUM_UAR_PAGES; uar++)
		if (!cxfw_uar_allocated(dev, uar))
			break;
	if (uar < CXFW_NUM_UAR_PAGES)
		dev->uar_map[uar / 64] |= 1ull << (uar % 64);
	pthread_mutex_unlock(&dev->lock);

	if (uar >= CXFW_NUM_UAR_PAGES)
		return cxfw_fail(cmd, CXIB_CMD_STAT_NO_RESOURCES, CXFW_SYND(CXFW_SYND_NO_RES, 0));
	CXIB_SET(out, CXIB_ALLOC_UAR_OUT_UAR, uar);
	return CXIB_CMD_STAT_OK;
}

uint8_t cxfw_cmd_dealloc_uar(struct cxfw_dev *dev, struct cxfw_cmd *cmd)
{
	const struct cxib_dealloc_uar_in *in = (const void *)cmd->in;
	uint32_t uar = CXIB_GET(in, CXIB_DEALLOC_UAR_IN_UAR);
	unsigned int i;
	uint8_t st = CXIB_CMD_STAT_OK;

	if (uar < CXIB_FIRST_UAR_INDEX || uar >= CXFW_NUM_UAR_PAGES)
		return cxfw_fail(cmd, CXIB_CMD_STAT_BAD_INDEX, CXFW_SYND(CXFW_SYND_BAD_INDEX, uar));

	pthread_mutex_lock(&dev->lock);
	if (!cxfw_uar_allocated(dev, uar)) {
		st = cxfw_fail(cmd, CXIB_CMD_STAT_BAD_RES, CXFW_SYND(CXFW_SYND_BAD_RES, uar));
		goto out;
	}
	for (i = 0; i < CXFW_MAX_EQS; i++) {
		if (dev->eqs[i].valid && dev->eqs[i].uar == uar) {
			/* an EQ still rings its doorbells there */
			st = cxfw_fail(cmd, CXIB_CMD_STAT_RES_BUSY,
				       CXFW_SYND(CXFW_SYND_RES_BUSY, uar));
			goto out;
		}
	}
	dev->uar_map[uar / 64] &= ~(1ull << (uar % 64));
out:
	pthread_mutex_unlock(&dev->lock);
	return st;
}

uint8_t cxfw_cmd_nop(struct cxfw_dev *dev, struct cxfw_cmd *cmd)
{
	(void)dev;
	(void)cmd;
	return CXIB_CMD_STAT_OK;
}
