// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer harness for the perf map parser: JIT map files are written by
 * the profiled process, so their content is untrusted. The input is fed in
 * two pieces (the file grows while the JIT runs), then looked up at the
 * addresses it names and around them.
 *
 * Build and run: make fuzz FUZZ_TARGETS=perfmap (tests/fuzz/build.mk).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sym/perfmap.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sym_perfmap *m = sym_perfmap_open(-1);
	size_t cut = size ? data[0] % (size + 1) : 0;
	uint64_t probe = 0;

	if (!m)
		return 0;
	sym_perfmap_feed(m, (const char *)data, cut);
	sym_perfmap_lookup(m, 0);
	sym_perfmap_feed(m, (const char *)data + cut, size - cut);
	for (size_t i = 0; i + 8 <= size; i += 8) {
		const char *name;

		memcpy(&probe, data + i, 8);
		name = sym_perfmap_lookup(m, probe);
		if (name)
			(void)strlen(name);
	}
	sym_perfmap_lookup(m, UINT64_MAX);
	sym_perfmap_free(m);
	return 0;
}
