// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * cxfw ports: logical port state and port change events.  What the driver reads and writes
 * of a port through commands (ACCESS_REG, the HCA-vport queries) is in vport.c; what the
 * subnet manager reads and writes (PortInfo and the tables) in sma.c.
 *
 * Port state follows the cable (cxfw_port_link): link down -> PortState DOWN, PhysState
 * POLLING; link up -> PhysState LINK_UP and PortState INIT, where the port waits for a
 * subnet manager to configure it and move it through ARMED to ACTIVE with SubnSet(PortInfo)
 * (sma.c).  With cfg.auto_activate the port instead goes straight to ACTIVE with LID
 * dev->auto_lid (cfg.lid, or 1 + serial), as if an SM had configured it.  While the HCA is
 * initialized each change queues a PORT_CHANGE EQE (DOWN, ACTIVE; the SMA adds LID, PKEY,
 * GUID and CLIENT_REREG) that the worker posts to the EQ subscribed to event 0x09.
 *
 * Link properties reported everywhere: 4X QDR (40 Gb/s), MTU 4096, VL0-7.
 */
#include <string.h>

#include <cxib/ibwire.h>

#include "cxfw_priv.h"

#define CXFW_PORT_CAP_DEFAULT	(CXIB_PORT_CAP_CLIENT_REG | CXIB_PORT_CAP_SYS_IMAGE_GUID | \
				 CXIB_PORT_CAP_TRAP)
#define CXFW_RETRAIN_NS		20000000ull	/* a downed link trains again after 20 ms */
#define CXFW_SUBNET_TIMEOUT	18		/* 4.096 us << 18 = 1.07 s, opensm's default */

uint64_t cxfw_port_guid(const struct cxfw_dev *dev, unsigned int port)
{
	return dev->node_guid + (port - 1);
}

/*
 * Queue a port change EQE for @port; lock held.  Nobody listens before INIT_HCA (the
 * driver reads the state when it comes), so events are dropped until then.  An event
 * already pending for the port is not queued twice.  Returns true if one was queued.
 */
bool cxfw_port_event_locked(struct cxfw_dev *dev, unsigned int port, uint8_t subtype)
{
	struct cxfw_port_event *ev;
	unsigned int i;

	if (!subtype || dev->hca_state != CXFW_HCA_INITIALIZED)
		return false;
	for (i = 0; i < dev->port_ev_count; i++) {
		ev = &dev->port_events[(dev->port_ev_head + i) % CXFW_PORT_EVENTS];
		if (ev->port == port && ev->subtype == subtype)
			return false;
	}
	if (dev->port_ev_count == CXFW_PORT_EVENTS) {
		/* drop the oldest: the newest says where the port is now */
		dev->port_ev_head = (dev->port_ev_head + 1) % CXFW_PORT_EVENTS;
		dev->port_ev_count--;
	}
	ev = &dev->port_events[(dev->port_ev_head + dev->port_ev_count) % CXFW_PORT_EVENTS];
	ev->port = (uint8_t)port;
	ev->subtype = subtype;
	dev->port_ev_count++;
	return true;
}

/*
 * Move the logical port to @state and queue the event the driver needs: ACTIVE on entering
 * Active, DOWN on leaving it (the core then sees PORT_ACTIVE / PORT_ERR).  Lock held.
 */
void cxfw_port_set_state_locked(struct cxfw_dev *dev, unsigned int port, uint8_t state)
{
	struct cxfw_port *p = &dev->ports[port - 1];
	uint8_t was = p->state;

	p->state = state;
	if (state == CXIB_PORT_STATE_DOWN)
		p->phys_state = CXIB_PORT_PHYS_STATE_POLLING;
	if (state == was)
		return;
	if (state == CXIB_PORT_STATE_ACTIVE)
		cxfw_port_event_locked(dev, port, CXIB_PORT_CHANGE_SUBTYPE_ACTIVE);
	else if (was == CXIB_PORT_STATE_ACTIVE || state == CXIB_PORT_STATE_DOWN)
		cxfw_port_event_locked(dev, port, CXIB_PORT_CHANGE_SUBTYPE_DOWN);
}

/*
 * Apply the cable state to the logical port; lock held.  A link that comes up trains to
 * LinkUp / Init and waits for the SM, or, with cfg.auto_activate, goes on to Active with
 * the model's own LID.  What the SM wrote (LID, SM LID, MTU, VLs, ...) survives a link
 * bounce, so a retrained link needs no new configuration (IBTA vol 1 14.2.5.6).
 */
