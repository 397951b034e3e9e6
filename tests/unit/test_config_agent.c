// SPDX-License-Identifier: GPL-2.0
/*
 * The agent's config (agent/config*.c): every rover 0.5 key it accepts, the
 * skyprof section, ${ENV:default}, durations, and the errors that must name
 * their key.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "agent/log.h"
#include "agent/config.h"
#include "agent/config_parse.h"
#include "agent/continuous.h"

static struct agent_config c;
static char err[512];

static int load(const char *y)
{
	config_free(&c);
	err[0] = 0;
	return config_load_string(&c, y, strlen(y), err, sizeof(err));
}

static int teardown(void **state)
{
	(void)state;
	config_free(&c);
	return 0;
}

static void defaults_are_rovers(void **state)
{
	(void)state;
	assert_int_equal(load(""), 0);
	assert_null(c.backend.addr); /* embedded mode */
	assert_int_equal(c.backend.check_period_ms, 5000);
	assert_int_equal(c.heartbeat_period_ms, 20000);
	assert_int_equal(c.properties_report_period, 10);
	assert_int_equal(c.check_interval_ms, 10000);
	assert_int_equal(c.flush_interval_ms, 5000);
	assert_int_equal(c.oncpu_dump_period_ms, 9);
	assert_int_equal(config_oncpu_freq(&c), 111);
	assert_true(c.profiling_active);
	assert_string_equal(c.continuous.meter_prefix, "rover_con_p");
	assert_int_equal(c.continuous.execute_duration_ms, 600000);
	assert_int_equal(c.skyprof.queue_bytes, 64ull << 20);
	assert_true(c.skyprof.jvm_attach);
	assert_string_equal(c.scan_mode, "REGEX");
}

/* A host config as rover 0.5 ships it (env references with defaults), REGEX mode. */
static const char rover_config[] =
	"logger:\n"
	"  level: ${ROVER_LOGGER_LEVEL:INFO}\n"
	"core:\n"
	"  cluster_name: ${ROVER_CORE_CLUSTER_NAME:}\n"
	"  backend:\n"
	"    addr: ${ROVER_BACKEND_ADDR:localhost:11800}\n"
	"    enable_TLS: ${ROVER_BACKEND_ENABLE_TLS:false}\n"
	"    client_pem_path: ${ROVER_BACKEND_PEM_PATH:\"client.pem\"}\n"
	"    client_key_path: ${ROVER_BACKEND_KEY_PATH:\"client.key\"}\n"
	"    insecure_skip_verify: ${ROVER_BACKEND_INSECURE_SKIP_VERIFY:false}\n"
	"    ca_pem_path: ${ROVER_BACKEND_CA_PEM_PATH:\"ca.pem\"}\n"
	"    check_period: ${ROVER_BACKEND_CHECK_PERIOD:5}\n"
	"    authentication: ${ROVER_BACKEND_AUTHENTICATION:\"\"}\n"
	"process_discovery:\n"
	"  heartbeat_period: ${ROVER_PROCESS_DISCOVERY_HEARTBEAT_PERIOD:20s}\n"
	"  properties_report_period: ${ROVER_PROCESS_DISCOVERY_PROPERTIES_REPORT_PERIOD:10}\n"
	"  scanner:\n"
	"    period: ${ROVER_PROCESS_DISCOVERY_SCAN_PERIOD:1s}\n"
	"    mode: ${ROVER_PROCESS_DISCOVERY_SCAN_MODE:REGEX}\n"
	"    agent:\n"
	"      process_status_refresh_period: 1m\n"
	"    regex:\n"
	"      - match_cmd: ${ROVER_PROCESS_DISCOVERY_REGEX_SCANNER_MATCH_CMD:tomcat}\n"
	"        layer: ${ROVER_PROCESS_DISCOVERY_REGEX_SCANNER_LAYER:OS_LINUX}\n"
	"        service_name: ${ROVER_PROCESS_DISCOVERY_REGEX_SCANNER_SERVICE_NAME:svc}\n"
	"        instance_name: "
	"${ROVER_PROCESS_DISCOVERY_REGEX_SCANNER_INSTANCE_NAME:{{.Rover.HostIPV4 \"en0\"}}}\n"
	"        process_name: "
	"${ROVER_PROCESS_DISCOVERY_REGEX_SCANNER_PROCESS_NAME:{{.Process.ExeName}}}\n"
	"        labels: ${ROVER_PROCESS_DISCOVERY_REGEX_SCANNER_LABEL:a, b}\n"
	"  kubernetes:\n"
	"    active: false\n"
	"profiling:\n"
	"  active: ${ROVER_PROFILING_ACTIVE:true}\n"
	"  check_interval: ${ROVER_PROFILING_CHECK_INTERVAL:10s}\n"
	"  flush_interval: ${ROVER_PROFILING_FLUSH_INTERVAL:5s}\n"
	"  task:\n"
	"    on_cpu:\n"
	"      dump_period: ${ROVER_PROFILING_TASK_ON_CPU_DUMP_PERIOD:9ms}\n"
	"    network:\n"
	"      report_interval: 2s\n"
	"  continuous:\n"
	"    meter_prefix: ${ROVER_PROFILING_CONTINUOUS_METER_PREFIX:rover_con_p}\n"
	"    fetch_interval: ${ROVER_PROFILING_CONTINUOUS_FETCH_INTERVAL:1s}\n"
	"    check_interval: ${ROVER_PROFILING_CONTINUOUS_CHECK_INTERVAL:5s}\n"
	"    trigger:\n"
	"      execute_duration: ${ROVER_PROFILING_CONTINUOUS_TRIGGER_EXECUTE_DURATION:10m}\n"
	"      silence_duration: ${ROVER_PROFILING_CONTINUOUS_TRIGGER_SILENCE_DURATION:5m}\n";

