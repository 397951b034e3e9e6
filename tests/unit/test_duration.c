// SPDX-License-Identifier: GPL-2.0
/*
 * duration_parse(): the forms each caller allows (one unit, Go's sums, bare
 * seconds) and what it refuses, apart from the callers' ranges.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "lib/duration.h"

#define ONE_UNIT (DURATION_NS | DURATION_US | DURATION_MS | DURATION_S | DURATION_M | DURATION_H)

static void one_unit(void **state)
{
	double ns;
	bool bare = true;

	(void)state;
	assert_int_equal(duration_parse("500ms", ONE_UNIT, &ns, &bare), 0);
	assert_true(ns == 500e6);
	assert_false(bare);
	assert_int_equal(duration_parse("2.5s", ONE_UNIT, &ns, &bare), 0);
	assert_true(ns == 2.5e9);
	assert_int_equal(duration_parse("750ns", ONE_UNIT, &ns, NULL), 0);
	assert_true(ns == 750);
	assert_int_equal(duration_parse("3us", ONE_UNIT, &ns, NULL), 0);
	assert_true(ns == 3000);
	/* "m" is minutes, "ms" milliseconds: the longest unit wins. */
	assert_int_equal(duration_parse("2m", ONE_UNIT, &ns, NULL), 0);
	assert_true(ns == 120e9);
	assert_int_equal(duration_parse("1h", ONE_UNIT, &ns, NULL), 0);
	assert_true(ns == 3600e9);
	assert_int_equal(duration_parse(".5s", ONE_UNIT, &ns, NULL), 0);
	assert_true(ns == 0.5e9);
}

static void bare_seconds(void **state)
{
	double ns;
	bool bare = false;

	(void)state;
	assert_int_equal(duration_parse("30", DURATION_S, &ns, &bare), 0);
	assert_true(bare);
	assert_true(ns == 30e9);
	assert_int_equal(duration_parse("1.5", 0, &ns, &bare), 0);
	assert_true(bare);
	assert_true(ns == 1.5e9);
	assert_int_equal(duration_parse("0", DURATION_NS, &ns, &bare), 0);
	assert_true(bare);
	assert_true(ns == 0);
}

static void units_not_allowed(void **state)
{
	double ns;

	(void)state;
	assert_int_equal(duration_parse("5h", DURATION_S | DURATION_MS, &ns, NULL), -EINVAL);
	/* "ms" not allowed: "5ms" is not 5 minutes and an "s" left over. */
	assert_int_equal(duration_parse("5ms", DURATION_M | DURATION_S, &ns, NULL), -EINVAL);
	assert_int_equal(duration_parse("5\xc2\xb5s", DURATION_US, &ns, NULL), -EINVAL);
	assert_int_equal(duration_parse("5\xc2\xb5s", DURATION_MICRO_SIGN, &ns, NULL), 0);
	assert_true(ns == 5000);
	assert_int_equal(duration_parse("5x", ONE_UNIT, &ns, NULL), -EINVAL);
	assert_int_equal(duration_parse("5sec", ONE_UNIT, &ns, NULL), -EINVAL);
}

static void sums(void **state)
{
	double ns;
	bool bare = true;

	(void)state;
	assert_int_equal(duration_parse("1m30s", DURATION_GO, &ns, &bare), 0);
	assert_false(bare);
	assert_true(ns == 90e9);
	assert_int_equal(duration_parse("1h1ms1us", DURATION_GO, &ns, NULL), 0);
	assert_true(ns == 3600e9 + 1e6 + 1e3);
	/* Without DURATION_SUM one pair only. */
	assert_int_equal(duration_parse("1m30s", ONE_UNIT, &ns, NULL), -EINVAL);
	/* Every number of a sum has its unit. */
	assert_int_equal(duration_parse("1m30", DURATION_GO, &ns, NULL), -EINVAL);
	assert_int_equal(duration_parse("1m 30s", DURATION_GO, &ns, NULL), -EINVAL);
}

static void refused(void **state)
{
	static const char *const bad[] = {
		"",    "s",   "-5s",	"+5s",	 " 5",	    "5 s",
		"inf", "nan", "1e400s", "1e400", "1e-400s", "x1s",
	};
	double ns;

	(void)state;
	assert_int_equal(duration_parse(NULL, DURATION_GO, &ns, NULL), -EINVAL);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		print_message("'%s'\n", bad[i]);
		assert_int_equal(duration_parse(bad[i], DURATION_GO, &ns, NULL), -EINVAL);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(one_unit),	     cmocka_unit_test(bare_seconds),
		cmocka_unit_test(units_not_allowed), cmocka_unit_test(sums),
		cmocka_unit_test(refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
