// SPDX-License-Identifier: GPL-2.0-only
/*
 * cxib: event queues and their MSI-X vectors (PRM §4.1 steps 17-21, §4.5).
 *
 * Vector 0 carries the control EQs: command completions (created first, so the command
 * interface can switch from polling to events), asynchronous events (port changes, QP, CQ
 * and SRQ errors) and the firmware's page requests.  Each further vector carries one
 * completion EQ, and its interrupt is pointed at one online CPU; with a single vector the
 * one completion EQ shares vector 0.  Every EQ installs its own handler (IRQF_SHARED), so
 * an EQ's handler exists exactly as long as the EQ.
 *
 * An EQE at consumer counter ci is valid when its owner bit equals bit log_size of ci.
 * The handler consumes valid EQEs, then writes the counter to the UAR's "update and arm"
 * doorbell; the device interrupts again for the next EQE it writes.  An EQE written between
 * the handler's last look and the arm raises no interrupt, so the handler looks once more
 * after arming.
 *
 * The async EQ's port change events become the RDMA core's port events here
 * (cxib_ib_dispatch_port_event(), which mad.c also uses for the SM change it snoops);
 * QP, SRQ and CQ events go to their objects' files.
 */

#include <kunit/visibility.h>
#include <linux/cpumask.h>
#include <linux/dma-mapping.h>
#include <linux/interrupt.h>
#include <linux/log2.h>
#include <linux/pci.h>
#include <linux/slab.h>

#include "cxib.h"

/* Affiliated and unaffiliated asynchronous events the async EQ subscribes to. */
#define CXIB_ASYNC_EVENT_MASK					\
	(BIT_ULL(CXIB_EVENT_TYPE_PATH_MIG) |			\
	 BIT_ULL(CXIB_EVENT_TYPE_COMM_EST) |			\
	 BIT_ULL(CXIB_EVENT_TYPE_SQ_DRAINED) |			\
	 BIT_ULL(CXIB_EVENT_TYPE_CQ_ERROR) |			\
	 BIT_ULL(CXIB_EVENT_TYPE_WQ_CATAS_ERROR) |		\
	 BIT_ULL(CXIB_EVENT_TYPE_PATH_MIG_FAILED) |		\
	 BIT_ULL(CXIB_EVENT_TYPE_PORT_CHANGE) |			\
	 BIT_ULL(CXIB_EVENT_TYPE_WQ_INVAL_REQ_ERROR) |		\
	 BIT_ULL(CXIB_EVENT_TYPE_WQ_ACCESS_ERROR) |		\
	 BIT_ULL(CXIB_EVENT_TYPE_SRQ_CATAS_ERROR) |		\
	 BIT_ULL(CXIB_EVENT_TYPE_SRQ_LAST_WQE) |		\
	 BIT_ULL(CXIB_EVENT_TYPE_SRQ_RQ_LIMIT))

static struct cxib_eqe *cxib_eq_entry(struct cxib_eq *eq, u32 ci)
{
	return cxib_frag_buf_entry(&eq->buf, ci & ((1u << eq->log_size) - 1),
				   ilog2(CXIB_EQE_SIZE));
}

/* The EQE at the consumer counter if the device has written it, else NULL. */
static struct cxib_eqe *cxib_eq_peek(struct cxib_eq *eq)
{
	struct cxib_eqe *eqe = cxib_eq_entry(eq, eq->cons_index);

	if (CXIB_GET(eqe, CXIB_EQE_OWNER) != ((eq->cons_index >> eq->log_size) & 1))
		return NULL;
	/* Read the rest of the EQE only after its owner bit. */
	dma_rmb();
	return eqe;
}

static void cxib_eq_doorbell(struct cxib_eq *eq, bool arm)
{
	u32 v = CXIB_FIELD_PREP(CXIB_EQ_DB_EQN, eq->eqn) |
		CXIB_FIELD_PREP(CXIB_EQ_DB_CI, eq->cons_index);

	iowrite32be(v, eq->dev->uar_map +
		    (arm ? CXIB_UAR_EQ_DOORBELL_ARM : CXIB_UAR_EQ_DOORBELL));
}

/**
 * cxib_port_event_type() - the IB event a port change event stands for
 * @sub_type: the EQE's sub type, CXIB_PORT_CHANGE_SUBTYPE_*
 *
 * Return: the enum ib_event_type to dispatch, or -1 for a sub type that means nothing to
 * the RDMA core.
 */
