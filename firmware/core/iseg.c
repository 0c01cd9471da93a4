// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * cxfw BAR0 register file: initialization segment, health buffer, timers, UAR pages.
 *
 * Registers are computed per access from the device state as host-order 32-bit values and
 * placed big-endian in BAR0 (bit 31 at the lowest byte address), as the PRM lays them out.
 * An access of 1, 2, 4 or 8 bytes collects or scatters the byte lanes it covers, so every
 * width works and an 8-byte access simply spans two registers.  UAR pages (BAR0 page 3 on)
 * read as zero; a 32-bit write to an EQ doorbell (+0x40 / +0x48) goes to eq.c, a 64-bit
 * write to the CQ doorbell (+0x20) to cq.c.
 */
#include "cxfw_priv.h"

/* Side effects of a register write, carried out after the lock is dropped. */
struct cxfw_write_effects {
	bool kick;			/* command doorbell rung */
	uint32_t bad_slots;		/* doorbell bits beyond the queue */
	uint32_t dropped_slots;		/* doorbell bits rung while the firmware is dead */
	bool nic_changed;
	uint8_t nic_interface;
};

/* Bit position of byte @lane (0 = lowest address) of a big-endian register. */
static inline unsigned int cxfw_lane_shift(unsigned int lane)
{
	return 24 - 8 * lane;
}

static uint32_t cxfw_fw_rev(const struct cxfw_dev *dev)
{
	return CXIB_FIELD_PREP(CXIB_ISEG_FW_REV_MINOR, dev->cfg.fw_minor) |
	       CXIB_FIELD_PREP(CXIB_ISEG_FW_REV_MAJOR, dev->cfg.fw_major);
}

/* Free-running counter at device_frequency_khz since power-on. */
static uint64_t cxfw_internal_timer(const struct cxfw_dev *dev, uint64_t now)
{
	uint64_t ns = cxfw_elapsed_ns(now, dev->power_on_ns);
	uint64_t khz = dev->cfg.device_frequency_khz;

	/* Split at whole milliseconds so the product cannot overflow. */
	return (ns / CXFW_NS_PER_MS) * khz + (ns % CXFW_NS_PER_MS) * khz / CXFW_NS_PER_MS;
}

/*
 * health_counter[23:0]: +1 per millisecond since reset; frozen once the firmware is dead,
 * and while a health-stall fault (fault.c) holds it.
 */
uint32_t cxfw_iseg_health_counter(const struct cxfw_dev *dev, uint64_t now)
{
	if (dev->fatal)
		return dev->frozen_counter;
	if (dev->fault.health_stall)
		return dev->fault.health_counter;
	return CXIB_FIELD_GET(CXIB_ISEG_HEALTH_COUNTER,
			      CXIB_FIELD_PREP(CXIB_ISEG_HEALTH_COUNTER,
					      cxfw_elapsed_ns(now, dev->reset_ns) / CXFW_NS_PER_MS));
}

uint64_t cxfw_iseg_cmdq_base(const struct cxfw_dev *dev)
{
	return (uint64_t)dev->cmdq_addr_h << 32 |
	       CXIB_FIELD_PREP(CXIB_ISEG_CMDQ_ADDR_L, dev->cmdq_addr_l);
}

static uint32_t cxfw_cmdq_addr_l_reg(const struct cxfw_dev *dev)
{
	return CXIB_FIELD_PREP(CXIB_ISEG_CMDQ_ADDR_L, dev->cmdq_addr_l) |
	       CXIB_FIELD_PREP(CXIB_ISEG_NIC_INTERFACE, dev->nic_interface) |
	       CXIB_FIELD_PREP(CXIB_ISEG_LOG_CMDQ_SIZE, dev->cfg.log_cmdq_size) |
	       CXIB_FIELD_PREP(CXIB_ISEG_LOG_CMDQ_STRIDE, CXIB_LOG_CMDQ_STRIDE_MIN);
}

