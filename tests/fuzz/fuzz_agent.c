// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer harness for what the agent reads from the network and from its
 * config file. The first byte picks the parser:
 *  0: the gRPC response reader (grpc_reader_feed), the rest split into
 *     chunks at the bytes' own values, then grpc-status / grpc-message;
 *  1: a Commands message as queryTasks returns it, each command through
 *     task_parse_command;
 *  2: an EBPFReportProcessDownstream, walked as the registration does;
 *  3: the config loader (YAML text with ${ENV:default} and templates).
 *
 * Build and run: tests/fuzz/run-agent (clang -fsanitize=fuzzer,address,undefined).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "agent_log.h"
#include "agent_task.h"
#include "config_agent.h"
#include "grpc_frame.h"
#include "sw_command.pb-c.h"
#include "sw_ebpf_process.pb-c.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void frames(const uint8_t *d, size_t n)
{
	struct grpc_reader r;
	char msg[64];
	size_t off = 0;

	grpc_reader_init(&r);
	while (off < n) {
		size_t chunk = 1 + d[off] % 17;

		if (chunk > n - off)
			chunk = n - off;
		grpc_reader_feed(&r, d + off, chunk);
		off += chunk;
	}
	grpc_reader_complete(&r);
	grpc_reader_free(&r);
	grpc_parse_status((const char *)d, n < 4 ? n : 4);
	grpc_decode_message((const char *)d, n, msg, sizeof(msg));
}

static void commands(const uint8_t *d, size_t n)
{
	Skywalking__V3__Commands *c = skywalking__v3__commands__unpack(NULL, n, d);

	if (!c)
		return;
	for (size_t i = 0; i < c->n_commands; i++) {
		struct task_spec t;
		char err[256];

		if (!task_parse_command(c->commands[i], &t, err, sizeof(err)))
			task_end_ms(&t);
	}
	skywalking__v3__commands__free_unpacked(c, NULL);
}

static volatile size_t sink;

static void downstream(const uint8_t *d, size_t n)
{
	Skywalking__V3__EBPFReportProcessDownstream *r =
		skywalking__v3__ebpfreport_process_downstream__unpack(NULL, n, d);
	if (!r)
		return;
	for (size_t i = 0; i < r->n_processes; i++) {
		Skywalking__V3__EBPFProcessDownstream *p = r->processes[i];

		if (p &&
		    p->process_case ==
			    SKYWALKING__V3__EBPFPROCESS_DOWNSTREAM__PROCESS_HOST_PROCESS &&
		    p->hostprocess && p->hostprocess->entitymetadata)
			sink += strlen(p->processid) + p->hostprocess->entitymetadata->n_labels;
	}
	skywalking__v3__ebpfreport_process_downstream__free_unpacked(r, NULL);
}

static void config(const uint8_t *d, size_t n)
{
	struct agent_config c;
	char err[512];

	config_load_string(&c, (const char *)d, n, err, sizeof(err));
	config_free(&c);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	log_set_level(LOG_LVL_ERROR);
	if (!size)
		return 0;
	switch (data[0] % 4) {
	case 0:
		frames(data + 1, size - 1);
		break;
	case 1:
		commands(data + 1, size - 1);
		break;
	case 2:
		downstream(data + 1, size - 1);
		break;
	case 3:
		config(data + 1, size - 1);
		break;
	}
	return 0;
}
