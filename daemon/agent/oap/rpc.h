/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What every OAP call shares: the call itself on the OAP thread's
 * connection, the decoding of its answer, and the bookkeeping of success
 * and failure (one log line per backoff step, exponential backoff with
 * jitter). Used by the service files of this folder.
 */
#ifndef SKYPROF_AGENT_OAP_RPC_H
#define SKYPROF_AGENT_OAP_RPC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <protobuf-c/protobuf-c.h>

#include "sw_command.pb-c.h"

struct agent_oap;
struct grpc_result;

/* The next backoff (ms) after `failures` failures, with jitter r in [0,1). */
uint64_t rpc_backoff_ms(unsigned int failures, uint64_t max_ms, double r);

/*
 * After a failed upload call (grpc_call's rc and result): true when none of
 * its messages can have been stored by the OAP, so the whole batch may go
 * again: nothing was written, or the OAP refused the call before reading
 * (its interceptors' codes). A code of our own (res->local: a deadline, an
 * answer we refused) says nothing about what the OAP read.
 */
bool rpc_nothing_stored(int rc, const struct grpc_result *res);

/* Codes that mean the OAP is not usable right now, not that the request is wrong. */
bool rpc_code_is_transient(int code);

/* A call failed: count it, back off, log one line. */
void rpc_failed(struct agent_oap *o, const char *what, int rc, const struct grpc_result *res);
/* A call succeeded: after failures, the OAP may have restarted (full report). */
void rpc_succeeded(struct agent_oap *o);

/* The wire form of a request (malloc'ed), or NULL on -ENOMEM. */
uint8_t *rpc_pack(const ProtobufCMessage *m, size_t *len);

/*
 * A call whose answer must be OK and, with a descriptor, decode as that
 * message: 0 with *out (NULL without a descriptor), -1 after rpc_failed(),
 * or 1 when the OAP answered OK with something that does not decode. That
 * counts as a failure too (backoff, one line): a server that answers
 * garbage at once must not make us ask again at once.
 */
int rpc_call(struct agent_oap *o, const char *what, const char *path, const uint8_t *req,
	     size_t len, const ProtobufCMessageDescriptor *answer, ProtobufCMessage **out);

/*
 * A call answered with Commands (queryTasks, queryPolicies,
 * reportProfilingTask): -1 when it failed, else 0 with *out, which is NULL
 * when the answer did not decode (logged, counted, backed off).
 */
int rpc_call_commands(struct agent_oap *o, const char *what, const char *path,
		      const ProtobufCMessage *req, Skywalking__V3__Commands **out);

/* The value of a command's argument, or NULL. */
const char *rpc_command_arg(const Skywalking__V3__Command *c, const char *key);

#endif
