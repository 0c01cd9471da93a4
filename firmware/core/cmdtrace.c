// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * cxfw command trace: one line per executed command, handed to the platform's cmd_trace
 * callback (the QEMU device writes them to the file of its cmd-trace property).  It is
 * the model's account of what a driver asked for, used to compare two drivers' command
 * streams on the same model (scripts/cmdtrace, Documentation/silicon.md).
 *
 * A line is
 *
 *   <seq> <usec> <NAME> op_mod=0x<m> status=0x<ss> syndrome=0x<8 hex> [field=value ...]
 *
 * (NAME is 0x<opcode> for an opcode the model does not know).
 *
 * seq numbers the lines from 0 since the device was created (resets do not restart it),
 * usec is the model's clock since creation.  The fields are the input fields the model
 * decodes for that command, named as in the PRM; each value says what kind of field it is:
 *
 *   name=0x1f     a mode, flag or type: two drivers asking for the same thing agree on it
 *   name=~0x1f    a size, count or layout: follows from the request and from where the
 *                 memory lies (queue depth, page count, page size and offset)
 *   name=#0x1f    a reference: an object number, key, UAR page or DMA address; only
 *                 whether it is zero says something across drivers
 *
 * Commands with no table here carry only the header fields.  A field that lies beyond the
 * command's input_length is left out (the command has already failed BAD_INPUT_LEN then).
 */
#include <inttypes.h>
#include <stdio.h>

#include "cxfw_priv.h"

enum cxfw_tf_kind {
	CXFW_TF_VAL,	/* printed plain */
	CXFW_TF_SIZE,	/* printed with '~' */
	CXFW_TF_REF,	/* printed with '#' */
};

/* One decoded input field: @base is the byte offset of its structure in the input. */
struct cxfw_tf {
	const char *name;
	uint16_t base;
	uint8_t kind;
	uint8_t dw, hi, lo;	/* hi 63: a 64-bit field (CXIB_GET64) */
	int16_t op_mod;		/* only for this op_mod; -1 any */
};

#define TF(n, k, base, ...)	{ n, base, CXFW_TF_##k, CXIB_FIELD_POS(__VA_ARGS__), -1 }
#define TFM(m, n, k, base, ...)	{ n, base, CXFW_TF_##k, CXIB_FIELD_POS(__VA_ARGS__), m }

/* Structures' offsets in the command inputs, from include/cxib. */
#define IN	0
#define EQC	CXIB_CREATE_EQ_IN_EQC_OFFSET
#define CQC	CXIB_CREATE_CQ_IN_CQC_OFFSET
#define MKC	CXIB_CREATE_MKEY_IN_MKC_OFFSET
#define QPC	CXIB_CREATE_QP_IN_QPC_OFFSET
#define MQPC	CXIB_QP_MODIFY_IN_QPC_OFFSET
#define PATH	(CXIB_QP_MODIFY_IN_QPC_OFFSET + CXIB_QPC_PRIMARY_ADDRESS_PATH_OFFSET)
#define SRQC	CXIB_CREATE_SRQ_IN_SRQC_OFFSET
#define XSRQC	CXIB_CREATE_XRC_SRQ_IN_XRC_SRQC_OFFSET
#define RMPC	CXIB_CREATE_RMP_IN_RMPC_OFFSET
#define RMPWQ	(CXIB_CREATE_RMP_IN_RMPC_OFFSET + CXIB_RMPC_WQ_OFFSET)
#define MRMPC	CXIB_MODIFY_RMP_IN_RMPC_OFFSET
#define MRMPWQ	(CXIB_MODIFY_RMP_IN_RMPC_OFFSET + CXIB_RMPC_WQ_OFFSET)
#define CAP	CXIB_SET_HCA_CAP_IN_CAPABILITY_OFFSET
#define MAD	CXIB_MAD_IFC_IN_MAD_OFFSET
#define CAP_GENERAL	CXIB_HCA_CAP_OP_MOD(CXIB_HCA_CAP_TYPE_GENERAL, 0)
#define CAP_ATOMIC	CXIB_HCA_CAP_OP_MOD(CXIB_HCA_CAP_TYPE_ATOMIC, 0)

static const struct cxfw_tf tf_function[] = {
	TF("function_id", VAL, IN, CXIB_ENABLE_HCA_IN_FUNCTION_ID),
};

