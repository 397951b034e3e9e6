/* SPDX-License-Identifier: GPL-2.0 */
/* The lines `skyprof record` ends with, on standard error. */
#ifndef SKYPROF_CLI_RECORD_SUMMARY_H
#define SKYPROF_CLI_RECORD_SUMMARY_H

#include <stddef.h>
#include <stdint.h>

#include "capture/capture.h"
#include "cli/options.h"
#include "profile/ingest.h"
#include "sym/symbolizer.h"

/*
 * The summary of a run that lasted duration_ns and ended for why; st: the
 * module's per-CPU counters (nst of them); sym: the symbolizer whose
 * process table took the side-band records (NULL: none). Returns the
 * samples lost, for the outputs.
 */
uint64_t record_summary_print(const struct capture *c, const struct ingest_sink *run,
			      uint64_t duration_ns, const struct record_opts *o,
			      const struct control_cpu_stats *st, size_t nst, const char *why,
			      struct symbolizer *sym);

#endif
