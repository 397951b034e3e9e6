// SPDX-License-Identifier: GPL-2.0
/*
 * Continuous profiling's pure parts: the JSON reader, ServiceWithPolicyJSON
 * into the policy store (invalid JSON, invalid items beside valid ones,
 * deletion, unsupported checks), /proc parsing and CPU %, and the
 * Period/Count window rule.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "agent/continuous.h"
#include "agent/log.h"
#include "lib/json.h"

static struct json *P(const char *s)
{
	char err[200];

	return json_parse(s, strlen(s), err, sizeof(err));
}

static void json_values(void **state)
{
	struct json *j;
	const struct json *v;

	(void)state;
	j = P(" {\"a\": [1, -2.5e1, true, false, null], \"s\": \"x\\u00e9\\ud83d\\ude00\\n\"} ");
	assert_non_null(j);
	v = json_get(j, "a");
	assert_non_null(v);
	assert_int_equal(v->type, JSON_ARRAY);
	assert_int_equal(v->n, 5);
	assert_true(v->kids[1]->num == -25.0);
	assert_true(v->kids[2]->b);
	assert_int_equal(v->kids[4]->type, JSON_NULL);
	assert_string_equal(json_get(j, "s")->str, "x\xc3\xa9\xf0\x9f\x98\x80\n");
	assert_null(json_get(j, "missing"));
	json_free(j);
}

static void json_malformed(void **state)
{
	static const char *const bad[] = {
		"",	 "[",		"[1,]",	     "{\"a\" 1}",   "{\"a\":1,}", "[01]",
		"\"abc", "\"\\x\"",	"\"\\u12\"", "\"\\ud800\"", "[1] [2]",	  "tru",
		"{1:2}", "\"\\u0000\"", "[1e999]",   "\"a\tb\"",    "-",	  "[\"\\",
	};
	char deep[200], err[200];

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct json *j = json_parse(bad[i], strlen(bad[i]), err, sizeof(err));

		if (j)
			fail_msg("accepted '%s'", bad[i]);
		assert_true(strstr(err, "at byte") != NULL);
	}
	memset(deep, '[', sizeof(deep));
	assert_null(json_parse(deep, sizeof(deep), err, sizeof(err)));
	assert_true(strstr(err, "nested") != NULL);
}

#define POLICY(svc, uuid, prof)                                                                    \
	"{\"ServiceName\":\"" svc "\",\"UUID\":\"" uuid "\",\"Profiling\":" prof "}"

static void policy_parse(void **state)
{
	struct continuous_policies p;
	struct continuous_policy got;
	struct continuous_apply_stats st;
	char err[256], uuid[64];
	const char *js = "[" POLICY(
		"svc", "v1",
		"{\"ON_CPU\":{\"PROCESS_CPU\":{\"Threshold\":\"50\",\"Period\":5,"
		"\"Count\":3},\"SYSTEM_LOAD\":{\"Threshold\":\"1.5\",\"Period\":10,"
		"\"Count\":2},\"PROCESS_THREAD_COUNT\":{\"Threshold\":\"\",\"Period\":5,"
		"\"Count\":1}},\"OFF_CPU\":{\"PROCESS_THREAD_COUNT\":{\"Threshold\":"
		"\"20\",\"Period\":3,\"Count\":4}},\"NETWORK\":{\"HTTP_ERROR_RATE\":{"
		"\"Threshold\":\"10\",\"Period\":10,\"Count\":3}}}") "," POLICY("other", "u9",
										"{\"ON_"
										"CPU\":{"
										"\"HTTP_"
										"AVG_"
										"RESPONSE_"
										"TIME\":{"
										"\"Threshol"
										"d\":\"1\","
										"\"Period\""
										":1,"
										"\"Count\":"
										"1},"
										"\"PROCESS_"
										"CPU\":{"
										"\"Threshol"
										"d\":\"12."
										"5\","
										"\"Period\""
										":1,"
										"\"Count\":"
										"1}}}") ",{"
											"\""
											"UU"
											"ID"
											"\""
											":"
											"\""
											"x"
											"\""
											"}"
											"]";

	(void)state;
	log_set_level(LOG_LVL_ERROR);
	continuous_policies_init(&p);
	assert_int_equal(continuous_policies_apply(&p, js, strlen(js), NULL, &st, err, sizeof(err)),
			 0);
	assert_int_equal(st.services, 2);
	assert_int_equal(st.items, 2); /* CPU + load for svc */
	/* empty threshold, Count > Period, 12.5 % (not an integer), no ServiceName */
	assert_int_equal(st.rejected, 4);
	assert_int_equal(st.unsupported, 2); /* NETWORK, HTTP_AVG_RESPONSE_TIME */
	assert_true(continuous_policies_get(&p, "svc", &got));
	assert_true(got.items[0][CONTINUOUS_PROCESS_CPU].set);
	assert_true(got.items[0][CONTINUOUS_PROCESS_CPU].threshold == 50);
	assert_int_equal(got.items[0][CONTINUOUS_PROCESS_CPU].period, 5);
	assert_int_equal(got.items[0][CONTINUOUS_PROCESS_CPU].count, 3);
	assert_true(got.items[0][CONTINUOUS_SYSTEM_LOAD].threshold == 1.5);
	assert_false(got.items[0][CONTINUOUS_THREAD_COUNT].set);
	assert_false(got.items[1][CONTINUOUS_THREAD_COUNT].set);
	continuous_policies_uuid(&p, "svc", uuid, sizeof(uuid));
	assert_string_equal(uuid, "v1");
	continuous_policies_uuid(&p, "nobody", uuid, sizeof(uuid));
	assert_string_equal(uuid, "");

	/* invalid JSON: an error, and the store is untouched */
	assert_int_equal(continuous_policies_apply(&p, "[{\"ServiceName\":", 16, NULL, &st, err,
						   sizeof(err)),
			 -EINVAL);
	assert_true(strstr(err, "policy JSON") != NULL);
	assert_int_equal(continuous_policies_apply(&p, "{}", 2, NULL, &st, err, sizeof(err)),
			 -EINVAL);
	assert_true(continuous_policies_get(&p, "svc", &got));

	/* a new version replaces; a deleted one (empty UUID, no Profiling) goes */
	js = "[" POLICY("svc", "v2",
			"{\"OFF_CPU\":{\"PROCESS_THREAD_COUNT\":{\"Threshold\":20,\"Period\":3,"
			"\"Count\":3}}}") ",{\"ServiceName\":\"other\",\"UUID\":\"\"}]";
	assert_int_equal(continuous_policies_apply(&p, js, strlen(js), NULL, &st, err, sizeof(err)),
			 0);
	assert_int_equal(st.deleted, 1);
	assert_true(continuous_policies_get(&p, "svc", &got));
	assert_false(got.items[0][CONTINUOUS_PROCESS_CPU].set);
	assert_true(got.items[1][CONTINUOUS_THREAD_COUNT].set);
	assert_false(continuous_policies_get(&p, "other", &got));

	/* the local config has no UUIDs: the default fills in */
	js = "[{\"ServiceName\":\"loc\",\"Profiling\":{}}]";
	assert_int_equal(continuous_policies_apply(&p, js, strlen(js), NULL, &st, err, sizeof(err)),
			 0);
	assert_int_equal(st.rejected, 1);
	assert_int_equal(
		continuous_policies_apply(&p, js, strlen(js), "local", &st, err, sizeof(err)), 0);
	continuous_policies_uuid(&p, "loc", uuid, sizeof(uuid));
	assert_string_equal(uuid, "local");
	continuous_policies_free(&p);
}

