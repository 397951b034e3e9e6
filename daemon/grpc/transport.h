/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The connection's byte stream: TCP, with TLS (OpenSSL) on the same
 * non-blocking socket when asked for. Every wait is a poll() bounded by a
 * deadline (monotonic ms).
 */
#ifndef SKYPROF_GRPC_TRANSPORT_H
#define SKYPROF_GRPC_TRANSPORT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct grpc_conn;

/* host, port and authority from "host:port", "[v6]:port" or "host". 0 or -EINVAL (why). */
int grpc_transport_split_addr(struct grpc_conn *c, const char *addr, char *why, size_t whylen);
/* The TLS context: CA, client certificate, ALPN h2. 0 or -errno with err. */
int grpc_transport_tls_setup(struct grpc_conn *c, char *err, size_t errlen);
/* TCP connect, then the TLS handshake when c->tls. 0 or -errno with err. */
int grpc_transport_open(struct grpc_conn *c, uint64_t deadline, char *err, size_t errlen);
void grpc_transport_close(struct grpc_conn *c);

/* ms left until deadline, 0 when past. */
int grpc_transport_remaining(uint64_t deadline);
/* Wait for fd to be ready for events; 0, -ETIMEDOUT or -errno. */
int grpc_transport_wait(int fd, short events, uint64_t deadline);
/* Write without waiting: bytes written, -EAGAIN (c->write_blocked set) or -EPIPE. */
ssize_t grpc_transport_send(struct grpc_conn *c, const uint8_t *data, size_t len);
/* Read without waiting: bytes read, -EAGAIN, or -errno (-ECONNRESET and c->eof at EOF). */
ssize_t grpc_transport_recv(struct grpc_conn *c, uint8_t *buf, size_t len);

#endif
