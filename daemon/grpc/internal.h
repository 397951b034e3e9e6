/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The state of one connection and of its call in flight, shared by the
 * files of grpc/: conn.c (the connection's life), transport.c (TCP/TLS),
 * session.c (HTTP/2) and call.c (one gRPC call). Users see conn.h and
 * call.h only.
 */
#ifndef SKYPROF_GRPC_INTERNAL_H
#define SKYPROF_GRPC_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <nghttp2/nghttp2.h>
#include <openssl/ssl.h>

#include "grpc/frame.h"
#include "lib/net_addr.h"

/* The state of the one call in flight. */
struct call {
	int32_t stream_id;
	const uint8_t *body; /* framed request messages */
	size_t body_len, body_off;
	size_t data_sent; /* DATA payload bytes nghttp2 has written to the transport */
	struct grpc_reader reader;
	int http_status;
	int grpc_status; /* -1 until a grpc-status header arrives */
	char message[256];
	bool content_type_ok;
	bool headers_seen; /* the first HEADERS frame */
	bool trailers_only;
	bool closed;
	uint32_t rst_error;   /* HTTP/2 error code the stream closed with */
	bool rst_by_peer;     /* the server sent the RST_STREAM (else we did) */
	char status_note[64]; /* a grpc-status we could not read */
	size_t data_recv;     /* DATA payload bytes received */
	uint32_t rst_ours;    /* an error RST_STREAM nghttp2 started to send */
};

struct grpc_conn {
	char *addr, *ca_file, *cert_file, *key_file, *authentication;
	char host[NET_ADDR_HOST_MAX], port[NET_ADDR_PORT_MAX], authority[300];
	bool tls, skip_verify, host_is_ip;
	uint32_t connect_timeout_ms, keepalive_ms;

	SSL_CTX *ctx;
	SSL *ssl;
	int fd;
	nghttp2_session *h2;
	bool write_blocked; /* the last send hit EAGAIN: poll for POLLOUT */
	bool eof;
	uint64_t last_rx_ms; /* last time the peer sent anything */
	bool ping_acked;
	struct call *call;
	/* Why the session ended, for the log: nghttp2's own account of a
	 * protocol violation by the peer, and the peer's GOAWAY. */
	char h2_error[160];
	char goaway[160];
	/* The error code of a GOAWAY nghttp2 sent for us: it ended the session
	 * over a violation it found (a connection window overrun, a frame too
	 * big), which it reports to nobody else. */
	uint32_t goaway_ours;
};

#endif
