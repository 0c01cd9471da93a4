/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * cxib hardware interface: the mlx5 PRM subset spoken by cxib.ko and the cxfw model.
 *
 * Ordered as the hardware is met: PCI function and BAR layout, initialization segment,
 * UAR pages.  Later parts of the interface (command queue, commands, data path) follow the
 * same order in their own sections.  Field macros expand to "dword, high bit, low bit" for
 * the accessors in bits.h.
 */
#ifndef _CXIB_HW_H
#define _CXIB_HW_H

#include "bits.h"

/* ---- PCI function ---------------------------------------------------------------- */

#define CXIB_PCI_VENDOR_ID		0x15b3	/* Mellanox Technologies */
#define CXIB_PCI_DEVICE_CX4		0x1013	/* ConnectX-4 PF */
#define CXIB_PCI_DEVICE_CX4_LX		0x1015
#define CXIB_PCI_DEVICE_CX5		0x1017
#define CXIB_PCI_DEVICE_CX5_EX		0x1019
#define CXIB_PCI_DEVICE_CX6		0x101b
#define CXIB_PCI_DEVICE_CX6_DX		0x101d
#define CXIB_PCI_DEVICE_CX6_LX		0x101f
#define CXIB_PCI_DEVICE_CX7		0x1021
#define CXIB_PCI_DEVICE_CX8		0x1023
#define CXIB_PCI_CLASS_INFINIBAND	0x0207	/* network controller, InfiniBand */

/* BAR0: initialization segment at offset 0, then UAR pages, one per 4 KiB. */
#define CXIB_BAR0			0
#define CXIB_BAR0_SIZE			(32u << 20)	/* as on ConnectX-4 */
#define CXIB_ADAPTER_PAGE_SHIFT		12		/* the device's page is 4 KiB */
#define CXIB_ADAPTER_PAGE_SIZE		(1u << CXIB_ADAPTER_PAGE_SHIFT)

/*
 * A queue context's page_offset (qpc, cqc, eqc, srqc, xrc_srqc, wq) says where the queue
 * starts in the first page of its PAS list, in units of that page's size / 64: 64 bytes
 * with 4 KiB pages, 32 KiB with 2 MiB ones (upstream drivers/infiniband/hw/mlx5/srq_cmd.c,
 * get_pas_size(); mlx5_umem_find_best_quantized_pgoff() computes it the same way).
 */
#define CXIB_LOG_PAGE_OFFSET_PARTS	6

/*
 * Bytes of @page_offset with pages of 4 KiB << @log_page_size.  No context's field holds
 * 64 or more, so the offset always lies inside the first page (CXIB_PAGE_OFFSET_FITS).
 */
#define CXIB_PAGE_OFFSET_BYTES(page_offset, log_page_size) \
	((__u64)(page_offset) << \
	 (CXIB_ADAPTER_PAGE_SHIFT + (log_page_size) - CXIB_LOG_PAGE_OFFSET_PARTS))

/* Bytes of one page_offset unit with pages of 4 KiB << @log_page_size: 64 with 4 KiB pages. */
#define CXIB_PAGE_OFFSET_UNIT(log_page_size)	CXIB_PAGE_OFFSET_BYTES(1, log_page_size)

/* Whether the page_offset field @... (dword, hi, lo) cannot name a place beyond its page. */
#define CXIB_PAGE_OFFSET_FITS(...) \
	(CXIB_FIELD_MAX(__VA_ARGS__) < 1u << CXIB_LOG_PAGE_OFFSET_PARTS)
/* Bytes of BAR0 the driver maps for registers (the Linux init segment struct size). */
#define CXIB_ISEG_SIZE			0x2010
/* BAR pages 0-2 hold the init segment and the clock page; UAR indexes start after them. */
#define CXIB_FIRST_UAR_INDEX		3
/* The model puts its MSI-X table and PBA in their own BAR. */
#define CXIB_MSIX_BAR			2

/* ---- Initialization segment (BAR0 + 0) ------------------------------------------- */