static const struct cxfw_tf tf_manage_pages[] = {
	TF("function_id", VAL, IN, CXIB_MANAGE_PAGES_IN_FUNCTION_ID),
	TF("input_num_entries", SIZE, IN, CXIB_MANAGE_PAGES_IN_INPUT_NUM_ENTRIES),
};

static const struct cxfw_tf tf_set_issi[] = {
	TF("current_issi", VAL, IN, CXIB_SET_ISSI_IN_CURRENT_ISSI),
};

/* The fields SET_HCA_CAP may change (hca.c's writable lists). */
static const struct cxfw_tf tf_set_hca_cap[] = {
	TFM(CAP_GENERAL, "pkey_table_size", VAL, CAP, CXIB_HCA_CAP_PKEY_TABLE_SIZE),
	TFM(CAP_GENERAL, "log_max_qp", VAL, CAP, CXIB_HCA_CAP_LOG_MAX_QP),
	TFM(CAP_GENERAL, "cmdif_checksum", VAL, CAP, CXIB_HCA_CAP_CMDIF_CHECKSUM),
	TFM(CAP_GENERAL, "drain_sigerr", VAL, CAP, CXIB_HCA_CAP_DRAIN_SIGERR),
	TFM(CAP_GENERAL, "log_uar_page_sz", VAL, CAP, CXIB_HCA_CAP_LOG_UAR_PAGE_SZ),
	TFM(CAP_GENERAL, "uar_4k", VAL, CAP, CXIB_HCA_CAP_UAR_4K),
	TFM(CAP_GENERAL, "cache_line_128byte", VAL, CAP, CXIB_HCA_CAP_CACHE_LINE_128BYTE),
	TFM(CAP_GENERAL, "dct", VAL, CAP, CXIB_HCA_CAP_DCT),
	TFM(CAP_GENERAL, "roce", VAL, CAP, CXIB_HCA_CAP_ROCE),
	TFM(CAP_GENERAL, "release_all_pages", VAL, CAP, CXIB_HCA_CAP_RELEASE_ALL_PAGES),
	TFM(CAP_GENERAL, "mkey_by_name", VAL, CAP, CXIB_HCA_CAP_MKEY_BY_NAME),
	TFM(CAP_GENERAL, "num_vhca_ports", VAL, CAP, CXIB_HCA_CAP_NUM_VHCA_PORTS),
	TFM(CAP_GENERAL, "atomic", VAL, CAP, CXIB_HCA_CAP_ATOMIC),
	TFM(CAP_GENERAL, "cqe_version", VAL, CAP, CXIB_HCA_CAP_CQE_VERSION),
	TFM(CAP_GENERAL, "pg", VAL, CAP, CXIB_HCA_CAP_PG),
	TFM(CAP_ATOMIC, "atomic_req_8B_endianness_mode", VAL, CAP,
	    CXIB_ATOMIC_CAP_REQ_8B_ENDIANNESS_MODE),
};

static const struct cxfw_tf tf_teardown_hca[] = {
	TF("profile", VAL, IN, CXIB_TEARDOWN_HCA_IN_PROFILE),
};

static const struct cxfw_tf tf_create_eq[] = {
	TF("st", VAL, EQC, CXIB_EQC_ST),
	TF("oi", VAL, EQC, CXIB_EQC_OI),
	TF("ec", VAL, EQC, CXIB_EQC_EC),
	TF("page_offset", SIZE, EQC, CXIB_EQC_PAGE_OFFSET),
	TF("log_eq_size", SIZE, EQC, CXIB_EQC_LOG_EQ_SIZE),
	TF("uar_page", REF, EQC, CXIB_EQC_UAR_PAGE),
	TF("intr", REF, EQC, CXIB_EQC_INTR),
	TF("log_page_size", SIZE, EQC, CXIB_EQC_LOG_PAGE_SIZE),
	TF("event_bitmask", VAL, IN, CXIB_CREATE_EQ_IN_EVENT_BITMASK),
};

