// SPDX-License-Identifier: GPL-2.0
/* TCP and TLS under the HTTP/2 session; see transport.h. */
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
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>

#include "grpc/internal.h"
#include "grpc/transport.h"
#include "lib/clock.h"

/* "host:port", "[v6]:port", or "host" (the OAP's gRPC port is 11800). */
int grpc_transport_split_addr(struct grpc_conn *c, const char *addr, char *why, size_t whylen)
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

int grpc_transport_tls_setup(struct grpc_conn *c, char *err, size_t errlen)
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

int grpc_transport_remaining(uint64_t deadline)
{
	uint64_t n = clock_mono_ms();

	return n >= deadline ? 0 : (int)(deadline - n);
}

/* Wait for fd to be ready for events; 0, -ETIMEDOUT or -errno. */
int grpc_transport_wait(int fd, short events, uint64_t deadline)
{
	struct pollfd p = { .fd = fd, .events = events };
	int r;

	do
		r = poll(&p, 1, grpc_transport_remaining(deadline));
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
			r = grpc_transport_wait(fd, POLLOUT, deadline);
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
			r = grpc_transport_wait(c->fd, e == SSL_ERROR_WANT_READ ? POLLIN : POLLOUT,
						deadline);
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

int grpc_transport_open(struct grpc_conn *c, uint64_t deadline, char *err, size_t errlen)
{
	int r = tcp_connect(c, deadline, err, errlen);

	if (!r && c->tls)
		r = tls_handshake(c, deadline, err, errlen);
	return r;
}

void grpc_transport_close(struct grpc_conn *c)
{
	if (c->ssl)
		SSL_free(c->ssl);
	c->ssl = NULL;
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
	c->eof = false;
	c->write_blocked = false;
}

ssize_t grpc_transport_send(struct grpc_conn *c, const uint8_t *data, size_t len)
{
	ssize_t n;

	if (c->ssl) {
		int r = SSL_write(c->ssl, data, (int)(len > 1 << 20 ? 1 << 20 : len));

		if (r > 0)
			return r;
		r = SSL_get_error(c->ssl, r);
		if (r == SSL_ERROR_WANT_WRITE || r == SSL_ERROR_WANT_READ) {
			c->write_blocked = true;
			return -EAGAIN;
		}
		ERR_clear_error();
		return -EPIPE;
	}
	do
		n = send(c->fd, data, len, MSG_NOSIGNAL);
	while (n < 0 && errno == EINTR);
	if (n >= 0)
		return n;
	if (errno == EAGAIN || errno == EWOULDBLOCK) {
		c->write_blocked = true;
		return -EAGAIN;
	}
	return -EPIPE;
}

ssize_t grpc_transport_recv(struct grpc_conn *c, uint8_t *buf, size_t len)
{
	ssize_t n;

	if (c->ssl) {
		int r = SSL_read(c->ssl, buf, (int)len);

		if (r <= 0) {
			int e = SSL_get_error(c->ssl, r);

			if (e == SSL_ERROR_WANT_READ || e == SSL_ERROR_WANT_WRITE)
				return -EAGAIN;
			ERR_clear_error();
			c->eof = true;
			return -ECONNRESET;
		}
		return r;
	}
	do
		n = recv(c->fd, buf, len, 0);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return errno == EAGAIN || errno == EWOULDBLOCK ? -EAGAIN : -errno;
	if (n == 0) {
		c->eof = true;
		return -ECONNRESET;
	}
	return n;
}