VISIBLE_IF_KUNIT int cxib_port_event_type(u8 sub_type)
{
	switch (sub_type) {
	case CXIB_PORT_CHANGE_SUBTYPE_ACTIVE:
		return IB_EVENT_PORT_ACTIVE;
	case CXIB_PORT_CHANGE_SUBTYPE_DOWN:
	case CXIB_PORT_CHANGE_SUBTYPE_INITIALIZED:
		return IB_EVENT_PORT_ERR;
	case CXIB_PORT_CHANGE_SUBTYPE_LID:
		return IB_EVENT_LID_CHANGE;
	case CXIB_PORT_CHANGE_SUBTYPE_PKEY:
		return IB_EVENT_PKEY_CHANGE;
	case CXIB_PORT_CHANGE_SUBTYPE_GUID:
		return IB_EVENT_GID_CHANGE;
	case CXIB_PORT_CHANGE_SUBTYPE_CLIENT_REREG:
		return IB_EVENT_CLIENT_REREGISTER;
	default:
		return -1;
	}
}
EXPORT_SYMBOL_IF_KUNIT(cxib_port_event_type);

/**
 * cxib_ib_dispatch_port_event() - dispatch a port's IB event
 * @dev: the device
 * @port: the port
 * @type: the event
 *
 * Does nothing unless the device is registered (the RDMA core then refreshes its caches).
 * Any context.
 */
void cxib_ib_dispatch_port_event(struct cxib_dev *dev, u32 port, enum ib_event_type type)
{
	struct ib_event ev = {};

	if (!test_bit(CXIB_DEV_IB_ACTIVE, &dev->flags))
		return;
	if (port < 1 || port > dev->ibdev.phys_port_cnt) {
		dev_dbg(&dev->pdev->dev, "event %d for port %u ignored\n", type, port);
		return;
	}
	ev.device = &dev->ibdev;
	ev.event = type;
	ev.element.port_num = port;
	ib_dispatch_event(&ev);
}

/*
 * A port change event: dispatch the matching IB event while the device is registered.
 * Called from the async EQ's interrupt handler.
 */
static void cxib_eq_port_event(struct cxib_dev *dev, u8 port, u8 sub_type)
{
	int type = cxib_port_event_type(sub_type);

	dev_dbg(&dev->pdev->dev, "port %u change, sub type %u\n", port, sub_type);
	if (type >= 0)
		cxib_ib_dispatch_port_event(dev, port, type);
}

static void cxib_eq_handle(struct cxib_eq *eq, const struct cxib_eqe *eqe)
{
	struct cxib_dev *dev = eq->dev;
	u8 type = CXIB_GET(eqe, CXIB_EQE_EVENT_TYPE);
	u8 sub_type = CXIB_GET(eqe, CXIB_EQE_EVENT_SUB_TYPE);

	switch (type) {
	case CXIB_EVENT_TYPE_CMD:
		cxib_cmd_comp_event(dev, CXIB_GET(eqe, CXIB_EQE_CMD_VECTOR));
		break;
	case CXIB_EVENT_TYPE_PAGE_REQUEST:
		cxib_pages_request(dev, CXIB_GET(eqe, CXIB_EQE_PAGE_REQ_FUNCTION_ID),
				   (s32)CXIB_GET(eqe, CXIB_EQE_PAGE_REQ_NUM_PAGES));
		break;
	case CXIB_EVENT_TYPE_PORT_CHANGE:
		cxib_eq_port_event(dev, CXIB_GET(eqe, CXIB_EQE_PORT_NUM), sub_type);
		break;
	case CXIB_EVENT_TYPE_COMP:
		cxib_cq_comp_event(dev, CXIB_GET(eqe, CXIB_EQE_COMP_CQN));
		break;
	case CXIB_EVENT_TYPE_CQ_ERROR:
		cxib_cq_error_event(dev, CXIB_GET(eqe, CXIB_EQE_CQ_ERR_CQN),
				    CXIB_GET(eqe, CXIB_EQE_CQ_ERR_SYNDROME));
		break;
	case CXIB_EVENT_TYPE_PATH_MIG:
	case CXIB_EVENT_TYPE_COMM_EST:
	case CXIB_EVENT_TYPE_SQ_DRAINED:
	case CXIB_EVENT_TYPE_SRQ_LAST_WQE:
	case CXIB_EVENT_TYPE_WQ_CATAS_ERROR:
	case CXIB_EVENT_TYPE_PATH_MIG_FAILED:
	case CXIB_EVENT_TYPE_WQ_INVAL_REQ_ERROR:
	case CXIB_EVENT_TYPE_WQ_ACCESS_ERROR:
		cxib_qp_event(dev, CXIB_GET(eqe, CXIB_EQE_QP_QPN), type);
		break;
	case CXIB_EVENT_TYPE_SRQ_RQ_LIMIT:
	case CXIB_EVENT_TYPE_SRQ_CATAS_ERROR:
		cxib_srq_event(dev, CXIB_GET(eqe, CXIB_EQE_SRQ_SRQN), type);
		break;
	case CXIB_EVENT_TYPE_INTERNAL_ERROR:
		dev_err_ratelimited(&dev->pdev->dev, "%s EQ: firmware reports an internal error\n",
				    eq->name);
		break;
	default:
		dev_dbg_ratelimited(&dev->pdev->dev,
				    "%s EQ: event type 0x%02x sub type 0x%02x ignored\n",
				    eq->name, type, sub_type);
		break;
	}
}