static const struct cxfw_tf tf_create_cq[] = {
	TF("cqe_sz", VAL, CQC, CXIB_CQC_CQE_SZ),
	TF("cc", VAL, CQC, CXIB_CQC_CC),
	TF("scqe_break_moderation_en", VAL, CQC, CXIB_CQC_SCQE_BREAK_MODERATION_EN),
	TF("oi", VAL, CQC, CXIB_CQC_OI),
	TF("cq_period_mode", VAL, CQC, CXIB_CQC_CQ_PERIOD_MODE),
	TF("cqe_comp_en", VAL, CQC, CXIB_CQC_CQE_COMP_EN),
	TF("st", VAL, CQC, CXIB_CQC_ST),
	TF("page_offset", SIZE, CQC, CXIB_CQC_PAGE_OFFSET),
	TF("log_cq_size", SIZE, CQC, CXIB_CQC_LOG_CQ_SIZE),
	TF("uar_page", REF, CQC, CXIB_CQC_UAR_PAGE),
	TF("cq_period", VAL, CQC, CXIB_CQC_CQ_PERIOD),
	TF("cq_max_count", VAL, CQC, CXIB_CQC_CQ_MAX_COUNT),
	TF("c_eqn", REF, CQC, CXIB_CQC_C_EQN),
	TF("log_page_size", SIZE, CQC, CXIB_CQC_LOG_PAGE_SIZE),
	TF("dbr_addr", REF, CQC, CXIB_CQC_DBR_ADDR),
	TF("cq_umem_valid", VAL, IN, CXIB_CREATE_CQ_IN_CQ_UMEM_VALID),
};

static const struct cxfw_tf tf_create_mkey[] = {
	TF("pg_access", VAL, IN, CXIB_CREATE_MKEY_IN_PG_ACCESS),
	TF("mkey_umem_valid", VAL, IN, CXIB_CREATE_MKEY_IN_MKEY_UMEM_VALID),
	TF("translations_octword_actual_size", SIZE, IN,
	   CXIB_CREATE_MKEY_IN_TRANSLATIONS_OCTWORD_ACTUAL_SIZE),
	TF("free", VAL, MKC, CXIB_MKC_FREE),
	TF("access_mode_4_2", VAL, MKC, CXIB_MKC_ACCESS_MODE_4_2),
	TF("access_mode_1_0", VAL, MKC, CXIB_MKC_ACCESS_MODE_1_0),
	TF("relaxed_ordering_write", VAL, MKC, CXIB_MKC_RELAXED_ORDERING_WRITE),
	TF("relaxed_ordering_read", VAL, MKC, CXIB_MKC_RELAXED_ORDERING_READ),
	TF("umr_en", VAL, MKC, CXIB_MKC_UMR_EN),
	TF("a", VAL, MKC, CXIB_MKC_A),
	TF("rw", VAL, MKC, CXIB_MKC_RW),
	TF("rr", VAL, MKC, CXIB_MKC_RR),
	TF("lw", VAL, MKC, CXIB_MKC_LW),
	TF("lr", VAL, MKC, CXIB_MKC_LR),
	TF("qpn", VAL, MKC, CXIB_MKC_QPN),
	TF("mkey_7_0", REF, MKC, CXIB_MKC_MKEY_7_0),
	TF("length64", VAL, MKC, CXIB_MKC_LENGTH64),
	TF("en_rinval", VAL, MKC, CXIB_MKC_EN_RINVAL),
	TF("pd", REF, MKC, CXIB_MKC_PD),
	TF("start_addr", REF, MKC, CXIB_MKC_START_ADDR),
	TF("len", SIZE, MKC, CXIB_MKC_LEN),
	TF("bsf_octword_size", SIZE, MKC, CXIB_MKC_BSF_OCTWORD_SIZE),
	TF("translations_octword_size", SIZE, MKC, CXIB_MKC_TRANSLATIONS_OCTWORD_SIZE),
	TF("log_page_size", SIZE, MKC, CXIB_MKC_LOG_PAGE_SIZE),
};

