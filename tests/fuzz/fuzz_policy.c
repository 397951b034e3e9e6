// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer harness for ServiceWithPolicyJSON (queryPolicies' answer): the
 * JSON reader and the policy store it feeds. The input is applied twice to
 * one store, so the second pass runs the update and delete paths over what
 * the first one stored, then every stored policy is read back.
 *
 * Build and run: make fuzz FUZZ_TARGETS=policy (tests/fuzz/build.mk).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "agent/continuous.h"
#include "agent/log.h"
#include "lib/json.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_items(const struct continuous_policy *p)
{
	for (int t = 0; t < CONTINUOUS_NR_TARGETS; t++)
		for (int m = 0; m < CONTINUOUS_NR_MONITORS; m++) {
			const struct continuous_item *it = &p->items[t][m];

			if (it->set && (it->period == 0 || it->period > CONTINUOUS_WINDOW_MAX ||
					it->count == 0 || it->count > it->period))
				abort(); /* the evaluator's window cannot hold it */
		}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *s = (const char *)data;
	struct continuous_policies p;
	struct continuous_apply_stats st;
	struct json *j;
	char err[256];

	log_set_level(LOG_LVL_ERROR);
	j = json_parse(s, size, err, sizeof(err));
	if (j) {
		(void)json_get(j, "ServiceName");
		json_free(j);
	} else if (!err[0]) {
		abort();
	}
	continuous_policies_init(&p);
	for (int pass = 0; pass < 2; pass++)
		if (continuous_policies_apply(&p, s, size, pass ? NULL : "fuzz", &st, err,
					      sizeof(err)))
			break;
	for (size_t i = 0; i < p.n; i++) {
		struct continuous_policy copy;
		char uuid[128];

		if (!p.v[i].service || !p.v[i].uuid || !p.v[i].uuid[0])
			abort();
		check_items(&p.v[i]);
		if (!continuous_policies_get(&p, p.v[i].service, &copy))
			abort();
		check_items(&copy);
		continuous_policies_uuid(&p, p.v[i].service, uuid, sizeof(uuid));
	}
	continuous_policies_free(&p);
	return 0;
}