static void rover_config_unchanged(void **state)
{
	(void)state;
	unsetenv("ROVER_BACKEND_ADDR");
	assert_int_equal(load(rover_config), 0);
	assert_int_equal(c.nr_warnings, 0);
	assert_int_equal(c.log_level, LOG_LVL_INFO);
	assert_null(c.cluster_name);
	assert_string_equal(c.backend.addr, "localhost:11800");
	assert_false(c.backend.enable_tls);
	assert_string_equal(c.backend.client_pem_path, "client.pem");
	assert_string_equal(c.backend.client_key_path, "client.key");
	assert_string_equal(c.backend.ca_pem_path, "ca.pem");
	assert_false(c.backend.insecure_skip_verify);
	assert_int_equal(c.backend.check_period_ms, 5000);
	assert_null(c.backend.authentication); /* "" is unset */
	assert_int_equal(c.heartbeat_period_ms, 20000);
	assert_int_equal(c.properties_report_period, 10);
	assert_int_equal(c.scan_period_ms, 1000);
	assert_int_equal(c.nr_finders, 1);
	assert_string_equal(c.finders[0].match_cmd, "tomcat");
	assert_string_equal(c.finders[0].layer, "OS_LINUX");
	assert_string_equal(c.finders[0].service_name, "svc");
	assert_string_equal(c.finders[0].instance_name, "{{.Rover.HostIPV4 \"en0\"}}");
	assert_string_equal(c.finders[0].process_name, "{{.Process.ExeName}}");
	assert_int_equal(c.finders[0].nr_labels, 2);
	assert_string_equal(c.finders[0].labels[0], "a");
	assert_string_equal(c.finders[0].labels[1], "b");
	assert_true(c.profiling_active);
	assert_int_equal(c.check_interval_ms, 10000);
	assert_int_equal(c.flush_interval_ms, 5000);
	assert_int_equal(c.oncpu_dump_period_ms, 9);
	assert_string_equal(c.continuous.meter_prefix, "rover_con_p");
	assert_int_equal(c.continuous.fetch_interval_ms, 1000);
	assert_int_equal(c.continuous.check_interval_ms, 5000);
	assert_int_equal(c.continuous.execute_duration_ms, 600000);
	assert_int_equal(c.continuous.silence_duration_ms, 300000);
}