static const struct cxfw_tf tf_create_qp[] = {
	TF("qpc_ext", VAL, IN, CXIB_CREATE_QP_IN_QPC_EXT),
	TF("input_qpn", REF, IN, CXIB_CREATE_QP_IN_INPUT_QPN),
	TF("opt_param_mask", VAL, IN, CXIB_CREATE_QP_IN_OPT_PARAM_MASK),
	TF("ece", VAL, IN, CXIB_CREATE_QP_IN_ECE),
	TF("st", VAL, QPC, CXIB_QPC_ST),
	TF("pm_state", VAL, QPC, CXIB_QPC_PM_STATE),
	TF("end_padding_mode", VAL, QPC, CXIB_QPC_END_PADDING_MODE),
	TF("wq_signature", VAL, QPC, CXIB_QPC_WQ_SIGNATURE),
	TF("block_lb_mc", VAL, QPC, CXIB_QPC_BLOCK_LB_MC),
	TF("latency_sensitive", VAL, QPC, CXIB_QPC_LATENCY_SENSITIVE),
	TF("drain_sigerr", VAL, QPC, CXIB_QPC_DRAIN_SIGERR),
	TF("pd", REF, QPC, CXIB_QPC_PD),
	TF("mtu", VAL, QPC, CXIB_QPC_MTU),
	TF("log_msg_max", VAL, QPC, CXIB_QPC_LOG_MSG_MAX),
	TF("log_rq_size", SIZE, QPC, CXIB_QPC_LOG_RQ_SIZE),
	TF("log_rq_stride", SIZE, QPC, CXIB_QPC_LOG_RQ_STRIDE),
	TF("no_sq", VAL, QPC, CXIB_QPC_NO_SQ),
	TF("log_sq_size", SIZE, QPC, CXIB_QPC_LOG_SQ_SIZE),
	TF("retry_mode", VAL, QPC, CXIB_QPC_RETRY_MODE),
	TF("ts_format", VAL, QPC, CXIB_QPC_TS_FORMAT),
	TF("rlky", VAL, QPC, CXIB_QPC_RLKY),
	TF("counter_set_id", REF, QPC, CXIB_QPC_COUNTER_SET_ID),
	TF("uar_page", REF, QPC, CXIB_QPC_UAR_PAGE),
	TF("user_index", REF, QPC, CXIB_QPC_USER_INDEX),
	TF("log_page_size", SIZE, QPC, CXIB_QPC_LOG_PAGE_SIZE),
	TF("cqn_snd", REF, QPC, CXIB_QPC_CQN_SND),
	TF("page_offset", SIZE, QPC, CXIB_QPC_PAGE_OFFSET),
	TF("xrcd", REF, QPC, CXIB_QPC_XRCD),
	TF("cqn_rcv", REF, QPC, CXIB_QPC_CQN_RCV),
	TF("dbr_addr", REF, QPC, CXIB_QPC_DBR_ADDR),
	TF("rq_type", VAL, QPC, CXIB_QPC_RQ_TYPE),
	TF("srqn_rmpn_xrqn", REF, QPC, CXIB_QPC_SRQN_RMPN_XRQN),
	TF("cs_req", VAL, QPC, CXIB_QPC_CS_REQ),
	TF("cs_res", VAL, QPC, CXIB_QPC_CS_RES),
	TF("dbr_umem_valid", VAL, QPC, CXIB_QPC_DBR_UMEM_VALID),
	TF("wq_umem_valid", VAL, IN, CXIB_CREATE_QP_IN_WQ_UMEM_VALID),
};