/*
 * Consume the EQEs the device has written, at most one ring's worth, and re-arm.  Returns
 * the number consumed.
 */
static unsigned int cxib_eq_poll(struct cxib_eq *eq)
{
	unsigned int budget = 1u << eq->log_size, n = 0;
	struct cxib_eqe *eqe;
	unsigned long flags;

	spin_lock_irqsave(&eq->lock, flags);
	do {
		while (n < budget && (eqe = cxib_eq_peek(eq))) {
			cxib_eq_handle(eq, eqe);
			eq->cons_index++;
			n++;
		}
		cxib_eq_doorbell(eq, true);
	} while (n < budget && cxib_eq_peek(eq));
	spin_unlock_irqrestore(&eq->lock, flags);
	return n;
}

static irqreturn_t cxib_eq_irq(int irq, void *data)
{
	struct cxib_eq *eq = data;

	return cxib_eq_poll(eq) ? IRQ_HANDLED : IRQ_NONE;
}

/* The EQ's ring in 4 KiB pieces, every EQE owned by software on the first lap. */
static int cxib_eq_alloc_buf(struct cxib_dev *dev, struct cxib_eq *eq)
{
	u32 nent = 1u << eq->log_size, ci;
	int err;

	err = cxib_frag_buf_alloc(dev, &eq->buf, (size_t)nent * CXIB_EQE_SIZE);
	if (err)
		return err;
	/* Owner 1 everywhere: nothing is valid on the first lap, where the device writes 0. */
	for (ci = 0; ci < nent; ci++)
		CXIB_SET(cxib_eq_entry(eq, ci), CXIB_EQE_OWNER, 1);
	return 0;
}

/*
 * Create an EQ of 2^log_size entries (fewer if the device allows fewer) on MSI-X vector
 * @vector, install its interrupt handler and arm it.  @comp: the completion vector a
 * completion EQ serves, -1 for a control EQ.
 */
static int cxib_eq_create(struct cxib_dev *dev, struct cxib_eq *eq, const char *name,
			  int comp, u8 log_size, u16 vector, u64 event_mask)
{
	struct cxib_eq_params p = {};
	int err;

	eq->dev = dev;
	eq->name = name;
	spin_lock_init(&eq->lock);
	eq->log_size = min(log_size, dev->caps.log_max_eq_sz);
	eq->cons_index = 0;
	eq->vector = vector;
	eq->irq = 0;
	eq->cpu = -1;

	err = cxib_eq_alloc_buf(dev, eq);
	if (err)
		return err;

	p.log_size = eq->log_size;
	p.uar = dev->uar;
	p.vector = vector;
	p.event_mask = event_mask;
	p.npages = eq->buf.npages;
	p.pas = eq->buf.dma;
	err = cxib_cmd_create_eq(dev, &p, &eq->eqn);
	if (err) {
		dev_err(&dev->pdev->dev, "cannot create the %s EQ: %d\n", name, err);
		goto err_free_buf;
	}

	/*
	 * A completion EQ's handler is named by its completion vector, so that
	 * /proc/interrupts tells them apart: also the single one sharing vector 0.
	 */
	if (comp >= 0)
		snprintf(eq->irq_name, sizeof(eq->irq_name), "cxib-%s%d@%s", name, comp,
			 pci_name(dev->pdev));
	else
		snprintf(eq->irq_name, sizeof(eq->irq_name), "cxib-%s@%s", name,
			 pci_name(dev->pdev));
	err = request_irq(pci_irq_vector(dev->pdev, vector), cxib_eq_irq, IRQF_SHARED,
			  eq->irq_name, eq);
	if (err) {
		dev_err(&dev->pdev->dev, "cannot install the %s EQ's interrupt handler: %d\n",
			name, err);
		goto err_destroy_eq;
	}
	eq->irq = pci_irq_vector(dev->pdev, vector);

	/* Arm it, and consume what the device may have written already. */
	cxib_eq_poll(eq);
	dev_dbg(&dev->pdev->dev, "%s EQ %u: %u entries on vector %u\n", name, eq->eqn,
		1u << eq->log_size, vector);
	return 0;

err_destroy_eq:
	cxib_cmd_destroy_eq(dev, eq->eqn);
err_free_buf:
	cxib_frag_buf_free(dev, &eq->buf);
	return err;
}

