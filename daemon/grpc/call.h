/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One gRPC call on a connection (conn.h), blocking, with a deadline.
 *
 * A call returns 0 when the server gave an answer, whatever its grpc-status
 * (in res->code), and -errno when the transport failed: the connection is
 * then closed and the next call reconnects. A client-streaming call is a
 * call with several request messages; unary is the case of one.
 */
#ifndef SKYPROF_GRPC_CALL_H
#define SKYPROF_GRPC_CALL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct grpc_conn;

struct grpc_msg {
	const uint8_t *data;
	size_t len;
};

struct grpc_result {
	int code;	   /* enum grpc_code */
	char message[256]; /* grpc-message, decoded, or our own explanation */
	uint8_t *body;	   /* the first response message (malloc'ed), or NULL */
	size_t body_len;
	bool trailers_only; /* the answer was one HEADERS frame */
	/* code and message are our own verdict (deadline, a refused or broken
	 * answer), not the server's status */
	bool local;
	/*
	 * How many request messages, from the first, were written whole to the
	 * transport. On a failed call the server may have seen (and stored)
	 * these, and cannot have seen the others.
	 */
	size_t msgs_sent;
};

/*
 * Call path ("/skywalking.v3.EBPFProcessService/keepAlive") with n request
 * messages. Connects first when needed. res is filled on 0; free res->body
 * with grpc_call_result_free. On -errno, res->message says what failed.
 */
int grpc_call(struct grpc_conn *c, const char *path, const struct grpc_msg *msgs, size_t n,
	      uint32_t timeout_ms, struct grpc_result *res);
void grpc_call_result_free(struct grpc_result *res);

/* How many of msgs, from the first, fit whole (framed) in the first `bytes` bytes. */
size_t grpc_call_msgs_within(const struct grpc_msg *msgs, size_t n, size_t bytes);

#endif