static bool cxfw_initializing(const struct cxfw_dev *dev, uint64_t now)
{
	return cxfw_elapsed_ns(now, dev->reset_ns) <
	       (uint64_t)dev->cfg.init_delay_ms * CXFW_NS_PER_MS;
}

/* Host-order value of init-segment dword @dw; lock held. */
static uint32_t cxfw_reg_read(const struct cxfw_dev *dev, uint32_t dw, uint64_t now)
{
	switch (dw) {
	case CXIB_DW(CXIB_ISEG_FW_REV_MAJOR):
		return cxfw_fw_rev(dev);
	case CXIB_DW(CXIB_ISEG_CMDIF_REV):
		return CXIB_FIELD_PREP(CXIB_ISEG_CMDIF_REV, CXIB_CMDIF_REV) |
		       CXIB_FIELD_PREP(CXIB_ISEG_FW_REV_SUBMINOR, dev->cfg.fw_subminor);
	case CXIB_DW(CXIB_ISEG_CMDQ_ADDR_H):
		return dev->cmdq_addr_h;
	case CXIB_DW(CXIB_ISEG_CMDQ_ADDR_L):
		return cxfw_cmdq_addr_l_reg(dev);
	case CXIB_DW(CXIB_ISEG_CMD_DBELL):
		return 0;	/* write-only */
	case CXIB_DW(CXIB_ISEG_INITIALIZING):
		/* fw_reset_supported, nic_interface_supported and embedded_cpu all 0 */
		return CXIB_FIELD_PREP(CXIB_ISEG_INITIALIZING, cxfw_initializing(dev, now));
	case CXIB_DW(CXIB_HEALTH_TIME):
		return dev->fatal ? dev->health_time : 0;
	case CXIB_DW(CXIB_HEALTH_FW_VER):
		return cxfw_fw_rev(dev);
	case CXIB_DW(CXIB_HEALTH_HW_ID):
		return dev->cfg.pci_device_id;
	case CXIB_DW(CXIB_HEALTH_RFR):
		if (!dev->fatal)
			return 0;
		return CXIB_FIELD_PREP(CXIB_HEALTH_RFR, 1) |
		       CXIB_FIELD_PREP(CXIB_HEALTH_VALID, 1) |
		       CXIB_FIELD_PREP(CXIB_HEALTH_SEVERITY, CXFW_HEALTH_SEVERITY_CRIT);
	case CXIB_DW(CXIB_HEALTH_SYND):
		return dev->fatal ? CXIB_FIELD_PREP(CXIB_HEALTH_SYND, dev->health_synd) : 0;
	case CXIB_DW(CXIB_ISEG_CMD_EXEC_TO):
	case CXIB_DW(CXIB_ISEG_CMD_Q_INIT_TO):
		return 0;	/* "not supported": the driver uses its defaults, no DTOR */
	case CXIB_DW(CXIB_ISEG_INTERNAL_TIMER_H):
		return (uint32_t)(cxfw_internal_timer(dev, now) >> 32);
	case CXIB_DW(CXIB_ISEG_INTERNAL_TIMER_L):
		return (uint32_t)cxfw_internal_timer(dev, now);
	case CXIB_DW(CXIB_ISEG_HEALTH_COUNTER):
		return CXIB_FIELD_PREP(CXIB_ISEG_HEALTH_SYNDROME,
				       dev->fatal ? dev->health_synd : 0) |
		       CXIB_FIELD_PREP(CXIB_ISEG_HEALTH_COUNTER,
				       cxfw_iseg_health_counter(dev, now));
	default:
		return 0;
	}
}

static void cxfw_doorbell(struct cxfw_dev *dev, uint32_t bits, struct cxfw_write_effects *eff)
{
	uint32_t valid = bits & cxfw_cmdq_slot_mask(dev);

	eff->bad_slots |= bits & ~valid;
	if (!valid)
		return;
	dev->stats.cmd_doorbells += (uint64_t)__builtin_popcount(valid);
	if (dev->fatal) {
		eff->dropped_slots |= valid;
		return;
	}
	dev->cmd_pending |= valid;
	eff->kick = true;
}

