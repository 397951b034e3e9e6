// SPDX-License-Identifier: GPL-2.0
/*
 * record's end-of-run summary (record_summary.h): what was captured, what
 * was lost and why, per CPU, what the ring held that was malformed, how
 * DWARF unwinding went, and what the side-band records gave.
 */
#include <inttypes.h>
#include <stdio.h>

#include "capture/sideband.h"
#include "cli/record_summary.h"
#include "proc/aspace.h"
#include "unwind/unwind.h"

static void print_line(void *arg, bool warning, const char *text)
{
	(void)arg;
	fprintf(stderr, "skyprof: %s%s\n", warning ? "warning: " : "", text);
}

uint64_t record_summary_print(const struct capture *c, const struct ingest_sink *run,
			      uint64_t duration_ns, const struct record_opts *o,
			      const struct control_cpu_stats *st, size_t nst, const char *why,
			      struct symbolizer *sym)
{
	const struct ring_stats *rs = ring_get_stats(c->ring);
	uint64_t drops = 0, written = 0, throttled = 0, unwind = 0, missed = 0;
	uint64_t skipped = 0, off_short = 0, off_full = 0;
	const struct unwind_dwarf_stats *uw;
	struct proc_aspace_stats as;
	char files[512];

	for (size_t i = 0; i < nst; i++) {
		drops += st[i].drops;
		written += st[i].samples;
		throttled += st[i].throttled;
		unwind += st[i].unwind_errors;
		missed += st[i].missed;
		off_short += st[i].offcpu_short;
		off_full += st[i].offcpu_full;
	}
	if (!nst)
		drops = ring_lost(c->ring);
	if (o->capture.offcpu)
		fprintf(stderr, "skyprof: %s after %.2f s: %" PRIu64 " blocks, %.3f s off-CPU", why,
			(double)duration_ns / 1e9, run->samples, (double)run->blocked_ns / 1e9);
	else
		fprintf(stderr, "skyprof: %s after %.2f s: %" PRIu64 " samples at %u Hz (clock %s)",
			why, (double)duration_ns / 1e9, run->samples, o->capture.freq,
			control_clock_name(c->sess.clock_used));
	fprintf(stderr, ", %" PRIu64 " lost", drops);
	if (throttled)
		fprintf(stderr, ", %" PRIu64 " throttled", throttled);
	if (unwind)
		fprintf(stderr, ", %" PRIu64 " unwind errors", unwind);
	if (missed)
		fprintf(stderr, ", %" PRIu64 " timer periods missed", missed);
	if (off_short)
		fprintf(stderr, ", %" PRIu64 " shorter than the minimum", off_short);
	if (off_full)
		fprintf(stderr, ", %" PRIu64 " not tracked (module table full)", off_full);
	fprintf(stderr, "\n");
	for (size_t i = 0; i < nst; i++) {
		if (!st[i].samples && !st[i].drops)
			continue;
		fprintf(stderr,
			"skyprof:   cpu %-3u %10" PRIu64 " samples %8" PRIu64 " lost %8" PRIu64
			" throttled, handler max %" PRIu64 " ns\n",
			st[i].cpu, st[i].samples, st[i].drops, st[i].throttled,
			st[i].handler_max_ns);
	}
	for (int i = 0; i < __DECODE_SKIP_MAX; i++)
		skipped += rs->skipped[i];
	if (rs->framing_errors || rs->head_errors || skipped || rs->cpu_mismatch)
		fprintf(stderr,
			"skyprof: warning: malformed ring data: %" PRIu64
			" framing errors (%" PRIu64 " bytes dropped), %" PRIu64
			" bad heads, %" PRIu64 " records skipped, %" PRIu64 " on the wrong cpu\n",
			rs->framing_errors, rs->bytes_dropped, rs->head_errors, skipped,
			rs->cpu_mismatch);
	/* --dwarf: how well the user stacks came out (unwind/unwind.h). */
	uw = ingest_unwind_stats(run->in);
	if (uw && uw->samples)
		fprintf(stderr,
			"skyprof: unwind: %" PRIu64 " samples with regs, %.1f user frames per "
			"sample (frame pointers alone: %.1f), %.1f %% reached a root frame; "
			"DWARF %" PRIu64 " (joined with FP %" PRIu64 "), FP kept %" PRIu64 "\n",
			uw->samples, (double)uw->user_frames / (double)uw->samples,
			(double)uw->fp_frames / (double)uw->samples,
			100.0 * (double)uw->reached_root / (double)uw->samples, uw->dwarf_used,
			uw->joined, uw->fp_kept);
	/* Side-band: what the module reported, what waited for it, how the
	 * files it named were found (capture/sideband.h, proc/aspace.h). */
	capture_sideband_lines(c, st, nst, print_line, NULL);
	if (sym) {
		proc_aspace_get_stats(symbolizer_procs(sym), &as);
		if (proc_aspace_files_line(&as, files, sizeof(files))[0])
			fprintf(stderr, "skyprof: %s\n", files);
		if (as.fallback_reused)
			fprintf(stderr,
				"skyprof: %" PRIu64 " processes without a report had their pid "
				"reused before /proc was read: their frames are [unknown]\n",
				as.fallback_reused);
	}
	/* A module may count its side-band records as records written. */
	if (nst && written > run->samples + rs->mmaps + rs->aspaces + drops)
		fprintf(stderr,
			"skyprof: note: the module wrote %" PRIu64 " samples, %" PRIu64
			" were read\n",
			written, run->samples);
	return drops;
}
