// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * cxfw performance management agent behind MAD_IFC (IBTA vol 1 ch. 16.1 "Performance
 * Management"; layouts in include/cxib/pma.h).  sma.c hands every PerfMgt (class 0x04) MAD
 * here; the answer reports the per-port counters wire.c keeps (struct cxfw_pma_counters).
 *
 * Attributes: ClassPortInfo (Get), PortCounters and PortCountersExtended (Get and Set).
 * MAD status: base or class version other than 1 → 0x0004; a method other than Get / Set
 * → 0x0008 (a response method is also flagged "drop": agents never answer responses);
 * any other attribute (PortSamplesControl, ...) or Set(ClassPortInfo) → 0x000c; a non-zero
 * attribute modifier or a PortSelect other than the receiving port → 0x001c.  AllPortSelect
 * is not advertised, so PortSelect 0xff is refused too: each port's PMA speaks for its own
 * port only (perfquery -a then asks port by port itself).
 *
 * Counters: the model keeps raw 64-bit totals; PortCounters shows each one saturated at its
 * field's maximum (never wrapped), PortCountersExtended the raw 64-bit value.  Both views
 * share the counters, so a reset through either resets the quantity for both.  A Set zeroes
 * exactly the counters its CounterSelect names, then answers like a Get.  Counters the
 * model has no source for (link recovery / downed, remote physical and
 * switch relay errors, transmit constraint errors, local link integrity, buffer overruns,
 * QP1Dropped, PortXmitWait) read 0 and are not advertised where a capability bit exists.
 * SymbolErrorCounter counts packets from the cable whose VCRC failed: bits the link
 * changed (a corruption fault, fault.c), each also in PortRcvErrors.
 */
#include <stddef.h>
#include <string.h>

#include "cxfw_priv.h"

#define CXFW_PMA_RESP_TIME_VALUE	3	/* 4.096 us << 3, as PortInfo.RespTimeValue */
/* Extended counters with the unicast / multicast packet counts; nothing else. */
#define CXFW_PMA_CAP_MASK		CXIB_PMA_CAP_EXT_WIDTH

static uint32_t cxfw_pma_sat(uint64_t v, uint32_t max)
{
	return v > max ? max : (uint32_t)v;
}

/* Write raw count @v into a narrower field, saturated at the field's largest value. */
#define CXFW_PMA_PUT(d, v, ...)							\
	CXIB_SET(d, __VA_ARGS__, cxfw_pma_sat((v), CXIB_FIELD_GET(__VA_ARGS__, UINT32_MAX)))

/* A CounterSelect bit and the raw counter it resets. */
struct cxfw_pma_sel {
	uint32_t bit;
	size_t off;		/* offsetof(struct cxfw_pma_counters, ...) */
};

#define CXFW_PMA_SEL(bit, field)	{ bit, offsetof(struct cxfw_pma_counters, field) }

/* PortCounters CounterSelect bits of counters the model keeps (the others reset nothing). */
static const struct cxfw_pma_sel cxfw_pma_pc_sel[] = {
	CXFW_PMA_SEL(CXIB_PMA_PC_SEL_SYMBOL_ERRORS, symbol_errors),
	CXFW_PMA_SEL(CXIB_PMA_PC_SEL_RCV_ERRORS, rcv_errors),
	CXFW_PMA_SEL(CXIB_PMA_PC_SEL_XMIT_DISCARDS, xmit_discards),
	CXFW_PMA_SEL(CXIB_PMA_PC_SEL_RCV_CONSTRAINT_ERRORS, rcv_constraint_errors),
	CXFW_PMA_SEL(CXIB_PMA_PC_SEL_VL15_DROPPED, vl15_dropped),
	CXFW_PMA_SEL(CXIB_PMA_PC_SEL_XMIT_DATA, xmit_data),
	CXFW_PMA_SEL(CXIB_PMA_PC_SEL_RCV_DATA, rcv_data),
	CXFW_PMA_SEL(CXIB_PMA_PC_SEL_XMIT_PKTS, xmit_pkts),
	CXFW_PMA_SEL(CXIB_PMA_PC_SEL_RCV_PKTS, rcv_pkts),
};

