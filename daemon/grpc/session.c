// SPDX-License-Identifier: GPL-2.0
/* The HTTP/2 session; see session.h. */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <nghttp2/nghttp2.h>
#include <openssl/ssl.h>

#include "grpc/internal.h"
#include "grpc/session.h"
#include "grpc/transport.h"
#include "lib/clock.h"

/* nghttp2 callbacks -------------------------------------------------------- */

static ssize_t send_cb(nghttp2_session *s, const uint8_t *data, size_t len, int flags, void *u)
{
	ssize_t n = grpc_transport_send(u, data, len);

	(void)s;
	(void)flags;
	if (n >= 0)
		return n;
	return n == -EAGAIN ? NGHTTP2_ERR_WOULDBLOCK : NGHTTP2_ERR_CALLBACK_FAILURE;
}

static struct call *call_of(struct grpc_conn *c, int32_t stream_id)
{
	return c->call && c->call->stream_id == stream_id ? c->call : NULL;
}

static int header_cb(nghttp2_session *s, const nghttp2_frame *f, const uint8_t *name,
		     size_t namelen, const uint8_t *value, size_t valuelen, uint8_t flags, void *u)
{
	struct call *call = call_of(u, f->hd.stream_id);

	(void)s;
	(void)flags;
	if (!call || f->hd.type != NGHTTP2_HEADERS)
		return 0;
#define IS(lit) (namelen == sizeof(lit) - 1 && !memcmp(name, lit, sizeof(lit) - 1))
	if (IS(":status")) {
		char buf[8];

		snprintf(buf, sizeof(buf), "%.*s", (int)(valuelen < 7 ? valuelen : 7), value);
		call->http_status = atoi(buf);
	} else if (IS("content-type")) {
		/* "application/grpc", optionally "+proto" or ";params". */
		call->content_type_ok = valuelen >= 16 && !memcmp(value, "application/grpc", 16) &&
					(valuelen == 16 || value[16] == '+' || value[16] == ';');
	} else if (IS("grpc-status")) {
		int code = grpc_frame_parse_status((const char *)value, valuelen);

		/* A status we cannot read is still a failure, not success. */
		call->grpc_status = code < 0 ? GRPC_UNKNOWN : code;
		if (code < 0)
			snprintf(call->status_note, sizeof(call->status_note),
				 "unparsable grpc-status '%.*s'",
				 (int)(valuelen < 32 ? valuelen : 32), value);
	} else if (IS("grpc-message")) {
		grpc_frame_decode_message((const char *)value, valuelen, call->message,
					  sizeof(call->message));
	}
#undef IS
	return 0;
}

static int frame_recv_cb(nghttp2_session *s, const nghttp2_frame *f, void *u)
{
	struct grpc_conn *c = u;
	struct call *call = call_of(c, f->hd.stream_id);

	(void)s;
	if (f->hd.type == NGHTTP2_PING && (f->hd.flags & NGHTTP2_FLAG_ACK))
		c->ping_acked = true;
	if (f->hd.type == NGHTTP2_GOAWAY)
		snprintf(c->goaway, sizeof(c->goaway), "%s%s%.*s",
			 nghttp2_http2_strerror(f->goaway.error_code),
			 f->goaway.opaque_data_len ? ": " : "",
			 (int)(f->goaway.opaque_data_len < 96 ? f->goaway.opaque_data_len : 96),
			 (const char *)f->goaway.opaque_data);
	if (call && f->hd.type == NGHTTP2_RST_STREAM)
		call->rst_by_peer = true;
	if (call && f->hd.type == NGHTTP2_HEADERS) {
		if (!call->headers_seen && (f->hd.flags & NGHTTP2_FLAG_END_STREAM))
			call->trailers_only = true;
		call->headers_seen = true;
	}
	return 0;
}

static int frame_send_cb(nghttp2_session *s, const nghttp2_frame *f, void *u)
{
	struct call *call = call_of(u, f->hd.stream_id);

	(void)s;
	/* Called once the whole frame went through send_cb. We never pad. */
	if (call && f->hd.type == NGHTTP2_DATA)
		call->data_sent += f->hd.length;
	return 0;
}

