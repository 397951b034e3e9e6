// SPDX-License-Identifier: GPL-2.0
/*
 * micro TEST [ARGS]: host microbenchmarks of the daemon's hot paths, linked
 * with the daemon library (build/libskyprof.a) so they time the code the
 * program runs. Each test prints "KEY VALUE" lines; tests/bench/run runs
 * each one several times, in a fresh process each, and reports the median
 * and the spread.
 *
 *   aggregate [SAMPLES] [STACKS]
 *        synthetic ring contents (STACKS distinct stacks, default 10000:
 *        12 kernel + 34 user frames each, real addresses of this process and
 *        of the kernel) drained through the ring reader and the decoder into
 *        the aggregation, SAMPLES records in all (default 1000000); then the
 *        profile is symbolized (the view), encoded as pprof and gzipped, and
 *        the process's peak RSS is reported.
 *   symbolize [ADDRS]
 *        ADDRS distinct addresses (default 5000) spread over the text of
 *        this program, libc and libdw resolved on a fresh symbolizer (cold:
 *        the ELF/DWARF files are opened and indexed by the lookups), then
 *        the same addresses again (warm), and kernel addresses.
 *   miss [ROUNDS] [PID]
 *        what one miss costs the capture (proc/follow.c): ROUNDS re-reads
 *        (default 200) of the maps of PID (default: this process) by
 *        proc_table_refresh, after a first read that opened its files; the
 *        mean and the executable mappings.
 *   dwarf PROGRAM [CAPTURES] [BYTES]
 *        starts PROGRAM (a workload built without frame pointers), stops it
 *        CAPTURES times (default 64) at random points with ptrace, copies
 *        its registers and BYTES (default 8192) of its stack from sp
 *        (process_vm_readv), the way the module's --dwarf copy does, and
 *        unwinds those samples with the daemon's DWARF unwinder: the first
 *        pass (cold: CFI read and indexed) and repeated passes (warm).
 */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <skyprof.h>

#include "output/output.h"
#include "profile/ingest.h"
#include "profile/profile.h"
#include "capture/ring.h"
#include "proc/table.h"
#include "sym/symbolizer.h"
#include "unwind/unwind.h"
#include "profile/view.h"
#include "profile/view_build.h"

/*
 * CPU time of this (single-threaded) process: the host is shared with other
 * jobs, and what a test costs per core is what the targets are about; wall
 * time would measure the other jobs too.
 */
static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static uint64_t rng_state = 0x853c49e6748fea9bull;

static uint64_t rnd(void)
{
	/* splitmix64: reproducible runs, no libc state. */
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static void die(const char *what)
{
	fprintf(stderr, "micro: %s: %s\n", what, strerror(errno));
	exit(1);
}

static long peak_rss_kib(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_maxrss;
}

/* A "Name: N kB" line of /proc/self/status, in MiB. */
static double status_mib(const char *name)
{
	FILE *f = fopen("/proc/self/status", "re");
	char line[256];
	size_t n = strlen(name);
	long kib = 0;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, name, n) && line[n] == ':') {
			kib = strtol(line + n + 1, NULL, 10);
			break;
		}
	fclose(f);
	return (double)kib / 1024.0;
}

static double rss_now_mib(void)
{
	return status_mib("VmRSS");
}

/* --- address pools: executable ranges of our own maps ------------------- */

struct range {
	uint64_t start, limit;
	char path[256];
};

static size_t exec_ranges(struct range *out, size_t max)
{
	FILE *f = fopen("/proc/self/maps", "re");
	char line[512];
	size_t n = 0;

	if (!f)
		die("/proc/self/maps");
	while (n < max && fgets(line, sizeof(line), f)) {
		unsigned long long s, l;
		char perm[8], path[256] = "";

		if (sscanf(line, "%llx-%llx %7s %*s %*s %*s %255s", &s, &l, perm, path) < 3)
			continue;
		if (perm[2] != 'x' || path[0] != '/')
			continue;
		out[n].start = s;
		out[n].limit = l;
		snprintf(out[n].path, sizeof(out[n].path), "%s", path);
		n++;
	}
	fclose(f);
	return n;
}

