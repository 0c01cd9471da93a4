// SPDX-License-Identifier: GPL-2.0-only
/*
 * cxib: the command interface (PRM §2), the queue engine every firmware command goes
 * through.
 *
 * The queue is one 4 KiB page of 2^log_size entries ("slots") whose geometry the firmware
 * announces in the initialization segment.  A command is written into a free slot: the
 * first 16 bytes of its input inline in the entry, the rest in a chain of 1 KiB-aligned
 * mailbox blocks; the output comes back the same way.  Ringing the slot's bit in the
 * command doorbell hands the entry to the firmware, which clears the entry's ownership bit
 * when the output is in place and, once the driver has created the command EQ, also
 * posts a command completion event naming the slot.
 *
 * Up to nslots - 1 commands run at once, one per regular slot; the last slot is kept for
 * MANAGE_PAGES, so that giving the firmware the pages it asks for never waits behind a
 * command the firmware holds back until it has them.  Commands sleep: they are issued
 * from process context only.
 *
 * The ownership bit is the authority on completion.  Before the command EQ exists the
 * caller polls it; afterwards it sleeps until the completion event and checks the bit
 * again, and also every CXIB_CMD_EVENT_POLL_MS, so a lost event costs a second, not the
 * command.  A command the firmware does not complete within its timeout fails with
 * -ETIMEDOUT; its slot and mailboxes stay reserved ("stale") until the firmware gives
 * the entry back, because it may still write them.
 *
 * This engine is the one place that reports a failed command at error level: once,
 * rate limited, with the command's name, op_mod, status and syndrome (or the delivery
 * status, the timeout, the missing slot).  An answer the caller expects (CXIB_CMD_F_*) and
 * a command refused because the device is dead are logged at debug level.  The callers
 * add at most a debug line of their own (Documentation/driver.md, "Logging").
 */

#include <kunit/visibility.h>
#include <linux/bitops.h>
#include <linux/delay.h>
#include <linux/dma-mapping.h>
#include <linux/dmapool.h>
#include <linux/jiffies.h>
#include <linux/limits.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "cxib.h"

/* Polling the ownership bit: first sleep, and the longest sleep between two looks, in us. */
#define CXIB_CMD_POLL_MIN_US		10
#define CXIB_CMD_POLL_MAX_US		1000

/* ---- Names, statuses and errnos -------------------------------------------------------- */

/**
 * cxib_cmd_opcode_str() - name of a command
 * @opcode: CXIB_CMD_OP_*
 *
 * Return: the PRM's name of the command from the opcode list of include/cxib/cmd.h
 * (CXIB_CMD_OPCODES), e.g. "QUERY_HCA_CAP", or "UNKNOWN".
 */
const char *cxib_cmd_opcode_str(u16 opcode)
{
	return cxib_cmd_op_name(opcode) ?: "UNKNOWN";
}
EXPORT_SYMBOL_IF_KUNIT(cxib_cmd_opcode_str);

/* Return statuses (PRM §2.5): what they mean and the errno a command fails with. */
static const struct {
	u8 status;
	int err;
	const char *name;
} cxib_cmd_statuses[] = {
	{ CXIB_CMD_STAT_OK,		0,	 "ok" },
	{ CXIB_CMD_STAT_INT_ERR,	-EIO,	 "internal error" },
	{ CXIB_CMD_STAT_BAD_OP,		-EINVAL, "bad operation" },
	{ CXIB_CMD_STAT_BAD_PARAM,	-EINVAL, "bad parameter" },
	{ CXIB_CMD_STAT_BAD_SYS_STATE,	-EIO,	 "bad system state" },
	{ CXIB_CMD_STAT_BAD_RES,	-EINVAL, "bad resource" },
	{ CXIB_CMD_STAT_RES_BUSY,	-EBUSY,	 "resource busy" },
	{ CXIB_CMD_STAT_NOT_READY,	-EAGAIN, "not ready" },
	{ CXIB_CMD_STAT_LIM_EXCEEDED,	-ENOMEM, "limits exceeded" },
	{ CXIB_CMD_STAT_BAD_RES_STATE,	-EINVAL, "bad resource state" },
	{ CXIB_CMD_STAT_BAD_INDEX,	-EINVAL, "bad index" },
	{ CXIB_CMD_STAT_NO_RESOURCES,	-EAGAIN, "no resources" },
	{ CXIB_CMD_STAT_BAD_QP_STATE,	-EINVAL, "bad QP state" },
	{ CXIB_CMD_STAT_BAD_PKT,	-EINVAL, "bad packet" },
	{ CXIB_CMD_STAT_BAD_SIZE,	-EINVAL, "bad size" },
	{ CXIB_CMD_STAT_BAD_INPUT_LEN,	-EIO,	 "bad input length" },
	{ CXIB_CMD_STAT_BAD_OUTPUT_LEN,	-EIO,	 "bad output length" },
};

