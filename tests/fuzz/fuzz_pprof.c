// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer harness for `skyprof report`'s untrusted input: a pprof file
 * (gzip or raw protobuf) read into a view, then every output written from
 * what was accepted, so a file that passes validation can also never make
 * a writer read out of bounds.
 *
 * Build and run: make fuzz FUZZ_TARGETS=pprof (tests/fuzz/build.mk).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "output/output.h"
#include "output/pprof_read.h"
#include "profile/view.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct view *v = NULL;
	char err[256];
	FILE *sink;

	if (pprof_read_buffer(data, size, &v, err, sizeof(err)))
		return 0;
	sink = fopen("/dev/null", "w");
	if (sink) {
		output_folded_write(v, sink);
		output_svg_write(v, sink, "fuzz");
		output_speedscope_write(v, sink, "fuzz");
		output_pprof_write(v, sink);
		fclose(sink);
	}
	view_free(v);
	free(v);
	return 0;
}
