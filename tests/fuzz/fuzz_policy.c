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

static void check_items(const struct cont_policy *p)
{
	for (int t = 0; t < CONT_NR_TARGETS; t++)
		for (int m = 0; m < CONT_NR_MONITORS; m++) {
			const struct cont_item *it = &p->items[t][m];

			if (it->set && (it->period == 0 || it->period > CONT_WINDOW_MAX ||
					it->count == 0 || it->count > it->period))
				abort(); /* the evaluator's window cannot hold it */
		}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *s = (const char *)data;
	struct cont_policies p;
	struct cont_apply_stats st;
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
	cont_policies_init(&p);
	for (int pass = 0; pass < 2; pass++)
		if (cont_policies_apply(&p, s, size, pass ? NULL : "fuzz", &st, err, sizeof(err)))
			break;
	for (size_t i = 0; i < p.n; i++) {
		struct cont_policy copy;
		char uuid[128];

		if (!p.v[i].service || !p.v[i].uuid || !p.v[i].uuid[0])
			abort();
		check_items(&p.v[i]);
		if (!cont_policies_get(&p, p.v[i].service, &copy))
			abort();
		check_items(&copy);
		cont_policies_uuid(&p, p.v[i].service, uuid, sizeof(uuid));
	}
	cont_policies_free(&p);
	return 0;
}