/**
 * cxib_cmd_status_to_errno() - the errno a command fails with for a return status
 * @status: output status byte, CXIB_CMD_STAT_*
 *
 * Return: 0 for CXIB_CMD_STAT_OK, the PRM §2.5 errno for a known status, -EIO for a
 * status the PRM does not define.
 */
VISIBLE_IF_KUNIT int cxib_cmd_status_to_errno(u8 status)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(cxib_cmd_statuses); i++)
		if (cxib_cmd_statuses[i].status == status)
			return cxib_cmd_statuses[i].err;
	return -EIO;
}
EXPORT_SYMBOL_IF_KUNIT(cxib_cmd_status_to_errno);

/**
 * cxib_cmd_status_str() - what a return status means
 * @status: output status byte
 *
 * Return: a short description, "unknown status" for a status the PRM does not define.
 */
VISIBLE_IF_KUNIT const char *cxib_cmd_status_str(u8 status)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(cxib_cmd_statuses); i++)
		if (cxib_cmd_statuses[i].status == status)
			return cxib_cmd_statuses[i].name;
	return "unknown status";
}
EXPORT_SYMBOL_IF_KUNIT(cxib_cmd_status_str);

/* Delivery statuses (PRM §2.3): the command did not reach the firmware's executor. */
static const struct {
	u8 delivery;
	const char *name;
} cxib_cmd_deliveries[] = {
	{ CXIB_CMD_DELIVERY_OK,			"ok" },
	{ CXIB_CMD_DELIVERY_SIGNATURE_ERR,	"signature error" },
	{ CXIB_CMD_DELIVERY_TOKEN_ERR,		"token error" },
	{ CXIB_CMD_DELIVERY_BAD_BLOCK_NUMBER,	"bad block number" },
	{ CXIB_CMD_DELIVERY_OUTPUT_PTR_ALIGN,	"output pointer not aligned" },
	{ CXIB_CMD_DELIVERY_INPUT_PTR_ALIGN,	"input pointer not aligned" },
	{ CXIB_CMD_DELIVERY_FW_INTERNAL_ERR,	"firmware internal error" },
	{ CXIB_CMD_DELIVERY_INPUT_LEN_ERR,	"input length error" },
	{ CXIB_CMD_DELIVERY_OUTPUT_LEN_ERR,	"output length error" },
	{ CXIB_CMD_DELIVERY_RES_FLD_NOT_CLR,	"reserved field not cleared" },
	{ CXIB_CMD_DELIVERY_BAD_CMD_DESCRIPTOR,	"bad command descriptor" },
};

static const char *cxib_cmd_delivery_str(u8 delivery)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(cxib_cmd_deliveries); i++)
		if (cxib_cmd_deliveries[i].delivery == delivery)
			return cxib_cmd_deliveries[i].name;
	return "unknown delivery status";
}

/* ---- Building and parsing (no device needed: the KUnit suites call these) -------------- */

/**
 * cxib_cmd_next_token() - the token that follows @token
 * @token: the previous token, 0 for the first command
 *
 * Tokens are 8 bits and never 0, so an entry or block that was never written cannot
 * match a command.
 *
 * Return: @token + 1, wrapping from 255 to 1.
 */
VISIBLE_IF_KUNIT u8 cxib_cmd_next_token(u8 token)
{
	return token == U8_MAX ? 1 : token + 1;
}
EXPORT_SYMBOL_IF_KUNIT(cxib_cmd_next_token);

/**
 * cxib_cmd_msg_chain() - link the blocks of a mailbox chain and stamp them
 * @msg: the chain, blocks allocated and zeroed
 * @token: the command's token
 *
 * Sets every block's next pointer (0 in the last), its block number and @token.
 */
VISIBLE_IF_KUNIT void cxib_cmd_msg_chain(struct cxib_cmd_msg *msg, u8 token)
{
	struct cxib_cmd_mailbox *box;
	unsigned int i;

	for (i = 0; i < msg->nblocks; i++) {
		box = msg->blocks[i].buf;
		box->next = i + 1 < msg->nblocks ? cpu_to_be64(msg->blocks[i + 1].dma) : 0;
		CXIB_SET(box, CXIB_CMD_MBOX_BLOCK_NUMBER, i);
		CXIB_SET(box, CXIB_CMD_MBOX_TOKEN, token);
	}
}
EXPORT_SYMBOL_IF_KUNIT(cxib_cmd_msg_chain);

/**
 * cxib_cmd_msg_write() - copy a command's input beyond the inline bytes into its mailboxes
 * @msg: the input chain, CXIB_CMD_MBOX_BLOCKS(@inlen) blocks
 * @in: the whole command input
 * @inlen: its length in bytes
 */