#define CXIB_ISEG_FW_REV_MINOR		0, 31, 16
#define CXIB_ISEG_FW_REV_MAJOR		0, 15, 0
#define CXIB_ISEG_CMDIF_REV		1, 31, 16
#define CXIB_ISEG_FW_REV_SUBMINOR	1, 15, 0
#define CXIB_ISEG_CMDQ_ADDR_H		4, 31, 0
#define CXIB_ISEG_CMDQ_ADDR_L		5, 31, 12	/* cmdq_phy_addr[31:12] */
#define CXIB_ISEG_NIC_INTERFACE		5, 10, 8
#define CXIB_ISEG_LOG_CMDQ_SIZE		5, 7, 4
#define CXIB_ISEG_LOG_CMDQ_STRIDE	5, 3, 0
#define CXIB_ISEG_CMD_DBELL		6, 31, 0	/* bit i: execute slot i */
#define CXIB_ISEG_INITIALIZING		127, 31, 31	/* 0x1fc */
#define CXIB_ISEG_FW_RESET_SUPPORTED	127, 30, 30
#define CXIB_ISEG_NIC_IF_SUPPORTED	127, 26, 24
#define CXIB_ISEG_EMBEDDED_CPU		127, 23, 23

/* Health buffer, 0x200-0x23f. */
#define CXIB_HEALTH_ASSERT_VAR0		128, 31, 0	/* assert_var[0..5]: dwords 128-133 */
#define CXIB_HEALTH_NUM_ASSERT_VARS	6
#define CXIB_HEALTH_ASSERT_EXIT_PTR	136, 31, 0
#define CXIB_HEALTH_ASSERT_CALLRA	137, 31, 0
#define CXIB_HEALTH_TIME		139, 31, 0
#define CXIB_HEALTH_FW_VER		140, 31, 0	/* 0xffffffff: firmware dead */
#define CXIB_HEALTH_HW_ID		141, 31, 0
#define CXIB_HEALTH_RFR			142, 31, 31	/* reset flow required */
#define CXIB_HEALTH_CRR			142, 30, 30
#define CXIB_HEALTH_VALID		142, 27, 27
#define CXIB_HEALTH_SEVERITY		142, 26, 24
#define CXIB_HEALTH_IRISC_INDEX		143, 31, 24
#define CXIB_HEALTH_SYND		143, 23, 16
#define CXIB_HEALTH_EXT_SYND		143, 15, 0

/* Timeouts the driver may read; [31:29] unit, [19:0] value.  0 means "not supported". */
#define CXIB_ISEG_CMD_EXEC_TO		1022, 31, 0	/* 0xff8 */
#define CXIB_ISEG_CMD_Q_INIT_TO		1023, 31, 0	/* 0xffc */
#define CXIB_TO_UNIT			0, 31, 29
#define CXIB_TO_VALUE			0, 19, 0

/* Free-running timer at device_frequency_khz, and the health counter. */
#define CXIB_ISEG_INTERNAL_TIMER_H	1024, 31, 0	/* 0x1000 */
#define CXIB_ISEG_INTERNAL_TIMER_L	1025, 31, 0	/* 0x1004 */
#define CXIB_ISEG_CLEAR_INT		1027, 0, 0	/* 0x100c, INTx clear (unused) */
#define CXIB_ISEG_HEALTH_SYNDROME	1028, 31, 24	/* 0x1010 */
#define CXIB_ISEG_HEALTH_COUNTER	1028, 23, 0

#define CXIB_CMDIF_REV			5	/* the only revision cxib speaks */
#define CXIB_LOG_CMDQ_SIZE_MAX		5	/* at most 32 entries */
#define CXIB_LOG_CMDQ_STRIDE_MIN	6	/* at least 64 bytes per entry */

/* nic_interface values (ISEG_NIC_INTERFACE). */
enum {
	CXIB_NIC_IF_FULL_DRIVER		= 0,
	CXIB_NIC_IF_DISABLED		= 1,
	CXIB_NIC_IF_NO_DRAM_NIC		= 2,
	CXIB_NIC_IF_SW_RESET		= 7,
};

/* ---- UAR page (BAR0 + uar_index * 4 KiB) ----------------------------------------- */

#define CXIB_UAR_CQ_DOORBELL		0x020	/* 64-bit: arm/ci dword, then CQN */
#define CXIB_UAR_EQ_DOORBELL_ARM	0x040	/* 32-bit: [31:24] EQN, [23:0] CI; arms */
#define CXIB_UAR_EQ_DOORBELL		0x048	/* same, update CI only */
#define CXIB_UAR_BF_OFFSET		0x800	/* first BlueFlame register */
#define CXIB_UAR_NUM_BF_REGS		4
#define CXIB_LOG_BF_REG_SIZE		9	/* 512-byte BlueFlame registers */
/*
 * A BlueFlame register is used as two halves in turn: each doorbell (or BlueFlame copy of
 * a WQE) goes to the start of the half the previous one did not use.  Bytes of a half:
 */
#define CXIB_BF_HALF_SIZE(log_bf_reg_size)	((1u << (log_bf_reg_size)) / 2)

#endif /* _CXIB_HW_H */