static void environment_overrides(void **state)
{
	(void)state;
	setenv("ROVER_BACKEND_ADDR", "oap.example:11800", 1);
	setenv("ROVER_BACKEND_ENABLE_TLS", "true", 1);
	setenv("ROVER_BACKEND_AUTHENTICATION", "s3cret", 1);
	setenv("ROVER_PROFILING_TASK_ON_CPU_DUMP_PERIOD", "1ms", 1);
	assert_int_equal(load(rover_config), 0);
	assert_string_equal(c.backend.addr, "oap.example:11800");
	assert_true(c.backend.enable_tls);
	assert_string_equal(c.backend.authentication, "s3cret");
	assert_int_equal(config_oncpu_freq(&c), 1000);
	unsetenv("ROVER_BACKEND_ADDR");
	unsetenv("ROVER_BACKEND_ENABLE_TLS");
	unsetenv("ROVER_BACKEND_AUTHENTICATION");
	unsetenv("ROVER_PROFILING_TASK_ON_CPU_DUMP_PERIOD");
}

static void skyprof_section(void **state)
{
	(void)state;
	assert_int_equal(load("skyprof:\n"
			      "  frequency: 99\n"
			      "  dwarf_bytes: 8192\n"
			      "  max_depth: 64\n"
			      "  ring_pages: 64\n"
			      "  offcpu_min_block: 100us\n"
			      "  jvm_attach: false\n"
			      "  spool_dir: /tmp/spool\n"
			      "  queue_size: 8MiB\n"
			      "  connect_timeout: 2s\n"
			      "  call_timeout: 3s\n"
			      "  backoff_max: 30s\n"
			      "  schedule:\n"
			      "    target: OFF_CPU\n"
			      "    duration: 30s\n"
			      "    interval: 5m\n"),
			 0);
	assert_int_equal(config_oncpu_freq(&c), 99);
	assert_int_equal(c.skyprof.dwarf_bytes, 8192);
	assert_int_equal(c.skyprof.max_depth, 64);
	assert_int_equal(c.skyprof.ring_pages, 64);
	assert_int_equal(c.skyprof.offcpu_min_block_ns, 100000);
	assert_false(c.skyprof.jvm_attach);
	assert_string_equal(c.skyprof.spool_dir, "/tmp/spool");
	assert_int_equal(c.skyprof.queue_bytes, 8u << 20);
	assert_int_equal(c.skyprof.connect_timeout_ms, 2000);
	assert_int_equal(c.skyprof.call_timeout_ms, 3000);
	assert_int_equal(c.skyprof.backoff_max_ms, 30000);
	assert_int_equal(c.skyprof.schedule_target, AGENT_TARGET_OFF_CPU);
	assert_int_equal(c.skyprof.schedule_duration_ms, 30000);
	assert_int_equal(c.skyprof.schedule_interval_ms, 300000);
}

static void unknown_keys_warn(void **state)
{
	(void)state;
	assert_int_equal(load("core:\n  backend:\n    adress: x:1\n  bogus: 1\nnope: 2\n"
			      "process_discovery:\n  scanner:\n    regex:\n"
			      "      - {match_cmd: a, service_name: s, colour: red}\n"),
			 0);
	assert_int_equal(c.nr_warnings, 4);
	assert_null(c.backend.addr);
}

