// SPDX-License-Identifier: GPL-2.0
/* The call helpers and the backoff of the OAP thread; see rpc.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "agent/config.h"
#include "agent/log.h"
#include "agent/oap/state.h"
#include "agent/oap/rpc.h"
#include "grpc/call.h"
#include "grpc/frame.h"
#include "lib/random_bytes.h"
#include "lib/clock.h"

static double jitter(void)
{
	uint32_t r = 0;

	if (!random_bytes(&r, sizeof(r)))
		r = (uint32_t)clock_mono_ms() * 2654435761u;
	return (double)r / 4294967296.0;
}

uint64_t rpc_backoff_ms(unsigned int failures, uint64_t max_ms, double r)
{
	/* 1 s, 2 s, 4 s ... up to max, each within -20 %..+20 % so that many
	 * agents behind one restarted OAP do not come back in lockstep. */
	uint64_t base = 1000;
	double v;

	for (unsigned int i = 1; i < failures && base < max_ms; i++)
		base *= 2;
	if (base > max_ms)
		base = max_ms;
	v = (double)base * (0.8 + 0.4 * r);
	return v < 100 ? 100 : (uint64_t)v;
}

/* Answers with these codes mean the OAP is not usable right now (rover's list
 * plus the ones our own client produces); others are about the request. */
bool rpc_code_is_transient(int code)
{
	switch (code) {
	case GRPC_UNAVAILABLE:
	case GRPC_PERMISSION_DENIED:
	case GRPC_UNAUTHENTICATED:
	case GRPC_RESOURCE_EXHAUSTED:
	case GRPC_UNKNOWN:
	case GRPC_DEADLINE_EXCEEDED:
	case GRPC_CANCELLED:
		return true;
	default:
		return false;
	}
}

/* Answers that come from the OAP's interceptors or its method table, before
 * any message reaches a handler: nothing of the request was stored. */
static bool refused_unread(int code)
{
	switch (code) {
	case GRPC_PERMISSION_DENIED:
	case GRPC_UNAUTHENTICATED:
	case GRPC_RESOURCE_EXHAUSTED:
	case GRPC_UNIMPLEMENTED:
		return true;
	default:
		return false;
	}
}

bool rpc_nothing_stored(int rc, const struct grpc_result *res)
{
	return !res->msgs_sent || (!rc && !res->local && refused_unread(res->code));
}

static const char *hint(int code)
{
	switch (code) {
	case GRPC_PERMISSION_DENIED:
	case GRPC_UNAUTHENTICATED:
		return " (check core.backend.authentication against the OAP's token)";
	case GRPC_RESOURCE_EXHAUSTED:
		return " (the OAP is over its memory watermark)";
	case GRPC_UNIMPLEMENTED:
		return " (is the OAP's receiver-ebpf module enabled?)";
	default:
		return "";
	}
}

/* One line per backoff step, whatever failed. */
void rpc_failed(struct agent_oap *o, const char *what, int rc, const struct grpc_result *res)
{
	uint64_t now = clock_mono_ms();

	o->failures++;
	o->st.calls_failed++;
	o->backoff_ms = rpc_backoff_ms(o->failures, o->cfg->skyprof.backoff_max_ms, jitter());
	o->next_try = now + o->backoff_ms;
	if (rc)
		log_warn("OAP %s: %s: %s; retrying in %.1f s", o->cfg->backend.addr, what,
			 res->message, (double)o->backoff_ms / 1000);
	else
		log_warn("OAP %s: %s: %s%s%s%s; retrying in %.1f s", o->cfg->backend.addr, what,
			 grpc_frame_code_name(res->code), res->message[0] ? ": " : "", res->message,
			 res->local ? "" : hint(res->code), (double)o->backoff_ms / 1000);
}

void rpc_succeeded(struct agent_oap *o)
{
	o->st.calls_ok++;
	if (o->failures) {
		log_info("OAP %s: reachable again after %u failed attempts", o->cfg->backend.addr,
			 o->failures);
		o->st.reconnects++;
		/* A restarted OAP may not know our processes: register them all again. */
		o->full_report = true;
	}
	o->failures = 0;
	o->backoff_ms = 0;
}

uint8_t *rpc_pack(const ProtobufCMessage *m, size_t *len)
{
	uint8_t *buf;

	*len = protobuf_c_message_get_packed_size(m);
	buf = malloc(*len ? *len : 1);
	if (buf)
		protobuf_c_message_pack(m, buf);
	return buf;
}

int rpc_call(struct agent_oap *o, const char *what, const char *path, const uint8_t *req,
	     size_t len, const ProtobufCMessageDescriptor *answer, ProtobufCMessage **out)
{
	struct grpc_msg m = { req, len };
	struct grpc_result res;
	int rc = grpc_call(o->conn, path, &m, 1, (uint32_t)o->cfg->skyprof.call_timeout_ms, &res);

	if (out)
		*out = NULL;
	if (rc || res.code != GRPC_OK) {
		rpc_failed(o, what, rc, &res);
		grpc_call_result_free(&res);
		return -1;
	}
	if (answer) {
		*out = protobuf_c_message_unpack(answer, NULL, res.body_len,
						 res.body ? res.body : (const uint8_t *)"");
		if (!*out) {
			size_t n = res.body_len;

			grpc_call_result_free(&res);
			res.code = GRPC_INTERNAL;
			res.local = true;
			snprintf(res.message, sizeof(res.message),
				 "the answer (%zu bytes) does not decode as %s", n, answer->name);
			rpc_failed(o, what, 0, &res);
			return 1;
		}
	}
	grpc_call_result_free(&res);
	rpc_succeeded(o);
	return 0;
}

int rpc_call_commands(struct agent_oap *o, const char *what, const char *path,
		      const ProtobufCMessage *req, Skywalking__V3__Commands **out)
{
	ProtobufCMessage *m = NULL;
	size_t len;
	uint8_t *buf = rpc_pack(req, &len);
	int r = buf ? rpc_call(o, what, path, buf, len, &skywalking__v3__commands__descriptor, &m)
		    : -1;

	free(buf);
	*out = (Skywalking__V3__Commands *)m;
	if (r < 0)
		return -1;
	if (r > 0)
		o->st.commands_rejected++;
	return 0;
}

const char *rpc_command_arg(const Skywalking__V3__Command *c, const char *key)
{
	for (size_t i = 0; c && i < c->n_args; i++)
		if (c->args[i] && c->args[i]->key && c->args[i]->value &&
		    !strcmp(c->args[i]->key, key))
			return c->args[i]->value;
	return NULL;
}
