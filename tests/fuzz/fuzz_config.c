// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer harness for the agent's config loader: rover-compatible YAML
 * (libyaml events), ${ENV:default} substitution, durations, sizes,
 * regexes and templates, and the local continuous policies turned into
 * ServiceWithPolicyJSON. The input is the file's text.
 *
 * Build and run: make fuzz FUZZ_TARGETS=config (tests/fuzz/build.mk).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "agent/continuous.h"
#include "agent/log.h"
#include "agent/config.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct agent_config c;
	char err[512];

	log_set_level(LOG_LVL_ERROR);
	if (!config_load_string(&c, (const char *)data, size, err, sizeof(err))) {
		/* An accepted config is used: its derived values and its policies. */
		(void)config_oncpu_freq(&c);
		for (size_t i = 0; i < c.nr_finders; i++)
			if (!c.finders[i].match_cmd || !c.finders[i].re_ok)
				abort();
		if (c.continuous.policies && c.continuous.policies_error)
			abort(); /* one or the other */
		if (c.continuous.policies) {
			struct continuous_policies p;
			struct continuous_apply_stats st;

			continuous_policies_init(&p);
			continuous_policies_apply_value(&p, c.continuous.policies, "local", &st,
							err, sizeof(err));
			continuous_policies_free(&p);
		}
	} else if (!err[0] || strnlen(err, sizeof(err)) == sizeof(err)) {
		abort(); /* a refusal always says why */
	}
	config_free(&c);
	return 0;
}
