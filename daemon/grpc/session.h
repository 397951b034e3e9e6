/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The HTTP/2 session over the transport (nghttp2): its callbacks, which
 * fill in the call in flight, and the pump that runs it until a condition
 * holds or a deadline passes. nghttp2 does the framing and flow control; we
 * feed it what we read and it writes through the transport.
 */
#ifndef SKYPROF_GRPC_SESSION_H
#define SKYPROF_GRPC_SESSION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct grpc_conn;

/* Start the session on an open transport: SETTINGS, the preface. 0 or -errno with err. */
int grpc_session_open(struct grpc_conn *c, uint64_t deadline, char *err, size_t errlen);
void grpc_session_close(struct grpc_conn *c);

/*
 * Run the session until done(c) or the deadline. Returns 0, -ETIMEDOUT, or
 * -errno for a broken connection. The deadline holds however fast the peer
 * sends: a socket that is always readable (a flood of frames that cost no
 * flow-control window, such as empty DATA) must not keep us here.
 */
int grpc_session_pump(struct grpc_conn *c, uint64_t deadline, bool (*done)(struct grpc_conn *));

/*
 * Before reusing an idle connection, take in what the peer sent meanwhile
 * (a GOAWAY, or the EOF of a restarted server), so that a call is not
 * written into a connection that is already gone.
 */
void grpc_session_refresh_idle(struct grpc_conn *c);

/* Why the connection failed (pump's r), for the log: what the server did, when known. */
void grpc_session_broken_why(const struct grpc_conn *c, int r, char *out, size_t outlen);

/* The body of the call in flight, for nghttp2's data provider. */
ssize_t grpc_session_body_read_cb(nghttp2_session *s, int32_t stream_id, uint8_t *buf, size_t len,
				  uint32_t *flags, nghttp2_data_source *src, void *u);

#endif
