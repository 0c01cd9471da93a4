// SPDX-License-Identifier: GPL-2.0-only
/*
 * cxib_kunit: which health register values mean the firmware is dead (health.c; PRM
 * §1.4): the health buffer's version word reading all ones, the NIC interface disabled or
 * in software reset, or a reset flow requested together with a syndrome.  Register values
 * are composed by hand from the PRM's bit positions.
 */

#include <kunit/test.h>

#include "cxib_kunit.h"

#define FW_VER_OK	0x0010001c	/* any version word but all ones */
#define NIC_IF(v)	((u32)(v) << 8)	/* 0x014 [10:8] */
#define RFR		BIT(31)		/* health dword 14, bit 31 (byte 0x238 bit 7) */
#define SYND(v)		((u32)(v) << 16)	/* health dword 15 [23:16] (byte 0x23d) */

static void healthy_registers_are_not_fatal(struct kunit *test)
{
	/* Queue geometry bits and the low address bits next to nic_interface do not count. */
	KUNIT_EXPECT_NULL(test, cxib_health_fatal_reason(FW_VER_OK, 0x00000056, 0, 0));
	KUNIT_EXPECT_NULL(test, cxib_health_fatal_reason(0, 0xfffff056, 0, 0));
	/* A no-DRAM NIC interface is not a failure. */
	KUNIT_EXPECT_NULL(test, cxib_health_fatal_reason(FW_VER_OK, NIC_IF(2), 0, 0));
}

static void dead_firmware_reads_all_ones(struct kunit *test)
{
	KUNIT_EXPECT_NOT_NULL(test, cxib_health_fatal_reason(U32_MAX, 0, 0, 0));
}

static void nic_interface_disabled_or_reset_is_fatal(struct kunit *test)
{
	KUNIT_EXPECT_NOT_NULL(test, cxib_health_fatal_reason(FW_VER_OK, NIC_IF(1), 0, 0));
	KUNIT_EXPECT_NOT_NULL(test, cxib_health_fatal_reason(FW_VER_OK, NIC_IF(7), 0, 0));
}

/* A reset flow is fatal only with a syndrome, and a syndrome only with a reset flow. */
static void reset_flow_needs_syndrome(struct kunit *test)
{
	KUNIT_EXPECT_NOT_NULL(test, cxib_health_fatal_reason(FW_VER_OK, 0, RFR, SYND(0x0a)));
	KUNIT_EXPECT_NULL(test, cxib_health_fatal_reason(FW_VER_OK, 0, RFR, 0));
	KUNIT_EXPECT_NULL(test, cxib_health_fatal_reason(FW_VER_OK, 0, 0, SYND(0x0a)));
	/* The other bits of those dwords (severity, irisc index, ext syndrome) do not count. */
	KUNIT_EXPECT_NULL(test, cxib_health_fatal_reason(FW_VER_OK, 0, 0x7fffffff,
							 0xff00ffff));
}

static struct kunit_case cxib_health_cases[] = {
	KUNIT_CASE(healthy_registers_are_not_fatal),
	KUNIT_CASE(dead_firmware_reads_all_ones),
	KUNIT_CASE(nic_interface_disabled_or_reset_is_fatal),
	KUNIT_CASE(reset_flow_needs_syndrome),
	{}
};

static struct kunit_suite cxib_health_suite = {
	.name = "cxib_health",
	.test_cases = cxib_health_cases,
};

kunit_test_suite(cxib_health_suite);
