/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The control channel to skyprof.ko. This is the only code that knows the
 * channel is generic netlink; everything else sees these calls. Behind it:
 * control.c (the channel), control_commands.c (each command's request and
 * reply), control_events.c (the multicast events), control_names.c.
 *
 * A session belongs to the control handle that started it: closing the
 * handle (or the process dying) ends the session in the module.
 *
 * Every call returns 0 or -errno and leaves a one-line, human-readable
 * message in control_error(): the kernel's extack message where it sent one,
 * otherwise an explanation of the errno in terms of what was asked.
 */
#ifndef SKYPROF_CAPTURE_CONTROL_H
#define SKYPROF_CAPTURE_CONTROL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct control;

/* Why control_open failed, for callers that explain it (status, record). */
enum control_open_failure {
	CONTROL_OK,
	CONTROL_NO_NETLINK,  /* cannot create or connect the socket */
	CONTROL_NO_MODULE,   /* family "skyprof" not registered */
	CONTROL_BAD_VERSION, /* the family's version is not ours */
};

/*
 * Connect and resolve the family. On failure *out is NULL, *why says which
 * step failed, and err holds the message (with the modprobe / dkms hint when
 * the module is missing).
 */
int control_open(struct control **out, enum control_open_failure *why, char *err, size_t errlen);
void control_close(struct control *c);
const char *control_error(const struct control *c);

struct control_info {
	char module_version[64];
	uint32_t abi_version;
	uint32_t caps; /* SKYPROF_CAP_* */
	uint32_t nr_cpu_ids;
	uint32_t max_sessions;
	uint32_t active_sessions;
	uint32_t freq_max;
	uint32_t ring_pages_max;
	uint32_t page_size;
	uint64_t ring_bytes;	 /* ring memory the module has allocated now */
	uint64_t sideband_bytes; /* side-band and follow tables, all sessions */
};

int control_get_info(struct control *c, struct control_info *info);

/*
 * Fails with -EPROTO and the two versions in the message when the module's
 * ABI is not the one this program was built against.
 */
int control_check_abi(struct control *c, const struct control_info *info);

/* Session options; a zero field means "the module's default" and is not sent. */
struct control_session_opts {
	uint32_t mode;	/* enum skyprof_mode (always sent) */
	uint32_t clock; /* enum skyprof_clock (always sent) */
	uint32_t freq;
	bool has_flags;
	uint32_t flags; /* SKYPROF_F_* */
	uint32_t max_depth;
	uint32_t ustack_bytes;
	uint64_t offcpu_min_ns;
	bool has_offcpu_min; /* send offcpu_min_ns even when 0 */
	uint32_t ring_pages;
	uint32_t watermark_pct;
	uint32_t budget_pct;
	const uint32_t *tgids;
	uint32_t nr_tgids;
	const uint32_t *tids; /* only these threads (with tgids: of those processes) */
	uint32_t nr_tids;
	const uint32_t *cpus; /* CPU bitmap, bit c % 32 of word c / 32; NULL: all */
	uint32_t nr_cpu_words;
	const char *cgroup; /* path inside the cgroup2 hierarchy, or NULL */
};

struct control_session {
	uint32_t id;
	uint64_t token;
	uint32_t clock_used; /* enum skyprof_clock */
	uint64_t ring_data_size;
};

int control_session_start(struct control *c, const struct control_session_opts *o,
			  struct control_session *s);
int control_session_stop(struct control *c, uint32_t session_id);

struct control_cpu_stats {
	uint32_t cpu;
	uint64_t samples, drops, unwind_errors, handler_ns, handler_max_ns;
	uint64_t throttled, filtered, nested;
	uint64_t missed;       /* hrtimer clock: periods that expired unserved */
	uint64_t offcpu_short; /* off-CPU: blocks under the minimum, not recorded */
	uint64_t offcpu_full;  /* off-CPU: switch-outs not tracked, table full */
	/* SKYPROF_F_SIDEBAND: address spaces noted, samples that found no slot,
	 * reports and MMAP records written, records lost (ring full), walk
	 * time, walks put off by the budget; SKYPROF_F_FOLLOW_FORKS: processes
	 * added by fork, forks not followed (table full). */
	uint64_t sb_noted, sb_full, sb_reports, sb_records, sb_lost, sb_walk_ns, sb_throttled;
	uint64_t follow_added, follow_full;
};

/* *out is malloc'ed (free() it), *n entries, one per CPU the module reported. */
int control_get_stats(struct control *c, uint32_t session_id, struct control_cpu_stats **out,
		      size_t *n);

/* The counters of n CPUs added up (the highest handler_max_ns; cpu 0). */
void control_stats_sum(const struct control_cpu_stats *st, size_t n, struct control_cpu_stats *sum);

/* A session's counters of GET_STATS that are not per CPU. */
struct control_session_counters {
	uint32_t sideband_used;	  /* address spaces tracked now */
	uint32_t sideband_pinned; /* of them kept alive until reported */
	uint32_t follow_used;	  /* processes followed now */
};

/* The session-wide part of GET_STATS (0 where the module sent none). */
int control_get_session_counters(struct control *c, uint32_t session_id,
				 struct control_session_counters *out);

/* One running session as LIST_SESSIONS reports it. */
struct control_session_info {
	uint32_t id;
	uint32_t owner_pid;
	uint32_t mode;	     /* enum skyprof_mode */
	uint32_t clock_used; /* enum skyprof_clock */
	uint32_t freq;
	uint32_t flags;
	uint64_t samples, lost;
	uint32_t *tgids, *tids; /* malloc'ed with the entry, NULL when not set */
	uint32_t nr_tgids, nr_tids;
	uint32_t *cpus; /* CPU bitmap words, NULL: every CPU */
	uint32_t nr_cpu_words;
	char *cgroup; /* NULL when not set */
};

/* *out is malloc'ed, *n sessions; free with control_sessions_free. */
int control_list_sessions(struct control *c, struct control_session_info **out, size_t *n);
void control_sessions_free(struct control_session_info *v, size_t n);

/* Events: a second socket subscribed to the multicast group. */
struct control_event {
	uint32_t event; /* enum skyprof_event */
	uint32_t session_id;
	uint32_t end_reason; /* enum skyprof_end_reason, SESSION_ENDED only */
	uint32_t cpu;	     /* RING_WATERMARK, THROTTLED */
};

int control_subscribe_events(struct control *c);
int control_event_fd(const struct control *c); /* -1 when not subscribed */
/*
 * Read what is pending on the event socket without blocking and call fn for
 * each event. Returns 0 or -errno.
 */
int control_read_events(struct control *c, void (*fn)(void *arg, const struct control_event *e),
			void *arg);

struct nlmsghdr;
/*
 * The kernel's extended-ACK message in an NLMSG_ERROR message of
 * nlh->nlmsg_len bytes, NUL-terminated into buf ("" when there is none).
 * Every offset is checked against nlmsg_len. Exposed for tests.
 */
void control_extack_message(const struct nlmsghdr *nlh, char *buf, size_t len);

const char *control_clock_name(uint32_t clock);
const char *control_end_reason_name(uint32_t reason);
/* "perf-hw,perf-sw,..." of SKYPROF_CAP_* bits into buf. */
const char *control_caps_string(uint32_t caps, char *buf, size_t len);

#endif