static void cxib_eq_destroy(struct cxib_dev *dev, struct cxib_eq *eq)
{
	free_irq(eq->irq, eq);
	eq->irq = 0;
	/* A failure is logged by the command engine; the EQ is gone for the driver anyway. */
	cxib_cmd_destroy_eq(dev, eq->eqn);
	cxib_frag_buf_free(dev, &eq->buf);
}

/* Point completion vector @i's interrupt at one online CPU, spreading them from the node. */
static void cxib_eq_set_affinity(struct cxib_dev *dev, struct cxib_eq *eq, unsigned int i)
{
	unsigned int cpu = cpumask_local_spread(i, dev_to_node(&dev->pdev->dev));
	int err;

	err = irq_set_affinity_and_hint(eq->irq, cpumask_of(cpu));
	if (err)
		dev_dbg(&dev->pdev->dev, "cannot point %s at CPU %u: %d\n", eq->irq_name, cpu,
			err);
	else
		eq->cpu = cpu;
}

/**
 * cxib_get_vector_affinity() - ib_device_ops.get_vector_affinity
 * @ibdev: the device
 * @comp_vector: a completion vector
 *
 * Return: the CPU the vector's interrupt was pointed at when its EQ was made (as mlx5_ib
 * reports its completion vectors' masks), or NULL when the vector is shared with the
 * control EQs or has no CPU of its own.
 */
const struct cpumask *cxib_get_vector_affinity(struct ib_device *ibdev, int comp_vector)
{
	struct cxib_eq_table *eqt = &to_cxib_dev(ibdev)->eqt;

	if (comp_vector < 0 || comp_vector >= eqt->num_comp || eqt->comp[comp_vector].cpu < 0)
		return NULL;
	return cpumask_of(eqt->comp[comp_vector].cpu);
}

static void cxib_comp_eqs_destroy(struct cxib_dev *dev, unsigned int n)
{
	struct cxib_eq_table *eqt = &dev->eqt;
	struct cxib_eq *eq;

	while (n--) {
		eq = &eqt->comp[n];
		irq_update_affinity_hint(eq->irq, NULL);
		cxib_eq_destroy(dev, eq);
	}
}

static int cxib_comp_eqs_create(struct cxib_dev *dev)
{
	struct cxib_eq_table *eqt = &dev->eqt;
	unsigned int i;
	u16 vector;
	int err;

	eqt->comp = kcalloc(eqt->num_comp, sizeof(*eqt->comp), GFP_KERNEL);
	if (!eqt->comp)
		return -ENOMEM;

	for (i = 0; i < eqt->num_comp; i++) {
		vector = eqt->nvec > 1 ? CXIB_CTRL_VECTOR + 1 + i : CXIB_CTRL_VECTOR;
		err = cxib_eq_create(dev, &eqt->comp[i], "comp", i, CXIB_LOG_COMP_EQ_SIZE,
				     vector, 0);
		if (err)
			goto err_destroy;
		if (eqt->nvec > 1)
			cxib_eq_set_affinity(dev, &eqt->comp[i], i);
	}
	return 0;

err_destroy:
	cxib_comp_eqs_destroy(dev, i);
	kfree(eqt->comp);
	eqt->comp = NULL;
	return err;
}

/*
 * Allocate the MSI-X vectors: one for the control EQs and one per completion EQ, as many
 * completion EQs as there are online CPUs, within what the device's EQ count and MSI-X
 * table allow.
 */