VISIBLE_IF_KUNIT void cxib_cmd_msg_write(struct cxib_cmd_msg *msg, const void *in,
					 u32 inlen)
{
	const u8 *p = (const u8 *)in + CXIB_CMD_INLINE_LEN;
	u32 left = inlen > CXIB_CMD_INLINE_LEN ? inlen - CXIB_CMD_INLINE_LEN : 0;
	unsigned int i;
	u32 n;

	for (i = 0; i < msg->nblocks && left; i++) {
		n = min_t(u32, left, CXIB_CMD_MBOX_DATA_LEN);
		memcpy(msg->blocks[i].buf->data, p, n);
		p += n;
		left -= n;
	}
}
EXPORT_SYMBOL_IF_KUNIT(cxib_cmd_msg_write);

/**
 * cxib_cmd_msg_read() - copy a command's output beyond the inline bytes from its mailboxes
 * @msg: the output chain, CXIB_CMD_MBOX_BLOCKS(@outlen) blocks
 * @out: the whole command output; its first 16 bytes are left alone
 * @outlen: its length in bytes
 */
VISIBLE_IF_KUNIT void cxib_cmd_msg_read(const struct cxib_cmd_msg *msg, void *out,
					u32 outlen)
{
	u8 *p = (u8 *)out + CXIB_CMD_INLINE_LEN;
	u32 left = outlen > CXIB_CMD_INLINE_LEN ? outlen - CXIB_CMD_INLINE_LEN : 0;
	unsigned int i;
	u32 n;

	for (i = 0; i < msg->nblocks && left; i++) {
		n = min_t(u32, left, CXIB_CMD_MBOX_DATA_LEN);
		memcpy(p, msg->blocks[i].buf->data, n);
		p += n;
		left -= n;
	}
}
EXPORT_SYMBOL_IF_KUNIT(cxib_cmd_msg_read);

/**
 * cxib_cmd_build_entry() - build a command queue entry
 * @ent: the entry to fill (all of it is written)
 * @in: the command input; its first 16 bytes go inline
 * @inlen: input length in bytes
 * @outlen: output length in bytes
 * @inmsg: input mailbox chain (may be empty)
 * @outmsg: output mailbox chain (may be empty)
 * @token: the command's token
 *
 * The entry is handed to the hardware (ownership 1) and signed.
 */
VISIBLE_IF_KUNIT void cxib_cmd_build_entry(struct cxib_cmd_queue_entry *ent, const void *in,
					   u32 inlen, u32 outlen,
					   const struct cxib_cmd_msg *inmsg,
					   const struct cxib_cmd_msg *outmsg, u8 token)
{
	memset(ent, 0, sizeof(*ent));
	CXIB_SET(ent, CXIB_CMD_ENTRY_TYPE, CXIB_CMD_TYPE_PCIE);
	CXIB_SET(ent, CXIB_CMD_ENTRY_INPUT_LENGTH, inlen);
	CXIB_SET(ent, CXIB_CMD_ENTRY_OUTPUT_LENGTH, outlen);
	if (inmsg->nblocks)
		ent->input_mailbox_pointer = cpu_to_be64(inmsg->blocks[0].dma);
	if (outmsg->nblocks)
		ent->output_mailbox_pointer = cpu_to_be64(outmsg->blocks[0].dma);
	memcpy(ent->in, in, min_t(u32, inlen, CXIB_CMD_INLINE_LEN));
	CXIB_SET(ent, CXIB_CMD_ENTRY_TOKEN, token);
	CXIB_SET(ent, CXIB_CMD_ENTRY_OWNERSHIP, CXIB_CMD_OWNER_HW);
	cxib_cmd_entry_sign(ent);
}
EXPORT_SYMBOL_IF_KUNIT(cxib_cmd_build_entry);

/* ---- Mailboxes and slots --------------------------------------------------------------- */

static void cxib_cmd_msg_free(struct cxib_cmdq *cmdq, struct cxib_cmd_msg *msg)
{
	unsigned int i;

	for (i = 0; i < msg->nblocks; i++)
		dma_pool_free(cmdq->pool, msg->blocks[i].buf, msg->blocks[i].dma);
	kfree(msg->blocks);
	msg->blocks = NULL;
	msg->nblocks = 0;
}

static int cxib_cmd_msg_alloc(struct cxib_cmdq *cmdq, struct cxib_cmd_msg *msg, u32 len)
{
	unsigned int n = CXIB_CMD_MBOX_BLOCKS(len);
	struct cxib_cmd_block *b;

	msg->nblocks = 0;
	msg->blocks = NULL;
	if (!n)
		return 0;

	msg->blocks = kcalloc(n, sizeof(*msg->blocks), GFP_KERNEL);
	if (!msg->blocks)
		return -ENOMEM;
	while (msg->nblocks < n) {
		b = &msg->blocks[msg->nblocks];
		b->buf = dma_pool_zalloc(cmdq->pool, GFP_KERNEL, &b->dma);
		if (!b->buf) {
			cxib_cmd_msg_free(cmdq, msg);
			return -ENOMEM;
		}
		msg->nblocks++;
	}
	return 0;
}