/* PortCountersExtended CounterSelect bits (all eight counters are kept). */
static const struct cxfw_pma_sel cxfw_pma_pce_sel[] = {
	CXFW_PMA_SEL(CXIB_PMA_PCE_SEL_XMIT_DATA, xmit_data),
	CXFW_PMA_SEL(CXIB_PMA_PCE_SEL_RCV_DATA, rcv_data),
	CXFW_PMA_SEL(CXIB_PMA_PCE_SEL_XMIT_PKTS, xmit_pkts),
	CXFW_PMA_SEL(CXIB_PMA_PCE_SEL_RCV_PKTS, rcv_pkts),
	CXFW_PMA_SEL(CXIB_PMA_PCE_SEL_UCAST_XMIT_PKTS, ucast_xmit_pkts),
	CXFW_PMA_SEL(CXIB_PMA_PCE_SEL_UCAST_RCV_PKTS, ucast_rcv_pkts),
	CXFW_PMA_SEL(CXIB_PMA_PCE_SEL_MCAST_XMIT_PKTS, mcast_xmit_pkts),
	CXFW_PMA_SEL(CXIB_PMA_PCE_SEL_MCAST_RCV_PKTS, mcast_rcv_pkts),
};

/* Zero the counters of @c that @sel selects in @tab.  Lock held. */
static void cxfw_pma_reset(struct cxfw_pma_counters *c, const struct cxfw_pma_sel *tab,
			   size_t n, uint32_t sel)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (sel & tab[i].bit)
			*(uint64_t *)(void *)((uint8_t *)c + tab[i].off) = 0;
}

static void cxfw_pma_class_port_info(__be32 *d)
{
	CXIB_SET(d, CXIB_PMA_CPI_BASE_VERSION, CXIB_MAD_BASE_VERSION_1);
	CXIB_SET(d, CXIB_PMA_CPI_CLASS_VERSION, CXIB_PMA_CLASS_VERSION);
	CXIB_SET(d, CXIB_PMA_CPI_CAPABILITY_MASK, CXFW_PMA_CAP_MASK);
	CXIB_SET(d, CXIB_PMA_CPI_CAPABILITY_MASK2, 0);
	CXIB_SET(d, CXIB_PMA_CPI_RESP_TIME_VALUE, CXFW_PMA_RESP_TIME_VALUE);
	/* no redirection, no traps: every redirect and trap field stays 0 */
}

/* Lock held. */
static void cxfw_pma_port_counters(const struct cxfw_pma_counters *c, __be32 *d)
{
	CXFW_PMA_PUT(d, c->symbol_errors, CXIB_PMA_PC_SYMBOL_ERRORS);
	CXFW_PMA_PUT(d, c->rcv_errors, CXIB_PMA_PC_RCV_ERRORS);
	CXFW_PMA_PUT(d, c->xmit_discards, CXIB_PMA_PC_XMIT_DISCARDS);
	CXFW_PMA_PUT(d, c->rcv_constraint_errors, CXIB_PMA_PC_RCV_CONSTRAINT_ERRORS);
	CXFW_PMA_PUT(d, c->vl15_dropped, CXIB_PMA_PC_VL15_DROPPED);
	CXFW_PMA_PUT(d, c->xmit_data, CXIB_PMA_PC_XMIT_DATA);
	CXFW_PMA_PUT(d, c->rcv_data, CXIB_PMA_PC_RCV_DATA);
	CXFW_PMA_PUT(d, c->xmit_pkts, CXIB_PMA_PC_XMIT_PKTS);
	CXFW_PMA_PUT(d, c->rcv_pkts, CXIB_PMA_PC_RCV_PKTS);
}

/* Lock held. */
static void cxfw_pma_port_counters_ext(const struct cxfw_pma_counters *c, __be32 *d)
{
	CXIB_SET64(d, CXIB_PMA_PCE_XMIT_DATA, c->xmit_data);
	CXIB_SET64(d, CXIB_PMA_PCE_RCV_DATA, c->rcv_data);
	CXIB_SET64(d, CXIB_PMA_PCE_XMIT_PKTS, c->xmit_pkts);
	CXIB_SET64(d, CXIB_PMA_PCE_RCV_PKTS, c->rcv_pkts);
	CXIB_SET64(d, CXIB_PMA_PCE_UCAST_XMIT_PKTS, c->ucast_xmit_pkts);
	CXIB_SET64(d, CXIB_PMA_PCE_UCAST_RCV_PKTS, c->ucast_rcv_pkts);
	CXIB_SET64(d, CXIB_PMA_PCE_MCAST_XMIT_PKTS, c->mcast_xmit_pkts);
	CXIB_SET64(d, CXIB_PMA_PCE_MCAST_RCV_PKTS, c->mcast_rcv_pkts);
}