/*
 * nghttp2 resets a stream itself when the server breaks its rules on it (a
 * window overrun: FLOW_CONTROL_ERROR). Noted before the frame goes out:
 * a server that keeps sending may have closed the connection before the
 * reset is written, and the log should still say what the server did.
 */
static int before_frame_send_cb(nghttp2_session *s, const nghttp2_frame *f, void *u)
{
	struct grpc_conn *c = u;
	struct call *call = call_of(u, f->hd.stream_id);

	(void)s;
	if (f->hd.type == NGHTTP2_GOAWAY && f->goaway.error_code != NGHTTP2_NO_ERROR &&
	    !c->goaway_ours)
		c->goaway_ours = f->goaway.error_code;
	if (call && f->hd.type == NGHTTP2_RST_STREAM &&
	    f->rst_stream.error_code != NGHTTP2_NO_ERROR &&
	    f->rst_stream.error_code != NGHTTP2_CANCEL)
		call->rst_ours = f->rst_stream.error_code;
	return 0;
}

static int data_chunk_cb(nghttp2_session *s, uint8_t flags, int32_t stream_id, const uint8_t *data,
			 size_t len, void *u)
{
	struct call *call = call_of(u, stream_id);

	(void)flags;
	if (!call)
		return 0;
	call->data_recv += len;
	if (grpc_frame_reader_feed(&call->reader, data, len))
		nghttp2_submit_rst_stream(s, NGHTTP2_FLAG_NONE, stream_id, NGHTTP2_CANCEL);
	return 0;
}

static int stream_close_cb(nghttp2_session *s, int32_t stream_id, uint32_t error_code, void *u)
{
	struct call *call = call_of(u, stream_id);

	(void)s;
	if (call) {
		call->closed = true;
		call->rst_error = error_code;
	}
	return 0;
}

static int error_cb(nghttp2_session *s, int lib_error, const char *msg, size_t len, void *u)
{
	struct grpc_conn *c = u;

	(void)s;
	(void)lib_error;
	if (!c->h2_error[0])
		snprintf(c->h2_error, sizeof(c->h2_error), "%.*s", (int)(len < 150 ? len : 150),
			 msg);
	return 0;
}

ssize_t grpc_session_body_read_cb(nghttp2_session *s, int32_t stream_id, uint8_t *buf, size_t len,
				  uint32_t *flags, nghttp2_data_source *src, void *u)
{
	struct call *call = call_of(u, stream_id);
	size_t n;

	(void)s;
	(void)src;
	if (!call)
		return NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE;
	n = call->body_len - call->body_off;
	if (n > len)
		n = len;
	memcpy(buf, call->body + call->body_off, n);
	call->body_off += n;
	if (call->body_off == call->body_len)
		*flags |= NGHTTP2_DATA_FLAG_EOF;
	return (ssize_t)n;
}

/* The I/O loop ------------------------------------------------------------- */

/* Read what the socket has (without waiting) into nghttp2. 0, -EAGAIN when nothing was there. */
static int read_some(struct grpc_conn *c)
{
	uint8_t buf[16384];
	ssize_t n = grpc_transport_recv(c, buf, sizeof(buf)), rv;

	if (n < 0)
		return (int)n;
	c->last_rx_ms = clock_mono_ms();
	rv = nghttp2_session_mem_recv(c->h2, buf, (size_t)n);
	if (rv < 0) {
		/* e.g. "Flooding was detected in this HTTP/2 session" */
		if (!c->h2_error[0])
			snprintf(c->h2_error, sizeof(c->h2_error), "%s", nghttp2_strerror((int)rv));
		return -EPROTO;
	}
	return 0;
}

