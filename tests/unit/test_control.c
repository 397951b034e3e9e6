// SPDX-License-Identifier: GPL-2.0
/*
 * The parts of the control channel that run without a module: the extended
 * ACK parser (its input comes from the kernel, and a wrong offset would read
 * past the message) and the name tables.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <linux/netlink.h>

#include <skyprof.h>

#include "capture/control.h"

/*
 * An NLMSG_ERROR as the kernel sends it: header, nlmsgerr (with the request
 * header, or the whole request unless capped), then TLVs. Returns a malloc'ed
 * message of exactly its nlmsg_len, so ASan sees any overread.
 */
static struct nlmsghdr *error_msg(int capped, size_t req_payload, const char *text, size_t text_len,
				  uint32_t lie_len)
{
	size_t req = capped ? 0 : req_payload;
	size_t tlv = text ? NLA_HDRLEN + NLA_ALIGN(text_len) : 0;
	size_t len = NLMSG_HDRLEN + sizeof(struct nlmsgerr) + NLMSG_ALIGN(req) + tlv;
	struct nlmsghdr *h = calloc(1, len);
	struct nlmsgerr *e;
	struct nlattr *a;

	assert_non_null(h);
	h->nlmsg_len = (uint32_t)len;
	h->nlmsg_type = NLMSG_ERROR;
	h->nlmsg_flags = (capped ? NLM_F_CAPPED : 0) | (text ? NLM_F_ACK_TLVS : 0);
	e = NLMSG_DATA(h);
	e->error = -22;
	e->msg.nlmsg_len = lie_len ? lie_len : (uint32_t)(NLMSG_HDRLEN + req_payload);
	if (text) {
		a = (struct nlattr *)(void *)((char *)e + sizeof(*e) + NLMSG_ALIGN(req));
		a->nla_type = NLMSGERR_ATTR_MSG;
		a->nla_len = (uint16_t)(NLA_HDRLEN + text_len);
		memcpy((char *)a + NLA_HDRLEN, text, text_len);
	}
	return h;
}

static void extack_capped(void **state)
{
	struct nlmsghdr *h = error_msg(1, 64, "frequency above maximum", 24, 0);
	char buf[128];

	(void)state;
	control_extack_message(h, buf, sizeof(buf));
	assert_string_equal(buf, "frequency above maximum");
	free(h);
}

static void extack_with_request_echoed(void **state)
{
	struct nlmsghdr *h = error_msg(0, 40, "no such cgroup", 15, 0);
	char buf[128];

	(void)state;
	control_extack_message(h, buf, sizeof(buf));
	assert_string_equal(buf, "no such cgroup");
	free(h);
}

static void extack_truncated_into_buffer(void **state)
{
	struct nlmsghdr *h = error_msg(1, 0, "a rather long message", 22, 0);
	char buf[8];

	(void)state;
	control_extack_message(h, buf, sizeof(buf));
	assert_string_equal(buf, "a rathe");
	free(h);
}

static void extack_without_nul(void **state)
{
	struct nlmsghdr *h = error_msg(1, 0, "abcd", 4, 0);
	char buf[64];

	(void)state;
	control_extack_message(h, buf, sizeof(buf));
	assert_string_equal(buf, "abcd");
	free(h);
}

static void extack_absent(void **state)
{
	struct nlmsghdr *h = error_msg(1, 0, NULL, 0, 0);
	char buf[64] = "junk";

	(void)state;
	control_extack_message(h, buf, sizeof(buf));
	assert_string_equal(buf, "");
	free(h);
}

/* The echoed request claims to be longer than the whole message. */
static void extack_hostile_lengths(void **state)
{
	struct nlmsghdr *h = error_msg(0, 16, "x", 2, 0x7fffffff);
	char buf[64];

	(void)state;
	control_extack_message(h, buf, sizeof(buf));
	assert_string_equal(buf, "");
	/* A message too short for its nlmsgerr. */
	h->nlmsg_len = NLMSG_HDRLEN + 4;
	control_extack_message(h, buf, sizeof(buf));
	assert_string_equal(buf, "");
	free(h);
	/* An attribute longer than what is left. */
	h = error_msg(1, 0, "hello", 6, 0);
	h->nlmsg_len -= 4;
	control_extack_message(h, buf, sizeof(buf));
	assert_string_equal(buf, "");
	free(h);
}

static void names(void **state)
{
	char buf[128];

	(void)state;
	assert_string_equal(control_clock_name(SKYPROF_CLOCK_HRTIMER), "hrtimer");
	assert_string_equal(control_clock_name(99), "?");
	assert_string_equal(control_end_reason_name(SKYPROF_END_OWNER_CLOSED), "owner closed");
	assert_string_equal(control_caps_string(0, buf, sizeof(buf)), "none");
	assert_string_equal(
		control_caps_string(SKYPROF_CAP_PERF_SW | SKYPROF_CAP_CGROUP, buf, sizeof(buf)),
		"perf-sw,cgroup");
	assert_string_equal(
		control_caps_string(SKYPROF_CAP_SIDEBAND | SKYPROF_CAP_FOLLOW, buf, sizeof(buf)),
		"sideband,follow");
	/* Too small a buffer: whole names only, never a torn one. */
	assert_string_equal(control_caps_string(SKYPROF_CAP_PERF_HW | SKYPROF_CAP_PERF_SW, buf, 12),
			    "perf-hw");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(extack_capped),
		cmocka_unit_test(extack_with_request_echoed),
		cmocka_unit_test(extack_truncated_into_buffer),
		cmocka_unit_test(extack_without_nul),
		cmocka_unit_test(extack_absent),
		cmocka_unit_test(extack_hostile_lengths),
		cmocka_unit_test(names),
	};

	return cmocka_run_group_tests_name("control", tests, NULL, NULL);
}
