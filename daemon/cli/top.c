// SPDX-License-Identifier: GPL-2.0
/*
 * skyprof top: a live view of the hottest functions, like perf top.
 *
 * Counts are cumulative since the start (not decayed), so the view settles
 * rather than flickers; Ctrl-C ends it.
 */
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <skyprof.h>

#include "capture/capture.h"
#include "lib/clock.h"
#include "cli/commands.h"
#include "cli/jit_names.h"
#include "cli/options.h"
#include "output/top_table.h"
#include "profile/ingest.h"
#include "profile/profile.h"
#include "profile/top.h"
#include "profile/view.h"
#include "profile/view_build.h"
#include "sym/symbolizer.h"
#include "cli/usage.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: skyprof top [-p PID[,PID...] | -a | --cgroup PATH] [-t TID[,TID...]]\n"
		"                   [-C CPUS] [-F HZ] [-d SECONDS] [-n LINES]\n"
		"                   [--clock auto|perf|perf-hw|perf-sw|hrtimer]\n"
		"                   [-g | --call-graph fp|dwarf[,BYTES]]\n"
		"                   [--no-kernel | --no-user] [--max-depth N] [--ring-pages N]\n"
		"                   [--no-jvm-attach]\n"
		"\n"
		"Samples like `skyprof record` and shows, refreshed every few seconds, the\n"
		"functions with the most samples of their own (self) and with those of their\n"
		"callees (total), since the start. Kernel functions are marked [k].\n"
		"\n"
		"  -p, --pid PID[,PID...]  these processes\n"
		"  -t, --tid TID[,TID...]  only these threads (with -p: of those processes)\n"
		"  -a, --all, --all-cpus   the whole system\n"
		"  -C, --cpu CPUS          sample only on these CPUs (0,2-3)\n"
		"  --cgroup PATH           a cgroup v2 group (see `skyprof record --help`)\n"
		"  -F, --freq HZ           samples per second per CPU (default %d)\n"
		"  -d, --delay SECONDS     refresh interval (default %.0f)\n"
		"  -n, --lines N           functions shown (default: fit the terminal)\n"
		"  --clock auto|perf|perf-hw|perf-sw|hrtimer\n"
		"                          the sampling clock, as for record\n"
		"  -g                      a call graph: what skyprof always records (as perf's)\n"
		"  --call-graph fp|dwarf[,BYTES]\n"
		"                          fp: frame pointers (the default); dwarf: also copy\n"
		"                          BYTES of user stack (default %d) to unwind by DWARF\n"
		"  --no-kernel, --no-user  leave out the kernel or the user stack\n"
		"  --max-depth N           frames per stack (1..%d)\n"
		"  --ring-pages N          ring size per CPU in pages (power of two)\n"
		"  --no-jvm-attach         do not ask the JVMs being profiled for their perf\n"
		"                          maps (see `skyprof record --help`)\n"
		"  -h, --help              this text\n",
		OPTS_DEFAULT_FREQ, (double)OPTS_DEFAULT_TOP_DELAY_NS / 1e9, OPTS_DEFAULT_DWARF,
		SKYPROF_MAX_DEPTH);
}

static volatile sig_atomic_t interrupted;

static void on_signal(int sig)
{
	(void)sig;
	interrupted = 1;
}

struct run {
	struct ingest_sink k; /* the samples, into k.prof */
	struct symbolizer *sym;
	struct jit_names *jn; /* the JVMs asked for perf maps; NULL none */
	struct view view;     /* built again at each refresh */
};

static uint32_t screen_lines(const struct record_opts *o, bool tty)
{
	struct winsize ws;

	if (o->lines)
		return o->lines;
	if (tty && ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_row > 8)
		return ws.ws_row - 5u;
	return 25;
}

static void show(const struct capture *c, struct run *run, const struct record_opts *o, bool tty,
		 struct func_share *top, uint32_t lines)
{
	bool built = !view_build(&run->view, run->k.prof, run->sym);
	uint64_t total = built ? top_total(&run->view) : 0;
	double el = (double)(clock_mono_ns() - c->start_mono_ns) / 1e9;
	size_t n = built ? top_functions(&run->view, top, lines) : 0;