/* Each invalid value fails with the key's full path in the message. */
static void invalid_values_name_the_key(void **state)
{
	static const struct {
		const char *yaml, *key;
	} cases[] = {
		{ "core:\n  backend:\n    enable_TLS: maybe\n", "core.backend.enable_TLS" },
		{ "core:\n  backend:\n    check_period: soon\n", "core.backend.check_period" },
		{ "process_discovery:\n  heartbeat_period: 10m\n",
		  "process_discovery.heartbeat_period" }, /* over the OAP's 5 min */
		{ "process_discovery:\n  properties_report_period: 0\n",
		  "process_discovery.properties_report_period" },
		{ "process_discovery:\n  properties_report_period: -3\n",
		  "process_discovery.properties_report_period" },
		{ "process_discovery:\n  scanner:\n    mode: AGENT_SENSOR\n",
		  "process_discovery.scanner.mode" },
		{ "process_discovery:\n  scanner:\n    regex:\n      - service_name: s\n",
		  "process_discovery.scanner.regex[0].match_cmd" },
		{ "process_discovery:\n  scanner:\n    regex:\n      - match_cmd: x\n",
		  "process_discovery.scanner.regex[0].service_name" },
		{ "process_discovery:\n  scanner:\n    regex:\n      - {match_cmd: x, "
		  "service_name: s}\n"
		  "      - {match_cmd: \"(\", service_name: s}\n",
		  "process_discovery.scanner.regex[1].match_cmd" },
		{ "process_discovery:\n  scanner:\n    regex:\n"
		  "      - {match_cmd: x, service_name: \"{{.Process.Nope}}\"}\n",
		  "process_discovery.scanner.regex[0].service_name" },
		{ "process_discovery:\n  scanner:\n    regex:\n"
		  "      - {match_cmd: x, service_name: s, instance_name: "
		  "\"{{.Rover.HostIPV4}}\"}\n",
		  "process_discovery.scanner.regex[0].instance_name" },
		{ "process_discovery:\n  scanner:\n    regex: yes\n",
		  "process_discovery.scanner.regex" },
		{ "profiling:\n  active: 2\n", "profiling.active" },
		{ "profiling:\n  task:\n    on_cpu:\n      dump_period: 0ms\n",
		  "profiling.task.on_cpu.dump_period" },
		{ "profiling:\n  flush_interval: 1x\n", "profiling.flush_interval" },
		{ "profiling:\n  continuous:\n    trigger:\n      execute_duration: forever\n",
		  "profiling.continuous.trigger.execute_duration" },
		{ "logger:\n  level: loud\n", "logger.level" },
		{ "skyprof:\n  frequency: 0\n", "skyprof.frequency" },
		{ "skyprof:\n  queue_size: 1k\n", "skyprof.queue_size" },
		{ "skyprof:\n  schedule:\n    target: NETWORK\n", "skyprof.schedule.target" },
		{ "core:\n  backend:\n    addr: ${UNTERMINATED\n", "core.backend.addr" },
		{ "core:\n  backend:\n    addr: [a, b]\n", "core.backend.addr" },
		{ "core: 5\n", "core" },
		{ "skyprof:\n  schedule:\n    target: ON_CPU\n    duration: 10m\n    interval: "
		  "5m\n",
		  "skyprof.schedule.duration" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int r = load(cases[i].yaml);

		if (r != -EINVAL || !strstr(err, cases[i].key))
			fail_msg("case %zu (%s): r=%d err='%s'", i, cases[i].key, r, err);
	}
	assert_int_equal(load("core: [\n"), -EINVAL);
	assert_non_null(strstr(err, "YAML syntax error"));
	assert_int_equal(config_load_file(&c, "/nonexistent/agent.yaml", err, sizeof(err)),
			 -ENOENT);
}

/* --check refuses what cannot be a config file, with an errno saying so. */
static void file_not_a_config(void **state)
{
	char dir[] = "/tmp/skyprof-cfg-XXXXXX";
	int r;

	(void)state;
	assert_non_null(mkdtemp(dir));
	config_free(&c);
	/* fopen opens a directory; it used to read as an empty config */
	r = config_load_file(&c, dir, err, sizeof(err));
	assert_int_equal(r, -EISDIR);
	assert_true(config_error_is_file(r));
	assert_non_null(strstr(err, dir));
	assert_null(strchr(err, '\n'));
	r = config_load_file(&c, "/nonexistent/agent.yaml", err, sizeof(err));
	assert_true(config_error_is_file(r));
	/* the content's errors are not the file's */
	assert_false(config_error_is_file(load("core: 5\n")));
	assert_false(config_error_is_file(-ENOMEM));
	rmdir(dir);
}

static void backend_addresses(void **state)
{
	static const char *good[] = {
		"localhost:11800", "oap",	"oap.example.com:443",	"10.0.0.1:1",
		"[::1]:11800",	   "[fe80::1]", "oap-1_x.local.:65535",
	};
	static const char *bad[] = {
		"host:99999", "host:0",	  "host:",    "host:80x", "host:-1",   ":11800",
		"::1:11800",  "[::1",	  "[]:11800", "[xyz]:1",  "[::1]x",    "a..b:1",
		"ho st:1",    "host:+80", "h/x:1",    ".:1",	  "[::1]:1:2",
	};
	char y[256];

	(void)state;
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		snprintf(y, sizeof(y), "core:\n  backend:\n    addr: \"%s\"\n", good[i]);
		if (load(y))
			fail_msg("'%s' refused: %s", good[i], err);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(y, sizeof(y), "core:\n  backend:\n    addr: \"%s\"\n", bad[i]);
		if (load(y) != -EINVAL || !strstr(err, "core.backend.addr"))
			fail_msg("'%s' accepted (err '%s')", bad[i], err);
	}
	load("core:\n  backend:\n    addr: \"host:99999\"\n");
	assert_non_null(strstr(err, "99999"));
	load("core:\n  backend:\n    addr: \"::1:11800\"\n");
	assert_non_null(strstr(err, "brackets"));
}