static void proc_stat(void **state)
{
	/* a name with spaces and ')' in it; utime 1000, stime 250, 7 threads */
	const char *st = "4242 (a) b (c)) R 1 4242 4242 0 -1 4194304 100 0 0 0 1000 250 0 0 20 "
			 "0 7 0 123456 1000000 200 18446744073709551615";
	uint64_t ticks;
	uint32_t threads;
	double l;

	(void)state;
	assert_int_equal(continuous_parse_stat(st, &ticks, &threads), 0);
	assert_int_equal(ticks, 1250);
	assert_int_equal(threads, 7);
	assert_int_equal(continuous_parse_stat("12 (x) R 1 2", &ticks, &threads), -EINVAL);
	assert_int_equal(continuous_parse_stat("no paren", &ticks, &threads), -EINVAL);
	assert_int_equal(continuous_parse_stat("", &ticks, &threads), -EINVAL);
	assert_int_equal(continuous_parse_loadavg("1.25 0.50 0.10 2/300 4242\n", &l), 0);
	assert_true(l == 1.25);
	assert_int_equal(continuous_parse_loadavg("x", &l), -EINVAL);

	/* 100 ticks at 100 Hz in 1 s: one core busy */
	assert_true(continuous_cpu_percent(1000, 1100, 100, 1000) == 100.0);
	/* two cores for 2 s */
	assert_true(continuous_cpu_percent(0, 400, 100, 2000) == 200.0);
	/* a quarter core; the interval matters, not the lifetime total */
	assert_true(continuous_cpu_percent(1000000, 1000025, 100, 1000) == 25.0);
	assert_true(continuous_cpu_percent(10, 5, 100, 1000) == 0); /* pid reuse: no negative */
	assert_true(continuous_cpu_percent(0, 5, 100, 0) == 0);
}