/* Text addresses of the kernel from kallsyms (0 when it shows no addresses). */
static size_t kernel_addrs(uint64_t *out, size_t max)
{
	FILE *f = fopen("/proc/kallsyms", "re");
	char line[512];
	size_t n = 0;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long a;
		char t;

		if (sscanf(line, "%llx %c", &a, &t) != 2 || !a || (t != 't' && t != 'T'))
			continue;
		/* Reservoir sampling: max addresses spread over the whole text. */
		if (n < max)
			out[n++] = a + 4;
		else {
			uint64_t j = rnd() % (n + 1);

			if (j < max)
				out[j] = a + 4;
			n++;
		}
	}
	fclose(f);
	return n < max ? n : max;
}

/* --- aggregate ---------------------------------------------------------- */

#define AGG_NK 12
#define AGG_NU 34
#define UPOOL  4000
#define KPOOL  1000

struct agg_run {
	struct ingest *in;
	struct profile *prof;
	uint64_t n;
};

static int agg_cb(void *arg, const struct sp_sample *s)
{
	struct agg_run *r = arg;

	if (ingest_sample(r->in, r->prof, s) < 0)
		return -ENOMEM;
	r->n++;
	return 0;
}

/* Records of random stacks back to back, a pad at the end; returns how many. */
static uint64_t fill_ring(uint8_t *data, uint64_t area, size_t rec, const uint64_t *stacks,
			  size_t nstacks)
{
	struct skyprof_rec_header pad = { .type = SKYPROF_REC_PAD };
	uint64_t off = 0;

	while (area - off >= rec + sizeof(struct skyprof_rec_header)) {
		struct skyprof_sample smp = { 0 };
		const uint64_t *s = stacks + (rnd() % nstacks) * (AGG_NK + AGG_NU);

		smp.hdr.size = (uint32_t)rec;
		smp.hdr.type = SKYPROF_REC_SAMPLE;
		smp.hdr.version = SKYPROF_SAMPLE_VERSION;
		smp.time_ns = off;
		smp.weight = 1;
		smp.tgid = (uint32_t)getpid();
		smp.tid = (uint32_t)getpid();
		smp.nr_kernel = AGG_NK;
		smp.nr_user = AGG_NU;
		memcpy(smp.comm, "micro", 5);
		memcpy(data + off, &smp, sizeof(smp));
		memcpy(data + off + sizeof(smp), s, 8 * (AGG_NK + AGG_NU));
		off += rec;
	}
	pad.size = (uint32_t)(area - off);
	memset(data + off, 0, area - off);
	memcpy(data + off, &pad, sizeof(pad));
	return off / rec;
}

