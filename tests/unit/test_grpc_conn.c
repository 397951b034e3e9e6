// SPDX-License-Identifier: GPL-2.0
/*
 * grpc/ against a misbehaving server: a thread on a loopback socket
 * that writes raw HTTP/2 frames (no HTTP/2 library on that side, so it can
 * break the protocol). The whole zoo of misbehaviours runs against the
 * real agent in tests/host/42-agent-oap-garbage.sh; these are the findings
 * of that test that need a server faster than Python to reproduce.
 */
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "grpc/call.h"
#include "grpc/conn.h"
#include "grpc/frame.h"

enum behaviour {
	EMPTY_DATA_FLOOD, /* HEADERS, then empty DATA frames as fast as it can */
	GOAWAY_AT_ONCE,	  /* SETTINGS, GOAWAY(PROTOCOL_ERROR, "bye") */
	HUGE_PREFIX,	  /* HEADERS, a message prefix claiming 4 GiB - 1 */
	WINDOW_OVERRUN,	  /* HEADERS, DATA past the stream's window, then FIN */
	FRAME_TOO_BIG,	  /* HEADERS, a DATA frame over SETTINGS_MAX_FRAME_SIZE */
};

struct server {
	int lfd;
	uint16_t port;
	enum behaviour b;
	pthread_t th;
	volatile int stop;
};

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static size_t frame(uint8_t *out, uint32_t len, uint8_t type, uint8_t flags, uint32_t sid)
{
	out[0] = (uint8_t)(len >> 16);
	out[1] = (uint8_t)(len >> 8);
	out[2] = (uint8_t)len;
	out[3] = type;
	out[4] = flags;
	out[5] = (uint8_t)(sid >> 24);
	out[6] = (uint8_t)(sid >> 16);
	out[7] = (uint8_t)(sid >> 8);
	out[8] = (uint8_t)sid;
	return 9;
}