/* libyaml's context: where the unclosed thing began, not only where it broke. */
static void yaml_error_context(void **state)
{
	(void)state;
	assert_int_equal(load("core:\n  cluster_name: a\n  backend: \"oap:11800\n\n\n"), -EINVAL);
	/* the problem at the end, the quote it was scanning from on line 3 */
	assert_non_null(strstr(err, "YAML syntax error at line 6:1"));
	assert_non_null(strstr(err, "while scanning a quoted scalar at line 3:12"));
	assert_null(strchr(err, '\n'));
	/* without a context: the problem and its mark alone */
	assert_int_equal(load("a: b\n- c\n"), -EINVAL);
	assert_non_null(strstr(err, "at line 2:1"));
	/* a reader error has no line: its byte offset */
	assert_int_equal(load("a: \xff\xfe\n"), -EINVAL);
	assert_non_null(strstr(err, "at byte 3"));
}

static void env_substitution(void **state)
{
	char *out;

	(void)state;
	setenv("SKYPROF_T1", "val", 1);
	unsetenv("SKYPROF_UNSET");
	setenv("SKYPROF_EMPTY", "", 1);
	assert_int_equal(config_parse_env("a${SKYPROF_T1:def}b", &out), 0);
	assert_string_equal(out, "avalb");
	free(out);
	assert_int_equal(config_parse_env("${SKYPROF_UNSET:def}", &out), 0);
	assert_string_equal(out, "def");
	free(out);
	assert_int_equal(config_parse_env("${SKYPROF_EMPTY:def}", &out), 0);
	assert_string_equal(out, "def");
	free(out);
	assert_int_equal(config_parse_env("${SKYPROF_UNSET:}", &out), 0);
	assert_string_equal(out, "");
	free(out);
	assert_int_equal(config_parse_env("${SKYPROF_UNSET:\"q\"}", &out), 0);
	assert_string_equal(out, "q");
	free(out);
	assert_int_equal(config_parse_env("${SKYPROF_UNSET:{{.Rover.HostIPV4 \"en0\"}}}-x", &out),
			 0);
	assert_string_equal(out, "{{.Rover.HostIPV4 \"en0\"}}-x");
	free(out);
	assert_int_equal(config_parse_env("${SKYPROF_UNSET:a:b}", &out), 0);
	assert_string_equal(out, "a:b");
	free(out);
	assert_int_equal(config_parse_env("${SKYPROF_T1}", &out), 0);
	assert_string_equal(out, "val");
	free(out);
	assert_int_equal(config_parse_env("plain {{x}}", &out), 0);
	assert_string_equal(out, "plain {{x}}");
	free(out);
	assert_int_equal(config_parse_env("${SKYPROF_T1:x", &out), -EINVAL);
	assert_int_equal(config_parse_env("${:x}", &out), -EINVAL);
	assert_int_equal(config_parse_env("${BAD-NAME:x}", &out), -EINVAL);
}

