// SPDX-License-Identifier: GPL-2.0
/* The names of the contract's values, for people: clocks, end reasons, capabilities. */
#include <stdio.h>

#include <skyprof.h>

#include "capture/control.h"

const char *control_clock_name(uint32_t clock)
{
	switch (clock) {
	case SKYPROF_CLOCK_AUTO:
		return "auto";
	case SKYPROF_CLOCK_PERF_HW:
		return "perf-hw";
	case SKYPROF_CLOCK_PERF_SW:
		return "perf-sw";
	case SKYPROF_CLOCK_HRTIMER:
		return "hrtimer";
	}
	return "?";
}

const char *control_end_reason_name(uint32_t reason)
{
	switch (reason) {
	case SKYPROF_END_STOPPED:
		return "stopped";
	case SKYPROF_END_OWNER_CLOSED:
		return "owner closed";
	case SKYPROF_END_UNLOAD:
		return "module unloading";
	case SKYPROF_END_ERROR:
		return "error";
	}
	return "?";
}

const char *control_caps_string(uint32_t caps, char *buf, size_t len)
{
	static const struct {
		uint32_t bit;
		const char *name;
	} names[] = {
		{ SKYPROF_CAP_PERF_HW, "perf-hw" },	    { SKYPROF_CAP_PERF_SW, "perf-sw" },
		{ SKYPROF_CAP_HRTIMER, "hrtimer" },	    { SKYPROF_CAP_OFFCPU, "offcpu" },
		{ SKYPROF_CAP_USTACK_COPY, "ustack-copy" }, { SKYPROF_CAP_CGROUP, "cgroup" },
		{ SKYPROF_CAP_SIDEBAND, "sideband" },	    { SKYPROF_CAP_FOLLOW, "follow" },
	};
	size_t used = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (!(caps & names[i].bit))
			continue;
		int n = snprintf(buf + used, len - used, "%s%s", used ? "," : "", names[i].name);

		if (n < 0 || (size_t)n >= len - used) {
			buf[used] = '\0'; /* whole names only */
			break;
		}
		used += (size_t)n;
	}
	if (!used)
		snprintf(buf, len, "none");
	return buf;
}
