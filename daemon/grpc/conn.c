// SPDX-License-Identifier: GPL-2.0
/*
 * gRPC client over nghttp2; see conn.h. This file is the connection's life:
 * made from its options, connected (transport.c, then session.c), kept
 * alive, closed.
 *
 * The socket is non-blocking and every wait is a poll() bounded by the
 * call's deadline, so a server that stops answering costs at most that
 * deadline. nghttp2 does the HTTP/2 framing and flow control; we feed it
 * what we read (nghttp2_session_mem_recv) and it writes through the
 * transport. TLS sits between the two as SSL_read/SSL_write on the same
 * non-blocking socket.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <nghttp2/nghttp2.h>
#include <openssl/ssl.h>

#include "grpc/conn.h"
#include "grpc/internal.h"
#include "grpc/session.h"
#include "grpc/transport.h"
#include "lib/clock.h"

static char *dup_or_null(const char *s)
{
	return s && *s ? strdup(s) : NULL;
}
struct grpc_conn *grpc_conn_new(const struct grpc_opts *o, char *err, size_t errlen)
{
	struct grpc_conn *c = calloc(1, sizeof(*c));
	char why[160];

	if (!c) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	c->fd = -1;
	c->addr = strdup(o->addr ? o->addr : "");
	c->ca_file = dup_or_null(o->ca_file);
	c->cert_file = dup_or_null(o->cert_file);
	c->key_file = dup_or_null(o->key_file);
	c->authentication = dup_or_null(o->authentication);
	c->tls = o->tls;
	c->skip_verify = o->insecure_skip_verify;
	c->connect_timeout_ms = o->connect_timeout_ms ? o->connect_timeout_ms : 5000;
	c->keepalive_ms = o->keepalive_ms;
	if (!c->addr || grpc_transport_split_addr(c, c->addr, why, sizeof(why))) {
		snprintf(err, errlen, "bad address '%s': %s", o->addr ? o->addr : "",
			 c->addr ? why : "none");
		goto fail;
	}
	if (c->tls && grpc_transport_tls_setup(c, err, errlen))
		goto fail;
	return c;
fail:
	grpc_conn_free(c);
	return NULL;
}

void grpc_conn_close(struct grpc_conn *c)
{
	grpc_session_close(c);
	grpc_transport_close(c);
}

static void clear_why(struct grpc_conn *c)
{
	c->h2_error[0] = 0;
	c->goaway[0] = 0;
	c->goaway_ours = 0;
}

void grpc_conn_free(struct grpc_conn *c)
{
	if (!c)
		return;
	grpc_conn_close(c);
	if (c->ctx)
		SSL_CTX_free(c->ctx);
	free(c->addr);
	free(c->ca_file);
	free(c->cert_file);
	free(c->key_file);
	free(c->authentication);
	free(c);
}

bool grpc_conn_connected(const struct grpc_conn *c)
{
	return c->h2 && !c->eof;
}

int grpc_conn_connect(struct grpc_conn *c, char *err, size_t errlen)
{
	uint64_t deadline = clock_mono_ms() + c->connect_timeout_ms;
	int r;

	if (grpc_conn_connected(c))
		return 0;
	grpc_conn_close(c);
	clear_why(c);
	r = grpc_transport_open(c, deadline, err, errlen);
	if (!r)
		r = grpc_session_open(c, deadline, err, errlen);
	if (r) {
		grpc_conn_close(c);
		return r;
	}
	c->last_rx_ms = clock_mono_ms();
	return 0;
}

static bool ping_done(struct grpc_conn *c)
{
	return c->ping_acked;
}

int grpc_conn_keepalive(struct grpc_conn *c, uint32_t timeout_ms)
{
	int r;

	if (!c->keepalive_ms || !grpc_conn_connected(c) ||
	    clock_mono_ms() - c->last_rx_ms < c->keepalive_ms)
		return 0;
	c->ping_acked = false;
	if (nghttp2_submit_ping(c->h2, NGHTTP2_FLAG_NONE, NULL)) {
		grpc_conn_close(c);
		return -EPROTO;
	}
	r = grpc_session_pump(c, clock_mono_ms() + timeout_ms, ping_done);
	if (r)
		grpc_conn_close(c);
	return r;
}