/*
 * Write the byte lanes of init-segment dword @dw selected by @mask with @data (both host
 * order, other bits of @data zero); lock held.
 */
static void cxfw_reg_write(struct cxfw_dev *dev, uint32_t dw, uint32_t data, uint32_t mask,
			   struct cxfw_write_effects *eff)
{
	uint32_t v;

	switch (dw) {
	case CXIB_DW(CXIB_ISEG_CMDQ_ADDR_H):
		dev->cmdq_addr_h = (dev->cmdq_addr_h & ~mask) | data;
		break;
	case CXIB_DW(CXIB_ISEG_CMDQ_ADDR_L):
		/* size and stride are read-only; bit 11 is reserved */
		v = (cxfw_cmdq_addr_l_reg(dev) & ~mask) | data;
		dev->cmdq_addr_l = CXIB_FIELD_GET(CXIB_ISEG_CMDQ_ADDR_L, v);
		if (dev->nic_interface != CXIB_FIELD_GET(CXIB_ISEG_NIC_INTERFACE, v)) {
			dev->nic_interface = CXIB_FIELD_GET(CXIB_ISEG_NIC_INTERFACE, v);
			eff->nic_changed = true;
			eff->nic_interface = dev->nic_interface;
		}
		break;
	case CXIB_DW(CXIB_ISEG_CMD_DBELL):
		cxfw_doorbell(dev, data, eff);
		break;
	default:
		break;	/* read-only or unused: ignored */
	}
}

static bool cxfw_access_ok(uint64_t offset, unsigned int size)
{
	if (size != 1 && size != 2 && size != 4 && size != 8)
		return false;
	if (offset & (size - 1))
		return false;
	return offset < CXIB_BAR0_SIZE && CXIB_BAR0_SIZE - offset >= size;
}

static void cxfw_bad_access(struct cxfw_dev *dev, const char *dir, uint64_t offset,
			    unsigned int size)
{
	cxfw_log(dev, CXFW_LOG_ERR, "cxfw: bad BAR0 %s of %u bytes at 0x%llx ignored", dir, size,
		 (unsigned long long)offset);
}

uint64_t cxfw_mmio_read(struct cxfw_dev *dev, uint64_t offset, unsigned int size)
{
	uint64_t val = 0, now;
	uint32_t dw, cur_dw = UINT32_MAX, reg = 0;
	unsigned int i;

	if (!cxfw_access_ok(offset, size)) {
		cxfw_stat_add(dev, &dev->stats.mmio_reads, 1);
		cxfw_bad_access(dev, "read", offset, size);
		return 0;
	}
	if (offset >= CXIB_ISEG_SIZE) {
		/* rest of pages 0-2 and UAR pages: nothing readable */
		cxfw_stat_add(dev, &dev->stats.mmio_reads, 1);
		return 0;
	}

	now = cxfw_now(dev);
	pthread_mutex_lock(&dev->lock);
	dev->stats.mmio_reads++;
	for (i = 0; i < size; i++) {
		dw = (uint32_t)((offset + i) / 4);
		if (dw != cur_dw) {
			reg = cxfw_reg_read(dev, dw, now);
			cur_dw = dw;
		}
		val |= (uint64_t)((reg >> cxfw_lane_shift((offset + i) % 4)) & 0xff) << (8 * i);
	}
	pthread_mutex_unlock(&dev->lock);
	return val;
}