static struct cxib_cmd_queue_entry *cxib_cmd_entry(struct cxib_cmdq *cmdq, unsigned int slot)
{
	return cmdq->buf + (slot << cmdq->log_stride);
}

/* Whether the firmware still owns the slot's entry. */
static bool cxib_cmd_hw_owned(struct cxib_cmdq *cmdq, unsigned int slot)
{
	__be32 *status = &cxib_cmd_entry(cmdq, slot)->status;

	return CXIB_FIELD_GET(CXIB_CMD_ENTRY_OWNERSHIP, be32_to_cpu(READ_ONCE(*status))) ==
	       CXIB_CMD_OWNER_HW;
}

/* Give a slot back to the pool.  Any context. */
static void cxib_cmd_put_slot(struct cxib_cmdq *cmdq, unsigned int slot)
{
	unsigned long flags;

	if (slot == cmdq->pages_slot) {
		up(&cmdq->pages_sem);
		return;
	}
	spin_lock_irqsave(&cmdq->lock, flags);
	__set_bit(slot, &cmdq->free);
	spin_unlock_irqrestore(&cmdq->lock, flags);
	up(&cmdq->sem);
}

/*
 * If @slot is stale and the firmware has given its entry back, free its mailboxes and
 * return the slot to the pool.  Called with cmdq->lock held.
 */
static bool cxib_cmd_reap_locked(struct cxib_cmdq *cmdq, unsigned int slot)
{
	struct cxib_cmd_slot *s = &cmdq->slots[slot];

	lockdep_assert_held(&cmdq->lock);
	if (!s->stale || cxib_cmd_hw_owned(cmdq, slot))
		return false;

	s->stale = false;
	cxib_cmd_msg_free(cmdq, &s->in);
	cxib_cmd_msg_free(cmdq, &s->out);
	if (slot == cmdq->pages_slot) {
		up(&cmdq->pages_sem);
	} else {
		__set_bit(slot, &cmdq->free);
		up(&cmdq->sem);
	}
	return true;
}

static void cxib_cmd_reap_stale(struct cxib_dev *dev)
{
	struct cxib_cmdq *cmdq = &dev->cmdq;
	unsigned long flags;
	unsigned int slot;

	spin_lock_irqsave(&cmdq->lock, flags);
	for (slot = 0; slot < cmdq->nslots; slot++)
		if (cxib_cmd_reap_locked(cmdq, slot))
			dev_info(&dev->pdev->dev, "command slot %u completed late, reused\n", slot);
	spin_unlock_irqrestore(&cmdq->lock, flags);
}

static int cxib_cmd_get_slot(struct cxib_dev *dev, bool pages, unsigned int *slot)
{
	struct cxib_cmdq *cmdq = &dev->cmdq;
	unsigned long flags;
	int err;

	err = down_timeout(pages ? &cmdq->pages_sem : &cmdq->sem,
			   msecs_to_jiffies(cmdq->timeout_ms));
	if (err)
		return err;
	if (pages) {
		*slot = cmdq->pages_slot;
		return 0;
	}

	spin_lock_irqsave(&cmdq->lock, flags);
	*slot = find_first_bit(&cmdq->free, cmdq->nslots);
	__clear_bit(*slot, &cmdq->free);
	spin_unlock_irqrestore(&cmdq->lock, flags);
	return 0;
}

/*
 * Wait until the firmware gives the slot's entry back: poll the ownership bit, or in event
 * mode sleep until the completion event and then check it.  Returns 0, -ETIMEDOUT, or
 * -EIO when the device is declared dead meanwhile.
 */
static int cxib_cmd_wait(struct cxib_dev *dev, unsigned int slot, bool events, u16 opcode)
{
	struct cxib_cmdq *cmdq = &dev->cmdq;
	unsigned long deadline = jiffies + msecs_to_jiffies(cmdq->timeout_ms);
	unsigned int delay_us = CXIB_CMD_POLL_MIN_US;
	unsigned long left;

	for (;;) {
		if (!cxib_cmd_hw_owned(cmdq, slot))
			return 0;
		if (cxib_dev_dead(dev))
			return -EIO;
		if (time_after(jiffies, deadline))
			return -ETIMEDOUT;

		if (!events) {
			usleep_range(delay_us, 2 * delay_us);
			delay_us = min(2 * delay_us, CXIB_CMD_POLL_MAX_US);
			continue;
		}

		left = wait_for_completion_timeout(&cmdq->slots[slot].done,
						   msecs_to_jiffies(CXIB_CMD_EVENT_POLL_MS));
		if (!left && !cxib_cmd_hw_owned(cmdq, slot))
			dev_warn_ratelimited(&dev->pdev->dev,
					     "%s: no completion event for slot %u, found complete by polling\n",
					     cxib_cmd_opcode_str(opcode), slot);
	}
}

