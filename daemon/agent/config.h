/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The agent's configuration file: skywalking-rover 0.5's rover_configs.yaml
 * keys for everything the two share, plus a `skyprof:` section for our own
 * settings. docs/agent.md documents every key.
 *
 * Parsing is apart from using it: config_load_* only turns YAML into this
 * struct and checks it; what the values do is up to their users. Every value
 * goes through rover's ${ENV_NAME:default} substitution first. Unknown keys
 * are warned about (and counted); an invalid value fails the load with a
 * message that names the key.
 */
#ifndef SKYPROF_AGENT_CONFIG_H
#define SKYPROF_AGENT_CONFIG_H

#include <regex.h>
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* process_discovery.scanner.regex[]: one finder. */
struct agent_finder {
	char *match_cmd; /* POSIX extended regex over the command line */
	regex_t re;
	bool re_ok;
	char *layer; /* templates, see template.h */
	char *service_name;
	char *instance_name;
	char *process_name;
	char **labels;
	size_t nr_labels;
};

enum agent_target {
	AGENT_TARGET_NONE,
	AGENT_TARGET_ON_CPU,
	AGENT_TARGET_OFF_CPU,
};

struct agent_config {
	int log_level;	    /* enum log_level */
	char *cluster_name; /* core.cluster_name (accepted, not used for hosts) */
	struct {
		char *addr; /* NULL: no OAP, the embedded (spool) mode */
		bool enable_tls;
		char *client_pem_path, *client_key_path, *ca_pem_path;
		bool insecure_skip_verify;
		uint64_t check_period_ms;
		char *authentication;
	} backend;

	uint64_t heartbeat_period_ms;
	uint32_t properties_report_period; /* re-report all every Nth heartbeat */
	uint64_t scan_period_ms;
	char *scan_mode;
	struct agent_finder *finders;
	size_t nr_finders;

	bool profiling_active;
	uint64_t check_interval_ms;    /* queryTasks */
	uint64_t flush_interval_ms;    /* collectProfilingData */
	uint64_t oncpu_dump_period_ms; /* on-CPU sampling period: 1000 / Hz */

	struct {
		char *meter_prefix;
		uint64_t fetch_interval_ms, check_interval_ms;
		uint64_t execute_duration_ms, silence_duration_ms;
		/*
		 * skyprof.continuous.policies (no OAP): the value the JSON
		 * reader would give for the OAP's ServiceWithPolicyJSON, or,
		 * when a value in it has no JSON form, NULL and the reason
		 * in policies_error (the policies are then not used).
		 */
		struct json *policies;
		char *policies_error;
	} continuous;

	struct {
		uint32_t frequency;   /* Hz; 0: from oncpu_dump_period_ms */
		uint32_t dwarf_bytes; /* user stack copied per sample; 0 off */
		uint32_t max_depth;   /* 0: module default */
		uint32_t ring_pages;  /* 0: module default */
		uint64_t offcpu_min_block_ns;
		bool jvm_attach; /* ask a task's JVM for its perf map (proc/jvm_ask.h) */
		char *spool_dir;
		uint64_t queue_bytes; /* unsent upload data held at most */
		uint64_t connect_timeout_ms, call_timeout_ms;
		uint64_t backoff_max_ms;
		/* Embedded mode: profile every discovered process on a schedule. */
		int schedule_target; /* enum agent_target */
		uint64_t schedule_duration_ms, schedule_interval_ms;
	} skyprof;

	unsigned int nr_warnings; /* unknown keys and the like, each logged */
};

void config_defaults(struct agent_config *c);
void config_free(struct agent_config *c);

/*
 * Defaults, then the file. 0, or a negative errno with the reason in err:
 * -EINVAL, -ENOMEM and -EFBIG are about the content; any other is about
 * the file itself (it cannot be opened or read, or is a directory).
 */
int config_load_file(struct agent_config *c, const char *path, char *err, size_t errlen);

/* config_load_file's failure was about the file, not what it says. */
static inline bool config_error_is_file(int r)
{
	return r < 0 && r != -EINVAL && r != -ENOMEM && r != -EFBIG;
}
int config_load_string(struct agent_config *c, const char *yaml, size_t len, char *err,
		       size_t errlen);

/* The sampling frequency the on-CPU tasks use. */
uint32_t config_oncpu_freq(const struct agent_config *c);

/* The pieces, for tests. */

/* Go durations ("20s", "1m30s", "9ms", "1.5h") and bare numbers (seconds). */
int config_parse_duration_ms(const char *s, uint64_t *ms);
int config_parse_duration_ns(const char *s, uint64_t *ns);

#endif