void cxfw_mmio_write(struct cxfw_dev *dev, uint64_t offset, uint64_t val, unsigned int size)
{
	struct cxfw_write_effects eff = { 0 };
	uint32_t data[2] = { 0 }, mask[2] = { 0 };
	uint32_t first_dw = (uint32_t)(offset / 4);
	unsigned int i, n, lane;

	if (!cxfw_access_ok(offset, size)) {
		cxfw_stat_add(dev, &dev->stats.mmio_writes, 1);
		cxfw_bad_access(dev, "write", offset, size);
		return;
	}
	if (offset >= CXFW_UAR_BASE) {
		uint32_t uar = (uint32_t)(offset >> CXIB_ADAPTER_PAGE_SHIFT);
		uint32_t off = (uint32_t)(offset & (CXIB_ADAPTER_PAGE_SIZE - 1));

		pthread_mutex_lock(&dev->lock);
		dev->stats.mmio_writes++;
		dev->stats.uar_writes++;
		pthread_mutex_unlock(&dev->lock);
		if (cxfw_dead(dev))
			return;		/* accepted, and ignored */
		if (size == 4 && (off == CXIB_UAR_EQ_DOORBELL_ARM || off == CXIB_UAR_EQ_DOORBELL)) {
			/* BAR bytes in address order are the big-endian doorbell value */
			cxfw_eq_doorbell(dev, uar, off, __builtin_bswap32((uint32_t)val));
			return;
		}
		if (size == 8 && off == CXIB_UAR_CQ_DOORBELL) {
			/* two big-endian dwords: sn/cmd/ci, then the CQN */
			cxfw_cq_doorbell(dev, uar, __builtin_bswap32((uint32_t)val),
					 __builtin_bswap32((uint32_t)(val >> 32)));
			return;
		}
		/* SQ doorbell: the first 8 bytes of a WQE at the start of a BlueFlame half */
		if (size == 8 && off >= CXIB_UAR_BF_OFFSET &&
		    !((off - CXIB_UAR_BF_OFFSET) % CXIB_BF_HALF_SIZE(CXIB_LOG_BF_REG_SIZE))) {
			cxfw_qp_sq_doorbell(dev, uar, __builtin_bswap32((uint32_t)val),
					    __builtin_bswap32((uint32_t)(val >> 32)));
			return;
		}
		/*
		 * The rest of a BlueFlame copy: the WQE is read from memory instead.  The
		 * last 8 bytes of each 64-byte chunk count one BlueFlame write.
		 */
		if (size == 8 && off >= CXIB_UAR_BF_OFFSET &&
		    (off - CXIB_UAR_BF_OFFSET) % CXIB_SEND_WQE_BB ==
		    CXIB_SEND_WQE_BB - sizeof(uint64_t))
			cxfw_stat_add(dev, &dev->stats.bf_writes, 1);
		cxfw_log(dev, CXFW_LOG_DEBUG, "cxfw: UAR %u write of %u bytes at +0x%03x", uar,
			 size, off);
		return;
	}
	if (offset >= CXIB_ISEG_SIZE) {
		cxfw_stat_add(dev, &dev->stats.mmio_writes, 1);
		return;
	}

	/* Scatter the value's bytes (lowest address first) into big-endian register lanes. */
	for (i = 0; i < size; i++) {
		n = (uint32_t)((offset + i) / 4) - first_dw;
		lane = (offset + i) % 4;
		data[n] |= (uint32_t)((val >> (8 * i)) & 0xff) << cxfw_lane_shift(lane);
		mask[n] |= 0xffu << cxfw_lane_shift(lane);
	}

	pthread_mutex_lock(&dev->lock);
	dev->stats.mmio_writes++;
	for (n = 0; n < 2; n++)
		if (mask[n])
			cxfw_reg_write(dev, first_dw + n, data[n], mask[n], &eff);
	pthread_mutex_unlock(&dev->lock);

	if (eff.bad_slots)
		cxfw_log(dev, CXFW_LOG_ERR,
			 "cxfw: command doorbell 0x%08x names slots beyond the %u-entry queue, ignored",
			 eff.bad_slots, cxfw_cmdq_slots(dev));
	if (eff.dropped_slots)
		cxfw_log(dev, CXFW_LOG_DEBUG,
			 "cxfw: command doorbell 0x%08x ignored, firmware is in fatal state",
			 eff.dropped_slots);
	if (eff.nic_changed)
		cxfw_log(dev, CXFW_LOG_INFO, "cxfw: driver set nic_interface %u",
			 eff.nic_interface);
	if (eff.kick)
		dev->plat.kick(dev->plat.opaque);
}