/* ---- Executing commands ---------------------------------------------------------------- */

static void cxib_cmd_log_status(struct cxib_dev *dev, const void *in, const void *out,
				unsigned int flags)
{
	u16 opcode = CXIB_GET(in, CXIB_CMD_IN_OPCODE);
	u16 op_mod = CXIB_GET(in, CXIB_CMD_IN_OP_MOD);
	u8 status = CXIB_GET(out, CXIB_CMD_OUT_STATUS);
	u32 syndrome = CXIB_GET(out, CXIB_CMD_OUT_SYNDROME);

	if (status == CXIB_CMD_STAT_BAD_OP && (flags & CXIB_CMD_F_BAD_OP_OK)) {
		dev_dbg(&dev->pdev->dev,
			"%s (0x%x) op_mod 0x%x not supported: status 0x%02x (%s), syndrome 0x%08x\n",
			cxib_cmd_opcode_str(opcode), opcode, op_mod, status,
			cxib_cmd_status_str(status), syndrome);
		return;
	}
	if (status == CXIB_CMD_STAT_BAD_PKT && (flags & CXIB_CMD_F_BAD_PKT_OK)) {
		dev_dbg(&dev->pdev->dev,
			"%s (0x%x) op_mod 0x%x: status 0x%02x (%s), syndrome 0x%08x\n",
			cxib_cmd_opcode_str(opcode), opcode, op_mod, status,
			cxib_cmd_status_str(status), syndrome);
		return;
	}
	dev_err_ratelimited(&dev->pdev->dev,
			    "%s (0x%x) op_mod 0x%x failed: status 0x%02x (%s), syndrome 0x%08x\n",
			    cxib_cmd_opcode_str(opcode), opcode, op_mod, status,
			    cxib_cmd_status_str(status), syndrome);
}

/*
 * The commands that give something back to the firmware (destroy, deallocate, detach, move
 * a QP to RESET or ERR, tear the HCA down).  On a dead device they report success: what
 * they release is gone with the firmware, and a teardown that fails half way leaves the
 * RDMA core's objects behind (ib_destroy_cq() of a CQ whose QP stayed attached to a
 * multicast group).  Everything else fails (mlx5_internal_err_ret_value() makes the same
 * split).
 */
static bool cxib_cmd_releases(u16 opcode)
{
	switch (opcode) {
	case CXIB_CMD_OP_TEARDOWN_HCA:
	case CXIB_CMD_OP_DISABLE_HCA:
	case CXIB_CMD_OP_DESTROY_MKEY:
	case CXIB_CMD_OP_DESTROY_EQ:
	case CXIB_CMD_OP_DESTROY_CQ:
	case CXIB_CMD_OP_DESTROY_QP:
	case CXIB_CMD_OP_2ERR_QP:
	case CXIB_CMD_OP_2RST_QP:
	case CXIB_CMD_OP_DESTROY_SRQ:
	case CXIB_CMD_OP_DESTROY_XRC_SRQ:
	case CXIB_CMD_OP_DEALLOC_Q_COUNTER:
	case CXIB_CMD_OP_DEALLOC_PD:
	case CXIB_CMD_OP_DEALLOC_UAR:
	case CXIB_CMD_OP_DETACH_FROM_MCG:
	case CXIB_CMD_OP_DEALLOC_XRCD:
	case CXIB_CMD_OP_DEALLOC_TRANSPORT_DOMAIN:
	case CXIB_CMD_OP_DESTROY_RMP:
	case CXIB_CMD_OP_DESTROY_UCTX:
		return true;
	default:
		return false;
	}
}

/* What a command gets on a dead device: 0 (an output of status OK) or -EIO. */
static int cxib_cmd_dead(struct cxib_dev *dev, u16 opcode, u16 op_mod, void *out, u32 outlen)
{
	dev_dbg(&dev->pdev->dev, "%s (0x%x) op_mod 0x%x: device is dead\n",
		cxib_cmd_opcode_str(opcode), opcode, op_mod);
	if (!cxib_cmd_releases(opcode))
		return -EIO;
	memset(out, 0, outlen);
	return 0;
}

