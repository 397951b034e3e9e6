// SPDX-License-Identifier: GPL-2.0
/*
 * skyprof record: profile into files.
 *
 * With `-- CMD` the command is forked first but held on a pipe until the
 * session runs, so its very first instructions are sampled and its tgid can
 * be the session's target; then it is released to exec. The run ends when
 * the duration is up, Ctrl-C is pressed, the command exits, every -p target
 * has exited, or the module ends the session; in every case what was
 * collected is still written.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <skyprof.h>

#include "capture/capture.h"
#include "lib/clock.h"
#include "capture/cgroup.h"
#include "cli/commands.h"
#include "cli/jit_names.h"
#include "cli/options.h"
#include "output/output.h"
#include "profile/ingest.h"
#include "profile/profile.h"
#include "profile/view.h"
#include "profile/view_build.h"
#include "cli/record_summary.h"
#include "sym/symbolizer.h"
#include "cli/usage.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: skyprof record [-p PID[,PID...] | -a | --cgroup PATH] [-t TID[,TID...]]\n"
		"                      [-C CPUS] [-F HZ] [-d TIME]\n"
		"                      [--clock auto|perf|perf-hw|perf-sw|hrtimer]\n"
		"                      [--offcpu [--offcpu-min TIME]] [--budget PCT]\n"
		"                      [--dwarf[=BYTES] | -g | --call-graph fp|dwarf[,BYTES]]\n"
		"                      [--no-kernel | --no-user] [--max-depth N] [--ring-pages N]\n"
		"                      [-o FILE]... [--no-inherit] [--no-jvm-attach]\n"
		"                      [-- CMD [ARGS...]]\n"
		"\n"
		"Samples stacks (kernel and user) and writes them, symbolized, to each FILE;\n"
		"the format follows the extension: .pb.gz or .pprof (pprof), .folded or\n"
		".collapsed (folded stacks; - for standard output), .svg (flame graph),\n"
		".json (speedscope). Default: %s.\n"
		"With --offcpu it records where the targets wait instead: every time a task\n"
		"blocks (sleep, lock, I/O; not when it is preempted) its stacks are kept until\n"
		"it runs again; the profile adds up the time off-CPU per stack (folded: ns;\n"
		"pprof: switches/count and off-cpu/nanoseconds; flame graph: time).\n"
		"\n"
		"Targets (one of them, or a command):\n"
		"  -p, --pid PID[,PID...]  these processes (a thread id means its process);\n"
		"                          may be repeated; ends when all have exited\n"
		"  -t, --tid TID[,TID...]  only these threads; with -p they must be threads of\n"
		"                          those processes; ends when all have exited\n"
		"  -a, --all, --all-cpus   every task on every CPU, kernel threads included\n"
		"  --cgroup PATH           tasks in a cgroup v2 group: its directory\n"
		"                          (/sys/fs/cgroup/system.slice/x.service) or its path in\n"
		"                          the hierarchy (/system.slice/x.service)\n"
		"  -- CMD [ARGS...]        run CMD and profile it and what it starts, until it\n"
		"                          exits (the module follows its forks; an older module:\n"
		"                          it runs in a cgroup of its own); with -p, -t, -a or\n"
		"                          --cgroup the command only bounds the run\n"
		"  --no-inherit            -- CMD: profile only the command's own process\n"
		"Sampling:\n"
		"  -C, --cpu CPUS          sample only on these CPUs (0,2-3); with --offcpu\n"
		"                          blocks that begin and end on them\n"
		"  -F, --freq HZ           samples per second per CPU (1..%d, default %d)\n"
		"  -d, --duration TIME     stop after TIME (30, 30s, 500ms, 2m); with -- CMD the\n"
		"                          command is terminated then\n"
		"  --clock auto|perf|perf-hw|perf-sw|hrtimer\n"
		"                          the sampling clock (auto: cycles, else cpu-clock,\n"
		"                          else a timer; perf: cycles or cpu-clock)\n"
		"  --offcpu                record where tasks block, weighted by blocked time\n"
		"  --offcpu-min TIME       with --offcpu: leave out blocks shorter than TIME\n"
		"                          (0, 500ns, 1us, 2ms; default 1us)\n"
		"  --budget PCT            most of a CPU the module may spend capturing (1..100,\n"
		"                          default %d); beyond it, samples are skipped and "
		"counted\n"
		"  --dwarf[=BYTES]         also copy BYTES of user stack per sample (default %d)\n"
		"                          for DWARF unwinding of code without frame pointers\n"
		"  -g                      a call graph: what skyprof always records (as perf's)\n"
		"  --call-graph fp|dwarf[,BYTES]\n"
		"                          fp: frame pointers (the default); dwarf: --dwarf\n"
		"  --no-kernel, --no-user  leave out the kernel or the user stack\n"
		"  --max-depth N           frames per stack (1..%d)\n"
		"  --ring-pages N          ring size per CPU in pages (power of two; default\n"
		"                          %d, with --dwarf enough for half a second)\n"
		"  -o, --output FILE       write FILE; may be repeated. Each is created (as a\n"
		"                          temporary file beside it) before the run starts\n"
		"  --per-thread            folded stacks and flame graph: a comm-tid frame\n"
		"                          under each process\n"
		"  --no-jvm-attach         do not ask the JVMs being profiled for their perf\n"
		"                          maps. By default each HotSpot JVM among the targets\n"
		"                          (not with -a) is asked over its attach socket, as\n"
		"                          `jcmd PID Compiler.perfmap` asks, and writes\n"
		"                          /tmp/perf-PID.map (JDK 17+; JDK 9-16 list their\n"
		"                          compiled methods instead): again while its code\n"
		"                          grows, and at the end. A request takes the JVM\n"
		"                          about 13 ms of CPU with 5,000 compiled methods,\n"
		"                          under its code cache lock; no safepoint\n"
		"  -h, --help              this text\n"
		"\n"
		"Processes are named from the mappings the module reports for each address\n"
		"space it samples (a module with the sideband capability: skyprof status),\n"
		"also those that exit at once or whose pid is reused; else from /proc.\n"
		"Ctrl-C ends the run and still writes the files (a second Ctrl-C gives up).\n"
		"Exit status: 0 written, "
		"1 failure, 2 bad usage.\n",
		OPTS_DEFAULT_OUTPUT, SKYPROF_FREQ_MAX, OPTS_DEFAULT_FREQ,
		SKYPROF_BUDGET_PCT_DEFAULT, OPTS_DEFAULT_DWARF, SKYPROF_MAX_DEPTH,
		SKYPROF_RING_PAGES_DEFAULT);
}

static volatile sig_atomic_t interrupted;
/* The outputs' temporary files, for a second Ctrl-C to remove. */
static struct output_file outs[OPTS_MAX_OUTPUTS];
static size_t nr_outs;

