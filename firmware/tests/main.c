// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * cxfw host test runner: one line per test ("ok <name>" or "FAIL <name>: <why>"), then
 * "N passed, N failed".  Exit status 1 if anything failed.  An optional argument runs only
 * the tests whose name contains it.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "drv.h"
#include "test.h"

#define MAX_TESTS 1024

static struct {
	const char *name;
	test_fn fn;
} tests[MAX_TESTS];
static unsigned int num_tests;

void test_register(const char *name, test_fn fn)
{
	if (num_tests == MAX_TESTS) {
		fprintf(stderr, "too many tests, raise MAX_TESTS\n");
		exit(2);
	}
	tests[num_tests].name = name;
	tests[num_tests].fn = fn;
	num_tests++;
}

void test_fail(struct test_ctx *t, const char *file, int line, const char *fmt, ...)
{
	const char *base = strrchr(file, '/');
	va_list ap;
	int n;

	t->failed = true;
	n = snprintf(t->msg, sizeof(t->msg), "%s:%d: ", base ? base + 1 : file, line);
	if (n < 0 || (size_t)n >= sizeof(t->msg))
		return;
	va_start(ap, fmt);
	vsnprintf(t->msg + n, sizeof(t->msg) - (size_t)n, fmt, ap);
	va_end(ap);
}

static int by_name(const void *a, const void *b)
{
	const char *x = *(const char *const *)a, *y = *(const char *const *)b;

	return strcmp(x, y);
}

int main(int argc, char **argv)
{
	unsigned int i, passed = 0, failed = 0;
	const char *filter = argc > 1 ? argv[1] : NULL;

	/* registration order depends on the linker; report in a stable order */
	qsort(tests, num_tests, sizeof(tests[0]), by_name);

	for (i = 0; i < num_tests; i++) {
		struct test_ctx *t;
		struct cxfw_config cfg;

		if (filter && !strstr(tests[i].name, filter))
			continue;
		t = calloc(1, sizeof(*t));
		if (!t) {
			fprintf(stderr, "out of memory\n");
			return 2;
		}
		cxfw_config_defaults(&cfg);
		if (!test_recreate(t, &cfg, FAKE_MEM_BASE)) {
			t->failed = true;
			snprintf(t->msg, sizeof(t->msg), "fixture: cxfw_create failed");
		} else {
			tests[i].fn(t);
		}

		if (t->failed) {
			printf("FAIL %s: %s\n", tests[i].name, t->msg);
			failed++;
		} else {
			printf("ok   %s\n", tests[i].name);
			passed++;
		}
		cxfw_destroy(t->dev);
		fake_fini(&t->fk);
		free(t);
		fflush(stdout);
	}
	printf("%u passed, %u failed\n", passed, failed);
	return failed ? 1 : 0;
}
