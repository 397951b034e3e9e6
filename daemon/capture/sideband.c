// SPDX-License-Identifier: GPL-2.0
/* A session's side-band and following counters as lines (sideband.h). */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <skyprof.h>

#include "capture/sideband.h"

static void hold_lines(const struct hold_stats *h, const struct control_cpu_stats *s,
		       void (*line)(void *arg, bool warning, const char *text), void *arg)
{
	uint64_t without = h->by_timeout + h->when_full + h->at_end + h->no_memory;
	char buf[512];

	snprintf(buf, sizeof(buf),
		 "side-band: %" PRIu64 " address spaces reported by the module (%" PRIu64
		 " reports, %" PRIu64 " mappings), walked in %.1f ms; %" PRIu64
		 " samples waited for their report, %" PRIu64 " of them named by it (longest "
		 "wait %.1f ms)",
		 h->first_reports, h->reports, h->mappings, (double)s->sb_walk_ns / 1e6, h->held,
		 h->by_report, (double)h->wait_max_ns / 1e6);
	line(arg, false, buf);
	if (without) {
		snprintf(buf, sizeof(buf),
			 "%" PRIu64 " samples went on without their address space's report, "
			 "named from /proc if it still showed their process (%" PRIu64
			 " after %.0f ms, %" PRIu64 " with the hold full, %" PRIu64
			 " at the end, %" PRIu64 " without memory to hold them; %" PRIu64
			 " reports came later)",
			 without, h->by_timeout, (double)HOLD_WAIT_NS_DEFAULT / 1e6, h->when_full,
			 h->at_end, h->no_memory, h->late_reports);
		line(arg, false, buf);
	}
	if (s->sb_full) {
		snprintf(buf, sizeof(buf),
			 "the module's table of address spaces was full: %" PRIu64
			 " samples named none, their processes read from /proc",
			 s->sb_full);
		line(arg, true, buf);
	}
	if (s->sb_lost || h->short_reports || h->orphans || h->pending_full) {
		snprintf(buf, sizeof(buf),
			 "%" PRIu64 " side-band records lost in the module (ring full), %" PRIu64
			 " dropped here (%" PRIu64 " reports short of mappings): the address "
			 "spaces they described were reported again or read from /proc",
			 s->sb_lost, h->orphans + h->pending_full, h->short_reports);
		line(arg, true, buf);
	}
	if (s->sb_throttled || h->maps_cut) {
		snprintf(buf, sizeof(buf),
			 "side-band: %" PRIu64 " walks put off by the budget, %" PRIu64
			 " reports of address spaces with more than %d executable mappings",
			 s->sb_throttled, h->maps_cut, SKYPROF_SIDEBAND_MAPS_MAX);
		line(arg, false, buf);
	}
}

void capture_sideband_lines(const struct capture *c, const struct control_cpu_stats *st, size_t n,
			    void (*line)(void *arg, bool warning, const char *text), void *arg)
{
	const struct hold_stats *h = capture_hold_stats(c);
	struct control_cpu_stats s;
	char buf[512];

	control_stats_sum(st, n, &s);
	if (h)
		hold_lines(h, &s, line, arg);
	if (!c->cmd_followed)
		return;
	snprintf(buf, sizeof(buf), "following forks: %" PRIu64 " processes added to the targets",
		 s.follow_added);
	line(arg, false, buf);
	if (s.follow_full) {
		snprintf(buf, sizeof(buf),
			 "the module's table of followed processes was full: %" PRIu64
			 " forks were not followed, those processes are missing from the profile",
			 s.follow_full);
		line(arg, true, buf);
	}
}
