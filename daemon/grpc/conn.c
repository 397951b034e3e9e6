// SPDX-License-Identifier: GPL-2.0
/*
 * gRPC client over nghttp2; see grpc_conn.h.
 *
 * The socket is non-blocking and every wait is a poll() bounded by the
 * call's deadline, so a server that stops answering costs at most that
 * deadline. nghttp2 does the HTTP/2 framing and flow control; we feed it
 * what we read (nghttp2_session_mem_recv) and it writes through
 * send_cb. TLS sits between the two as SSL_read/SSL_write on the same
 * non-blocking socket.
 */
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <arpa/inet.h>
#include <nghttp2/nghttp2.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>

#include "grpc/conn.h"
#include "grpc/frame.h"
#include "lib/clock.h"
#include "lib/net_addr.h"

#ifndef SKYPROF_VERSION
#define SKYPROF_VERSION "dev"
#endif

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

static char *dup_or_null(const char *s)
{
	return s && *s ? strdup(s) : NULL;
}

/* "host:port", "[v6]:port", or "host" (the OAP's gRPC port is 11800). */
static int split_addr(struct grpc_conn *c, const char *addr, char *why, size_t whylen)
{
	struct in6_addr a6;

	if (net_addr_split(addr, "11800", c->host, c->port, why, whylen))
		return -EINVAL;
	c->host_is_ip =
		inet_pton(AF_INET, c->host, &a6) == 1 || inet_pton(AF_INET6, c->host, &a6) == 1;
	snprintf(c->authority, sizeof(c->authority), strchr(c->host, ':') ? "[%s]:%s" : "%s:%s",
		 c->host, c->port);
	return 0;
}

static void ssl_errors(char *err, size_t errlen, const char *what)
{
	unsigned long e = ERR_get_error();
	char buf[256] = "";

	if (e)
		ERR_error_string_n(e, buf, sizeof(buf));
	snprintf(err, errlen, "%s%s%s", what, *buf ? ": " : "", buf);
	ERR_clear_error();
}

static int tls_setup(struct grpc_conn *c, char *err, size_t errlen)
{
	static const unsigned char alpn[] = { 2, 'h', '2' };

	c->ctx = SSL_CTX_new(TLS_client_method());
	if (!c->ctx) {
		ssl_errors(err, errlen, "TLS: cannot create a context");
		return -ENOMEM;
	}
	SSL_CTX_set_min_proto_version(c->ctx, TLS1_2_VERSION);
	SSL_CTX_set_alpn_protos(c->ctx, alpn, sizeof(alpn));
	if (c->skip_verify) {
		SSL_CTX_set_verify(c->ctx, SSL_VERIFY_NONE, NULL);
	} else {
		SSL_CTX_set_verify(c->ctx, SSL_VERIFY_PEER, NULL);
		if (c->ca_file ? !SSL_CTX_load_verify_locations(c->ctx, c->ca_file, NULL)
			       : !SSL_CTX_set_default_verify_paths(c->ctx)) {
			char what[512];

			snprintf(what, sizeof(what), "TLS: cannot load CA file %s",
				 c->ca_file ? c->ca_file : "(system default)");
			ssl_errors(err, errlen, what);
			return -EINVAL;
		}
	}
	if (c->cert_file || c->key_file) {
		char what[512];

		if (!c->cert_file || !c->key_file) {
			snprintf(err, errlen,
				 "TLS: a client certificate needs both the cert and "
				 "the key file");
			return -EINVAL;
		}
		if (SSL_CTX_use_certificate_chain_file(c->ctx, c->cert_file) != 1) {
			snprintf(what, sizeof(what), "TLS: cannot load client certificate %s",
				 c->cert_file);
			ssl_errors(err, errlen, what);
			return -EINVAL;
		}
		if (SSL_CTX_use_PrivateKey_file(c->ctx, c->key_file, SSL_FILETYPE_PEM) != 1 ||
		    SSL_CTX_check_private_key(c->ctx) != 1) {
			snprintf(what, sizeof(what), "TLS: cannot use client key %s", c->key_file);
			ssl_errors(err, errlen, what);
			return -EINVAL;
		}
	}
	return 0;
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
	if (!c->addr || split_addr(c, c->addr, why, sizeof(why))) {
		snprintf(err, errlen, "bad address '%s': %s", o->addr ? o->addr : "",
			 c->addr ? why : "none");
		goto fail;
	}
	if (c->tls && tls_setup(c, err, errlen))
		goto fail;
	return c;
fail:
	grpc_conn_free(c);
	return NULL;
}