uint16_t cxfw_pma_process(struct cxfw_dev *dev, unsigned int port, const uint8_t *req,
			  uint8_t *resp, bool *drop)
{
	const uint8_t *rd = req + CXIB_PMA_DATA_OFFSET;
	__be32 *d = (__be32 *)(void *)(resp + CXIB_PMA_DATA_OFFSET);
	uint32_t method = CXIB_GET(req, CXIB_MAD_METHOD);
	uint32_t attr = CXIB_GET(req, CXIB_MAD_ATTR_ID);
	uint32_t sel, sel2, port_select;
	struct cxfw_pma_counters *c;
	bool ext;

	*drop = false;
	if (port < 1 || port > dev->cfg.num_ports)
		return CXIB_MAD_STATUS_INVALID_ATTR_VALUE;
	if (CXIB_GET(req, CXIB_MAD_BASE_VERSION) != CXIB_MAD_BASE_VERSION_1 ||
	    CXIB_GET(req, CXIB_MAD_CLASS_VERSION) != CXIB_PMA_CLASS_VERSION)
		return CXIB_MAD_STATUS_BAD_VERSION;
	if (method & CXIB_MGMT_METHOD_RESP) {
		*drop = true;
		return CXIB_MAD_STATUS_UNSUPPORTED_METHOD;
	}
	if (method != CXIB_MGMT_METHOD_GET && method != CXIB_MGMT_METHOD_SET)
		return CXIB_MAD_STATUS_UNSUPPORTED_METHOD;

	switch (attr) {
	case CXIB_PMA_ATTR_CLASS_PORT_INFO:
		if (method != CXIB_MGMT_METHOD_GET)
			return CXIB_MAD_STATUS_UNSUPPORTED_METHOD_ATTR;
		if (CXIB_GET(req, CXIB_MAD_ATTR_MOD))
			return CXIB_MAD_STATUS_INVALID_ATTR_VALUE;
		memset(d, 0, CXIB_PMA_DATA_SIZE);
		cxfw_pma_class_port_info(d);
		return CXIB_MAD_STATUS_SUCCESS;
	case CXIB_PMA_ATTR_PORT_COUNTERS:
		ext = false;
		port_select = CXIB_GET(rd, CXIB_PMA_PC_PORT_SELECT);
		sel = CXIB_GET(rd, CXIB_PMA_PC_COUNTER_SELECT);
		sel2 = CXIB_GET(rd, CXIB_PMA_PC_COUNTER_SELECT2);
		break;
	case CXIB_PMA_ATTR_PORT_COUNTERS_EXT:
		ext = true;
		port_select = CXIB_GET(rd, CXIB_PMA_PCE_PORT_SELECT);
		sel = CXIB_GET(rd, CXIB_PMA_PCE_COUNTER_SELECT);
		sel2 = CXIB_GET(rd, CXIB_PMA_PCE_COUNTER_SELECT2);
		break;
	default:
		return CXIB_MAD_STATUS_UNSUPPORTED_METHOD_ATTR;
	}
	if (CXIB_GET(req, CXIB_MAD_ATTR_MOD) || port_select != port)
		return CXIB_MAD_STATUS_INVALID_ATTR_VALUE;

	/* the answer echoes PortSelect and the selects; counters follow */
	memset(d, 0, CXIB_PMA_DATA_SIZE);
	if (ext) {
		CXIB_SET(d, CXIB_PMA_PCE_PORT_SELECT, port_select);
		CXIB_SET(d, CXIB_PMA_PCE_COUNTER_SELECT, sel);
		CXIB_SET(d, CXIB_PMA_PCE_COUNTER_SELECT2, sel2);
	} else {
		CXIB_SET(d, CXIB_PMA_PC_PORT_SELECT, port_select);
		CXIB_SET(d, CXIB_PMA_PC_COUNTER_SELECT, sel);
		CXIB_SET(d, CXIB_PMA_PC_COUNTER_SELECT2, sel2);
	}
	pthread_mutex_lock(&dev->lock);
	c = &dev->ports[port - 1].pma;
	/* CounterSelect2 names only counters the model does not keep: nothing to reset */
	if (method == CXIB_MGMT_METHOD_SET && ext)
		cxfw_pma_reset(c, cxfw_pma_pce_sel,
			       sizeof(cxfw_pma_pce_sel) / sizeof(cxfw_pma_pce_sel[0]), sel);
	else if (method == CXIB_MGMT_METHOD_SET)
		cxfw_pma_reset(c, cxfw_pma_pc_sel,
			       sizeof(cxfw_pma_pc_sel) / sizeof(cxfw_pma_pc_sel[0]), sel);
	if (ext)
		cxfw_pma_port_counters_ext(c, d);
	else
		cxfw_pma_port_counters(c, d);
	pthread_mutex_unlock(&dev->lock);
	return CXIB_MAD_STATUS_SUCCESS;
}
