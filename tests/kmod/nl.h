/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Minimal libnl-genl-3 client of the skyprof family for the in-guest module
 * tests: one request at a time, the errno and the extack message of the
 * answer, attributes parsed without a policy (the tests check them).
 */
#ifndef SKYPROF_TEST_NL_H
#define SKYPROF_TEST_NL_H

#include <stdbool.h>
#include <stdint.h>

#include <netlink/genl/genl.h>
#include <netlink/msg.h>

#include "skyprof.h"

struct ktest_nl {
	struct nl_sock *sk;
	int family;
	int mcgrp;
	bool ext_ack;		/* the kernel has extended acks (4.12+) */
};

/* The answer of one request. */
struct ktest_reply {
	int err;			/* 0 or -errno */
	char ext[256];			/* extack message, "" if none */
	struct nlattr *tb[SKYPROF_A_MAX + 1];
	struct nl_msg *msg;		/* holds tb's memory; NULL if no reply message */
};

int ktest_nl_open(struct ktest_nl *nl);
void ktest_nl_close(struct ktest_nl *nl);
/* Subscribes to the events multicast group (and disables seq checks). */
int ktest_nl_subscribe(struct ktest_nl *nl);

/* A request message for cmd; add attributes, then ktest_nl_request(). */
struct nl_msg *ktest_nl_msg(struct ktest_nl *nl, uint8_t cmd);
/* Sends msg (consumed) and waits for the answer. Returns rep->err. */
int ktest_nl_request(struct ktest_nl *nl, struct nl_msg *msg, struct ktest_reply *rep);
void ktest_reply_free(struct ktest_reply *rep);

/* The nested SKYPROF_A_CPU_STATS of a GET_STATS reply, summed and per CPU. */
struct ktest_cpu_stats {
	uint64_t v[SKYPROF_STAT_MAX + 1];
	/* Session-wide, off-CPU sessions only (in the summed struct). */
	bool has_offcpu;
	uint64_t off_entries, off_used, off_exited;
};
int ktest_get_stats(struct ktest_nl *nl, uint32_t id, struct ktest_cpu_stats *sum,
		    struct ktest_cpu_stats *per_cpu, int max_cpus);

/* Waits up to timeout_ms for an event; returns 1 and fills the outputs, 0 on timeout. */
int ktest_nl_wait_event(struct ktest_nl *nl, int timeout_ms, uint32_t *event, uint32_t *id,
			uint32_t *reason, uint32_t *cpu);

#endif