	if (tty)
		fputs("\033[H\033[2J", stdout);
	else
		putchar('\n');
	printf("skyprof top: %.0f s, %" PRIu64 " samples at %u Hz, %" PRIu64
	       " lost   (Ctrl-C to quit)\n",
	       el, run->k.samples, o->capture.freq, ring_lost(c->ring));
	printf("%s%s\n", jit_names_last(run->jn)[0] ? "  " : "", jit_names_last(run->jn));
	output_top_table_print(stdout, top, n, total);
	if (!n)
		printf("  (no samples yet)\n");
	fflush(stdout);
}

int cli_top_main(int argc, char **argv)
{
	static struct record_opts o;
	static struct capture cap;
	struct sigaction sa = { .sa_handler = on_signal };
	struct profile_meta meta = { .kind = PROFILE_ONCPU };
	struct control_cpu_stats *st = NULL;
	struct func_share *top = NULL;
	struct symbolizer *sym = NULL;
	struct run run = { 0 };
	struct sp_sink sink;
	bool tty = isatty(STDOUT_FILENO);
	uint64_t last_show;
	uint32_t lines;
	char err[256];
	size_t nst;
	int rc = 1;

	switch (options_parse(OPTS_TOP, argc, argv, &o, err, sizeof(err))) {
	case OPTS_HELP:
		usage(stdout);
		return 0;
	case OPTS_ERROR:
		return usage_fail("top", "%s", err);
	case OPTS_OK:
		break;
	}
	if (options_check_system(&o, NULL, err, sizeof(err)) != OPTS_OK)
		return usage_fail("top", "%s", err);
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);

	lines = screen_lines(&o, tty);
	top = calloc(lines, sizeof(*top));
	sym = symbolizer_new(NULL);
	meta.freq_hz = o.capture.freq;
	run.sym = sym;
	run.k.in = sym ? ingest_new(sym, NULL) : NULL;
	run.k.prof = profile_new(&meta);
	if (!top || !run.k.in || !run.k.prof || view_init(&run.view, &meta)) {
		fprintf(stderr, "skyprof top: out of memory\n");
		goto out;
	}
	run.jn = jit_names_new(sym, run.k.in, &o, 0, false);
	if (capture_prepare(&cap, &o.capture, 0) || capture_start(&cap)) {
		fprintf(stderr, "skyprof top: %s\n", cap.err);
		goto out;
	}
	last_show = clock_mono_ns();
	show(&cap, &run, &o, tty, top, lines);
	sink = ingest_sink_of(&run.k);
	while (!interrupted && !cap.ended && !run.k.error) {
		if (capture_poll(&cap, 100, &sink) < 0 && !run.k.error) {
			fprintf(stderr, "skyprof top: %s\n", cap.err);
			break;
		}
		if (!capture_targets_alive(&o.capture)) {
			fprintf(stderr, "skyprof top: all target processes exited\n");
			break;
		}
		jit_names_poll(run.jn, UINT64_MAX);
		if (clock_mono_ns() - last_show >= o.delay_ns) {
			last_show = clock_mono_ns();
			lines = o.lines ? o.lines : lines;
			show(&cap, &run, &o, tty, top, lines);
		}
	}
	if (capture_finish(&cap, &sink, &st, &nst))
		fprintf(stderr, "skyprof top: %s\n", cap.err);
	if (run.k.error)
		fprintf(stderr, "skyprof top: out of memory while aggregating\n");
	show(&cap, &run, &o, false, top, lines);
	rc = 0;
out:
	free(st);
	capture_close(&cap);
	view_free(&run.view);
	profile_free(run.k.prof);
	ingest_free(run.k.in);
	jit_names_free(run.jn);
	if (sym)
		symbolizer_free(sym);
	free(top);
	return rc;
}