static void durations_sizes_bools(void **state)
{
	uint64_t v;
	bool b;

	(void)state;
	assert_int_equal(config_parse_duration_ms("20s", &v), 0);
	assert_int_equal(v, 20000);
	assert_int_equal(config_parse_duration_ms("1m30s", &v), 0);
	assert_int_equal(v, 90000);
	assert_int_equal(config_parse_duration_ms("1.5h", &v), 0);
	assert_int_equal(v, 5400000);
	assert_int_equal(config_parse_duration_ms("9ms", &v), 0);
	assert_int_equal(v, 9);
	assert_int_equal(config_parse_duration_ms("500us", &v), 0);
	assert_int_equal(v, 1); /* rounded up, not zero */
	assert_int_equal(config_parse_duration_ms("5", &v), 0);
	assert_int_equal(v, 5000);
	assert_int_equal(config_parse_duration_ns("100ns", &v), 0);
	assert_int_equal(v, 100);
	assert_int_equal(config_parse_duration_ms("", &v), -EINVAL);
	assert_int_equal(config_parse_duration_ms("s", &v), -EINVAL);
	assert_int_equal(config_parse_duration_ms("-5s", &v), -EINVAL);
	assert_int_equal(config_parse_duration_ms("5 s", &v), -EINVAL);
	assert_int_equal(config_parse_duration_ms("5d", &v), -EINVAL);
	assert_int_equal(config_parse_size("64MiB", &v), 0);
	assert_int_equal(v, 64u << 20);
	assert_int_equal(config_parse_size("512k", &v), 0);
	assert_int_equal(v, 512u << 10);
	assert_int_equal(config_parse_size("1GB", &v), 0);
	assert_int_equal(v, 1000000000u);
	assert_int_equal(config_parse_size("100", &v), 0);
	assert_int_equal(v, 100);
	assert_int_equal(config_parse_size("1 TiB", &v), -EINVAL);
	assert_int_equal(config_parse_size("-1", &v), -EINVAL);
	assert_int_equal(config_parse_size("99999999999999999999G", &v), -EINVAL);
	assert_int_equal(config_parse_bool("TRUE", &b), 0);
	assert_true(b);
	assert_int_equal(config_parse_bool("off", &b), 0);
	assert_false(b);
	assert_int_equal(config_parse_bool("ja", &b), -EINVAL);
}

static void labels_as_list(void **state)
{
	(void)state;
	assert_int_equal(load("process_discovery:\n  scanner:\n    regex:\n"
			      "      - match_cmd: x\n        service_name: s\n"
			      "        labels: [z, y]\n"),
			 0);
	assert_int_equal(c.finders[0].nr_labels, 2);
	assert_string_equal(c.finders[0].labels[0], "z");
	assert_int_equal(
		load("process_discovery:\n  scanner:\n    regex:\n"
		     "      - match_cmd: x\n        service_name: s\n        labels: \" , ,\"\n"),
		0);
	assert_int_equal(c.finders[0].nr_labels, 0);
}

/*
 * skyprof.continuous.policies: YAML read straight into the value the JSON
 * reader gives for the OAP's ServiceWithPolicyJSON, so the same policy
 * written either way ends up the same in the store.
 */
