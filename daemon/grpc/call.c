// SPDX-License-Identifier: GPL-2.0
/*
 * One gRPC call; see call.h. The request's messages are framed into one
 * body, sent as the DATA of one stream; the answer's headers, messages and
 * trailers are collected by the session's callbacks into struct call, and
 * read into a grpc_result here.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <nghttp2/nghttp2.h>

#include "grpc/call.h"
#include "grpc/conn.h"
#include "grpc/frame.h"
#include "grpc/internal.h"
#include "grpc/session.h"
#include "lib/clock.h"

#ifndef SKYPROF_VERSION
#define SKYPROF_VERSION "dev"
#endif

static bool call_done(struct grpc_conn *c)
{
	return c->call->closed;
}

/*
 * The request's messages, framed, in one malloc'ed body: 0 with *body and
 * *total; 1 when a message is over the limit (res says so: an answer of our
 * own, RESOURCE_EXHAUSTED); -ENOMEM.
 */
static int frame_body(const struct grpc_msg *msgs, size_t n, uint8_t **body, size_t *total,
		      struct grpc_result *res)
{
	*total = 0;
	for (size_t i = 0; i < n; i++) {
		if (msgs[i].len > GRPC_MAX_MESSAGE) {
			res->code = GRPC_RESOURCE_EXHAUSTED;
			snprintf(res->message, sizeof(res->message),
				 "request message of %zu bytes over the %u limit", msgs[i].len,
				 GRPC_MAX_MESSAGE);
			return 1;
		}
		*total += GRPC_FRAME_HDR + msgs[i].len;
	}
	*body = malloc(*total ? *total : 1);
	if (!*body) {
		snprintf(res->message, sizeof(res->message), "out of memory");
		return -ENOMEM;
	}
	for (size_t i = 0, off = 0; i < n; i++) {
		grpc_frame_header(*body + off, (uint32_t)msgs[i].len);
		if (msgs[i].len)
			memcpy(*body + off + GRPC_FRAME_HDR, msgs[i].data, msgs[i].len);
		off += GRPC_FRAME_HDR + msgs[i].len;
	}
	return 0;
}

/* Submit the request's HEADERS and body as a new stream. 0 or -EPROTO (res). */
static int start_stream(struct grpc_conn *c, struct call *call, const char *path,
			uint32_t timeout_ms, struct grpc_result *res)
{
	char timeout[24], ua[64];
	nghttp2_data_provider prov = { .read_callback = grpc_session_body_read_cb };
	nghttp2_nv hdrs[9];
	size_t nh = 0;

#define NV(n, v)                                                                                   \
	hdrs[nh++] = (nghttp2_nv){ (uint8_t *)(n), (uint8_t *)(v), sizeof(n) - 1, strlen(v),       \
				   NGHTTP2_NV_FLAG_NONE }
	grpc_frame_format_timeout(timeout_ms, timeout, sizeof(timeout));
	snprintf(ua, sizeof(ua), "skyprof/%s grpc-c-nghttp2", SKYPROF_VERSION);
	NV(":method", "POST");
	NV(":scheme", c->tls ? "https" : "http");
	NV(":path", path);
	NV(":authority", c->authority);
	NV("content-type", "application/grpc");
	NV("te", "trailers");
	NV("user-agent", ua);
	NV("grpc-timeout", timeout);
	if (c->authentication)
		NV("authentication", c->authentication);
#undef NV

	call->stream_id = nghttp2_submit_request(c->h2, NULL, hdrs, nh, &prov, NULL);
	if (call->stream_id < 0) {
		snprintf(res->message, sizeof(res->message), "cannot start a stream: %s",
			 nghttp2_strerror(call->stream_id));
		return -EPROTO;
	}
	return 0;
}

/*
 * The call's own deadline passed: an answer (DEADLINE_EXCEEDED), but the
 * connection is suspect, so it is not reused.
 */
static void timed_out(struct grpc_conn *c, const struct call *call, uint32_t timeout_ms,
		      struct grpc_result *res)
{
	res->code = GRPC_DEADLINE_EXCEEDED;
	res->local = true;
	if (call->data_recv)
		snprintf(res->message, sizeof(res->message),
			 "no complete answer within %u ms (%zu bytes of DATA, %u more "
			 "messages than asked for)",
			 timeout_ms, call->data_recv, call->reader.extra);
	else
		snprintf(res->message, sizeof(res->message), "no answer within %u ms", timeout_ms);
	grpc_conn_close(c);
}

/* The connection broke during the call (the pump's r): say why, close it. */
static void lost(struct grpc_conn *c, struct call *call, int r, struct grpc_result *res)
{
	char why[200];

	grpc_session_broken_why(c, r, why, sizeof(why));
	/*
	 * A reset nghttp2 decided on while reading (the server overran
	 * the stream's window) is still queued when the read hit EOF:
	 * one more send, which may fail on the dead socket, lets
	 * before_frame_send_cb see it.
	 */
	if (!call->rst_ours && !call->closed)
		(void)nghttp2_session_send(c->h2);
	if (call->rst_ours)
		snprintf(res->message, sizeof(res->message),
			 "stream reset by us (%s), then the connection to %.60s was lost: "
			 "%.120s",
			 nghttp2_http2_strerror(call->rst_ours), c->authority, why);
	else
		snprintf(res->message, sizeof(res->message), "connection to %.60s lost: %.170s",
			 c->authority, why);
	grpc_conn_close(c);
}