/* RST2INIT .. SQD_RTS: the transition's optional parameters and the context it sets. */
static const struct cxfw_tf tf_modify_qp[] = {
	TF("opt_param_mask", VAL, IN, CXIB_QP_MODIFY_IN_OPT_PARAM_MASK),
	TF("ece", VAL, IN, CXIB_QP_MODIFY_IN_ECE),
	TF("pm_state", VAL, MQPC, CXIB_QPC_PM_STATE),
	TF("mtu", VAL, MQPC, CXIB_QPC_MTU),
	TF("log_msg_max", VAL, MQPC, CXIB_QPC_LOG_MSG_MAX),
	TF("counter_set_id", REF, MQPC, CXIB_QPC_COUNTER_SET_ID),
	TF("remote_qpn", REF, MQPC, CXIB_QPC_REMOTE_QPN),
	TF("pkey_index", VAL, PATH, CXIB_ADS_PKEY_INDEX),
	TF("grh", VAL, PATH, CXIB_ADS_GRH),
	TF("mlid", VAL, PATH, CXIB_ADS_MLID),
	TF("rlid", REF, PATH, CXIB_ADS_RLID),
	TF("ack_timeout", VAL, PATH, CXIB_ADS_ACK_TIMEOUT),
	TF("src_addr_index", VAL, PATH, CXIB_ADS_SRC_ADDR_INDEX),
	TF("stat_rate", VAL, PATH, CXIB_ADS_STAT_RATE),
	TF("hop_limit", VAL, PATH, CXIB_ADS_HOP_LIMIT),
	TF("sl", VAL, PATH, CXIB_ADS_SL),
	TF("vhca_port_num", VAL, PATH, CXIB_ADS_VHCA_PORT_NUM),
	TF("log_ack_req_freq", VAL, MQPC, CXIB_QPC_LOG_ACK_REQ_FREQ),
	TF("log_sra_max", VAL, MQPC, CXIB_QPC_LOG_SRA_MAX),
	TF("retry_count", VAL, MQPC, CXIB_QPC_RETRY_COUNT),
	TF("rnr_retry", VAL, MQPC, CXIB_QPC_RNR_RETRY),
	TF("fre", VAL, MQPC, CXIB_QPC_FRE),
	TF("next_send_psn", REF, MQPC, CXIB_QPC_NEXT_SEND_PSN),
	TF("log_rra_max", VAL, MQPC, CXIB_QPC_LOG_RRA_MAX),
	TF("atomic_mode", VAL, MQPC, CXIB_QPC_ATOMIC_MODE),
	TF("rre", VAL, MQPC, CXIB_QPC_RRE),
	TF("rwe", VAL, MQPC, CXIB_QPC_RWE),
	TF("rae", VAL, MQPC, CXIB_QPC_RAE),
	TF("min_rnr_nak", VAL, MQPC, CXIB_QPC_MIN_RNR_NAK),
	TF("next_rcv_psn", REF, MQPC, CXIB_QPC_NEXT_RCV_PSN),
	TF("q_key", REF, MQPC, CXIB_QPC_Q_KEY),
};

static const struct cxfw_tf tf_create_srq[] = {
	TF("log_srq_size", SIZE, SRQC, CXIB_SRQC_LOG_SRQ_SIZE),
	TF("wq_signature", VAL, SRQC, CXIB_SRQC_WQ_SIGNATURE),
	TF("cont_srq", VAL, SRQC, CXIB_SRQC_CONT_SRQ),
	TF("rlky", VAL, SRQC, CXIB_SRQC_RLKY),
	TF("log_rq_stride", SIZE, SRQC, CXIB_SRQC_LOG_RQ_STRIDE),
	TF("xrcd", REF, SRQC, CXIB_SRQC_XRCD),
	TF("page_offset", SIZE, SRQC, CXIB_SRQC_PAGE_OFFSET),
	TF("cqn", REF, SRQC, CXIB_SRQC_CQN),
	TF("log_page_size", SIZE, SRQC, CXIB_SRQC_LOG_PAGE_SIZE),
	TF("pd", REF, SRQC, CXIB_SRQC_PD),
	TF("lwm", SIZE, SRQC, CXIB_SRQC_LWM),
	TF("dbr_addr", REF, SRQC, CXIB_SRQC_DBR_ADDR),
};

static const struct cxfw_tf tf_create_xrc_srq[] = {
	TF("log_xrc_srq_size", SIZE, XSRQC, CXIB_XRC_SRQC_LOG_XRC_SRQ_SIZE),
	TF("wq_signature", VAL, XSRQC, CXIB_XRC_SRQC_WQ_SIGNATURE),
	TF("cont_srq", VAL, XSRQC, CXIB_XRC_SRQC_CONT_SRQ),
	TF("rlky", VAL, XSRQC, CXIB_XRC_SRQC_RLKY),
	TF("basic_cyclic_rcv_wqe", VAL, XSRQC, CXIB_XRC_SRQC_BASIC_CYCLIC_RCV_WQE),
	TF("log_rq_stride", SIZE, XSRQC, CXIB_XRC_SRQC_LOG_RQ_STRIDE),
	TF("xrcd", REF, XSRQC, CXIB_XRC_SRQC_XRCD),
	TF("page_offset", SIZE, XSRQC, CXIB_XRC_SRQC_PAGE_OFFSET),
	TF("cqn", REF, XSRQC, CXIB_XRC_SRQC_CQN),
	TF("user_index_equal_xrc_srqn", VAL, XSRQC, CXIB_XRC_SRQC_USER_INDEX_EQUAL_XRC_SRQN),
	TF("log_page_size", SIZE, XSRQC, CXIB_XRC_SRQC_LOG_PAGE_SIZE),
	TF("user_index", REF, XSRQC, CXIB_XRC_SRQC_USER_INDEX),
	TF("pd", REF, XSRQC, CXIB_XRC_SRQC_PD),
	TF("lwm", SIZE, XSRQC, CXIB_XRC_SRQC_LWM),
	TF("db_record_addr", REF, XSRQC, CXIB_XRC_SRQC_DB_RECORD_ADDR),
};