static int bench_aggregate(uint64_t nsamples, size_t nstacks)
{
	const size_t rec = sizeof(struct skyprof_sample) + 8 * (AGG_NK + AGG_NU);
	const uint64_t area = 2ull << 20; /* 2 MiB, like a 512-page ring */
	struct range rg[64];
	size_t nrg = exec_ranges(rg, 64), nk;
	uint64_t *kpool, *stacks, per_lap, upool[UPOOL];
	struct skyprof_ring_ctl ctl;
	struct ring_stats st;
	struct ring_cpu rc;
	struct agg_run run = { 0 };
	struct profile_meta meta = { .kind = PROFILE_ONCPU, .freq_hz = 999 };
	struct symbolizer *sym;
	uint8_t *data;
	double t0, t1, t2, t3, t4, trim_s, drain_s = 0, rss0, rss1, rss2;
	struct view view, *v;
	FILE *f;
	char tmp[] = "/tmp/skyprof-micro.XXXXXX";
	int fd;

	if (!nrg)
		die("no executable mappings");
	kpool = calloc(4096, sizeof(*kpool));
	stacks = malloc(nstacks * (AGG_NK + AGG_NU) * sizeof(*stacks));
	data = aligned_alloc(4096, area);
	if (!kpool || !stacks || !data)
		die("malloc");
	nk = kernel_addrs(kpool, 4096);
	/*
	 * Distinct stacks over a realistic number of distinct addresses: the
	 * user frames come from a pool of 4000 addresses in our own text and
	 * libraries, the kernel frames from 1000 kallsyms text addresses (or
	 * kernel-looking ones that resolve as unknown when it shows none); the
	 * outermost 8 user frames are the same in every stack, as main and
	 * the C runtime are in a real process.
	 */
	for (size_t i = 0; i < UPOOL; i++) {
		const struct range *r = &rg[rnd() % nrg];

		upool[i] = r->start + rnd() % (r->limit - r->start);
	}
	if (nk > KPOOL)
		nk = KPOOL;
	for (size_t i = 0; i < nstacks; i++) {
		uint64_t *s = stacks + i * (AGG_NK + AGG_NU);

		for (int k = 0; k < AGG_NK; k++)
			s[k] = nk ? kpool[rnd() % nk] : 0xffffffff81000000ull + (rnd() % 0x1000000);
		for (int u = 0; u < AGG_NU; u++)
			s[AGG_NK + u] = upool[u < AGG_NU - 8 ? rnd() % UPOOL : (uint64_t)u];
	}
	per_lap = fill_ring(data, area, rec, stacks, nstacks);
	rss0 = rss_now_mib();

	sym = symbolizer_new(&(struct symbolizer_opts){ .quiet = true });
	run.in = sym ? ingest_new(sym, NULL) : NULL;
	run.prof = profile_new(&meta);
	if (!sym || !run.in || !run.prof || view_init(&view, &meta))
		die("profile_new");
	memset(&ctl, 0, sizeof(ctl));
	memset(&rc, 0, sizeof(rc));
	memset(&st, 0, sizeof(st));
	rc.ctl = &ctl;
	rc.data = data;
	rc.size = area;
	rc.cpu = 0;
	rc.mapped = true;
	/*
	 * A lap: the producer (untimed) fills the area with records of random
	 * stacks and publishes it whole, as a module that filled the ring
	 * would; the reader drains it through the decoder into the profile
	 * (timed). The last lap publishes only what is left of nsamples.
	 */
	while (run.n < nsamples) {
		uint64_t want = nsamples - run.n;
		double a;

		if (run.n)
			fill_ring(data, area, rec, stacks, nstacks);
		ctl.data_head = rc.tail + (want >= per_lap ? area : want * rec);
		a = now_s();
		if (ring_cpu_drain(&rc, &(struct ring_sink){ .sample = agg_cb, .arg = &run }, &st))
			die("aggregate");
		drain_s += now_s() - a;
	}
	t1 = now_s();
	t0 = t1 - drain_s;
	rss1 = rss_now_mib();
	v = view_build(&view, run.prof, sym) ? NULL : &view;
	t2 = now_s();
	rss2 = rss_now_mib();
	if (!v)
		die("view_build");
	/* as record does before it encodes */
	symbolizer_trim(sym);
	trim_s = now_s() - t2;
	t2 = now_s();
	fd = mkstemp(tmp);
	if (fd < 0 || !(f = fdopen(fd, "w")))
		die("mkstemp");
	if (output_pprof_write(v, f))
		die("output_pprof_write");
	fflush(f);
	t3 = now_s();
	{
		long sz = ftell(f);

		fclose(f);
		unlink(tmp);
		t4 = now_s();
		printf("aggregate.samples %" PRIu64 "\n", run.n);
		printf("aggregate.stacks %zu\n", profile_nr_stacks(run.prof));
		printf("aggregate.record_bytes %zu\n", rec);
		printf("aggregate.samples_per_s %.0f\n", (double)run.n / (t1 - t0));
		printf("aggregate.ns_per_sample %.1f\n", (t1 - t0) * 1e9 / (double)run.n);
		printf("view.symbolize_s %.3f\n", t2 - t1);
		printf("view.locations %u\n", v->nr_locations);
		printf("view.trim_s %.3f\n", trim_s);
		printf("pprof.encode_s %.3f\n", t3 - t2);
		printf("pprof.bytes %ld\n", sz);
		printf("pprof.total_s %.3f\n", t4 - t1);
		printf("rss.peak_mib %.1f\n", (double)peak_rss_kib() / 1024.0);
		printf("rss.input_mib %.1f\n",
		       (double)(area + nstacks * (AGG_NK + AGG_NU) * 8) / 1048576.0);
		printf("rss.before_mib %.1f\n", rss0);
		printf("rss.aggregated_mib %.1f\n", rss1);
		printf("rss.symbolized_mib %.1f\n", rss2);
		/* File-backed pages are the mapped ELF/DWARF files (shared,
		 * reclaimable); anonymous ones are the daemon's own memory. */
		printf("rss.anon_mib %.1f\n", status_mib("RssAnon"));
		printf("rss.file_mib %.1f\n", status_mib("RssFile"));
		printf("kernel.symbols %s\n", nk ? "kallsyms" : "none");
	}
	if (st.framing_errors || st.head_errors || run.n != nsamples ||
	    profile_nr_stacks(run.prof) > nstacks) {
		fprintf(stderr,
			"micro: aggregate: reader disagreed (%" PRIu64 " samples, %zu stacks)\n",
			run.n, profile_nr_stacks(run.prof));
		return 1;
	}
	view_free(&view);
	profile_free(run.prof);
	ingest_free(run.in);
	symbolizer_free(sym);
	free(data);
	free(stacks);
	free(kpool);
	return 0;
}

