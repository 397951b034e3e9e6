/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A gRPC client channel over one HTTP/2 connection (nghttp2), plaintext or
 * TLS (OpenSSL). Blocking calls with a deadline, one at a time: the agent
 * makes every OAP call from its own network thread, so blocking there never
 * delays the ring drain.
 *
 * The calls on it are in call.h. The connection is made of a transport
 * (transport.c: TCP, TLS) under an HTTP/2 session (session.c).
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

struct grpc_conn;

/* The options' strings are copied. NULL on -ENOMEM or a bad TLS setup (err). */
struct grpc_conn *grpc_conn_new(const struct grpc_opts *o, char *err, size_t errlen);
void grpc_conn_free(struct grpc_conn *c);

/* Connect (TCP, TLS handshake, HTTP/2 preface) unless connected. 0 or -errno with err. */
int grpc_conn_connect(struct grpc_conn *c, char *err, size_t errlen);
bool grpc_conn_connected(const struct grpc_conn *c);
void grpc_conn_close(struct grpc_conn *c);

/*
 * Keepalive: when the connection has been idle for keepalive_ms, PING it and
 * wait up to timeout_ms for the ACK; a missing ACK closes it. 0 when alive or
 * not due, -errno when it was closed.
 */
int grpc_conn_keepalive(struct grpc_conn *c, uint32_t timeout_ms);

#endif