void grpc_conn_close(struct grpc_conn *c)
{
	if (c->h2)
		nghttp2_session_del(c->h2);
	c->h2 = NULL;
	if (c->ssl)
		SSL_free(c->ssl);
	c->ssl = NULL;
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
	c->eof = false;
	c->write_blocked = false;
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

static int remaining(uint64_t deadline)
{
	uint64_t n = clock_mono_ms();

	return n >= deadline ? 0 : (int)(deadline - n);
}

/* Wait for fd to be ready for events; 0, -ETIMEDOUT or -errno. */
static int wait_fd(int fd, short events, uint64_t deadline)
{
	struct pollfd p = { .fd = fd, .events = events };
	int r;

	do
		r = poll(&p, 1, remaining(deadline));
	while (r < 0 && errno == EINTR);
	if (r < 0)
		return -errno;
	return r ? 0 : -ETIMEDOUT;
}

static int tcp_connect(struct grpc_conn *c, uint64_t deadline, char *err, size_t errlen)
{
	struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM };
	struct addrinfo *res, *ai;
	int r, last = ECONNREFUSED;

	r = getaddrinfo(c->host, c->port, &hints, &res);
	if (r) {
		snprintf(err, errlen, "cannot resolve %s: %s", c->host, gai_strerror(r));
		return -EHOSTUNREACH;
	}
	for (ai = res; ai; ai = ai->ai_next) {
		int fd = socket(ai->ai_family, ai->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC,
				ai->ai_protocol);
		int one = 1, soerr = 0;
		socklen_t sl = sizeof(soerr);

		if (fd < 0) {
			last = errno;
			continue;
		}
		if (connect(fd, ai->ai_addr, ai->ai_addrlen) < 0) {
			if (errno != EINPROGRESS) {
				last = errno;
				close(fd);
				continue;
			}
			r = wait_fd(fd, POLLOUT, deadline);
			if (r == 0 && getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &sl) == 0 &&
			    soerr == 0)
				goto connected;
			last = r ? -r : soerr ? soerr : errno;
			close(fd);
			continue;
		}
	connected:
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		c->fd = fd;
		freeaddrinfo(res);
		return 0;
	}
	freeaddrinfo(res);
	snprintf(err, errlen, "cannot connect to %s: %s", c->authority, strerror(last));
	return -last;
}

static int tls_handshake(struct grpc_conn *c, uint64_t deadline, char *err, size_t errlen)
{
	const unsigned char *proto = NULL;
	unsigned int plen = 0;

	c->ssl = SSL_new(c->ctx);
	if (!c->ssl) {
		ssl_errors(err, errlen, "TLS: cannot create a connection");
		return -ENOMEM;
	}
	SSL_set_fd(c->ssl, c->fd);
	if (!c->host_is_ip)
		SSL_set_tlsext_host_name(c->ssl, c->host);
	/* Check the certificate names the host we dialled, not only that it chains. */
	if (!c->skip_verify) {
		if (c->host_is_ip)
			X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(c->ssl), c->host);
		else
			SSL_set1_host(c->ssl, c->host);
	}
	for (;;) {
		int r = SSL_connect(c->ssl), e;

		if (r == 1)
			break;
		e = SSL_get_error(c->ssl, r);
		if (e == SSL_ERROR_WANT_READ || e == SSL_ERROR_WANT_WRITE) {
			r = wait_fd(c->fd, e == SSL_ERROR_WANT_READ ? POLLIN : POLLOUT, deadline);
			if (r) {
				snprintf(err, errlen, "TLS handshake with %s: %s", c->authority,
					 strerror(-r));
				return r;
			}
			continue;
		}
		{
			long v = SSL_get_verify_result(c->ssl);
			char what[512];

			if (v != X509_V_OK)
				snprintf(what, sizeof(what),
					 "TLS handshake with %s: certificate not trusted (%s)",
					 c->authority, X509_verify_cert_error_string(v));
			else
				snprintf(what, sizeof(what), "TLS handshake with %s failed",
					 c->authority);
			ssl_errors(err, errlen, what);
		}
		return -ECONNREFUSED;
	}
	SSL_get0_alpn_selected(c->ssl, &proto, &plen);
	if (plen && !(plen == 2 && !memcmp(proto, "h2", 2))) {
		snprintf(err, errlen, "TLS: %s negotiated '%.*s', not h2", c->authority, (int)plen,
			 proto);
		return -EPROTO;
	}
	return 0;
}