int grpc_session_pump(struct grpc_conn *c, uint64_t deadline, bool (*done)(struct grpc_conn *))
{
	for (;;) {
		int r;

		c->write_blocked = false;
		if (nghttp2_session_send(c->h2))
			return -EPIPE;
		if (done(c))
			return 0;
		if (!nghttp2_session_want_read(c->h2) && !nghttp2_session_want_write(c->h2))
			return -ECONNRESET; /* GOAWAY handled, nothing more will come */
		if (!grpc_transport_remaining(deadline))
			return -ETIMEDOUT;
		if (!(c->ssl && SSL_pending(c->ssl) > 0)) {
			r = grpc_transport_wait(c->fd, POLLIN | (c->write_blocked ? POLLOUT : 0),
						deadline);
			if (r)
				return r;
		}
		do
			r = read_some(c);
		while (r == 0 && !done(c) && grpc_transport_remaining(deadline));
		if (r && r != -EAGAIN)
			return r;
	}
}

void grpc_session_broken_why(const struct grpc_conn *c, int r, char *out, size_t outlen)
{
	if (c->goaway[0])
		snprintf(out, outlen, "the server sent GOAWAY (%s)", c->goaway);
	else if (c->h2_error[0])
		snprintf(out, outlen, "the server broke HTTP/2: %s", c->h2_error);
	else if (c->goaway_ours)
		snprintf(out, outlen, "the server broke HTTP/2 (%s), we sent GOAWAY",
			 nghttp2_http2_strerror(c->goaway_ours));
	else if (r == -ECONNRESET && c->eof)
		snprintf(out, outlen, "the server closed the connection");
	else
		snprintf(out, outlen, "%s", strerror(-r));
}

static bool nothing_to_write(struct grpc_conn *c)
{
	return !nghttp2_session_want_write(c->h2);
}

int grpc_session_open(struct grpc_conn *c, uint64_t deadline, char *err, size_t errlen)
{
	nghttp2_session_callbacks *cbs;
	nghttp2_settings_entry settings[] = {
		{ NGHTTP2_SETTINGS_ENABLE_PUSH, 0 },
		{ NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE, 1 << 20 },
	};
	int r;

	if (nghttp2_session_callbacks_new(&cbs)) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	nghttp2_session_callbacks_set_send_callback(cbs, send_cb);
	nghttp2_session_callbacks_set_on_header_callback(cbs, header_cb);
	nghttp2_session_callbacks_set_on_frame_recv_callback(cbs, frame_recv_cb);
	nghttp2_session_callbacks_set_on_frame_send_callback(cbs, frame_send_cb);
	nghttp2_session_callbacks_set_before_frame_send_callback(cbs, before_frame_send_cb);
	nghttp2_session_callbacks_set_on_data_chunk_recv_callback(cbs, data_chunk_cb);
	nghttp2_session_callbacks_set_on_stream_close_callback(cbs, stream_close_cb);
	nghttp2_session_callbacks_set_error_callback2(cbs, error_cb);
	r = nghttp2_session_client_new(&c->h2, cbs, c);
	nghttp2_session_callbacks_del(cbs);
	if (r) {
		c->h2 = NULL;
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	nghttp2_submit_settings(c->h2, NGHTTP2_FLAG_NONE, settings,
				sizeof(settings) / sizeof(settings[0]));
	/* A large connection window: responses are small, but never stall one. */
	nghttp2_session_set_local_window_size(c->h2, NGHTTP2_FLAG_NONE, 0, 16 << 20);
	r = grpc_session_pump(c, deadline, nothing_to_write);
	if (r) {
		char why[200];

		grpc_session_broken_why(c, r, why, sizeof(why));
		snprintf(err, errlen, "HTTP/2 preface to %s: %s", c->authority, why);
		return r;
	}
	return 0;
}

void grpc_session_close(struct grpc_conn *c)
{
	if (c->h2)
		nghttp2_session_del(c->h2);
	c->h2 = NULL;
}

void grpc_session_refresh_idle(struct grpc_conn *c)
{
	int r;

	if (!c->h2)
		return;
	do
		r = read_some(c);
	while (r == 0);
	if ((r && r != -EAGAIN) ||
	    (!nghttp2_session_want_read(c->h2) && !nghttp2_session_want_write(c->h2))) {
		/* the connection is closed, as grpc_conn_close does */
		grpc_session_close(c);
		grpc_transport_close(c);
	}
}