static void windows(void **state)
{
	static struct continuous_window w;
	double cur = -1;

	(void)state;
	memset(&w, 0, sizeof(w));
	/* fewer values than Period: never fires */
	continuous_window_push(&w, 90);
	continuous_window_push(&w, 90);
	continuous_window_push(&w, 90);
	assert_false(continuous_window_fires(&w, 50, 5, 3, &cur));
	continuous_window_push(&w, 10);
	continuous_window_push(&w, 10);
	/* 90 90 90 10 10: 3 of the last 5 reach 50 */
	assert_true(continuous_window_fires(&w, 50, 5, 3, &cur));
	assert_true(cur == 90);
	assert_false(continuous_window_fires(&w, 50, 5, 4, &cur));
	/* exactly the threshold counts */
	continuous_window_push(&w, 50);
	assert_true(continuous_window_fires(&w, 50, 2, 1, &cur));
	assert_true(cur == 50);
	/* the first 90 slid out: 90 90 10 10 50 -> 3 of 5, newest hit 50 */
	assert_true(continuous_window_fires(&w, 50, 5, 3, &cur));
	assert_true(cur == 50);
	continuous_window_push(&w, 0);
	/* 90 10 10 50 0 -> 2 of 5 */
	assert_false(continuous_window_fires(&w, 50, 5, 3, &cur));
	assert_true(continuous_window_last(&w) == 0);
	/* wrap-around past the buffer keeps the newest */
	for (int i = 0; i < CONTINUOUS_WINDOW_MAX + 7; i++)
		continuous_window_push(&w, i % 2 ? 100 : 0);
	assert_int_equal(w.n, CONTINUOUS_WINDOW_MAX);
	assert_true(continuous_window_fires(&w, 100, CONTINUOUS_WINDOW_MAX,
					    CONTINUOUS_WINDOW_MAX / 2, &cur));
	assert_false(continuous_window_fires(&w, 100, CONTINUOUS_WINDOW_MAX,
					     CONTINUOUS_WINDOW_MAX / 2 + 1, &cur));
	assert_false(continuous_window_fires(&w, 1, CONTINUOUS_WINDOW_MAX + 1, 1, &cur));
	assert_false(continuous_window_fires(&w, 1, 0, 0, &cur));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(json_values),	cmocka_unit_test(json_malformed),
		cmocka_unit_test(policy_parse), cmocka_unit_test(proc_stat),
		cmocka_unit_test(windows),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
