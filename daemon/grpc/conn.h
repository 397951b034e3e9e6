/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A gRPC client channel over one HTTP/2 connection (nghttp2), plaintext or
 * TLS (OpenSSL). Blocking calls with a deadline, one at a time: the agent
 * makes every OAP call from its own network thread, so blocking there never
 * delays the ring drain.
 *
 * A call returns 0 when the server gave an answer, whatever its grpc-status
 * (in res->code), and -errno when the transport failed: the connection is
 * then closed and the next call reconnects. A client-streaming call is a
 * call with several request messages; unary is the case of one.
 */
#ifndef SKYPROF_GRPC_CONN_H
#define SKYPROF_GRPC_CONN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct grpc_opts {
	const char *addr; /* "host:port", "[v6]:port" */
	bool tls;
	const char *ca_file;	    /* NULL: the system's trust store */
	const char *cert_file;	    /* client certificate chain (PEM), or NULL */
	const char *key_file;	    /* its key (PEM), or NULL */
	bool insecure_skip_verify;  /* TLS without checking the server */
	const char *authentication; /* sent as `authentication` on every call, or NULL */
	uint32_t connect_timeout_ms;
	uint32_t keepalive_ms; /* PING after this much idle time; 0 off */
};

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

struct grpc_conn;

/* The options' strings are copied. NULL on -ENOMEM or a bad TLS setup (err). */
struct grpc_conn *grpc_conn_new(const struct grpc_opts *o, char *err, size_t errlen);
void grpc_conn_free(struct grpc_conn *c);

/* Connect (TCP, TLS handshake, HTTP/2 preface) unless connected. 0 or -errno with err. */
int grpc_conn_connect(struct grpc_conn *c, char *err, size_t errlen);
bool grpc_conn_connected(const struct grpc_conn *c);
void grpc_conn_close(struct grpc_conn *c);

/*
 * Call path ("/skywalking.v3.EBPFProcessService/keepAlive") with n request
 * messages. Connects first when needed. res is filled on 0; free res->body
 * with grpc_result_free. On -errno, res->message says what failed.
 */
int grpc_call(struct grpc_conn *c, const char *path, const struct grpc_msg *msgs, size_t n,
	      uint32_t timeout_ms, struct grpc_result *res);
void grpc_result_free(struct grpc_result *res);

/* How many of msgs, from the first, fit whole (framed) in the first `bytes` bytes. */
size_t grpc_msgs_within(const struct grpc_msg *msgs, size_t n, size_t bytes);

/*
 * Keepalive: when the connection has been idle for keepalive_ms, PING it and
 * wait up to timeout_ms for the ACK; a missing ACK closes it. 0 when alive or
 * not due, -errno when it was closed.
 */
int grpc_conn_keepalive(struct grpc_conn *c, uint32_t timeout_ms);

#endif