/**
 * cxib_cmd_exec_flags() - execute one firmware command
 * @dev: the device, with its command queue set up
 * @in: the command input, starting with the opcode; at least CXIB_CMD_IN_HDR_LEN bytes
 * @inlen: input length in bytes (the command's CXIB_<CMD>_IN_LEN)
 * @out: room for the output
 * @outlen: output length in bytes (the command's CXIB_<CMD>_OUT_LEN)
 * @flags: CXIB_CMD_F_*
 *
 * Sleeps until the firmware completes the command, at most the queue's timeout.  A failure is
 * logged once, rate limited, with the command's name, op_mod, status and syndrome.
 *
 * Return: 0 when the firmware executed the command with status OK, and @out holds the
 * output; the errno of the return status (cxib_cmd_status_to_errno()) when it failed,
 * with status and syndrome in @out; -ETIMEDOUT, -EIO (delivery error, dead device) or
 * -ENOMEM when the command did not execute, and @out is undefined.
 */
int cxib_cmd_exec_flags(struct cxib_dev *dev, const void *in, u32 inlen, void *out,
			u32 outlen, unsigned int flags)
{
	struct cxib_cmdq *cmdq = &dev->cmdq;
	u16 opcode = CXIB_GET(in, CXIB_CMD_IN_OPCODE);
	u16 op_mod = CXIB_GET(in, CXIB_CMD_IN_OP_MOD);
	bool pages = opcode == CXIB_CMD_OP_MANAGE_PAGES;
	struct cxib_cmd_msg inmsg, outmsg;
	struct cxib_cmd_queue_entry ent, *hwent;
	struct cxib_cmd_slot *s;
	unsigned long irqflags;
	unsigned int slot, i;
	u8 token, delivery;
	bool events;
	int err;

	might_sleep();
	if (WARN_ON(inlen < CXIB_CMD_IN_HDR_LEN || outlen < CXIB_CMD_OUT_HDR_LEN))
		return -EINVAL;
	if (cxib_dev_dead(dev))
		return cxib_cmd_dead(dev, opcode, op_mod, out, outlen);

	err = cxib_cmd_msg_alloc(cmdq, &inmsg, inlen);
	if (err)
		return err;
	err = cxib_cmd_msg_alloc(cmdq, &outmsg, outlen);
	if (err)
		goto err_free_in;

	cxib_cmd_reap_stale(dev);
	err = cxib_cmd_get_slot(dev, pages, &slot);
	if (err && cxib_dev_dead(dev)) {
		err = cxib_cmd_dead(dev, opcode, op_mod, out, outlen);
		goto err_free_out;
	}
	if (err) {
		dev_err_ratelimited(&dev->pdev->dev,
				    "%s (0x%x) op_mod 0x%x: no free command slot within %u ms\n",
				    cxib_cmd_opcode_str(opcode), opcode, op_mod,
				    cmdq->timeout_ms);
		err = -ETIMEDOUT;
		goto err_free_out;
	}
	s = &cmdq->slots[slot];

	spin_lock_irqsave(&cmdq->lock, irqflags);
	token = cxib_cmd_next_token(cmdq->token);
	cmdq->token = token;
	spin_unlock_irqrestore(&cmdq->lock, irqflags);

	cxib_cmd_msg_write(&inmsg, in, inlen);
	cxib_cmd_msg_chain(&inmsg, token);
	for (i = 0; i < inmsg.nblocks; i++)
		cxib_cmd_mbox_sign(inmsg.blocks[i].buf);
	cxib_cmd_msg_chain(&outmsg, token);
	cxib_cmd_build_entry(&ent, in, inlen, outlen, &inmsg, &outmsg, token);

	s->in = inmsg;
	s->out = outmsg;
	s->opcode = opcode;
	reinit_completion(&s->done);
	events = READ_ONCE(cmdq->events);

	hwent = cxib_cmd_entry(cmdq, slot);
	memcpy(hwent, &ent, sizeof(ent));
	/*
	 * The doorbell is an MMIO write, ordered after the writes of the entry and the
	 * mailboxes above, so the firmware reads them complete.
	 */
	cxib_iseg_write(dev, CXIB_OFFSET(CXIB_ISEG_CMD_DBELL), BIT(slot));

	err = cxib_cmd_wait(dev, slot, events, opcode);
	if (err) {
		spin_lock_irqsave(&cmdq->lock, irqflags);
		s->stale = true;
		spin_unlock_irqrestore(&cmdq->lock, irqflags);
		if (err == -ETIMEDOUT) {
			dev_err_ratelimited(&dev->pdev->dev,
					    "%s (0x%x) op_mod 0x%x: no completion within %u ms (slot %u)\n",
					    cxib_cmd_opcode_str(opcode), opcode, op_mod,
					    cmdq->timeout_ms, slot);
			cxib_health_cmd_timeout(dev);
			return err;	/* the slot keeps its mailboxes (stale, above) */
		}
		/* the device died while it waited */
		return cxib_cmd_dead(dev, opcode, op_mod, out, outlen);
	}

	/* Read the output only after seeing the entry handed back. */
	dma_rmb();
	delivery = CXIB_GET(hwent, CXIB_CMD_ENTRY_STATUS);
	if (delivery != CXIB_CMD_DELIVERY_OK) {
		dev_err_ratelimited(&dev->pdev->dev,
				    "%s (0x%x) op_mod 0x%x not delivered: delivery status 0x%02x (%s)\n",
				    cxib_cmd_opcode_str(opcode), opcode, op_mod, delivery,
				    cxib_cmd_delivery_str(delivery));
		err = -EIO;
	} else {
		memcpy(out, hwent->out, min_t(u32, outlen, CXIB_CMD_INLINE_LEN));
		cxib_cmd_msg_read(&outmsg, out, outlen);
	}

	s->in.nblocks = 0;
	s->in.blocks = NULL;
	s->out.nblocks = 0;
	s->out.blocks = NULL;
	cxib_cmd_put_slot(cmdq, slot);
	cxib_cmd_msg_free(cmdq, &outmsg);
	cxib_cmd_msg_free(cmdq, &inmsg);
	if (err)
		return err;

	if (CXIB_GET(out, CXIB_CMD_OUT_STATUS) != CXIB_CMD_STAT_OK) {
		cxib_cmd_log_status(dev, in, out, flags);
		return cxib_cmd_status_to_errno(CXIB_GET(out, CXIB_CMD_OUT_STATUS));
	}
	return 0;

err_free_out:
	cxib_cmd_msg_free(cmdq, &outmsg);
err_free_in:
	cxib_cmd_msg_free(cmdq, &inmsg);
	return err;
}
EXPORT_SYMBOL_IF_KUNIT(cxib_cmd_exec_flags);