static void cxfw_port_apply_link(struct cxfw_dev *dev, unsigned int port, bool up)
{
	struct cxfw_port *p = &dev->ports[port - 1];

	p->retrain_ns = 0;
	if (!up) {
		cxfw_port_set_state_locked(dev, port, CXIB_PORT_STATE_DOWN);
		return;
	}
	p->phys_state = CXIB_PORT_PHYS_STATE_LINK_UP;
	if (!dev->cfg.auto_activate) {
		cxfw_port_set_state_locked(dev, port, CXIB_PORT_STATE_INIT);
		return;
	}
	p->lid = dev->auto_lid;
	cxfw_port_set_state_locked(dev, port, CXIB_PORT_STATE_ACTIVE);
}

/*
 * SubnSet(PortInfo) PortState Down or PortPhysicalState Polling: the link goes down and
 * trains again (LinkDownDefaultState Polling) after CXFW_RETRAIN_NS; lock held.
 */
void cxfw_port_retrain_locked(struct cxfw_dev *dev, unsigned int port, uint64_t now)
{
	struct cxfw_port *p = &dev->ports[port - 1];

	cxfw_port_set_state_locked(dev, port, CXIB_PORT_STATE_DOWN);
	p->retrain_ns = now + CXFW_RETRAIN_NS;
	if (!p->retrain_ns)
		p->retrain_ns = 1;
}

void cxfw_ports_init(struct cxfw_dev *dev)
{
	unsigned int i, sl;

	memset(dev->ports, 0, sizeof(dev->ports));
	dev->port_ev_head = 0;
	dev->port_ev_count = 0;
	for (i = 1; i <= dev->cfg.num_ports; i++) {
		struct cxfw_port *p = &dev->ports[i - 1];

		p->state = CXIB_PORT_STATE_DOWN;
		p->phys_state = CXIB_PORT_PHYS_STATE_POLLING;
		p->cap_mask = CXFW_PORT_CAP_DEFAULT;
		p->gid_prefix = CXFW_DEFAULT_GID_PREFIX;
		p->subnet_timeout = CXFW_SUBNET_TIMEOUT;
		p->neighbor_mtu = CXIB_IB_MTU_4096;
		p->op_vls = CXIB_IB_VL_CAP_VL0_7;
		p->pkeys[0] = CXIB_PKEY_DEFAULT;
		p->guids[0] = cxfw_port_guid(dev, i);
		p->link_down_default = CXIB_PORT_PHYS_STATE_POLLING;
		p->width_enabled = CXFW_PORT_WIDTHS;
		p->speed_enabled = CXFW_PORT_SPEEDS;
		p->phy_err_thresh = CXFW_PORT_LOCAL_ERR_THRESH;
		p->overrun_thresh = CXFW_PORT_LOCAL_ERR_THRESH;
		/* SL n on VL n modulo the VLs in use, the usual power-on mapping */
		for (sl = 0; sl < CXIB_SMP_SL_TO_VL_ENTRIES; sl++)
			p->sl2vl[sl] = (uint8_t)(sl % 8);
		cxfw_port_apply_link(dev, i, dev->stats.link_up[i - 1]);
	}
}

bool cxfw_port_link_locked(struct cxfw_dev *dev, unsigned int port, bool up)
{
	unsigned int before = dev->port_ev_count;

	cxfw_port_apply_link(dev, port, up);
	return dev->port_ev_count != before;
}

void cxfw_port_process(struct cxfw_dev *dev)
{
	struct cxfw_port_event ev;
	uint32_t data[7];
	uint64_t eq;

	for (;;) {
		pthread_mutex_lock(&dev->lock);
		if (!dev->port_ev_count) {
			pthread_mutex_unlock(&dev->lock);
			return;
		}
		ev = dev->port_events[dev->port_ev_head];
		dev->port_ev_head = (dev->port_ev_head + 1) % CXFW_PORT_EVENTS;
		dev->port_ev_count--;
		pthread_mutex_unlock(&dev->lock);

		eq = cxfw_eq_subscriber(dev, CXIB_EVENT_TYPE_PORT_CHANGE);
		if (!eq)
			continue;
		memset(data, 0, sizeof(data));
		data[CXIB_DW(CXIB_EQE_PORT_NUM) - CXIB_EQE_DATA_OFFSET / 4] =
			CXIB_FIELD_PREP(CXIB_EQE_PORT_NUM, ev.port);
		cxfw_eq_post(dev, eq, CXIB_EVENT_TYPE_PORT_CHANGE, ev.subtype, data);
	}
}