/* --- symbolize ---------------------------------------------------------- */

static int bench_symbolize(size_t naddr)
{
	struct range rg[64];
	size_t nrg = exec_ranges(rg, 64), nk;
	uint64_t *addrs = malloc(naddr * sizeof(*addrs)), *kaddrs = calloc(4096, sizeof(*kaddrs));
	struct symbolizer *s;
	struct sym_result r;
	size_t unknown = 0;
	double t0, t1, t2, t3, t4;
	uint32_t pid = (uint32_t)getpid();

	if (!addrs || !kaddrs || !nrg)
		die("symbolize setup");
	/* Spread over every executable file we map (libc, libdw, ...). */
	for (size_t i = 0; i < naddr; i++) {
		const struct range *g = &rg[i % nrg];

		addrs[i] = g->start + rnd() % (g->limit - g->start);
	}
	nk = kernel_addrs(kaddrs, 4096);
	t0 = now_s();
	s = symbolizer_new(&(struct symbolizer_opts){ .quiet = true });
	if (!s)
		die("symbolizer_new");
	symbolizer_note_pid(s, pid);
	for (size_t i = 0; i < naddr; i++) {
		symbolizer_resolve(s, pid, addrs[i], false, &r);
		unknown += !r.has_functions;
	}
	t1 = now_s();
	for (int rep = 0; rep < 3; rep++)
		for (size_t i = 0; i < naddr; i++)
			symbolizer_resolve(s, pid, addrs[i], false, &r);
	t2 = now_s();
	if (nk) {
		symbolizer_resolve(s, 0, kaddrs[0], true, &r); /* loads kallsyms */
		t3 = now_s();
		for (int rep = 0; rep < 50; rep++)
			for (size_t i = 0; i < nk; i++)
				symbolizer_resolve(s, 0, kaddrs[i], true, &r);
		t4 = now_s();
		printf("symbolize.kernel_load_s %.3f\n", t3 - t2);
		printf("symbolize.kernel_per_s %.0f\n", 50.0 * (double)nk / (t4 - t3));
	}
	printf("symbolize.addresses %zu\n", naddr);
	printf("symbolize.files %zu\n", symbolizer_nr_files(s));
	printf("symbolize.unresolved_pct %.1f\n", 100.0 * (double)unknown / (double)naddr);
	printf("symbolize.cold_per_s %.0f\n", (double)naddr / (t1 - t0));
	printf("symbolize.cold_s %.3f\n", t1 - t0);
	printf("symbolize.warm_per_s %.0f\n", 3.0 * (double)naddr / (t2 - t1));
	symbolizer_free(s);
	free(addrs);
	free(kaddrs);
	return 0;
}

/* --- dwarf -------------------------------------------------------------- */

struct capture {
	struct sp_sample s;
	struct skyprof_user_regs regs;
	uint64_t pc;
	uint8_t *stack;
};

/* perf's x86 numbering (PERF_REG_X86_*), as the module fills regs[]. */
static void fill_regs(struct skyprof_user_regs *r, const struct user_regs_struct *u)
{
	memset(r, 0, sizeof(*r));
	r->abi = SKYPROF_REGS_ABI_64;
	r->regs[0] = u->rax;
	r->regs[1] = u->rbx;
	r->regs[2] = u->rcx;
	r->regs[3] = u->rdx;
	r->regs[4] = u->rsi;
	r->regs[5] = u->rdi;
	r->regs[6] = u->rbp;
	r->regs[7] = u->rsp;
	r->regs[8] = u->rip;
	r->regs[9] = u->eflags;
	r->regs[10] = u->cs;
	r->regs[11] = u->ss;
	r->regs[16] = u->r8;
	r->regs[17] = u->r9;
	r->regs[18] = u->r10;
	r->regs[19] = u->r11;
	r->regs[20] = u->r12;
	r->regs[21] = u->r13;
	r->regs[22] = u->r14;
	r->regs[23] = u->r15;
	r->mask = 0xff | (1ull << 8) | (0xffull << 16);
}