/**
 * cxib_cmd_exec() - execute one firmware command
 * @dev: the device
 * @in: the command input
 * @inlen: input length in bytes
 * @out: room for the output
 * @outlen: output length in bytes
 *
 * cxib_cmd_exec_flags() without flags.
 *
 * Return: 0 or a negative errno.
 */
int cxib_cmd_exec(struct cxib_dev *dev, const void *in, u32 inlen, void *out, u32 outlen)
{
	return cxib_cmd_exec_flags(dev, in, inlen, out, outlen, 0);
}

/**
 * cxib_cmd_comp_event() - handle a command completion event
 * @dev: the device
 * @vector: the event's bitmask of completed slots
 *
 * Wakes the commands waiting in those slots and frees stale slots the firmware gave back.
 * Called from the command EQ's interrupt handler.
 */
void cxib_cmd_comp_event(struct cxib_dev *dev, u32 vector)
{
	struct cxib_cmdq *cmdq = &dev->cmdq;
	unsigned long bits = vector;
	unsigned long flags;
	unsigned int slot;

	spin_lock_irqsave(&cmdq->lock, flags);
	for_each_set_bit(slot, &bits, cmdq->nslots) {
		if (cmdq->slots[slot].stale)
			cxib_cmd_reap_locked(cmdq, slot);
		else
			complete(&cmdq->slots[slot].done);
	}
	spin_unlock_irqrestore(&cmdq->lock, flags);
}

/**
 * cxib_cmd_abort_all() - wake every command waiting for an event
 * @dev: the device, already marked dead
 *
 * The waiters see the dead device and fail with -EIO.
 */
void cxib_cmd_abort_all(struct cxib_dev *dev)
{
	struct cxib_cmdq *cmdq = &dev->cmdq;
	unsigned int slot;

	for (slot = 0; slot < cmdq->nslots; slot++)
		complete(&cmdq->slots[slot].done);
}
EXPORT_SYMBOL_IF_KUNIT(cxib_cmd_abort_all);

/**
 * cxib_cmd_use_events() - switch between completion by event and by polling
 * @dev: the device
 * @events: true once the command EQ exists and is armed, false before it is destroyed
 *
 * Commands started before the switch finish the way they started; one that waits for an
 * event that no longer comes finds its completion by its periodic look at the entry.
 */
void cxib_cmd_use_events(struct cxib_dev *dev, bool events)
{
	WRITE_ONCE(dev->cmdq.events, events);
}

/**
 * cxib_cmd_init() - set up the command queue and hand it to the firmware
 * @dev: the device, with its initialization segment mapped and the firmware ready
 * @timeout_ms: how long a command may take (and wait for a free slot)
 *
 * Reads the queue geometry from the initialization segment, allocates the queue page and
 * the mailbox pool, writes the queue address (high dword, then low) and waits for the
 * firmware to take it.  Commands complete by polling until cxib_cmd_use_events().
 *
 * Return: 0 or a negative errno, with nothing left allocated.
 */
