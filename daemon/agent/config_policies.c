// SPDX-License-Identifier: GPL-2.0
/* skyprof.continuous.policies, read from YAML; see config_internal.h. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yaml.h>

#include "agent/config.h"
#include "agent/config_internal.h"
#include "agent/config_parse.h"
#include "lib/json.h"

/*
 * The local continuous policies are written in YAML with the OAP's
 * ServiceWithPolicyJSON shape; they are read into the value the JSON reader
 * gives for the OAP's text, so that one set of checks (continuous.c) serves
 * both. Plain scalars that read as numbers become numbers, everything else
 * a string. A scalar the JSON reader could not hold (a number outside
 * JSON's form, a NUL character) makes the whole list unusable, as a
 * malformed ServiceWithPolicyJSON does: the reason is kept for the agent to
 * log, and the load goes on.
 */
struct policy_build {
	struct config_ctx *x;
	char why[160]; /* the first value without a JSON form */
};

static struct json *json_node(enum json_type t)
{
	struct json *j = calloc(1, sizeof(*j));

	if (j)
		j->type = t;
	return j;
}

/* A number as the JSON reader takes it: an optional '-', a digit, no leading zero. */
static bool json_number_form(const char *v, size_t len, double d)
{
	const char *d0 = v + (*v == '-');

	return len < 64 && isdigit((unsigned char)d0[0]) &&
	       !(d0[0] == '0' && isdigit((unsigned char)d0[1])) && isfinite(d);
}

static struct json *policy_scalar(struct policy_build *pb, yaml_node_t *n)
{
	const char *v = (const char *)n->data.scalar.value;
	size_t len = n->data.scalar.length;
	struct json *j;
	char *end;
	double d = 0;

	if (memchr(v, 0, len)) {
		if (!pb->why[0])
			snprintf(pb->why, sizeof(pb->why),
				 "line %zu: a value holds a NUL character", n->start_mark.line + 1);
		return json_node(JSON_NULL);
	}
	if (n->data.scalar.style == YAML_PLAIN_SCALAR_STYLE && len &&
	    (d = strtod(v, &end), end == v + len) && strspn(v, "+-0123456789.eE") == len) {
		if (!json_number_form(v, len, d)) {
			if (!pb->why[0])
				snprintf(pb->why, sizeof(pb->why),
					 "line %zu: '%.40s' is not a number in JSON's form",
					 n->start_mark.line + 1, v);
			return json_node(JSON_NULL);
		}
		j = json_node(JSON_NUMBER);
		if (j)
			j->num = d;
		return j;
	}
	j = json_node(JSON_STRING);
	if (j && !(j->str = strndup(v, len))) {
		free(j);
		j = NULL;
	}
	return j;
}

/* The value of n into *out: 0, -EINVAL (not plain keys, too deep) or -ENOMEM. */
static int policy_value(struct policy_build *pb, yaml_node_t *n, int depth, struct json **out)
{
	yaml_document_t *doc = pb->x->doc;
	struct json *j;
	size_t cap;

	*out = NULL;
	if (!n || depth > 16)
		return -EINVAL;
	switch (n->type) {
	case YAML_SCALAR_NODE:
		*out = policy_scalar(pb, n);
		return *out ? 0 : -ENOMEM;
	case YAML_SEQUENCE_NODE:
		cap = (size_t)(n->data.sequence.items.top - n->data.sequence.items.start);
		j = json_node(JSON_ARRAY);
		if (!j || !(j->kids = calloc(cap ? cap : 1, sizeof(*j->kids))))
			goto oom;
		for (yaml_node_item_t *it = n->data.sequence.items.start;
		     it < n->data.sequence.items.top; it++) {
			int r = policy_value(pb, yaml_document_get_node(doc, *it), depth + 1,
					     &j->kids[j->n]);

			if (r) {
				json_free(j);
				return r;
			}
			j->n++;
		}
		*out = j;
		return 0;
	case YAML_MAPPING_NODE:
		cap = (size_t)(n->data.mapping.pairs.top - n->data.mapping.pairs.start);
		j = json_node(JSON_OBJECT);
		if (!j || !(j->kids = calloc(cap ? cap : 1, sizeof(*j->kids))) ||
		    !(j->keys = calloc(cap ? cap : 1, sizeof(*j->keys))))
			goto oom;
		for (yaml_node_pair_t *p = n->data.mapping.pairs.start;
		     p < n->data.mapping.pairs.top; p++) {
			yaml_node_t *k = yaml_document_get_node(doc, p->key);
			int r;

			if (!k || k->type != YAML_SCALAR_NODE) {
				json_free(j);
				return -EINVAL;
			}
			if (memchr(k->data.scalar.value, 0, k->data.scalar.length) && !pb->why[0])
				snprintf(pb->why, sizeof(pb->why),
					 "line %zu: a key holds a NUL character",
					 k->start_mark.line + 1);
			j->keys[j->n] =
				strndup((const char *)k->data.scalar.value, k->data.scalar.length);
			if (!j->keys[j->n])
				goto oom;
			r = policy_value(pb, yaml_document_get_node(doc, p->value), depth + 1,
					 &j->kids[j->n]);
			if (r) {
				free(j->keys[j->n]);
				json_free(j);
				return r;
			}
			j->n++;
		}
		*out = j;
		return 0;
	default:
		return -EINVAL;
	}
oom:
	json_free(j);
	return -ENOMEM;
}

int config_policies_parse(struct config_ctx *x, yaml_node_t *n, const char *path)
{
	struct policy_build pb = { .x = x };
	struct json *v;
	int r;

	if (n->type == YAML_SCALAR_NODE && !n->data.scalar.length)
		return 0;
	if (n->type != YAML_SEQUENCE_NODE)
		return config_parse_fail(x, n, path, "expected a list of service policies");
	r = policy_value(&pb, n, 0, &v);
	if (r)
		return r == -ENOMEM ? r : config_parse_fail(x, n, path, "keys must be plain names");
	json_free(x->c->continuous.policies);
	free(x->c->continuous.policies_error);
	x->c->continuous.policies = NULL;
	x->c->continuous.policies_error = NULL;
	if (pb.why[0]) {
		json_free(v);
		x->c->continuous.policies_error = strdup(pb.why);
		return x->c->continuous.policies_error ? 0 : -ENOMEM;
	}
	x->c->continuous.policies = v;
	return 0;
}