/* CREATE_RMP and MODIFY_RMP: the RMP context and its work queue. */
#define TF_RMP(ctx, wq)							\
	TF("state", VAL, ctx, CXIB_RMPC_STATE),				\
	TF("basic_cyclic_rcv_wqe", VAL, ctx, CXIB_RMPC_BASIC_CYCLIC_RCV_WQE), \
	TF("wq_type", VAL, wq, CXIB_WQC_WQ_TYPE),			\
	TF("wq_signature", VAL, wq, CXIB_WQC_WQ_SIGNATURE),		\
	TF("page_offset", SIZE, wq, CXIB_WQC_PAGE_OFFSET),		\
	TF("lwm", SIZE, wq, CXIB_WQC_LWM),				\
	TF("pd", REF, wq, CXIB_WQC_PD),					\
	TF("dbr_addr", REF, wq, CXIB_WQC_DBR_ADDR),			\
	TF("log_wq_stride", SIZE, wq, CXIB_WQC_LOG_WQ_STRIDE),		\
	TF("log_wq_pg_sz", SIZE, wq, CXIB_WQC_LOG_WQ_PG_SZ),		\
	TF("log_wq_sz", SIZE, wq, CXIB_WQC_LOG_WQ_SZ)

static const struct cxfw_tf tf_create_rmp[] = {
	TF_RMP(RMPC, RMPWQ),
};

static const struct cxfw_tf tf_modify_rmp[] = {
	TF("rmp_state", VAL, IN, CXIB_MODIFY_RMP_IN_RMP_STATE),
	TF("rmpn", REF, IN, CXIB_MODIFY_RMP_IN_RMPN),
	TF("bitmask", VAL, IN, CXIB_MODIFY_RMP_IN_BITMASK),
	TF_RMP(MRMPC, MRMPWQ),
};

static const struct cxfw_tf tf_arm_rq[] = {
	TF("srq_number", REF, IN, CXIB_ARM_RQ_IN_SRQ_NUMBER),
	TF("lwm", SIZE, IN, CXIB_ARM_RQ_IN_LWM),
};

static const struct cxfw_tf tf_access_reg[] = {
	TF("register_id", VAL, IN, CXIB_ACCESS_REG_IN_REGISTER_ID),
	TF("argument", VAL, IN, CXIB_ACCESS_REG_IN_ARGUMENT),
};

static const struct cxfw_tf tf_mad_ifc[] = {
	TF("port", VAL, IN, CXIB_MAD_IFC_IN_PORT),
	TF("remote_lid", REF, IN, CXIB_MAD_IFC_IN_REMOTE_LID),
	TF("mgmt_class", VAL, MAD, CXIB_MAD_MGMT_CLASS),
	TF("method", VAL, MAD, CXIB_MAD_METHOD),
	TF("attr_id", VAL, MAD, CXIB_MAD_ATTR_ID),
};

static const struct cxfw_tf tf_hca_vport[] = {
	TF("other_vport", VAL, IN, CXIB_QUERY_HCA_VPORT_CONTEXT_IN_OTHER_VPORT),
	TF("port_num", VAL, IN, CXIB_QUERY_HCA_VPORT_CONTEXT_IN_PORT_NUM),
	TF("vport_number", VAL, IN, CXIB_QUERY_HCA_VPORT_CONTEXT_IN_VPORT_NUMBER),
};

static const struct cxfw_tf tf_query_q_counter[] = {
	TF("clear", VAL, IN, CXIB_QUERY_Q_COUNTER_IN_CLEAR),
	TF("aggregate", VAL, IN, CXIB_QUERY_Q_COUNTER_IN_AGGREGATE),
	TF("counter_set_id", REF, IN, CXIB_QUERY_Q_COUNTER_IN_COUNTER_SET_ID),
};

struct cxfw_trace_cmd {
	uint16_t opcode;
	const struct cxfw_tf *f;
	size_t n;
};

#define TCMD(op, t)	{ CXIB_CMD_OP_##op, t, sizeof(t) / sizeof((t)[0]) }