int cxib_cmd_init(struct cxib_dev *dev, unsigned int timeout_ms)
{
	struct cxib_cmdq *cmdq = &dev->cmdq;
	struct device *dmadev = &dev->pdev->dev;
	unsigned int slot;
	u32 v;
	int err;

	v = cxib_iseg_read(dev, CXIB_OFFSET(CXIB_ISEG_LOG_CMDQ_SIZE));
	cmdq->log_size = CXIB_FIELD_GET(CXIB_ISEG_LOG_CMDQ_SIZE, v);
	cmdq->log_stride = CXIB_FIELD_GET(CXIB_ISEG_LOG_CMDQ_STRIDE, v);
	if (cmdq->log_size > CXIB_LOG_CMDQ_SIZE_MAX || cmdq->log_size < 1 ||
	    cmdq->log_stride < CXIB_LOG_CMDQ_STRIDE_MIN ||
	    (CXIB_CMDQ_BYTES >> cmdq->log_stride) < (1u << cmdq->log_size)) {
		dev_err(dmadev, "unusable command queue geometry: 2^%u entries of 2^%u bytes\n",
			cmdq->log_size, cmdq->log_stride);
		return -EINVAL;
	}
	cmdq->nslots = 1u << cmdq->log_size;
	cmdq->pages_slot = cmdq->nslots - 1;
	cmdq->timeout_ms = timeout_ms;

	spin_lock_init(&cmdq->lock);
	cmdq->free = GENMASK(cmdq->pages_slot - 1, 0);
	cmdq->token = 0;
	sema_init(&cmdq->sem, cmdq->nslots - 1);
	sema_init(&cmdq->pages_sem, 1);
	cmdq->events = false;
	for (slot = 0; slot < cmdq->nslots; slot++) {
		init_completion(&cmdq->slots[slot].done);
		cmdq->slots[slot].stale = false;
	}

	cmdq->buf = dma_alloc_coherent(dmadev, CXIB_CMDQ_BYTES, &cmdq->dma, GFP_KERNEL);
	if (!cmdq->buf)
		return -ENOMEM;
	if (!IS_ALIGNED(cmdq->dma, CXIB_CMDQ_BYTES)) {
		dev_err(dmadev, "command queue at %pad is not 4 KiB aligned\n", &cmdq->dma);
		err = -ENOMEM;
		goto err_free_queue;
	}

	cmdq->pool = dma_pool_create("cxib_cmd", dmadev, CXIB_CMD_MBOX_SIZE, CXIB_CMD_MBOX_ALIGN,
				     0);
	if (!cmdq->pool) {
		err = -ENOMEM;
		goto err_free_queue;
	}

	cxib_iseg_write(dev, CXIB_OFFSET(CXIB_ISEG_CMDQ_ADDR_H), upper_32_bits(cmdq->dma));
	cxib_iseg_write(dev, CXIB_OFFSET(CXIB_ISEG_CMDQ_ADDR_L),
			lower_32_bits(cmdq->dma) & CXIB_FMASK(CXIB_ISEG_CMDQ_ADDR_L));

	err = cxib_iseg_wait_ready(dev, CXIB_CMDQ_INIT_TIMEOUT_MS);
	if (err)
		goto err_destroy_pool;

	dev_dbg(dmadev, "command queue: %u slots of %u bytes at %pad\n", cmdq->nslots,
		1u << cmdq->log_stride, &cmdq->dma);
	return 0;

err_destroy_pool:
	dma_pool_destroy(cmdq->pool);
err_free_queue:
	dma_free_coherent(dmadev, CXIB_CMDQ_BYTES, cmdq->buf, cmdq->dma);
	return err;
}
EXPORT_SYMBOL_IF_KUNIT(cxib_cmd_init);

/**
 * cxib_cmd_cleanup() - free the command queue
 * @dev: the device, disabled (DISABLE_HCA) or dead
 *
 * If the firmware never gave back some stale slot, bus mastering is turned off first, so
 * it cannot write the mailboxes freed here.
 */
void cxib_cmd_cleanup(struct cxib_dev *dev)
{
	struct cxib_cmdq *cmdq = &dev->cmdq;
	unsigned int slot, nstale = 0;

	cxib_cmd_reap_stale(dev);
	for (slot = 0; slot < cmdq->nslots; slot++)
		nstale += cmdq->slots[slot].stale;
	if (nstale) {
		dev_warn(&dev->pdev->dev,
			 "%u commands never completed; disabling DMA before freeing their mailboxes\n",
			 nstale);
		pci_clear_master(dev->pdev);
		for (slot = 0; slot < cmdq->nslots; slot++) {
			if (!cmdq->slots[slot].stale)
				continue;
			cxib_cmd_msg_free(cmdq, &cmdq->slots[slot].in);
			cxib_cmd_msg_free(cmdq, &cmdq->slots[slot].out);
			cmdq->slots[slot].stale = false;
		}
	}

	dma_pool_destroy(cmdq->pool);
	dma_free_coherent(&dev->pdev->dev, CXIB_CMDQ_BYTES, cmdq->buf, cmdq->dma);
}
EXPORT_SYMBOL_IF_KUNIT(cxib_cmd_cleanup);