/* Copy up to bytes of the stack from sp, stopping at the end of the mapping. */
static uint32_t copy_stack(pid_t pid, uint64_t sp, uint8_t *buf, uint32_t bytes)
{
	struct iovec local[64], remote[64];
	uint32_t chunk = 512, n = 0;
	ssize_t got;

	for (uint32_t o = 0; o < bytes && n < 64; o += chunk, n++) {
		local[n].iov_base = buf + o;
		local[n].iov_len = bytes - o < chunk ? bytes - o : chunk;
		remote[n].iov_base = (void *)(uintptr_t)(sp + o);
		remote[n].iov_len = local[n].iov_len;
	}
	got = process_vm_readv(pid, local, n, remote, n, 0);
	return got > 0 ? (uint32_t)got & ~7u : 0;
}

static int bench_dwarf(const char *prog, int ncap, uint32_t bytes)
{
	struct capture *caps = calloc((size_t)ncap, sizeof(*caps));
	struct symbolizer *sym;
	struct unwind_dwarf *u;
	uint64_t ips[UNWIND_DWARF_MAX_FRAMES];
	uint64_t frames = 0, fp_frames = 0, n = 0;
	double t0, t1, t2;
	pid_t pid;
	int st;

	if (!caps)
		die("calloc");
	pid = fork();
	if (pid < 0)
		die("fork");
	if (pid == 0) {
		execl(prog, prog, "600", (char *)NULL);
		_exit(127);
	}
	usleep(300000); /* past the loader: in the workload's loop */
	if (ptrace(PTRACE_SEIZE, pid, 0, 0))
		die("ptrace(SEIZE)");
	for (int i = 0; i < ncap; i++) {
		struct user_regs_struct ur;

		usleep(2000 + (useconds_t)(rnd() % 8000));
		if (ptrace(PTRACE_INTERRUPT, pid, 0, 0) || waitpid(pid, &st, 0) != pid ||
		    !WIFSTOPPED(st))
			die("ptrace(INTERRUPT)");
		if (ptrace(PTRACE_GETREGS, pid, 0, &ur))
			die("ptrace(GETREGS)");
		caps[i].stack = malloc(bytes);
		if (!caps[i].stack)
			die("malloc");
		fill_regs(&caps[i].regs, &ur);
		caps[i].pc = ur.rip;
		caps[i].s.time_ns = (uint64_t)i;
		caps[i].s.weight = 1;
		caps[i].s.tgid = (uint32_t)pid;
		caps[i].s.tid = (uint32_t)pid;
		caps[i].s.flags = SKYPROF_SF_REGS;
		snprintf(caps[i].s.comm, sizeof(caps[i].s.comm), "%s", "nofp");
		caps[i].s.nr_user = 1; /* what a frame-pointer walk gets here */
		caps[i].s.user_ips = &caps[i].pc;
		caps[i].s.regs = &caps[i].regs;
		caps[i].s.ustack_size = copy_stack(pid, ur.rsp, caps[i].stack, bytes);
		caps[i].s.ustack = caps[i].stack;
		if (ptrace(PTRACE_CONT, pid, 0, 0))
			die("ptrace(CONT)");
	}
	/* The process stays alive (the unwinder reads its maps and files). */
	sym = symbolizer_new(&(struct symbolizer_opts){ .quiet = true });
	u = sym ? unwind_dwarf_new(sym) : NULL;
	if (!u)
		die("unwind_dwarf_new");
	t0 = now_s();
	for (int i = 0; i < ncap; i++)
		frames += unwind_dwarf_only(u, &caps[i].s, ips, UNWIND_DWARF_MAX_FRAMES);
	t1 = now_s();
	do {
		for (int i = 0; i < ncap; i++, n++)
			fp_frames += unwind_dwarf_only(u, &caps[i].s, ips, UNWIND_DWARF_MAX_FRAMES);
		t2 = now_s();
	} while (t2 - t1 < 1.0);
	/* The daemon's own path (mixed mode and the root check), warm. */
	{
		double t3, t4;
		uint64_t m = 0;

		t3 = now_s();
		do {
			for (int i = 0; i < ncap; i++, m++)
				unwind_dwarf_sample(u, &caps[i].s, ips, UNWIND_DWARF_MAX_FRAMES);
			t4 = now_s();
		} while (t4 - t3 < 1.0);
		const struct unwind_dwarf_stats *ws = unwind_dwarf_get_stats(u);

		printf("dwarf.mixed_samples_per_s %.0f\n", (double)m / (t4 - t3));
		printf("dwarf.reached_root_pct %.1f\n",
		       100.0 * (double)ws->reached_root / (double)(ws->samples ? ws->samples : 1));
		printf("dwarf.fast_path_pct %.1f\n",
		       100.0 * (double)ws->fast / (double)(n + (uint64_t)ncap + m));
		/* The same captures through libdwfl's own unwinder only: what
		 * the cached-rule fast path saves. */
		unwind_dwarf_set_slow_only(u, true);
		m = 0;
		t3 = now_s();
		do {
			for (int i = 0; i < ncap; i++, m++)
				unwind_dwarf_only(u, &caps[i].s, ips, UNWIND_DWARF_MAX_FRAMES);
			t4 = now_s();
		} while (t4 - t3 < 1.0);
		printf("dwarf.libdwfl_samples_per_s %.0f\n", (double)m / (t4 - t3));
	}
	printf("dwarf.captures %d\n", ncap);
	printf("dwarf.copy_bytes %u\n", bytes);
	printf("dwarf.frames_per_sample %.1f\n", (double)frames / ncap);
	printf("dwarf.cold_ms_per_sample %.3f\n", (t1 - t0) * 1e3 / ncap);
	printf("dwarf.samples_per_s %.0f\n", (double)n / (t2 - t1));
	printf("dwarf.rss_peak_mib %.1f\n", (double)peak_rss_kib() / 1024.0);
	unwind_dwarf_free(u);
	symbolizer_free(sym);
	kill(pid, SIGKILL);
	waitpid(pid, &st, 0);
	for (int i = 0; i < ncap; i++)
		free(caps[i].stack);
	free(caps);
	return (double)frames / ncap >= 3 ? 0 : (fprintf(stderr, "micro: dwarf: no frames\n"), 1);
}