static int put(int fd, const void *b, size_t n)
{
	const uint8_t *p = b;

	while (n) {
		ssize_t w = send(fd, p, n, MSG_NOSIGNAL);

		if (w <= 0)
			return -1;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/* HEADERS for stream 1: :status 200 (static index 8), content-type literal. */
static size_t response_headers(uint8_t *out)
{
	static const uint8_t block[] = { 0x88, 0x0f, 0x10, 16,	'a', 'p', 'p', 'l', 'i', 'c',
					 'a',  't',  'i',  'o', 'n', '/', 'g', 'r', 'p', 'c' };
	size_t n = frame(out, sizeof(block), 1 /* HEADERS */, 0x4 /* END_HEADERS */, 1);

	memcpy(out + n, block, sizeof(block));
	return n + sizeof(block);
}

static void *serve(void *arg)
{
	struct server *s = arg;
	uint8_t buf[1 << 16];
	size_t n;
	int fd = accept(s->lfd, NULL, NULL);
	uint64_t end = now_ms() + 8000;

	if (fd < 0)
		return NULL;
	n = frame(buf, 0, 4 /* SETTINGS */, 0, 0);
	switch (s->b) {
	case EMPTY_DATA_FLOOD:
		n += response_headers(buf + n);
		if (put(fd, buf, n))
			break;
		/* 7281 empty DATA frames per send: they cost no flow-control window */
		for (n = 0; n + 9 <= sizeof(buf); n += 9)
			frame(buf + n, 0, 0 /* DATA */, 0, 1);
		while (!s->stop && now_ms() < end && !put(fd, buf, n)) {
			uint8_t junk[4096];

			while (recv(fd, junk, sizeof(junk), MSG_DONTWAIT) > 0)
				;
		}
		break;
	case GOAWAY_AT_ONCE:
		n += frame(buf + n, 8 + 3, 7 /* GOAWAY */, 0, 0);
		memcpy(buf + n, "\0\0\0\0\0\0\0\1bye", 11);
		put(fd, buf, n + 11);
		break;
	case WINDOW_OVERRUN:
		/* read the request first, so that our close is a FIN, not a RST */
		for (int i = 0; i < 20; i++) {
			while (recv(fd, buf + n, sizeof(buf) - n, MSG_DONTWAIT) > 0)
				;
			usleep(10000);
		}
		n += response_headers(buf + n);
		if (put(fd, buf, n))
			break;
		/* 70 x 16 KiB: past the 1 MiB stream window the client offers */
		memset(buf, 0, 9 + 16384);
		frame(buf, 16384, 0 /* DATA */, 0, 1);
		for (int i = 0; i < 70; i++)
			if (put(fd, buf, 9 + 16384))
				break;
		shutdown(fd, SHUT_WR);
		break;
	case FRAME_TOO_BIG:
		/* 20000 bytes: over the 16384 the client allows (its default) */
		n += response_headers(buf + n);
		n += frame(buf + n, 20000, 0 /* DATA */, 0, 1);
		memset(buf + n, 0, 20000);
		put(fd, buf, n + 20000);
		break;
	case HUGE_PREFIX:
		n += response_headers(buf + n);
		n += frame(buf + n, 5 + 3, 0 /* DATA */, 0, 1);
		memcpy(buf + n,
		       "\0\xff\xff\xff\xff"
		       "abc",
		       8);
		put(fd, buf, n + 8);
		break;
	}
	/* read until the client goes away (or the test is over) */
	while (!s->stop && now_ms() < end) {
		ssize_t r = recv(fd, buf, sizeof(buf), MSG_DONTWAIT);

		if (r == 0 || (r < 0 && errno != EAGAIN))
			break;
		usleep(10000);
	}
	close(fd);
	return NULL;
}

static void server_start(struct server *s, enum behaviour b)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t al = sizeof(a);

	memset(s, 0, sizeof(*s));
	s->b = b;
	s->lfd = socket(AF_INET, SOCK_STREAM, 0);
	assert_true(s->lfd >= 0);
	assert_int_equal(bind(s->lfd, (struct sockaddr *)&a, sizeof(a)), 0);
	assert_int_equal(listen(s->lfd, 1), 0);
	assert_int_equal(getsockname(s->lfd, (struct sockaddr *)&a, &al), 0);
	s->port = ntohs(a.sin_port);
	assert_int_equal(pthread_create(&s->th, NULL, serve, s), 0);
}

static void server_stop(struct server *s)
{
	s->stop = 1;
	pthread_join(s->th, NULL);
	close(s->lfd);
}

static int call_once(struct server *s, uint32_t timeout_ms, struct grpc_result *res)
{
	char addr[32], err[256];
	struct grpc_opts o = { .addr = addr, .connect_timeout_ms = 2000 };
	struct grpc_msg m = { (const uint8_t *)"", 0 };
	struct grpc_conn *c;
	int r;

	snprintf(addr, sizeof(addr), "127.0.0.1:%u", s->port);
	c = grpc_conn_new(&o, err, sizeof(err));
	assert_non_null(c);
	r = grpc_call(c, "/skywalking.v3.EBPFProcessService/keepAlive", &m, 1, timeout_ms, res);
	grpc_conn_free(c);
	return r;
}

/* One call against a server behaving as b, the answer printed. */
static int call_against(enum behaviour b, uint32_t timeout_ms, struct grpc_result *res)
{
	struct server s;
	int r;

	server_start(&s, b);
	r = call_once(&s, timeout_ms, res);
	server_stop(&s);
	print_message("%d: %s: %s\n", r, grpc_frame_code_name(res->code), res->message);
	return r;
}

/*
 * The call's deadline holds while the socket never runs dry: empty DATA
 * frames cost no window, so flow control never stops them. The read loop
 * drained the socket without looking at the clock, and a fast enough
 * server kept a call (and the agent's OAP thread) there for as long as it
 * liked (found by 42-agent-oap-garbage's emptydata mode: a 2 s call took 5 s
 * against the Python server; this server keeps the socket full).
 */
static void deadline_holds_under_a_frame_flood(void **state)
{
	struct grpc_result res;
	struct server s;
	uint64_t t0;
	int r;

	(void)state;
	server_start(&s, EMPTY_DATA_FLOOD);
	t0 = now_ms();
	r = call_once(&s, 300, &res);
	t0 = now_ms() - t0;
	server_stop(&s);
	print_message("call against the flood returned after %llu ms: %s\n", (unsigned long long)t0,
		      res.message);
	assert_int_equal(r, 0);
	assert_int_equal(res.code, GRPC_DEADLINE_EXCEEDED);
	assert_true(res.local);
	/* 300 ms asked; the flood lasts 8 s. Generous for a loaded machine. */
	assert_true(t0 < 4000);
	grpc_call_result_free(&res);
}

/* What the server said in its GOAWAY is in the error, not "connection reset". */
static void goaway_is_reported(void **state)
{
	struct grpc_result res;

	(void)state;
	(void)call_against(GOAWAY_AT_ONCE, 2000, &res);
	assert_non_null(strstr(res.message, "GOAWAY (PROTOCOL_ERROR: bye)"));
	grpc_call_result_free(&res);
}

/* A length prefix over the limit: our own RESOURCE_EXHAUSTED, saying the sizes. */
static void huge_prefix_is_refused(void **state)
{
	struct grpc_result res;
	int r;

	(void)state;
	r = call_against(HUGE_PREFIX, 2000, &res);
	assert_int_equal(r, 0);
	assert_int_equal(res.code, GRPC_RESOURCE_EXHAUSTED);
	assert_true(res.local);
	assert_non_null(strstr(res.message, "4294967295 bytes is over our 4194304-byte limit"));
	assert_null(res.body);
	grpc_call_result_free(&res);
}

/*
 * The server overruns the stream's flow-control window and closes: nghttp2
 * queues RST_STREAM(FLOW_CONTROL_ERROR), but the read meets the EOF before
 * anything is sent. The error names the server's violation, not just the
 * closed connection (found by 42-agent-oap-garbage's dataflood mode, whose
 * ASan agent logged only "Connection reset by peer").
 */
static void window_overrun_is_named(void **state)
{
	struct grpc_result res;

	(void)state;
	(void)call_against(WINDOW_OVERRUN, 4000, &res);
	assert_non_null(strstr(res.message, "stream reset by us (FLOW_CONTROL_ERROR)"));
	grpc_call_result_free(&res);
}

/*
 * A violation nghttp2 answers with its own GOAWAY (here FRAME_SIZE_ERROR;
 * in 42-agent-oap-garbage's dataflood mode FLOW_CONTROL_ERROR for the
 * connection's window) ends the session without an error from the read:
 * the log says which rule the server broke, not "Connection reset by peer".
 */
static void our_goaway_is_named(void **state)
{
	struct grpc_result res;
	int r;

	(void)state;
	r = call_against(FRAME_TOO_BIG, 4000, &res);
	assert_int_not_equal(r, 0);
	assert_non_null(
		strstr(res.message, "the server broke HTTP/2 (FRAME_SIZE_ERROR), we sent GOAWAY"));
	grpc_call_result_free(&res);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(deadline_holds_under_a_frame_flood),
		cmocka_unit_test(goaway_is_reported),
		cmocka_unit_test(huge_prefix_is_refused),
		cmocka_unit_test(window_overrun_is_named),
		cmocka_unit_test(our_goaway_is_named),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
