/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A small JSON reader (RFC 8259) for the few JSON strings the agent gets
 * from the OAP (ServiceWithPolicyJSON). Hand-written rather than a library:
 * the input is a few KiB, only reading is needed, and it keeps the daemon
 * and the guest image free of one more shared library. The input comes off
 * the network, so: bounded depth, every byte checked, no recursion on
 * unbounded input, and a parse error says where.
 */
#ifndef SKYPROF_LIB_JSON_H
#define SKYPROF_LIB_JSON_H

#include <stdbool.h>
#include <stddef.h>

enum json_type { JSON_NULL, JSON_BOOL, JSON_NUMBER, JSON_STRING, JSON_ARRAY, JSON_OBJECT };

struct json {
	enum json_type type;
	bool b;
	double num;
	char *str;	    /* JSON_STRING (NUL-terminated, UTF-8; an embedded \u0000 is refused) */
	struct json **kids; /* array items, or object values */
	char **keys;	    /* object keys, parallel to kids */
	size_t n;
};

#define JSON_MAX_DEPTH 32

/* Parse len bytes; NULL with a message (and the byte offset) in err. */
struct json *json_parse(const char *s, size_t len, char *err, size_t errlen);
void json_free(struct json *j);

/* The value of key in an object (the last one if repeated); NULL otherwise. */
const struct json *json_get(const struct json *obj, const char *key);

#endif
