// SPDX-License-Identifier: GPL-2.0
/*
 * skyprof-genlfuzz: in-guest fuzzer of the skyprof generic netlink family.
 *
 *   skyprof-genlfuzz [--seed N] [--seconds S] [--max-msgs N]
 *
 * Sends random and mutated-valid messages (every command number including
 * unknown ones, attributes of wrong types and lengths, nested garbage, huge
 * and zero values, bad header lengths and flags, STOP/GET_STATS of own,
 * foreign, stale and made-up session ids, sessions started and abandoned by
 * closing the owning socket, BIND of /dev/skyprof with guessed tokens) from
 * several sockets. Everything derives from the seed, printed first, so a run
 * repeats with --seed N (the kernel's answers may differ in timing only).
 *
 * After the budget: all sockets closed, then the module must answer GET_INFO
 * with the right ABI version and limits and with no session and no ring
 * memory left (waits up to 3 s for the deferred teardown). Exit 0 if so.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <linux/genetlink.h>
#include <linux/netlink.h>

#include "nl.h"

#define NSOCK		4
#define MAXSESS		64
#define BUFSZ		(70 * 1024)

static uint64_t rng;

static uint64_t rnd(void)
{
	/* xorshift64* */
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return rng * 2685821657736338717ULL;
}

static uint32_t rn(uint32_t n)
{
	return n ? (uint32_t)(rnd() % n) : 0;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

struct fsock {
	struct ktest_nl nl;
	int fd;
	int open;
};

static struct fsock socks[NSOCK];
static int family;
static uint32_t seq = 1;

/* Session ids the module handed out (some stopped since: stale on purpose). */
static struct { uint32_t id; uint64_t token; } sess[MAXSESS];
static unsigned int nsess;

static unsigned long long msgs, replies, acks, errs[140], starts_ok, owners_closed, binds,
	binds_ok, maps_ok, short_sends;

static const uint32_t interesting32[] = {
	0, 1, 2, 7, 8, 9, 63, 64, 99, 100, 101, 127, 128, 255, 256, 257, 1023, 1024, 1025,
	4095, 4096, 65535, 65536, 65537, 99999, 100000, 100001, 16383, 16384, 16385,
	0x7fffffff, 0x80000000, 0xfffffffe, 0xffffffff,
};

static uint32_t val32(void)
{
	switch (rn(4)) {
	case 0:
		return (uint32_t)rnd();
	case 1:
		return rn(300);
	default:
		return interesting32[rn(sizeof(interesting32) / sizeof(interesting32[0]))];
	}
}

struct mb {
	unsigned char b[BUFSZ];
	size_t len;
};

static void *put(struct mb *m, const void *p, size_t n)
{
	void *at;

	if (m->len + n > sizeof(m->b))
		return NULL;
	at = m->b + m->len;
	if (p)
		memcpy(at, p, n);
	else
		memset(at, 0, n);
	m->len += n;
	return at;
}

static void pad(struct mb *m)
{
	while (m->len % 4 && m->len < sizeof(m->b))
		m->b[m->len++] = 0;
}

static size_t put_attr(struct mb *m, uint16_t type, const void *p, size_t n)
{
	struct nlattr a = { .nla_len = (uint16_t)(NLA_HDRLEN + n), .nla_type = type };
	size_t at = m->len;

	if (m->len + NLA_HDRLEN + NLA_ALIGN(n) > sizeof(m->b))
		return at;
	put(m, &a, sizeof(a));
	put(m, p, n);
	pad(m);
	return at;
}

static void put_u32(struct mb *m, uint16_t type, uint32_t v)
{
	put_attr(m, type, &v, 4);
}

static void hdr(struct mb *m, uint16_t type, uint16_t flags, uint8_t cmd)
{
	struct nlmsghdr h = { .nlmsg_type = type, .nlmsg_flags = flags, .nlmsg_seq = seq++ };
	struct genlmsghdr g = { .cmd = cmd, .version = SKYPROF_GENL_VERSION };

	m->len = 0;
	put(m, &h, sizeof(h));
	put(m, &g, sizeof(g));
}

static void fix_len(struct mb *m)
{
	((struct nlmsghdr *)m->b)->nlmsg_len = (uint32_t)m->len;
}

/* One random attribute: any type number, any length, value or garbage payload. */
static void rand_attr(struct mb *m, int depth)
{
	uint16_t type = (uint16_t)(rn(8) ? rn(SKYPROF_A_MAX + 4) : rnd());
	unsigned char buf[512];
	size_t n, i;

	if (!rn(6))
		type |= NLA_F_NESTED;
	if (!rn(20))
		type |= NLA_F_NET_BYTEORDER;
	if (depth < 3 && !rn(6)) {
		/* Nested garbage (CPU_STATS is the family's nest type). */
		struct nlattr *a;
		size_t at = m->len, k = rn(5);

		if (!rn(2))
			type = SKYPROF_A_CPU_STATS | (rn(2) ? NLA_F_NESTED : 0);
		put_attr(m, type, NULL, 0);
		for (i = 0; i < k; i++)
			rand_attr(m, depth + 1);
		a = (struct nlattr *)(m->b + at);
		a->nla_len = (uint16_t)(m->len - at);
		return;
	}
	switch (rn(6)) {
	case 0:
		n = 0;
		break;
	case 1:
		n = 1 + rn(3);
		break;
	case 2:
		n = 4;
		break;
	case 3:
		n = 8;
		break;
	case 4:
		n = rn(sizeof(buf));
		break;
	default:
		n = 4 * rn(1025) + (rn(2) ? 0 : rn(4)); /* tgid arrays, off by a few */
		if (n > sizeof(buf))
			n = sizeof(buf);
		break;
	}
	if (n == 4 || n == 8) {
		uint32_t v[2] = { val32(), val32() };

		memcpy(buf, v, n);
	} else {
		for (i = 0; i < n; i++)
			buf[i] = rn(4) ? (unsigned char)rnd() : 0;
	}
	if (type == SKYPROF_A_TARGET_TGIDS && !rn(3)) {
		/* Big target lists up to past the limit, of plausible pids. */
		static uint32_t tg[SKYPROF_MAX_TGIDS + 8];
		size_t k = rn(SKYPROF_MAX_TGIDS + 8) + 1;

		for (i = 0; i < k; i++)
			tg[i] = rn(3) ? 1 + rn(4096) : val32();
		put_attr(m, type, tg, k * 4);
		return;
	}
	put_attr(m, type, buf, n);
}

/* A valid SESSION_START (cheap geometry), to be mutated or sent as is. */
static void valid_start(struct mb *m)
{
	hdr(m, (uint16_t)family, NLM_F_REQUEST | NLM_F_ACK, SKYPROF_CMD_SESSION_START);
	put_u32(m, SKYPROF_A_MODE, rn(4) ? SKYPROF_MODE_ONCPU : rn(__SKYPROF_MODE_MAX));
	put_u32(m, SKYPROF_A_CLOCK, rn(__SKYPROF_CLOCK_MAX));
	put_u32(m, SKYPROF_A_FREQ, 1 + rn(999));
	if (rn(2))
		put_u32(m, SKYPROF_A_FLAGS, rn(SKYPROF_F_ALL + 1));
	if (rn(2))
		put_u32(m, SKYPROF_A_MAX_DEPTH, 1 + rn(SKYPROF_MAX_DEPTH));
	if (rn(3) == 0)
		put_u32(m, SKYPROF_A_USTACK_BYTES, 8 * rn(64));
	put_u32(m, SKYPROF_A_RING_PAGES, SKYPROF_RING_PAGES_MIN << rn(3));
	if (rn(2))
		put_u32(m, SKYPROF_A_WATERMARK_PCT, 1 + rn(100));
	if (rn(2))
		put_u32(m, SKYPROF_A_BUDGET_PCT, 1 + rn(100));
	if (rn(4) == 0)
		put_u32(m, SKYPROF_A_SIDEBAND_ENTRIES, rn(4) ? (uint32_t)SKYPROF_SIDEBAND_ENTRIES_MIN << rn(4) :
								 val32());
	if (rn(4) == 0)
		put_u32(m, SKYPROF_A_FOLLOW_ENTRIES, rn(4) ? (uint32_t)SKYPROF_FOLLOW_ENTRIES_MIN << rn(4) :
							      val32());
	if (rn(3) == 0) {
		uint32_t tg[4] = { 1, (uint32_t)getpid(), 1 + rn(4096), val32() };

		put_attr(m, SKYPROF_A_TARGET_TGIDS, tg, 4 * (1 + rn(4)));
	}
	if (rn(4) == 0) {
		uint32_t td[3] = { (uint32_t)getpid(), 1 + rn(4096), val32() };

		put_attr(m, SKYPROF_A_TARGET_TIDS, td, 4 * (1 + rn(3)));
	}
	if (rn(4) == 0) {
		/* Mostly CPU 0 and 1, sometimes none, beyond, or too long. */
		uint32_t cpus[3] = { rn(4) ? 1 + rn(3) : val32(), val32(), 0 };

		put_attr(m, SKYPROF_A_TARGET_CPUS, cpus, 4 * (rn(4) ? 1 : 1 + rn(3)));
	}
	if (rn(5) == 0) {
		static const char *const cg[] = { "/", "", "/nonexistent", "/sys/fs/cgroup",
						  "../..", "/init.scope" };
		const char *c = cg[rn(6)];

		put_attr(m, SKYPROF_A_TARGET_CGROUP, c, strlen(c) + 1);
	}
	fix_len(m);
}

static uint32_t pick_id(void)
{
	if (nsess && rn(4))
		return sess[rn(nsess)].id;
	return rn(2) ? val32() : rn(16);
}

static void id_cmd(struct mb *m, uint8_t cmd)
{
	hdr(m, (uint16_t)family, NLM_F_REQUEST | NLM_F_ACK, cmd);
	if (rn(8))
		put_u32(m, SKYPROF_A_SESSION_ID, pick_id());
	if (!rn(4))
		rand_attr(m, 0);
	fix_len(m);
}

static void mutate(struct mb *m)
{
	size_t k = 1 + rn(8), i;

	for (i = 0; i < k && m->len; i++) {
		size_t at = rn((uint32_t)m->len);

		switch (rn(6)) {
		case 0:
			m->b[at] ^= (unsigned char)(1u << rn(8));
			break;
		case 1:
			m->b[at] = (unsigned char)rnd();
			break;
		case 2: /* truncate (header length fixed below or not) */
			if (at >= NLMSG_HDRLEN)
				m->len = at;
			break;
		case 3: /* a 32-bit interesting value at an aligned spot after the headers */
			at &= ~(size_t)3;
			if (at >= NLMSG_HDRLEN + GENL_HDRLEN && at + 4 <= m->len) {
				uint32_t v = val32();

				memcpy(m->b + at, &v, 4);
			}
			break;
		case 4: /* append garbage attributes */
			rand_attr(m, 0);
			break;
		default: /* attribute length fields */
			if (m->len > NLMSG_HDRLEN + GENL_HDRLEN + 2) {
				uint16_t v = (uint16_t)val32();

				memcpy(m->b + NLMSG_HDRLEN + GENL_HDRLEN, &v, 2);
			}
			break;
		}
	}
	if (rn(4))
		fix_len(m);
}

static void build(struct mb *m)
{
	uint8_t cmd;
	int i, k;

	switch (rn(10)) {
	case 0:
	case 1: /* valid start, maybe mutated */
		valid_start(m);
		if (rn(3) == 0)
			mutate(m);
		return;
	case 2:
		id_cmd(m, SKYPROF_CMD_SESSION_STOP);
		return;
	case 3:
		id_cmd(m, SKYPROF_CMD_GET_STATS);
		return;
	case 4: /* valid GET_INFO or LIST_SESSIONS, maybe with junk */
		hdr(m, (uint16_t)family, NLM_F_REQUEST | NLM_F_ACK,
		    rn(2) ? SKYPROF_CMD_GET_INFO : SKYPROF_CMD_LIST_SESSIONS);
		for (i = rn(3); i > 0; i--)
			rand_attr(m, 0);
		fix_len(m);
		return;
	default: /* random: any command number, random flags, random attributes */
		cmd = rn(3) ? (uint8_t)rn(SKYPROF_CMD_MAX + 3) : (uint8_t)rnd();
		hdr(m, (uint16_t)family,
		    NLM_F_REQUEST | (rn(2) ? NLM_F_ACK : 0) | (rn(4) ? 0 : NLM_F_DUMP) |
			    (rn(8) ? 0 : (uint16_t)rnd()),
		    cmd);
		if (!rn(8))
			((struct genlmsghdr *)(m->b + NLMSG_HDRLEN))->version = (uint8_t)rnd();
		k = rn(8);
		for (i = 0; i < k; i++)
			rand_attr(m, 0);
		if (rn(5))
			fix_len(m);
		else
			((struct nlmsghdr *)m->b)->nlmsg_len = val32();
		if (!rn(5))
			mutate(m);
		return;
	}
}

static int sock_open(struct fsock *s)
{
	int r = ktest_nl_open(&s->nl);

	if (r)
		return r;
	s->fd = nl_socket_get_fd(s->nl.sk);
	s->open = 1;
	return 0;
}

static void sock_close(struct fsock *s)
{
	if (s->open)
		ktest_nl_close(&s->nl);
	s->open = 0;
}

static void note_session(const unsigned char *p, size_t len)
{
	const struct nlattr *a = (const struct nlattr *)p;
	uint32_t id = 0;
	uint64_t token = 0;

	while (len >= NLA_HDRLEN && a->nla_len >= NLA_HDRLEN && a->nla_len <= len) {
		const void *d = (const char *)a + NLA_HDRLEN;

		if (a->nla_type == SKYPROF_A_SESSION_ID && a->nla_len == NLA_HDRLEN + 4)
			memcpy(&id, d, 4);
		if (a->nla_type == SKYPROF_A_SESSION_TOKEN && a->nla_len == NLA_HDRLEN + 8)
			memcpy(&token, d, 8);
		len -= (size_t)NLA_ALIGN(a->nla_len) < len ? (size_t)NLA_ALIGN(a->nla_len) : len;
		a = (const struct nlattr *)((const char *)a + NLA_ALIGN(a->nla_len));
	}
	if (id) {
		starts_ok++;
		sess[nsess < MAXSESS ? nsess++ : rn(MAXSESS)].id = id;
		sess[nsess - 1].token = token;
	}
}

/* Reads what the kernel answered, without blocking for more than a moment. */
static void drain(struct fsock *s, int wait_ms)
{
	static unsigned char buf[BUFSZ];
	struct pollfd pfd = { .fd = s->fd, .events = POLLIN };

	while (poll(&pfd, 1, wait_ms) > 0) {
		ssize_t n = recv(s->fd, buf, sizeof(buf), MSG_DONTWAIT);
		struct nlmsghdr *h;
		int len;

		if (n <= 0)
			return;
		len = (int)n;
		for (h = (struct nlmsghdr *)buf; NLMSG_OK(h, len); h = NLMSG_NEXT(h, len)) {
			replies++;
			if (h->nlmsg_type == NLMSG_ERROR) {
				int e = -((struct nlmsgerr *)NLMSG_DATA(h))->error;

				if (!e)
					acks++;
				else
					errs[e > 0 && e < 139 ? e : 139]++;
				/* The ACK ends one request: take only what is queued already. */
				wait_ms = 0;
				continue;
			}
			if (h->nlmsg_type == family &&
			    h->nlmsg_len >= NLMSG_HDRLEN + GENL_HDRLEN &&
			    ((struct genlmsghdr *)NLMSG_DATA(h))->cmd == SKYPROF_CMD_SESSION_START)
				note_session((unsigned char *)NLMSG_DATA(h) + GENL_HDRLEN,
					     h->nlmsg_len - NLMSG_HDRLEN - GENL_HDRLEN);
		}
	}
}

/* BIND a /dev/skyprof file to a known or made-up session, map a bit, let go. */
static void poke_dev(void)
{
	struct skyprof_bind b = { 0 };
	int fd = open("/dev/skyprof", O_RDWR | O_CLOEXEC);
	void *p;

	if (fd < 0)
		return;
	binds++;
	if (nsess && rn(3)) {
		unsigned int i = rn(nsess);

		b.session_id = sess[i].id;
		b.token = rn(3) ? sess[i].token : sess[i].token ^ (1ULL << rn(64));
	} else {
		b.session_id = pick_id();
		b.token = rnd();
	}
	if (!rn(8))
		b.reserved = val32();
	if (!ioctl(fd, SKYPROF_IOC_BIND, &b)) {
		binds_ok++;
		p = mmap(NULL, 4096, rn(2) ? PROT_READ : PROT_READ | PROT_WRITE, MAP_SHARED, fd,
			 rn(2) ? SKYPROF_MMAP_CTL_PGOFF(0) * 4096UL
			       : SKYPROF_MMAP_DATA_PGOFF(rn(2)) * 4096UL);
		if (p != MAP_FAILED) {
			maps_ok++;
			(void)*(volatile unsigned char *)p;
			munmap(p, 4096);
		}
	}
	close(fd);
}

static int final_check(void)
{
	struct ktest_nl nl;
	uint64_t t0 = now_ns();
	int ok = 0;

	if (ktest_nl_open(&nl)) {
		printf("FAIL: cannot open the family after fuzzing\n");
		return 1;
	}
	for (;;) {
		struct ktest_reply rep;
		struct nl_msg *m = ktest_nl_msg(&nl, SKYPROF_CMD_GET_INFO);
		uint32_t abi = 0, maxs = 0, act = ~0u;
		uint64_t rb = ~0ULL;

		if (!m || ktest_nl_request(&nl, m, &rep)) {
			printf("FAIL: GET_INFO after fuzzing: %d\n", rep.err);
			break;
		}
		if (rep.tb[SKYPROF_A_ABI_VERSION])
			abi = nla_get_u32(rep.tb[SKYPROF_A_ABI_VERSION]);
		if (rep.tb[SKYPROF_A_MAX_SESSIONS])
			maxs = nla_get_u32(rep.tb[SKYPROF_A_MAX_SESSIONS]);
		if (rep.tb[SKYPROF_A_ACTIVE_SESSIONS])
			act = nla_get_u32(rep.tb[SKYPROF_A_ACTIVE_SESSIONS]);
		if (rep.tb[SKYPROF_A_RING_BYTES])
			rb = nla_get_u64(rep.tb[SKYPROF_A_RING_BYTES]);
		ktest_reply_free(&rep);
		if (abi != SKYPROF_ABI_VERSION || maxs != SKYPROF_MAX_SESSIONS) {
			printf("FAIL: GET_INFO after fuzzing: abi=%u max_sessions=%u\n", abi, maxs);
			break;
		}
		if (!act && !rb) {
			printf("info_after: abi=%u max_sessions=%u active=0 ring_bytes=0 "
			       "settled_ms=%.0f\n", abi, maxs, (now_ns() - t0) / 1e6);
			ok = 1;
			break;
		}
		if (now_ns() - t0 > 3000000000ULL) {
			printf("FAIL: leaked after fuzzing: active=%u ring_bytes=%llu\n", act,
			       (unsigned long long)rb);
			break;
		}
		usleep(5000);
	}
	ktest_nl_close(&nl);
	return !ok;
}

int main(int argc, char **argv)
{
	unsigned long long seed = 0, max_msgs = ~0ULL;
	double seconds = 20;
	uint64_t t0, deadline;
	static struct mb m;
	int i, rc;

	setvbuf(stdout, NULL, _IOLBF, 0);
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--seed") && i + 1 < argc)
			seed = strtoull(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--seconds") && i + 1 < argc)
			seconds = atof(argv[++i]);
		else if (!strcmp(argv[i], "--max-msgs") && i + 1 < argc)
			max_msgs = strtoull(argv[++i], NULL, 0);
		else {
			fprintf(stderr,
				"usage: skyprof-genlfuzz [--seed N] [--seconds S] [--max-msgs N]\n");
			return 2;
		}
	}
	if (!seed)
		seed = now_ns() ^ ((uint64_t)getpid() << 32);
	rng = seed ? seed : 1;
	printf("seed=%llu seconds=%g (repeat: skyprof-genlfuzz --seed %llu --seconds %g)\n",
	       seed, seconds, seed, seconds);
	for (i = 0; i < NSOCK; i++) {
		if (sock_open(&socks[i])) {
			printf("FAIL: no skyprof family\n");
			return 1;
		}
	}
	family = socks[0].nl.family;
	t0 = now_ns();
	deadline = t0 + (uint64_t)(seconds * 1e9);
	while (now_ns() < deadline && msgs < max_msgs) {
		struct fsock *s = &socks[rn(NSOCK)];
		ssize_t n;

		if (!s->open && sock_open(s))
			continue;
		if (!rn(40)) {
			/* The owner goes away with whatever it started (NETLINK_URELEASE). */
			sock_close(s);
			owners_closed++;
			continue;
		}
		if (!rn(25)) {
			poke_dev();
			continue;
		}
		build(&m);
		n = send(s->fd, m.b, m.len, 0);
		msgs++;
		if (n < 0 || (size_t)n != m.len)
			short_sends++;
		/* Wait for the ACK if one was asked for; else take what comes. */
		drain(s, m.len >= NLMSG_HDRLEN &&
				 (((struct nlmsghdr *)m.b)->nlmsg_flags & NLM_F_ACK) ? 200 : 1);
	}
	for (i = 0; i < NSOCK; i++) {
		drain(&socks[i], 0);
		sock_close(&socks[i]);
	}
	printf("messages=%llu seconds=%.1f replies=%llu acks=%llu sessions_started=%llu "
	       "owners_closed=%llu dev_opens=%llu binds_ok=%llu maps_ok=%llu send_errors=%llu\n",
	       msgs, (now_ns() - t0) / 1e9, replies, acks, starts_ok, owners_closed, binds,
	       binds_ok, maps_ok, short_sends);
	printf("errnos:");
	for (i = 0; i < 140; i++)
		if (errs[i])
			printf(" %s=%llu", i < 139 ? strerrorname_np(i) ?: "?" : "other", errs[i]);
	printf("\n");
	rc = final_check();
	printf("%s seed=%llu\n", rc ? "FAIL" : "ok", seed);
	return rc;
}
