/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Minimal host test runner for the cxfw core.
 *
 *	TEST(health_counter_advances)
 *	{
 *		CHECK_EQ(rd32(t->dev, 0x1010), 0);
 *	}
 *
 * Every test gets a fresh fixture in *t: a fake platform (t->fk) and a device created with
 * cxfw_config_defaults() on it (t->dev).  A failing CHECK records file:line and a message
 * and returns from the test; the runner tears the fixture down either way.
 */
#ifndef CXFW_TEST_H
#define CXFW_TEST_H

#include <stdbool.h>
#include <stdint.h>

#include "cxfw.h"
#include "fake.h"

struct test_ctx {
	struct fake fk;
	struct cxfw_dev *dev;
	bool failed;
	char msg[512];
};

typedef void (*test_fn)(struct test_ctx *t);

void test_register(const char *name, test_fn fn);
void test_fail(struct test_ctx *t, const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* Replace the fixture's device (and fake memory base) with one built from @cfg. */
bool test_recreate(struct test_ctx *t, const struct cxfw_config *cfg, uint64_t mem_base);

#define TEST(name)							\
	static void test_##name(struct test_ctx *t);			\
	__attribute__((constructor)) static void test_reg_##name(void)	\
	{								\
		test_register(#name, test_##name);			\
	}								\
	static void test_##name(struct test_ctx *t __attribute__((unused)))

#define CHECK(cond)							\
	do {								\
		if (!(cond)) {						\
			test_fail(t, __FILE__, __LINE__, "%s", #cond);	\
			return;						\
		}							\
	} while (0)

#define CHECK_EQ(a, b)							\
	do {								\
		unsigned long long _a = (unsigned long long)(a);	\
		unsigned long long _b = (unsigned long long)(b);	\
		if (_a != _b) {						\
			test_fail(t, __FILE__, __LINE__,		\
				  "%s == %s: 0x%llx != 0x%llx",		\
				  #a, #b, _a, _b);			\
			return;						\
		}							\
	} while (0)

#define CHECK_NE(a, b)							\
	do {								\
		unsigned long long _a = (unsigned long long)(a);	\
		unsigned long long _b = (unsigned long long)(b);	\
		if (_a == _b) {						\
			test_fail(t, __FILE__, __LINE__,		\
				  "%s != %s: both 0x%llx", #a, #b, _a);	\
			return;						\
		}							\
	} while (0)

#endif /* CXFW_TEST_H */