/* nghttp2 callbacks -------------------------------------------------------- */

static ssize_t send_cb(nghttp2_session *s, const uint8_t *data, size_t len, int flags, void *u)
{
	struct grpc_conn *c = u;
	ssize_t n;

	(void)s;
	(void)flags;
	if (c->ssl) {
		int r = SSL_write(c->ssl, data, (int)(len > 1 << 20 ? 1 << 20 : len));

		if (r > 0)
			return r;
		r = SSL_get_error(c->ssl, r);
		if (r == SSL_ERROR_WANT_WRITE || r == SSL_ERROR_WANT_READ) {
			c->write_blocked = true;
			return NGHTTP2_ERR_WOULDBLOCK;
		}
		ERR_clear_error();
		return NGHTTP2_ERR_CALLBACK_FAILURE;
	}
	do
		n = send(c->fd, data, len, MSG_NOSIGNAL);
	while (n < 0 && errno == EINTR);
	if (n >= 0)
		return n;
	if (errno == EAGAIN || errno == EWOULDBLOCK) {
		c->write_blocked = true;
		return NGHTTP2_ERR_WOULDBLOCK;
	}
	return NGHTTP2_ERR_CALLBACK_FAILURE;
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
		int code = grpc_parse_status((const char *)value, valuelen);

		/* A status we cannot read is still a failure, not success. */
		call->grpc_status = code < 0 ? GRPC_UNKNOWN : code;
		if (code < 0)
			snprintf(call->status_note, sizeof(call->status_note),
				 "unparsable grpc-status '%.*s'",
				 (int)(valuelen < 32 ? valuelen : 32), value);
	} else if (IS("grpc-message")) {
		grpc_decode_message((const char *)value, valuelen, call->message,
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
	if (grpc_reader_feed(&call->reader, data, len))
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

static ssize_t body_read_cb(nghttp2_session *s, int32_t stream_id, uint8_t *buf, size_t len,
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
	ssize_t n, rv;

	if (c->ssl) {
		int r = SSL_read(c->ssl, buf, sizeof(buf));

		if (r <= 0) {
			int e = SSL_get_error(c->ssl, r);

			if (e == SSL_ERROR_WANT_READ || e == SSL_ERROR_WANT_WRITE)
				return -EAGAIN;
			ERR_clear_error();
			c->eof = true;
			return -ECONNRESET;
		}
		n = r;
	} else {
		do
			n = recv(c->fd, buf, sizeof(buf), 0);
		while (n < 0 && errno == EINTR);
		if (n < 0)
			return errno == EAGAIN || errno == EWOULDBLOCK ? -EAGAIN : -errno;
		if (n == 0) {
			c->eof = true;
			return -ECONNRESET;
		}
	}
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

/*
 * Run the session until done(c) or the deadline. Returns 0, -ETIMEDOUT, or
 * -errno for a broken connection. The deadline holds however fast the peer
 * sends: a socket that is always readable (a flood of frames that cost no
 * flow-control window, such as empty DATA) must not keep us here.
 */
static int pump(struct grpc_conn *c, uint64_t deadline, bool (*done)(struct grpc_conn *))
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
		if (!remaining(deadline))
			return -ETIMEDOUT;
		if (!(c->ssl && SSL_pending(c->ssl) > 0)) {
			r = wait_fd(c->fd, POLLIN | (c->write_blocked ? POLLOUT : 0), deadline);
			if (r)
				return r;
		}
		do
			r = read_some(c);
		while (r == 0 && !done(c) && remaining(deadline));
		if (r && r != -EAGAIN)
			return r;
	}
}

/* Why the connection failed, for the log: what the server did, when known. */
static void broken_why(const struct grpc_conn *c, int r, char *out, size_t outlen)
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

int grpc_conn_connect(struct grpc_conn *c, char *err, size_t errlen)
{
	nghttp2_session_callbacks *cbs;
	nghttp2_settings_entry settings[] = {
		{ NGHTTP2_SETTINGS_ENABLE_PUSH, 0 },
		{ NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE, 1 << 20 },
	};
	uint64_t deadline = clock_mono_ms() + c->connect_timeout_ms;
	int r;

	if (grpc_conn_connected(c))
		return 0;
	grpc_conn_close(c);
	clear_why(c);
	r = tcp_connect(c, deadline, err, errlen);
	if (!r && c->tls)
		r = tls_handshake(c, deadline, err, errlen);
	if (r)
		goto fail;
	if (nghttp2_session_callbacks_new(&cbs)) {
		r = -ENOMEM;
		snprintf(err, errlen, "out of memory");
		goto fail;
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
		r = -ENOMEM;
		snprintf(err, errlen, "out of memory");
		goto fail;
	}
	nghttp2_submit_settings(c->h2, NGHTTP2_FLAG_NONE, settings,
				sizeof(settings) / sizeof(settings[0]));
	/* A large connection window: responses are small, but never stall one. */
	nghttp2_session_set_local_window_size(c->h2, NGHTTP2_FLAG_NONE, 0, 16 << 20);
	r = pump(c, deadline, nothing_to_write);
	if (r) {
		char why[200];

		broken_why(c, r, why, sizeof(why));
		snprintf(err, errlen, "HTTP/2 preface to %s: %s", c->authority, why);
		goto fail;
	}
	c->last_rx_ms = clock_mono_ms();
	return 0;
fail:
	grpc_conn_close(c);
	return r;
}

static bool call_done(struct grpc_conn *c)
{
	return c->call->closed;
}

static bool ping_done(struct grpc_conn *c)
{
	return c->ping_acked;
}

/*
 * Before reusing an idle connection, take in what the peer sent meanwhile
 * (a GOAWAY, or the EOF of a restarted server), so that a call is not
 * written into a connection that is already gone.
 */
static void refresh_idle(struct grpc_conn *c)
{
	int r;

	if (!c->h2)
		return;
	do
		r = read_some(c);
	while (r == 0);
	if ((r && r != -EAGAIN) ||
	    (!nghttp2_session_want_read(c->h2) && !nghttp2_session_want_write(c->h2)))
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
		res->code = grpc_code_from_http(call->http_status);
		snprintf(res->message, sizeof(res->message), "HTTP status %d", call->http_status);
	} else {
		res->code = GRPC_UNKNOWN;
		snprintf(res->message, sizeof(res->message), "response without grpc-status");
	}
	if (res->code == GRPC_OK && call->http_status == 200 && !call->content_type_ok) {
		res->code = GRPC_UNKNOWN;
		snprintf(res->message, sizeof(res->message), "response is not application/grpc");
	}
	if (res->code == GRPC_OK && !grpc_reader_complete(rd)) {
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
	char timeout[24], ua[64], err[256];
	struct call call = { .grpc_status = -1 };
	nghttp2_data_provider prov = { .read_callback = body_read_cb };
	nghttp2_nv hdrs[9];
	size_t nh = 0, total = 0;
	uint64_t deadline = clock_mono_ms() + timeout_ms;
	uint8_t *body;
	int r;

	memset(res, 0, sizeof(*res));
	for (size_t i = 0; i < n; i++) {
		if (msgs[i].len > GRPC_MAX_MESSAGE) {
			res->code = GRPC_RESOURCE_EXHAUSTED;
			snprintf(res->message, sizeof(res->message),
				 "request message of %zu bytes over the %u limit", msgs[i].len,
				 GRPC_MAX_MESSAGE);
			return 0;
		}
		total += GRPC_FRAME_HDR + msgs[i].len;
	}
	body = malloc(total ? total : 1);
	if (!body) {
		snprintf(res->message, sizeof(res->message), "out of memory");
		return -ENOMEM;
	}
	for (size_t i = 0, off = 0; i < n; i++) {
		grpc_frame_header(body + off, (uint32_t)msgs[i].len);
		if (msgs[i].len)
			memcpy(body + off + GRPC_FRAME_HDR, msgs[i].data, msgs[i].len);
		off += GRPC_FRAME_HDR + msgs[i].len;
	}

	refresh_idle(c);
	r = grpc_conn_connect(c, err, sizeof(err));
	if (r) {
		snprintf(res->message, sizeof(res->message), "%s", err);
		free(body);
		return r;
	}

#define NV(n, v)                                                                                   \
	hdrs[nh++] = (nghttp2_nv){ (uint8_t *)(n), (uint8_t *)(v), sizeof(n) - 1, strlen(v),       \
				   NGHTTP2_NV_FLAG_NONE }
	grpc_format_timeout(timeout_ms, timeout, sizeof(timeout));
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

	call.body = body;
	call.body_len = total;
	grpc_reader_init(&call.reader);
	c->call = &call;
	call.stream_id = nghttp2_submit_request(c->h2, NULL, hdrs, nh, &prov, NULL);
	if (call.stream_id < 0) {
		snprintf(res->message, sizeof(res->message), "cannot start a stream: %s",
			 nghttp2_strerror(call.stream_id));
		r = -EPROTO;
		goto out;
	}
	r = pump(c, deadline, call_done);
	if (r == -ETIMEDOUT) {
		/* The call's own deadline: an answer (DEADLINE_EXCEEDED), but the
		 * connection is suspect, so it is not reused. */
		res->code = GRPC_DEADLINE_EXCEEDED;
		res->local = true;
		if (call.data_recv)
			snprintf(res->message, sizeof(res->message),
				 "no complete answer within %u ms (%zu bytes of DATA, %u more "
				 "messages than asked for)",
				 timeout_ms, call.data_recv, call.reader.extra);
		else
			snprintf(res->message, sizeof(res->message), "no answer within %u ms",
				 timeout_ms);
		r = 0;
		grpc_conn_close(c);
		goto out;
	}
	if (r) {
		char why[200];

		broken_why(c, r, why, sizeof(why));
		/*
		 * A reset nghttp2 decided on while reading (the server overran
		 * the stream's window) is still queued when the read hit EOF:
		 * one more send, which may fail on the dead socket, lets
		 * before_frame_send_cb see it.
		 */
		if (!call.rst_ours && !call.closed)
			(void)nghttp2_session_send(c->h2);
		if (call.rst_ours)
			snprintf(res->message, sizeof(res->message),
				 "stream reset by us (%s), then the connection to %.60s was lost: "
				 "%.120s",
				 nghttp2_http2_strerror(call.rst_ours), c->authority, why);
		else
			snprintf(res->message, sizeof(res->message),
				 "connection to %.60s lost: %.170s", c->authority, why);
		grpc_conn_close(c);
		goto out;
	}
	finish_result(c, &call, res);
out:
	res->msgs_sent = grpc_msgs_within(msgs, n, call.data_sent);
	c->call = NULL;
	grpc_reader_free(&call.reader);
	free(body);
	return r;
}

size_t grpc_msgs_within(const struct grpc_msg *msgs, size_t n, size_t bytes)
{
	size_t i, end = 0;

	for (i = 0; i < n; i++) {
		end += GRPC_FRAME_HDR + msgs[i].len;
		if (end > bytes)
			break;
	}
	return i;
}

void grpc_result_free(struct grpc_result *res)
{
	free(res->body);
	res->body = NULL;
	res->body_len = 0;
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
	r = pump(c, clock_mono_ms() + timeout_ms, ping_done);
	if (r)
		grpc_conn_close(c);
	return r;
}