static void yaml_policies(void **state)
{
	static const char js[] =
		"[{\"ServiceName\":\"svc\",\"Profiling\":{\"ON_CPU\":{"
		"\"PROCESS_CPU\":{\"Threshold\":\"50\",\"Period\":5,\"Count\":3},"
		"\"THREAD_COUNT\":{\"Threshold\":40,\"Period\":\"4\",\"Count\":2}},"
		"\"OFF_CPU\":{\"SYSTEM_LOAD\":{\"Threshold\":1.5e0,\"Period\":10,\"Count\":10}}}}]";
	struct continuous_policies from_yaml, from_json;
	struct continuous_apply_stats sy, sj;
	struct continuous_policy py, pj;

	(void)state;
	assert_int_equal(
		load("skyprof:\n  continuous:\n    policies:\n"
		     "      - ServiceName: svc\n"
		     "        Profiling:\n"
		     "          ON_CPU:\n"
		     "            PROCESS_CPU: {Threshold: \"50\", Period: 5, Count: 3}\n"
		     "            THREAD_COUNT: {Threshold: 40, Period: '4', Count: 2}\n"
		     "          OFF_CPU:\n"
		     "            SYSTEM_LOAD: {Threshold: 1.5e0, Period: 10, Count: 10}\n"),
		0);
	assert_non_null(c.continuous.policies);
	assert_null(c.continuous.policies_error);
	continuous_policies_init(&from_yaml);
	continuous_policies_init(&from_json);
	assert_int_equal(continuous_policies_apply_value(&from_yaml, c.continuous.policies, "local",
							 &sy, err, sizeof(err)),
			 0);
	assert_int_equal(continuous_policies_apply(&from_json, js, strlen(js), "local", &sj, err,
						   sizeof(err)),
			 0);
	/* a quoted '4' is a string, which Period refuses, in both */
	assert_int_equal(sy.items, 2);
	assert_int_equal(sy.rejected, 1);
	assert_memory_equal(&sy, &sj, sizeof(sy));
	assert_true(continuous_policies_get(&from_yaml, "svc", &py));
	assert_true(continuous_policies_get(&from_json, "svc", &pj));
	assert_memory_equal(py.items, pj.items, sizeof(py.items));
	assert_true(py.items[0][CONTINUOUS_PROCESS_CPU].set);
	assert_true(py.items[0][CONTINUOUS_PROCESS_CPU].threshold == 50);
	assert_int_equal(py.items[0][CONTINUOUS_PROCESS_CPU].period, 5);
	assert_true(py.items[1][CONTINUOUS_SYSTEM_LOAD].threshold == 1.5);
	continuous_policies_free(&from_yaml);
	continuous_policies_free(&from_json);

	/* A number the JSON reader refuses: the load goes on, the policies are not used. */
	assert_int_equal(load("skyprof:\n  continuous:\n    policies:\n"
			      "      - ServiceName: svc\n        Period: +5\n"),
			 0);
	assert_null(c.continuous.policies);
	assert_non_null(c.continuous.policies_error);
	assert_non_null(strstr(c.continuous.policies_error, "line 5: '+5'"));
	/* the same text quoted is a string */
	assert_int_equal(load("skyprof:\n  continuous:\n    policies:\n"
			      "      - ServiceName: svc\n        Period: '+5'\n"),
			 0);
	assert_non_null(c.continuous.policies);

	assert_int_equal(load("skyprof:\n  continuous:\n    policies:\n      ServiceName: svc\n"),
			 -EINVAL);
	assert_non_null(strstr(err, "skyprof.continuous.policies (line 4): expected a list"));
	assert_int_equal(
		load("skyprof:\n  continuous:\n    policies:\n      - ? [a]\n        : b\n"),
		-EINVAL);
	assert_non_null(strstr(err, "keys must be plain names"));
	assert_int_equal(load("skyprof:\n  continuous:\n    policies:\n"), 0);
	assert_null(c.continuous.policies);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(defaults_are_rovers, teardown),
		cmocka_unit_test_teardown(rover_config_unchanged, teardown),
		cmocka_unit_test_teardown(environment_overrides, teardown),
		cmocka_unit_test_teardown(skyprof_section, teardown),
		cmocka_unit_test_teardown(unknown_keys_warn, teardown),
		cmocka_unit_test_teardown(invalid_values_name_the_key, teardown),
		cmocka_unit_test_teardown(file_not_a_config, teardown),
		cmocka_unit_test_teardown(backend_addresses, teardown),
		cmocka_unit_test_teardown(yaml_error_context, teardown),
		cmocka_unit_test(env_substitution),
		cmocka_unit_test(durations_sizes_bools),
		cmocka_unit_test_teardown(labels_as_list, teardown),
		cmocka_unit_test_teardown(yaml_policies, teardown),
	};

	log_set_level(LOG_LVL_ERROR);
	return cmocka_run_group_tests_name("config_agent", tests, NULL, NULL);
}