static const struct cxfw_trace_cmd cxfw_trace_cmds[] = {
	TCMD(ENABLE_HCA, tf_function),
	TCMD(DISABLE_HCA, tf_function),
	TCMD(QUERY_PAGES, tf_function),
	TCMD(MANAGE_PAGES, tf_manage_pages),
	TCMD(SET_ISSI, tf_set_issi),
	TCMD(SET_HCA_CAP, tf_set_hca_cap),
	TCMD(TEARDOWN_HCA, tf_teardown_hca),
	TCMD(CREATE_EQ, tf_create_eq),
	TCMD(CREATE_CQ, tf_create_cq),
	TCMD(CREATE_MKEY, tf_create_mkey),
	TCMD(CREATE_QP, tf_create_qp),
	TCMD(RST2INIT_QP, tf_modify_qp),
	TCMD(INIT2INIT_QP, tf_modify_qp),
	TCMD(INIT2RTR_QP, tf_modify_qp),
	TCMD(RTR2RTS_QP, tf_modify_qp),
	TCMD(RTS2RTS_QP, tf_modify_qp),
	TCMD(SQERR2RTS_QP, tf_modify_qp),
	TCMD(SQD_RTS_QP, tf_modify_qp),
	TCMD(CREATE_SRQ, tf_create_srq),
	TCMD(CREATE_XRC_SRQ, tf_create_xrc_srq),
	TCMD(CREATE_RMP, tf_create_rmp),
	TCMD(MODIFY_RMP, tf_modify_rmp),
	TCMD(ARM_RQ, tf_arm_rq),
	TCMD(ACCESS_REG, tf_access_reg),
	TCMD(MAD_IFC, tf_mad_ifc),
	TCMD(QUERY_HCA_VPORT_CONTEXT, tf_hca_vport),
	TCMD(QUERY_Q_COUNTER, tf_query_q_counter),
};

static const struct cxfw_trace_cmd *cxfw_trace_lookup(uint16_t opcode)
{
	size_t i;

	for (i = 0; i < sizeof(cxfw_trace_cmds) / sizeof(cxfw_trace_cmds[0]); i++)
		if (cxfw_trace_cmds[i].opcode == opcode)
			return &cxfw_trace_cmds[i];
	return NULL;
}

void cxfw_cmd_trace(struct cxfw_dev *dev, const struct cxfw_cmd *cmd, const char *name,
		    uint8_t status)
{
	static const char *const prefix[] = { [CXFW_TF_VAL] = "", [CXFW_TF_SIZE] = "~",
					      [CXFW_TF_REF] = "#" };
	const struct cxfw_trace_cmd *t;
	char line[CXFW_TRACE_LINE_MAX];
	struct cxfw_text tx = { .buf = line, .len = sizeof(line) };
	uint64_t usec;
	size_t i;

	if (!dev->plat.cmd_trace)
		return;
	usec = cxfw_elapsed_ns(cxfw_now(dev), dev->power_on_ns) / 1000;
	cxfw_textf(&tx, "%" PRIu64 " %" PRIu64 " ", dev->cmd_trace_seq++, usec);
	if (name)
		cxfw_textf(&tx, "%s", name);
	else
		cxfw_textf(&tx, "0x%04x", cmd->opcode);
	cxfw_textf(&tx, " op_mod=0x%x status=0x%02x syndrome=0x%08x", cmd->op_mod, status,
		   cmd->syndrome);
	t = cxfw_trace_lookup(cmd->opcode);
	for (i = 0; t && i < t->n; i++) {
		const struct cxfw_tf *f = &t->f[i];
		const uint8_t *p = cxfw_in_bytes(cmd, f->base);
		uint32_t end = f->base + 4u * f->dw + (f->hi == 63 ? 8u : 4u);
		uint64_t v;

		if (end > cmd->inlen || (f->op_mod >= 0 && f->op_mod != cmd->op_mod))
			continue;
		if (f->hi == 63)
			v = CXIB_GET64(p, f->dw, 63, 0);
		else
			v = CXIB_GET(p, f->dw, f->hi, f->lo);
		cxfw_textf(&tx, " %s=%s0x%" PRIx64, f->name, prefix[f->kind], v);
	}
	dev->plat.cmd_trace(dev->plat.opaque, line);
}
