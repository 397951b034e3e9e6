/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Command-line options of `skyprof record` and `skyprof top`, parsed apart
 * from running them (as wg's config.c is apart from set.c) so that the rules
 * are unit-tested without a module.
 */
#ifndef SKYPROF_CLI_OPTIONS_H
#define SKYPROF_CLI_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <skyprof.h>

#include "capture/capture.h"

#define OPTS_MAX_OUTPUTS	  16
#define OPTS_DEFAULT_FREQ	  SKYPROF_FREQ_DEFAULT /* 99 Hz: no lockstep with 100 Hz timers */
#define OPTS_DEFAULT_DWARF	  8192		       /* bytes of user stack copied by --dwarf */
#define OPTS_DEFAULT_OUTPUT	  "skyprof.pb.gz"
#define OPTS_DEFAULT_TOP_DELAY_NS 2000000000ull

enum options_cmd {
	OPTS_RECORD,
	OPTS_TOP,
};

/* The capture's settings, and what only the command line has. */
struct record_opts {
	struct capture_opts capture;
	bool freq_given;
	uint64_t duration_ns; /* 0: until Ctrl-C / the command or targets exit */
	const char *outputs[OPTS_MAX_OUTPUTS];
	size_t nr_outputs;
	bool per_thread;    /* --per-thread: folded/SVG split by thread */
	char **cmd;	    /* NULL-terminated, or NULL */
	bool no_inherit;    /* -- CMD: its own process only, not its children */
	bool no_jvm_attach; /* --no-jvm-attach: JVMs are not asked for perf maps */
	/* top only */
	uint64_t delay_ns; /* refresh interval */
	uint32_t lines;	   /* 0: fit the terminal */
};

enum options_result {
	OPTS_OK = 0,
	OPTS_HELP = 1,	 /* --help: print usage, exit 0 */
	OPTS_ERROR = -1, /* message in err: print it and the usage hint, exit 2 */
};

/*
 * Parse argv (argv[0] is the subcommand's name). argv must outlive *o: the
 * strings are not copied. Not reentrant (getopt).
 */
enum options_result options_parse(enum options_cmd which, int argc, char **argv,
				  struct record_opts *o, char *err, size_t errlen);

/*
 * What the options name must exist here: the -C CPUs (possible is the text
 * of /sys/devices/system/cpu/possible, NULL to read it) and the -t threads
 * (with -p: threads of those processes). OPTS_OK, or OPTS_ERROR with the
 * message in err (a usage error: exit 2, before any session starts).
 */
enum options_result options_check_system(const struct record_opts *o, const char *possible,
					 char *err, size_t errlen);

/* The pieces, exposed for tests. Each returns 0 or -EINVAL. */
/*
 * A CPU list as perf takes it ("0,2-3"): sets the bits in words (nwords of
 * them, zeroed first) and *nr_words to the words up to the highest CPU.
 */
int options_parse_cpus(const char *s, uint32_t *words, uint32_t nwords, uint32_t *nr_words);
int options_parse_pids(const char *s, uint32_t *pids, uint32_t *nr, uint32_t max);
/* "5", "2.5", "5s", "500ms", "2m", "1h" -> ns; from 1 ms to a year. */
int options_parse_duration(const char *s, uint64_t *ns);
/* A block time: "0", or a number with ns, us, ms or s ("1us", "0.5ms"); at most 1 h. */
int options_parse_block_time(const char *s, uint64_t *ns);
/* A decimal integer in [min, max], nothing after it. */
int options_parse_u32(const char *s, uint32_t min, uint32_t max, uint32_t *out);
int options_parse_clock(const char *s, enum capture_clock *out);
/*
 * --call-graph: "fp" (0 bytes: frame pointers, what skyprof always walks),
 * "dwarf" (OPTS_DEFAULT_DWARF bytes) or "dwarf,SIZE" (a multiple of 8 up to
 * SKYPROF_USTACK_MAX). -ERANGE for a bad SIZE, -EINVAL for anything else.
 */
int options_parse_call_graph(const char *s, uint32_t *ustack_bytes);

#endif