static void finish_result(const struct grpc_conn *c, struct call *call, struct grpc_result *res)
{
	struct grpc_reader *rd = &call->reader;

	res->trailers_only = call->trailers_only;
	if (rd->error) {
		/* Our own verdict on the answer, as a gRPC client gives it. */
		res->local = true;
		res->code = rd->error == -EMSGSIZE ? GRPC_RESOURCE_EXHAUSTED : GRPC_INTERNAL;
		if (rd->error == -EMSGSIZE)
			snprintf(res->message, sizeof(res->message),
				 "the answer's message of %zu bytes is over our %u-byte limit",
				 rd->need, GRPC_MAX_RESPONSE);
		else if (rd->error == -EPROTO)
			snprintf(res->message, sizeof(res->message),
				 "the answer is compressed (flag %u), which we never asked for",
				 rd->hdr[0]);
		else
			snprintf(res->message, sizeof(res->message), "bad response framing: %s",
				 strerror(-rd->error));
		return;
	}
	if (call->grpc_status >= 0) {
		res->code = call->grpc_status;
		snprintf(res->message, sizeof(res->message), "%s%s%.170s", call->status_note,
			 call->status_note[0] && call->message[0] ? "; grpc-message: " : "",
			 call->message);
	} else if (call->rst_error) {
		res->code = call->rst_error == NGHTTP2_REFUSED_STREAM ? GRPC_UNAVAILABLE
			    : call->rst_error == NGHTTP2_CANCEL	      ? GRPC_CANCELLED
								      : GRPC_INTERNAL;
		if (call->rst_by_peer) {
			snprintf(res->message, sizeof(res->message),
				 "stream reset by the server (%s)",
				 nghttp2_http2_strerror(call->rst_error));
		} else if (c->goaway[0]) {
			/* nghttp2 closes the streams a GOAWAY left unanswered */
			snprintf(res->message, sizeof(res->message),
				 "the server sent GOAWAY (%s) instead of an answer", c->goaway);
		} else {
			res->local = true;
			snprintf(res->message, sizeof(res->message),
				 "stream reset by us (%s)%s%.150s",
				 nghttp2_http2_strerror(call->rst_error),
				 c->h2_error[0] ? ": the server broke HTTP/2: " : "", c->h2_error);
		}
	} else if (call->http_status != 200) {
		res->code = grpc_frame_code_from_http(call->http_status);
		snprintf(res->message, sizeof(res->message), "HTTP status %d", call->http_status);
	} else {
		res->code = GRPC_UNKNOWN;
		snprintf(res->message, sizeof(res->message), "response without grpc-status");
	}
	if (res->code == GRPC_OK && call->http_status == 200 && !call->content_type_ok) {
		res->code = GRPC_UNKNOWN;
		snprintf(res->message, sizeof(res->message), "response is not application/grpc");
	}
	if (res->code == GRPC_OK && !grpc_frame_reader_complete(rd)) {
		res->code = GRPC_INTERNAL;
		snprintf(res->message, sizeof(res->message), "response ends inside a message");
	}
	if (res->code == GRPC_OK && rd->got_first) {
		res->body = rd->first;
		res->body_len = rd->first_len;
		rd->first = NULL;
	}
}

int grpc_call(struct grpc_conn *c, const char *path, const struct grpc_msg *msgs, size_t n,
	      uint32_t timeout_ms, struct grpc_result *res)
{
	struct call call = { .grpc_status = -1 };
	uint64_t deadline = clock_mono_ms() + timeout_ms;
	char err[256];
	uint8_t *body;
	size_t total;
	int r;

	memset(res, 0, sizeof(*res));
	r = frame_body(msgs, n, &body, &total, res);
	if (r)
		return r > 0 ? 0 : r;
	grpc_session_refresh_idle(c);
	r = grpc_conn_connect(c, err, sizeof(err));
	if (r) {
		snprintf(res->message, sizeof(res->message), "%s", err);
		free(body);
		return r;
	}
	call.body = body;
	call.body_len = total;
	grpc_frame_reader_init(&call.reader);
	c->call = &call;
	r = start_stream(c, &call, path, timeout_ms, res);
	if (!r) {
		r = grpc_session_pump(c, deadline, call_done);
		if (r == -ETIMEDOUT) {
			timed_out(c, &call, timeout_ms, res);
			r = 0;
		} else if (r) {
			lost(c, &call, r, res);
		} else {
			finish_result(c, &call, res);
		}
	}
	res->msgs_sent = grpc_call_msgs_within(msgs, n, call.data_sent);
	c->call = NULL;
	grpc_frame_reader_free(&call.reader);
	free(body);
	return r;
}

size_t grpc_call_msgs_within(const struct grpc_msg *msgs, size_t n, size_t bytes)
{
	size_t i, end = 0;

	for (i = 0; i < n; i++) {
		end += GRPC_FRAME_HDR + msgs[i].len;
		if (end > bytes)
			break;
	}
	return i;
}

void grpc_call_result_free(struct grpc_result *res)
{
	free(res->body);
	res->body = NULL;
	res->body_len = 0;
}