static int cxib_eq_alloc_vectors(struct cxib_dev *dev)
{
	struct cxib_eq_table *eqt = &dev->eqt;
	unsigned int nctrl = dev->caps.page_request_disable ? 2 : 3;
	unsigned int max_eqs = cxib_caps_max_eqs(&dev->caps);
	unsigned int want;
	int table, nvec;

	if (max_eqs <= nctrl) {
		dev_err(&dev->pdev->dev, "device supports %u EQs, cxib needs at least %u\n",
			max_eqs, nctrl + 1);
		return -ENOSPC;
	}
	table = pci_msix_vec_count(dev->pdev);
	if (table < 1) {
		dev_err(&dev->pdev->dev, "device has no MSI-X table\n");
		return -ENODEV;
	}

	want = min3(num_online_cpus(), max_eqs - nctrl, (unsigned int)max(table - 1, 1));
	nvec = pci_alloc_irq_vectors(dev->pdev, 1, 1 + want, PCI_IRQ_MSIX);
	if (nvec < 0) {
		dev_err(&dev->pdev->dev, "cannot allocate MSI-X vectors: %d\n", nvec);
		return nvec;
	}
	eqt->nvec = nvec;
	eqt->num_comp = nvec > 1 ? nvec - 1 : 1;
	return 0;
}

/**
 * cxib_eqs_init() - allocate MSI-X vectors and create every EQ
 * @dev: the device, initialized (INIT_HCA) and with its UAR mapped
 *
 * The command EQ comes first; once it is armed, commands complete by event.
 *
 * Return: 0 or a negative errno, with everything undone.
 */
int cxib_eqs_init(struct cxib_dev *dev)
{
	struct cxib_eq_table *eqt = &dev->eqt;
	int err;

	err = cxib_eq_alloc_vectors(dev);
	if (err)
		return err;

	err = cxib_eq_create(dev, &eqt->cmd, "cmd", -1, CXIB_LOG_CMD_EQ_SIZE, CXIB_CTRL_VECTOR,
			     BIT_ULL(CXIB_EVENT_TYPE_CMD));
	if (err)
		goto err_free_vectors;
	cxib_cmd_use_events(dev, true);

	err = cxib_eq_create(dev, &eqt->async, "async", -1, CXIB_LOG_ASYNC_EQ_SIZE,
			     CXIB_CTRL_VECTOR, CXIB_ASYNC_EVENT_MASK);
	if (err)
		goto err_destroy_cmd;

	if (!dev->caps.page_request_disable) {
		err = cxib_eq_create(dev, &eqt->pages, "pages", -1, CXIB_LOG_PAGES_EQ_SIZE,
				     CXIB_CTRL_VECTOR, BIT_ULL(CXIB_EVENT_TYPE_PAGE_REQUEST));
		if (err)
			goto err_destroy_async;
	}

	err = cxib_comp_eqs_create(dev);
	if (err)
		goto err_destroy_pages;

	dev_dbg(&dev->pdev->dev, "%u MSI-X vectors, %u completion EQs\n", eqt->nvec,
		eqt->num_comp);
	return 0;

err_destroy_pages:
	if (!dev->caps.page_request_disable) {
		cxib_eq_destroy(dev, &eqt->pages);
		cxib_pages_flush_requests(dev);
	}
err_destroy_async:
	cxib_eq_destroy(dev, &eqt->async);
err_destroy_cmd:
	cxib_cmd_use_events(dev, false);
	cxib_eq_destroy(dev, &eqt->cmd);
err_free_vectors:
	pci_free_irq_vectors(dev->pdev);
	return err;
}

/**
 * cxib_eqs_cleanup() - destroy every EQ and free the MSI-X vectors
 * @dev: the device
 *
 * The mirror of cxib_eqs_init(): completion EQs, then the pages EQ (and the page requests
 * it queued), the async EQ and, after switching commands back to polling, the command EQ.
 */
void cxib_eqs_cleanup(struct cxib_dev *dev)
{
	struct cxib_eq_table *eqt = &dev->eqt;

	cxib_comp_eqs_destroy(dev, eqt->num_comp);
	kfree(eqt->comp);
	eqt->comp = NULL;
	if (!dev->caps.page_request_disable) {
		cxib_eq_destroy(dev, &eqt->pages);
		cxib_pages_flush_requests(dev);
	}
	cxib_eq_destroy(dev, &eqt->async);
	cxib_cmd_use_events(dev, false);
	cxib_eq_destroy(dev, &eqt->cmd);
	pci_free_irq_vectors(dev->pdev);
}

/**
 * cxib_eqs_sync_async() - wait for a running async EQ handler to finish
 * @dev: the device
 *
 * After this, a handler that starts sees what the caller changed before the call.
 */
void cxib_eqs_sync_async(struct cxib_dev *dev)
{
	synchronize_irq(dev->eqt.async.irq);
}