/*
 * SIGCHLD only needs to interrupt poll(); the loop then reaps the child. The
 * first Ctrl-C ends the run and the files are written; a second one, while
 * they are (symbolizing can take a while), gives up at once.
 */
static void on_signal(int sig)
{
	struct sigaction dfl = { .sa_handler = SIG_DFL };

	if (sig == SIGCHLD)
		return;
	if (interrupted) {
		for (size_t i = 0; i < nr_outs; i++)
			if (outs[i].tmp)
				unlink(outs[i].tmp);
		sigaction(sig, &dfl, NULL);
		raise(sig);
	}
	interrupted = 1;
}

/* No SA_RESTART: poll() returns at once on Ctrl-C or a child's exit. */
static void install_signals(void)
{
	struct sigaction sa = { .sa_handler = on_signal };

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sigaction(SIGCHLD, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

/* The command, forked and waiting for the go byte on a pipe. */
struct child {
	pid_t pid;
	int go_fd;  /* write end: one byte releases it, closing it kills it */
	int err_fd; /* read end: exec's errno, or EOF once exec succeeded */
	bool exited;
	int status;
};

static int child_fork(struct child *ch, char **cmd)
{
	int go[2], er[2];

	if (pipe2(go, O_CLOEXEC) < 0)
		return -errno;
	if (pipe2(er, O_CLOEXEC) < 0) {
		close(go[0]);
		close(go[1]);
		return -errno;
	}
	ch->pid = fork();
	if (ch->pid < 0) {
		int e = errno;

		close(go[0]);
		close(go[1]);
		close(er[0]);
		close(er[1]);
		return -e;
	}
	if (ch->pid == 0) {
		char c;
		int e;

		close(go[1]);
		close(er[0]);
		if (read(go[0], &c, 1) != 1)
			_exit(127); /* the parent gave up before the session started */
		signal(SIGPIPE, SIG_DFL);
		execvp(cmd[0], cmd);
		e = errno;
		if (write(er[1], &e, sizeof(e)) < 0)
			_exit(127);
		_exit(127);
	}
	close(go[0]);
	close(er[1]);
	ch->go_fd = go[1];
	ch->err_fd = er[0];
	return 0;
}

/* Let it exec; returns 0 or the errno execvp failed with. */
static int child_release(struct child *ch)
{
	int e = 0;
	ssize_t n;

	if (write(ch->go_fd, "g", 1) != 1)
		return errno ? errno : EIO;
	close(ch->go_fd);
	ch->go_fd = -1;
	do
		n = read(ch->err_fd, &e, sizeof(e));
	while (n < 0 && errno == EINTR);
	close(ch->err_fd);
	ch->err_fd = -1;
	return n == (ssize_t)sizeof(e) ? e : 0;
}

static bool child_poll(struct child *ch)
{
	if (ch->pid > 0 && !ch->exited && waitpid(ch->pid, &ch->status, WNOHANG) == ch->pid)
		ch->exited = true;
	return ch->exited;
}

/* The command outlived the run (-d, Ctrl-C): TERM, then KILL after 2 s. */
static void child_end(struct child *ch)
{
	if (ch->pid <= 0)
		return;
	if (ch->go_fd >= 0)
		close(ch->go_fd); /* never released: it exits by itself */
	if (ch->err_fd >= 0)
		close(ch->err_fd);
	ch->go_fd = ch->err_fd = -1;
	if (!child_poll(ch))
		kill(ch->pid, SIGTERM);
	for (int i = 0; i < 200 && !child_poll(ch); i++)
		usleep(10000);
	if (!ch->exited) {
		kill(ch->pid, SIGKILL);
		if (waitpid(ch->pid, &ch->status, 0) == ch->pid)
			ch->exited = true;
	}
}

/*
 * Put the waiting command in a cgroup of its own, so that whatever it forks
 * is profiled too. Returns the cgroup's hierarchy path, or NULL (then only
 * the command's own tgid is the target) with the reason in note.
 */
static const char *child_cgroup(struct cgroup_transient *t, pid_t pid, char *note, size_t len)
{
	char name[64];

	snprintf(name, sizeof(name), "skyprof-record.%d", (int)getpid());
	if (cgroup_transient_create(t, NULL, name, note, len) ||
	    cgroup_transient_add(t, (int)pid, note, len)) {
		cgroup_transient_remove(t);
		return NULL;
	}
	note[0] = '\0';
	return t->path;
}

static void child_cgroup_remove(struct cgroup_transient *t)
{
	if (cgroup_transient_remove(t) == -EBUSY)
		fprintf(stderr, "skyprof: note: processes the command started still run in %s\n",
			t->dir);
}

static uint64_t realtime_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void progress(const struct capture *c, const struct record_opts *o, uint64_t samples,
		     uint64_t now)
{
	double el = (double)(now - c->start_mono_ns) / 1e9;
	const char *what = o->capture.offcpu ? "blocks" : "samples";

	if (o->duration_ns)
		fprintf(stderr,
			"\rskyprof: %.1f s / %.1f s, %" PRIu64 " %s, %" PRIu64 " lost\033[K", el,
			(double)o->duration_ns / 1e9, samples, what, ring_lost(c->ring));
	else
		fprintf(stderr,
			"\rskyprof: %.1f s, %" PRIu64 " %s, %" PRIu64
			" lost (Ctrl-C to stop)\033[K",
			el, samples, what, ring_lost(c->ring));
}

static const char *why_ended(const struct capture *c, const struct child *ch, bool timeout,
			     bool targets_gone)
{
	if (interrupted)
		return "interrupted";
	if (ch->exited)
		return "command exited";
	if (timeout)
		return "duration reached";
	if (targets_gone)
		return "all target processes exited";
	if (c->ended)
		return "the module ended the session";
	return "stopped";
}

static int write_outputs(struct profile *prof, struct symbolizer *sym, const struct record_opts *o)
{
	struct output_opts oo = { .per_thread = o->per_thread };
	struct view v;
	int rc = 0;

	if (view_init(&v, profile_get_meta(prof)) || view_build(&v, prof, sym)) {
		fprintf(stderr, "skyprof record: out of memory while symbolizing\n");
		view_free(&v);
		return 1;
	}
	/* Symbolizing is over before encoding starts: the encoders' memory
	 * then does not add to libdw's. */
	symbolizer_trim(sym);
	for (size_t i = 0; i < nr_outs; i++) {
		if (output_commit_opts(&v, &outs[i], &oo))
			rc = 1; /* output_commit said why, and where it kept it */
		else if (strcmp(outs[i].path, "-"))
			fprintf(stderr, "skyprof: wrote %s\n", outs[i].path);
	}
	view_free(&v);
	return rc;
}

static void discard_outputs(void)
{
	for (size_t i = 0; i < nr_outs; i++)
		output_discard(&outs[i]);
}

/* As perf does: an output that cannot be written fails before the module is
 * asked for anything, not after the run. 0, or the usage error's exit code. */
static int open_outputs(const struct record_opts *o)
{
	char err[256];

	for (size_t i = 0; i < o->nr_outputs; i++) {
		int f = output_format_from_path(o->outputs[i]);

		if (f < 0) {
			discard_outputs();
			return usage_fail("record", "%s: unknown output format; use %s",
					  o->outputs[i], OUTPUT_FORMATS);
		}
		if (output_open(&outs[nr_outs], o->outputs[i], f, err, sizeof(err))) {
			discard_outputs();
			return usage_fail("record", "%s", err);
		}
		nr_outs++;
	}
	return 0;
}

/* What the session is, once started; the id is what `skyprof status ID`
 * takes to show the per-CPU counters. */
static void say_started(const struct capture *cap, const struct record_opts *o, const char *cg_note)
{
	if (o->capture.offcpu)
		fprintf(stderr, "skyprof: session %u: off-CPU on %u cpus (scheduler switches)\n",
			cap->sess.id, ring_nr_mapped(cap->ring));
	else
		fprintf(stderr, "skyprof: session %u: on-CPU on %u cpus, clock %s\n", cap->sess.id,
			ring_nr_mapped(cap->ring), control_clock_name(cap->sess.clock_used));
	if (o->capture.cmd_children && !cap->cmd_followed && !cap->cmd_by_cgroup)
		fprintf(stderr,
			"skyprof: note: %s; profiling the command's own process, not the "
			"processes it starts\n",
			cg_note[0] ? cg_note
				   : "this module can neither follow forks nor filter by cgroup");
}

/* Why the capture loop stopped, besides the session's own end. */
struct loop_end {
	bool timeout, targets_gone;
};

/* Reads the rings until the duration, a signal, the command's or the
 * targets' end. Returns how long the session ran (ns). */
static uint64_t capture_loop(struct capture *cap, const struct record_opts *o, struct child *ch,
			     struct ingest_sink *run, struct jit_names *jn, bool tty,
			     struct loop_end *end)
{
	uint64_t now, last_progress = 0, last_pid_check = 0;
	struct sp_sink sink = ingest_sink_of(run);

	for (;;) {
		int timeout_ms = 100;

		now = clock_mono_ns();
		if (interrupted || cap->ended || run->error)
			break;
		if (o->cmd && child_poll(ch))
			break;
		if (o->duration_ns && now - cap->start_mono_ns >= o->duration_ns) {
			end->timeout = true;
			break;
		}
		if ((o->capture.target == TARGET_PIDS || o->capture.target == TARGET_TIDS) &&
		    now - last_pid_check > 500000000ull) {
			last_pid_check = now;
			if (!capture_targets_alive(&o->capture)) {
				end->targets_gone = true;
				break;
			}
		}
		if (o->duration_ns && o->duration_ns - (now - cap->start_mono_ns) < 100000000ull)
			timeout_ms =
				(int)((o->duration_ns - (now - cap->start_mono_ns)) / 1000000) + 1;
		if (capture_poll(cap, timeout_ms, &sink) < 0 && !run->error) {
			fprintf(stderr, "%sskyprof record: %s\n", tty ? "\n" : "", cap->err);
			break;
		}
		jit_names_poll(jn, o->duration_ns ? o->duration_ns - (now - cap->start_mono_ns)
						  : UINT64_MAX);
		if (tty && now - last_progress > 250000000ull) {
			last_progress = now;
			progress(cap, o, run->samples, now);
		}
	}
	if (tty)
		fprintf(stderr, "\r\033[K");
	return clock_mono_ns() - cap->start_mono_ns;
}

/* How the command ended, when that is news; and a run without samples. */
static void say_ended(const struct child *ch, const struct ingest_sink *run,
		      const struct record_opts *o)
{
	if (ch->exited && WIFEXITED(ch->status) && WEXITSTATUS(ch->status))
		fprintf(stderr, "skyprof: the command exited with status %d\n",
			WEXITSTATUS(ch->status));
	else if (ch->exited && WIFSIGNALED(ch->status) && WTERMSIG(ch->status) != SIGTERM &&
		 WTERMSIG(ch->status) != SIGINT)
		fprintf(stderr, "skyprof: the command was killed by signal %d\n",
			WTERMSIG(ch->status));
	if (!run->samples)
		fprintf(stderr, o->capture.offcpu
					? "skyprof: warning: no blocks recorded (did the target "
					  "wait for anything?)\n"
					: "skyprof: warning: no samples (did the target run on a "
					  "CPU?)\n");
}

int cli_record_main(int argc, char **argv)
{
	static struct record_opts o;
	static struct capture cap;
	static struct cgroup_transient tcg;
	const char *cmd_cgroup = NULL;
	char cg_note[512] = "";
	struct child ch = { .pid = -1, .go_fd = -1, .err_fd = -1 };
	struct control_cpu_stats *st = NULL;
	struct profile_meta meta = { 0 };
	struct symbolizer *sym = NULL;
	struct ingest_sink run = { 0 };
	struct sp_sink sink = ingest_sink_of(&run);
	struct jit_names *jn = NULL;
	struct loop_end end = { 0 };
	bool tty = isatty(STDERR_FILENO);
	uint64_t duration, lost;
	char err[256];
	size_t nst = 0;
	int ret, rc = 1;

	switch (options_parse(OPTS_RECORD, argc, argv, &o, err, sizeof(err))) {
	case OPTS_HELP:
		usage(stdout);
		return 0;
	case OPTS_ERROR:
		return usage_fail("record", "%s", err);
	case OPTS_OK:
		break;
	}
	if (options_check_system(&o, NULL, err, sizeof(err)) != OPTS_OK)
		return usage_fail("record", "%s", err);
	ret = open_outputs(&o);
	if (ret)
		return ret;

	install_signals();
	if (o.cmd) {
		ret = child_fork(&ch, o.cmd);
		if (ret) {
			fprintf(stderr, "skyprof record: cannot fork: %s\n", strerror(-ret));
			return 1;
		}
		o.capture.cmd_children = o.capture.target == TARGET_NONE && !o.no_inherit;
	}
	ret = capture_prepare(&cap, &o.capture, o.cmd ? (uint32_t)ch.pid : 0);
	/* Without the module following its forks, its cgroup: made only then. */
	if (!ret && o.capture.cmd_children && !cap.cmd_followed) {
		cmd_cgroup = child_cgroup(&tcg, ch.pid, cg_note, sizeof(cg_note));
		capture_cmd_cgroup(&cap, cmd_cgroup);
	}
	if (!ret)
		ret = capture_start(&cap);
	if (ret) {
		fprintf(stderr, "skyprof record: %s\n", cap.err);
		goto out;
	}
	say_started(&cap, &o, cg_note);

	meta.kind = o.capture.offcpu ? PROFILE_OFFCPU : PROFILE_ONCPU;
	meta.freq_hz = o.capture.offcpu ? 0 : o.capture.freq;
	meta.start_ns = realtime_ns();
	sym = symbolizer_new(NULL);
	run.in = sym ? ingest_new(sym, NULL) : NULL;
	run.prof = profile_new(&meta);
	if (!run.in || !run.prof) {
		fprintf(stderr, "skyprof record: out of memory\n");
		goto out;
	}
	if (o.cmd) {
		ret = child_release(&ch);
		if (ret) {
			fprintf(stderr, "skyprof record: cannot run '%s': %s\n", o.cmd[0],
				strerror(ret));
			goto out;
		}
	}
	/* after the exec: before it, the command's process is our fork */
	jn = jit_names_new(sym, run.in, &o, o.cmd ? (uint32_t)ch.pid : 0, true);

	duration = capture_loop(&cap, &o, &ch, &run, jn, tty, &end);
	ret = capture_finish(&cap, &sink, &st, &nst);
	jit_names_finish(jn, true);
	if (ret)
		fprintf(stderr, "skyprof record: %s\n", cap.err);
	if (run.error) {
		fprintf(stderr, "skyprof record: out of memory while aggregating; writing what "
				"was collected\n");
	}
	if (o.cmd) {
		child_end(&ch);
		child_cgroup_remove(&tcg);
	}
	lost = record_summary_print(&cap, &run, duration, &o, st, nst,
				    why_ended(&cap, &ch, end.timeout, end.targets_gone), sym);
	say_ended(&ch, &run, &o);
	profile_set_duration(run.prof, duration);
	profile_set_lost(run.prof, lost);
	rc = write_outputs(run.prof, sym, &o);
	jit_names_notes(jn, sym);

out:
	discard_outputs(); /* those not written: the run failed */
	free(st);
	capture_close(&cap);
	if (o.cmd) {
		child_end(&ch);
		child_cgroup_remove(&tcg);
	}
	profile_free(run.prof);
	ingest_free(run.in);
	jit_names_free(jn);
	if (sym)
		symbolizer_free(sym);
	return rc;
}