static int bench_miss(int rounds, uint32_t pid)
{
	struct symbolizer *s = symbolizer_new(&(struct symbolizer_opts){ .quiet = true });

	uint16_t gen;
	double t0;

	if (!s)
		die("symbolizer_new");
	symbolizer_note_pid(s, pid);
	t0 = now_s();
	for (int i = 0; i < rounds; i++)
		if (proc_table_refresh(symbolizer_procs(s), pid, &gen) < 0)
			die("proc_table_refresh");
	printf("miss.reread_us %.1f\n", (now_s() - t0) * 1e6 / rounds);
	printf("miss.mappings %zu\n", proc_table_newest(symbolizer_procs(s), pid)->nr_maps);
	symbolizer_free(s);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc >= 2 && !strcmp(argv[1], "aggregate"))
		return bench_aggregate(argc > 2 ? strtoull(argv[2], NULL, 0) : 1000000,
				       argc > 3 ? strtoul(argv[3], NULL, 0) : 10000);
	if (argc >= 2 && !strcmp(argv[1], "symbolize"))
		return bench_symbolize(argc > 2 ? strtoul(argv[2], NULL, 0) : 5000);
	if (argc >= 2 && !strcmp(argv[1], "miss"))
		return bench_miss(argc > 2 ? atoi(argv[2]) : 200,
				  argc > 3 ? (uint32_t)atoi(argv[3]) : (uint32_t)getpid());
	if (argc >= 3 && !strcmp(argv[1], "dwarf"))
		return bench_dwarf(argv[2], argc > 3 ? atoi(argv[3]) : 64,
				   argc > 4 ? (uint32_t)strtoul(argv[4], NULL, 0) : 8192);
	fprintf(stderr, "usage: micro aggregate [SAMPLES] [STACKS] | symbolize [ADDRS] | miss "
			"[ROUNDS] [PID] |\n"
			"       dwarf PROGRAM [CAPTURES] [BYTES]\n");
	return 2;
}
