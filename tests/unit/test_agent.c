// SPDX-License-Identifier: GPL-2.0
/*
 * The agent's pure parts: the OAP's process id, task commands (malformed
 * ones included) and rover's task rules, name templates, the bounded upload
 * queue, backoff, /proc parsing, and the upload messages built from a view
 * (merged, leaf first, deltas, task metadata first).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "agent/entity.h"
#include "agent/flush.h"
#include "agent/log.h"
#include "agent/oap/oap.h"
#include "agent/oap/rpc.h"
#include "agent/procs.h"
#include "agent/queue.h"
#include "agent/task.h"
#include "agent/template.h"
#include "agent/upload.h"
#include "agent/config.h"
#include "grpc/call.h"
#include "grpc/conn.h"
#include "grpc/frame.h"
#include "sw_command.pb-c.h"
#include "sw_ebpf_profiling.pb-c.h"
#include "profile/view.h"

static void process_id_formula(void **state)
{
	char id[ENTITY_ID_LEN + 1], buf[256];
	char longname[100];

	(void)state;
	/* the protocol notes' worked example */
	assert_string_equal(entity_service_id("demo-svc", buf, sizeof(buf)), "ZGVtby1zdmM=.1");
	assert_string_equal(entity_instance_id("demo-svc", "10.0.0.5", buf, sizeof(buf)),
			    "ZGVtby1zdmM=.1_MTAuMC4wLjU=");
	assert_string_equal(entity_process_id("demo-svc", "10.0.0.5", "myapp", id),
			    "450cb2c30630face26a5a47219aae1a3a00d2fca5f4741ae536b7b41cb8a08d0");
	/* blank names are "_blank" */
	assert_string_equal(entity_service_id("", buf, sizeof(buf)), "X2JsYW5r.1");
	/* service names are cut to 70 chars */
	memset(longname, 'a', 99);
	longname[99] = 0;
	entity_process_id(longname, "i", "p", id);
	longname[70] = 0;
	entity_process_id(longname, "i", "p", buf);
	assert_string_equal(id, buf);
}

/* A Command from key/value pairs; NULL value: the key is left out. */
static Skywalking__V3__Command *command(const char *name, const char *const *kv)
{
	static Skywalking__V3__Command c;
	static Skywalking__V3__KeyStringValuePair p[16], *pp[16];
	size_t n = 0;

	skywalking__v3__command__init(&c);
	c.command = (char *)name;
	for (size_t i = 0; kv[i]; i += 2) {
		if (!kv[i + 1])
			continue;
		skywalking__v3__key_string_value_pair__init(&p[n]);
		p[n].key = (char *)kv[i];
		p[n].value = (char *)kv[i + 1];
		pp[n] = &p[n];
		n++;
	}
	c.n_args = n;
	c.args = pp;
	return &c;
}

static void task_commands(void **state)
{
	const char *good[] = { "SerialNumber",
			       "x",
			       "TaskId",
			       "abc",
			       "ProcessId",
			       "p1",
			       "TaskUpdateTime",
			       "1700000000123",
			       "TriggerType",
			       "FIXED_TIME",
			       "TargetType",
			       "OFF_CPU",
			       "TaskStartTime",
			       "1700000000000",
			       "ExtensionConfigJSON",
			       "null",
			       "FixedTriggerDuration",
			       "60",
			       NULL };
	struct task_spec t;
	char err[256];

	(void)state;
	assert_int_equal(task_parse_command(command(TASK_COMMAND_NAME, good), &t, err, sizeof(err)),
			 0);
	assert_string_equal(t.task_id, "abc");
	assert_string_equal(t.process_id, "p1");
	assert_int_equal(t.target, AGENT_TARGET_OFF_CPU);
	assert_int_equal(t.start_ms, 1700000000000ull);
	assert_int_equal(t.update_ms, 1700000000123ull);
	assert_int_equal(t.duration_s, 60);
	assert_int_equal(task_end_ms(&t), 1700000060000ull);
	assert_int_equal(task_parse_command(command("ContinuousProfilingPolicyQuery", good), &t,
					    err, sizeof(err)),
			 -ENOENT);

	/* each malformed variant: rejected with a reason naming the argument */
	static const struct {
		const char *key, *value, *why;
	} bad[] = {
		{ "TaskId", NULL, "TaskId" },
		{ "ProcessId", NULL, "ProcessId" },
		{ "TaskUpdateTime", NULL, "TaskUpdateTime" },
		{ "TriggerType", NULL, "TriggerType" },
		{ "TargetType", NULL, "TargetType" },
		{ "TaskStartTime", NULL, "TaskStartTime" },
		{ "ExtensionConfigJSON", NULL, "ExtensionConfigJSON" },
		{ "FixedTriggerDuration", NULL, "FixedTriggerDuration" },
		{ "TaskId", "", "TaskId" },
		{ "TargetType", "NETWORK", "NETWORK" },
		{ "TargetType", "on_cpu", "TargetType" },
		{ "TriggerType", "CONTINUOUS_PROFILING", "TriggerType" },
		{ "ProcessId", "a,b", "exactly one" },
		{ "ProcessId", "", "exactly one" },
		{ "TaskStartTime", "-5", "TaskStartTime" },
		{ "TaskStartTime", "12abc", "TaskStartTime" },
		{ "TaskStartTime", "99999999999999999999999", "TaskStartTime" },
		{ "TaskUpdateTime", " 1", "TaskUpdateTime" },
		{ "FixedTriggerDuration", "0", "FixedTriggerDuration" },
		{ "FixedTriggerDuration", "1e3", "FixedTriggerDuration" },
		{ "FixedTriggerDuration", "9999999", "FixedTriggerDuration" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		const char *kv[sizeof(good) / sizeof(good[0])];

		memcpy(kv, good, sizeof(good));
		for (size_t k = 0; kv[k]; k += 2)
			if (!strcmp(kv[k], bad[i].key))
				kv[k + 1] = bad[i].value;
		err[0] = 0;
		if (task_parse_command(command(TASK_COMMAND_NAME, kv), &t, err, sizeof(err)) !=
			    -EINVAL ||
		    !strstr(err, bad[i].why))
			fail_msg("case %zu (%s=%s): '%s'", i, bad[i].key,
				 bad[i].value ? bad[i].value : "(missing)", err);
	}
	assert_int_equal(task_parse_command(NULL, &t, err, sizeof(err)), -ENOENT);
}

static void task_rules(void **state)
{
	struct task_spec a = { .task_id = "t1",
			       .process_id = "p",
			       .target = AGENT_TARGET_ON_CPU,
			       .start_ms = 1000000,
			       .duration_s = 60 };
	struct task_spec b = a;

	(void)state;
	assert_int_equal(task_decide(NULL, &a, 1000000 + 60000), TASK_NEW);
	assert_int_equal(task_decide(NULL, &a, 1000000 + 60001), TASK_EXPIRED);
	assert_int_equal(task_decide(NULL, &a, 5), TASK_NEW); /* future: held until start */
	b.duration_s = 120;
	assert_int_equal(task_decide(&a, &b, 1000000), TASK_EXTEND);
	snprintf(b.task_id, sizeof(b.task_id), "t2");
	assert_true(task_same_key(&a, &b));
	assert_int_equal(task_decide(&a, &b, 1000000), TASK_REPLACE);
	b.target = AGENT_TARGET_OFF_CPU;
	assert_false(task_same_key(&a, &b));
	b = a;
	snprintf(b.process_id, sizeof(b.process_id), "q");
	assert_false(task_same_key(&a, &b));
	b = a;
	b.start_ms++;
	assert_int_equal(task_decide(&a, &b, 1000000), TASK_REPLACE);
}

static void fake_ip(void *arg, int family, const char *iface, char *out, size_t outlen)
{
	(void)arg;
	snprintf(out, outlen, "%s/%s", family == AF_INET ? "v4" : "v6", iface);
}

static void templates(void **state)
{
	struct template_process p = { .pid = 42,
				      .exe_path = "/usr/bin/app",
				      .exe_name = "app",
				      .cmdline = "app --x",
				      .workdir = "/srv" };
	struct template_host h = { .hostname = "box", .instance_id = "uuid", .ip = fake_ip };
	char out[128], err[128];

	(void)state;
	assert_int_equal(
		template_expand("{{.Process.ExeName}}-{{ .Process.Pid }}@{{.Rover.HostName}}", &p,
				&h, out, sizeof(out), err, sizeof(err)),
		0);
	assert_string_equal(out, "app-42@box");
	assert_int_equal(template_expand("{{.Rover.HostIPV4 \"eth0\"}} {{.Rover.HostIPV6 \"lo\"}}",
					 &p, &h, out, sizeof(out), err, sizeof(err)),
			 0);
	assert_string_equal(out, "v4/eth0 v6/lo");
	assert_int_equal(
		template_expand(
			"{{.Process.Command}}|{{.Process.CommandLine}}|"
			"{{.Process.ExeFilePath}}|{{.Process.WorkDir}}|{{.Rover.InstanceID}}",
			&p, &h, out, sizeof(out), err, sizeof(err)),
		0);
	assert_string_equal(out, "app --x|app --x|/usr/bin/app|/srv|uuid");
	assert_int_equal(template_expand("plain", &p, &h, out, sizeof(out), err, sizeof(err)), 0);
	assert_string_equal(out, "plain");
	assert_int_equal(
		template_expand("{{.Process.ExeName}}xxxxxxxx", &p, &h, out, 6, err, sizeof(err)),
		0);
	assert_string_equal(out, "appxx");
	assert_int_equal(template_check("{{.Process.Nope}}", err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, ".Process.Nope"));
	assert_int_equal(template_check("{{.Process.ExeName", err, sizeof(err)), -EINVAL);
	assert_int_equal(template_check("{{.Rover.HostIPV4}}", err, sizeof(err)), -EINVAL);
	assert_int_equal(template_check("{{.Rover.HostIPV4 en0}}", err, sizeof(err)), -EINVAL);
	assert_int_equal(template_check("{{.Rover.HostName \"x\"}}", err, sizeof(err)), -EINVAL);
	assert_int_equal(template_check("{{.Rover.HostIPV4 \"en0\" x}}", err, sizeof(err)),
			 -EINVAL);
	assert_int_equal(
		template_expand("{{.Process.Pid}}", NULL, &h, out, sizeof(out), err, sizeof(err)),
		-EINVAL);
}

static struct upload_batch *batch_of(size_t bytes, uint64_t units)
{
	struct upload_batch *b = batch_new("/x", "t");
	uint8_t *m = calloc(1, bytes);

	assert_non_null(b);
	assert_int_equal(batch_add(b, m, bytes), 0);
	b->units = units;
	return b;
}

static void queue_bounds(void **state)
{
	struct upload_queue q;
	struct upload_stats st;
	struct upload_batch *b, *b1;
	size_t pend, pbytes, one;

	(void)state;
	b = batch_of(1000, 1);
	one = b->bytes;
	batch_free(b);
	queue_init(&q, one * 3);
	assert_int_equal(queue_push(&q, batch_of(1000, 1)), 0);
	assert_int_equal(queue_push(&q, batch_of(1000, 2)), 0);
	assert_int_equal(queue_push(&q, batch_of(1000, 3)), 0);
	/* the fourth drops the oldest */
	assert_int_equal(queue_push(&q, batch_of(1000, 4)), 1);
	queue_get_stats(&q, &st, &pend, &pbytes);
	assert_int_equal(pend, 3);
	assert_int_equal(st.dropped_batches, 1);
	assert_int_equal(st.dropped_units, 1);
	assert_true(pbytes <= one * 3);
	/* a batch larger than the whole limit is dropped itself */
	assert_int_equal(queue_push(&q, batch_of(one * 4, 100)), 1);
	queue_get_stats(&q, &st, &pend, NULL);
	assert_int_equal(st.dropped_units, 101);
	assert_int_equal(pend, 3);
	/* order is kept; a failed send goes back in front */
	b1 = queue_pop(&q, 0);
	assert_int_equal(b1->units, 2);
	queue_return(&q, b1);
	b1 = queue_pop(&q, 0);
	assert_int_equal(b1->units, 2);
	assert_int_equal(b1->attempts, 1);
	queue_sent(&q, b1);
	/* a returned batch that no longer fits is counted as dropped */
	b1 = queue_pop(&q, 0);
	assert_int_equal(b1->units, 3);
	assert_int_equal(queue_push(&q, batch_of(1000, 5)), 0);
	assert_int_equal(queue_push(&q, batch_of(1000, 6)), 0);
	queue_return(&q, b1);
	queue_get_stats(&q, &st, &pend, NULL);
	assert_int_equal(st.sent_units, 2);
	assert_int_equal(st.dropped_units, 104);
	assert_int_equal(pend, 3);
	queue_destroy(&q);
}

static void backoff_grows_with_jitter(void **state)
{
	(void)state;
	assert_int_equal(rpc_backoff_ms(1, 60000, 0.5), 1000);
	assert_int_equal(rpc_backoff_ms(2, 60000, 0.5), 2000);
	assert_int_equal(rpc_backoff_ms(5, 60000, 0.5), 16000);
	assert_int_equal(rpc_backoff_ms(30, 60000, 0.5), 60000);
	assert_int_equal(rpc_backoff_ms(1, 60000, 0.0), 800);
	assert_true(rpc_backoff_ms(1, 60000, 0.999) < 1200);
	assert_int_equal(rpc_backoff_ms(10, 2000, 0.5), 2000);
}

/*
 * Which failed uploads may go again whole. Our own RESOURCE_EXHAUSTED (the
 * OAP read the stream and answered with a message over our limit) was taken
 * for the OAP's refusal-before-reading and the batch was sent twice.
 */
static void upload_resend_rule(void **state)
{
	struct grpc_result r = { .code = GRPC_RESOURCE_EXHAUSTED, .msgs_sent = 3 };

	(void)state;
	assert_true(rpc_nothing_stored(0, &r)); /* the OAP's memory watermark */
	r.local = true;
	assert_false(rpc_nothing_stored(0, &r)); /* our refusal of its answer */
	r = (struct grpc_result){ .code = GRPC_PERMISSION_DENIED, .msgs_sent = 2 };
	assert_true(rpc_nothing_stored(0, &r));
	r = (struct grpc_result){ .code = GRPC_DEADLINE_EXCEEDED, .msgs_sent = 2, .local = true };
	assert_false(rpc_nothing_stored(0, &r));
	r = (struct grpc_result){ .code = GRPC_INTERNAL, .msgs_sent = 2 };
	assert_false(rpc_nothing_stored(0, &r));
	assert_false(rpc_nothing_stored(-ECONNRESET, &r));
	r.msgs_sent = 0;
	assert_true(rpc_nothing_stored(-ECONNRESET, &r));
}

static void proc_helpers(void **state)
{
	char *s;

	(void)state;
	s = procs_cmdline_from("a\0b c\0d\0", 8);
	assert_string_equal(s, "a b c d");
	free(s);
	s = procs_cmdline_from("x\0\0\0", 4);
	assert_string_equal(s, "x");
	free(s);
	s = procs_cmdline_from("abc", 3);
	assert_string_equal(s, "abc");
	free(s);
	assert_true(procs_exe_name_supported("java"));
	assert_true(procs_exe_name_supported("node"));
	assert_true(procs_exe_name_supported("python3.11"));
	assert_false(procs_exe_name_supported("bash"));
	assert_false(procs_exe_name_supported("ruby"));
	assert_true(procs_exe_name_supported("nginx"));
	/* field 22, counted after the last ')': not vsize (23), which moves as
	 * the process allocates and made a growing process look new each scan */
	assert_int_equal(procs_start_time_from("42 (a) b) c) S 1 42 42 0 -1 4194304 10 0 0 0 7 3 0 "
					       "0 20 0 5 0 98765 2535424 303 18446744073709551615"),
			 98765);
	assert_int_equal(procs_start_time_from("garbage"), 0);
	assert_string_equal(upload_symbol_name("[unknown] libx.so+0x12"), "[MISSING]");
	assert_string_equal(upload_symbol_name(""), "[MISSING]");
	assert_string_equal(upload_symbol_name(".L_local"), "L_local");
	assert_string_equal(upload_symbol_name("$x"), "x");
	assert_string_equal(upload_symbol_name("main"), "main");
}

/* A view by hand: functions f0..f3, locations: 0 kernel(f0), 1 user(f1 inlined in f2), 2 user(f3).
 */
static void make_view(struct view *v, bool offcpu)
{
	struct profile_meta meta = { .kind = offcpu ? PROFILE_OFFCPU : PROFILE_ONCPU };
	const char *names[] = { "do_syscall_64", "leaf_inlined", "caller", "main" };

	assert_int_equal(view_init(v, &meta), 0);
	for (int i = 0; i < 4; i++) {
		struct view_function f = { .name = (uint32_t)strtab_intern(&v->strs, names[i]) };

		assert_true(view_add_function(v, &f) >= 0);
	}
	assert_true(view_add_line(v, &(struct view_line){ .function = 0 }) >= 0);
	assert_true(view_add_line(v, &(struct view_line){ .function = 1 }) >= 0);
	assert_true(view_add_line(v, &(struct view_line){ .function = 2 }) >= 0);
	assert_true(view_add_line(v, &(struct view_line){ .function = 3 }) >= 0);
	assert_true(view_add_location(v, &(struct view_location){ .first_line = 0,
								  .nr_lines = 1,
								  .kernel = true }) >= 0);
	assert_true(view_add_location(
			    v, &(struct view_location){ .first_line = 1, .nr_lines = 2 }) >= 0);
	assert_true(view_add_location(
			    v, &(struct view_location){ .first_line = 3, .nr_lines = 1 }) >= 0);
}

static void add_sample(struct view *v, uint32_t pid, uint32_t tid, uint64_t count, uint64_t weight,
		       bool with_kernel)
{
	static const uint32_t locs_k[] = { 0, 1, 2 }, locs_u[] = { 1, 2 };
	struct view_sample s = { .pid = pid,
				 .tid = tid,
				 .count = count,
				 .weight = weight,
				 .nr_locs = with_kernel ? 3 : 2 };

	assert_true(view_add_sample(v, &s, with_kernel ? locs_k : locs_u) >= 0);
}

static Skywalking__V3__EBPFProfilingData *msg(struct upload_batch *b, size_t i)
{
	Skywalking__V3__EBPFProfilingData *d =
		skywalking__v3__ebpfprofiling_data__unpack(NULL, b->lens[i], b->msgs[i]);

	assert_non_null(d);
	return d;
}

static void upload_messages(void **state)
{
	struct upload_task_meta m = {
		.task_id = "T", .process_id = "P", .profiling_start_ms = 1000, .current_ms = 2000
	};
	struct delta_table *t = upload_deltas_new();
	struct upload_totals tot;
	struct upload_batch *b;
	struct view v;
	Skywalking__V3__EBPFProfilingData *d;
	uint64_t sum = 0;

	(void)state;
	make_view(&v, false);
	/* two threads with the same stack: one message; another pid: not ours */
	add_sample(&v, 7, 7, 10, 10, true);
	add_sample(&v, 7, 8, 5, 5, true);
	add_sample(&v, 7, 7, 3, 3, false);
	add_sample(&v, 9, 9, 100, 100, true);
	b = batch_new(UPLOAD_PATH_PROFILING, "t");
	assert_int_equal(upload_collect(t, &v, 7, &m, b, &tot), 0);
	assert_int_equal(b->n, 2);
	assert_int_equal(tot.count, 18);
	for (size_t i = 0; i < b->n; i++) {
		d = msg(b, i);
		/* the task metadata on the first message only */
		if (i == 0) {
			assert_non_null(d->task);
			assert_string_equal(d->task->taskid, "T");
			assert_string_equal(d->task->processid, "P");
			assert_int_equal(d->task->profilingstarttime, 1000);
			assert_int_equal(d->task->currenttime, 2000);
		} else {
			assert_null(d->task);
		}
		assert_int_equal(d->profiling_case,
				 SKYWALKING__V3__EBPFPROFILING_DATA__PROFILING_ON_CPU);
		sum += (uint64_t)d->oncpu->dumpcount;
		for (size_t s = 0; s < d->oncpu->n_stacks; s++) {
			Skywalking__V3__EBPFProfilingStackMetadata *st = d->oncpu->stacks[s];

			if (st->stacktype ==
			    SKYWALKING__V3__EBPFPROFILING_STACK_TYPE__PROCESS_KERNEL_SPACE) {
				assert_int_equal(st->n_stacksymbols, 1);
				assert_string_equal(st->stacksymbols[0], "do_syscall_64");
			} else {
				/* leaf first, the inlined callee before its caller */
				assert_int_equal(st->n_stacksymbols, 3);
				assert_string_equal(st->stacksymbols[0], "leaf_inlined");
				assert_string_equal(st->stacksymbols[1], "caller");
				assert_string_equal(st->stacksymbols[2], "main");
			}
		}
		assert_true(d->oncpu->n_stacks == 1 || d->oncpu->n_stacks == 2);
		if (d->oncpu->n_stacks == 2)
			assert_int_equal(d->oncpu->dumpcount, 15);
		skywalking__v3__ebpfprofiling_data__free_unpacked(d, NULL);
	}
	assert_int_equal(sum, 18);
	batch_free(b);

	/* nothing new: nothing sent */
	b = batch_new(UPLOAD_PATH_PROFILING, "t");
	assert_int_equal(upload_collect(t, &v, 7, &m, b, &tot), 0);
	assert_int_equal(b->n, 0);
	batch_free(b);

	/* counts grow (the view's are cumulative): the delta only */
	v.samples[1].count += 4;
	b = batch_new(UPLOAD_PATH_PROFILING, "t");
	assert_int_equal(upload_collect(t, &v, 7, &m, b, &tot), 0);
	assert_int_equal(b->n, 1);
	d = msg(b, 0);
	assert_non_null(d->task); /* first message of this batch */
	assert_int_equal(d->oncpu->dumpcount, 4);
	skywalking__v3__ebpfprofiling_data__free_unpacked(d, NULL);
	batch_free(b);
	upload_deltas_free(t);
	view_free(&v);
}

/*
 * A sample whose symbols change between flushes (a JIT frame the view named
 * once the JIT wrote its perf map): what it gained since goes under the new
 * name, and nothing already sent under the old one is sent again.
 */
static void upload_renamed_sample(void **state)
{
	struct upload_task_meta m = { .task_id = "T", .process_id = "P" };
	struct delta_table *t = upload_deltas_new();
	struct view_function jit = { 0 };
	struct upload_totals tot;
	struct upload_batch *b;
	struct view v;
	Skywalking__V3__EBPFProfilingData *d;
	int64_t fn;

	(void)state;
	make_view(&v, false);
	add_sample(&v, 7, 7, 10, 10, false); /* user: leaf_inlined, caller, main */
	b = batch_new(UPLOAD_PATH_PROFILING, "t");
	assert_int_equal(upload_collect(t, &v, 7, &m, b, &tot), 0);
	assert_int_equal(tot.count, 10);
	batch_free(b);
	/* location 2 (main) is named anew, and the sample gains 4 */
	jit.name = (uint32_t)strtab_intern(&v.strs, "LHot;::hotA");
	fn = view_add_function(&v, &jit);
	assert_true(fn >= 0);
	v.lines[3].function = (uint32_t)fn;
	v.samples[0].count += 4;
	v.samples[0].weight += 4;
	b = batch_new(UPLOAD_PATH_PROFILING, "t");
	assert_int_equal(upload_collect(t, &v, 7, &m, b, &tot), 0);
	assert_int_equal(b->n, 1);
	assert_int_equal(tot.count, 4);
	d = msg(b, 0);
	assert_int_equal(d->oncpu->dumpcount, 4);
	assert_int_equal(d->oncpu->n_stacks, 1);
	assert_int_equal(d->oncpu->stacks[0]->n_stacksymbols, 3);
	assert_string_equal(d->oncpu->stacks[0]->stacksymbols[2], "LHot;::hotA");
	/* another stack than the one sent under the old name */
	assert_int_not_equal(d->oncpu->stacks[0]->stackid, 1);
	skywalking__v3__ebpfprofiling_data__free_unpacked(d, NULL);
	batch_free(b);
	/* nothing new: nothing sent, under either name */
	b = batch_new(UPLOAD_PATH_PROFILING, "t");
	assert_int_equal(upload_collect(t, &v, 7, &m, b, &tot), 0);
	assert_int_equal(b->n, 0);
	batch_free(b);
	upload_deltas_free(t);
	view_free(&v);
}

/* Many stacks, user-only and with a kernel frame: every message of a task
 * has its own stackId pair (the OAP keys its records on "kernelId_userId"
 * and the upload time, so two stacks sharing a pair overwrite each other),
 * and a stack keeps its ids across flushes. So many that a 31-bit hash of
 * the frames (the ids before) repeats among them. */
#define UNIQ_STACKS 150000

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* (kernel id, user id) of each message, at the index of its user function
 * fN (the messages come in the table's order); 0 for a missing stack. */
static void stack_ids(struct upload_batch *b, uint64_t *pairs, size_t max)
{
	for (size_t i = 0; i < b->n; i++) {
		Skywalking__V3__EBPFProfilingData *d = msg(b, i);
		uint64_t k = 0, u = 0;
		unsigned long n = max;

		for (size_t s = 0; s < d->oncpu->n_stacks; s++) {
			Skywalking__V3__EBPFProfilingStackMetadata *st = d->oncpu->stacks[s];

			assert_true(st->stackid > 0);
			if (st->stacktype ==
			    SKYWALKING__V3__EBPFPROFILING_STACK_TYPE__PROCESS_KERNEL_SPACE) {
				k = (uint32_t)st->stackid;
			} else {
				u = (uint32_t)st->stackid;
				assert_int_equal(st->n_stacksymbols, 1);
				n = strtoul(st->stacksymbols[0] + 1, NULL, 10);
			}
		}
		assert_true(n < max);
		assert_int_equal(pairs[n], 0); /* one message per stack */
		pairs[n] = k << 32 | u;
		skywalking__v3__ebpfprofiling_data__free_unpacked(d, NULL);
	}
}

static void assert_unique(const uint64_t *pairs, size_t n)
{
	uint64_t *s = malloc(n * sizeof(*s));

	assert_non_null(s);
	memcpy(s, pairs, n * sizeof(*s));
	qsort(s, n, sizeof(*s), cmp_u64);
	for (size_t i = 1; i < n; i++)
		if (s[i] == s[i - 1])
			fail_msg("two stacks share the stackIds %u_%u", (unsigned)(s[i] >> 32),
				 (unsigned)s[i]);
	free(s);
}

static void upload_unique_stack_ids(void **state)
{
	struct upload_task_meta m = {
		.task_id = "T", .process_id = "P", .profiling_start_ms = 1000, .current_ms = 2000
	};
	struct profile_meta meta = { .kind = PROFILE_ONCPU };
	struct delta_table *t = upload_deltas_new();
	uint64_t *first = calloc(UNIQ_STACKS + 1, sizeof(*first));
	uint64_t *again = calloc(UNIQ_STACKS + 1, sizeof(*again));
	struct upload_totals tot;
	struct upload_batch *b;
	struct view v;
	char name[32];
	int k;

	(void)state;
	assert_non_null(first);
	assert_non_null(again);
	assert_int_equal(view_init(&v, &meta), 0);
	/* location 0: a kernel frame; location i + 1: user function fi */
	k = view_add_function(&v, &(struct view_function){ .name = (uint32_t)strtab_intern(
								   &v.strs, "do_syscall_64") });
	assert_true(k >= 0);
	assert_true(view_add_line(&v, &(struct view_line){ .function = (uint32_t)k }) >= 0);
	assert_true(view_add_location(&v, &(struct view_location){ .first_line = 0,
								   .nr_lines = 1,
								   .kernel = true }) >= 0);
	for (uint32_t i = 0; i <= UNIQ_STACKS; i++) {
		int f, l;

		/* A scrambled suffix: names that differ only in a counter
		 * never collide in FNV's low bits; these collide four times
		 * in the old hashed ids. */
		snprintf(name, sizeof(name), "f%u_%x", i, (uint32_t)(i * 2654435761u));
		f = view_add_function(&v, &(struct view_function){
						  .name = (uint32_t)strtab_intern(&v.strs, name) });
		assert_true(f >= 0);
		l = view_add_line(&v, &(struct view_line){ .function = (uint32_t)f });
		assert_true(l >= 0);
		assert_true(
			view_add_location(&v, &(struct view_location){ .first_line = (uint32_t)l,
								       .nr_lines = 1 }) >= 0);
	}
	for (uint32_t i = 0; i < UNIQ_STACKS; i++) {
		uint32_t locs[2] = { 0, i + 1 };
		bool kern = i % 2;
		struct view_sample s = { .pid = 7, .tid = 7, .count = 1, .nr_locs = kern ? 2 : 1 };

		assert_true(view_add_sample(&v, &s, kern ? locs : locs + 1) >= 0);
	}
	b = batch_new(UPLOAD_PATH_PROFILING, "t");
	assert_int_equal(upload_collect(t, &v, 7, &m, b, &tot), 0);
	assert_int_equal(b->n, UNIQ_STACKS);
	stack_ids(b, first, UNIQ_STACKS + 1);
	batch_free(b);
	assert_unique(first, UNIQ_STACKS);

	/* the next flush: every old stack grew, one is new; same ids, one more */
	for (uint32_t i = 0; i < UNIQ_STACKS; i++)
		v.samples[i].count++;
	{
		uint32_t loc = UNIQ_STACKS + 1;
		struct view_sample s = { .pid = 7, .tid = 7, .count = 1, .nr_locs = 1 };

		assert_true(view_add_sample(&v, &s, &loc) >= 0);
	}
	m.current_ms = 3000;
	b = batch_new(UPLOAD_PATH_PROFILING, "t");
	assert_int_equal(upload_collect(t, &v, 7, &m, b, &tot), 0);
	assert_int_equal(b->n, UNIQ_STACKS + 1);
	stack_ids(b, again, UNIQ_STACKS + 1);
	batch_free(b);
	for (uint32_t i = 0; i < UNIQ_STACKS; i++)
		assert_int_equal(again[i], first[i]);
	assert_unique(again, UNIQ_STACKS + 1);
	free(first);
	free(again);
	upload_deltas_free(t);
	view_free(&v);
}

/* A stream broke after k messages: those are counted once and never resent;
 * the rest goes back in front, its first message carrying the task metadata. */
static void upload_unconfirmed_split(void **state)
{
	struct upload_task_meta m = {
		.task_id = "T", .process_id = "P", .profiling_start_ms = 1000, .current_ms = 2000
	};
	struct delta_table *t = upload_deltas_new();
	struct upload_totals tot;
	struct upload_batch *b, *r;
	struct upload_queue q;
	struct upload_stats st;
	Skywalking__V3__EBPFProfilingData *d;
	struct view v;
	size_t pend;
	uint64_t first_units, rest_units;

	(void)state;
	make_view(&v, false);
	add_sample(&v, 7, 7, 10, 10, true);
	add_sample(&v, 7, 7, 3, 3, false);
	b = batch_new(UPLOAD_PATH_PROFILING, "t");
	assert_int_equal(upload_collect(t, &v, 7, &m, b, &tot), 0);
	assert_int_equal(b->n, 2);
	assert_int_equal(b->units, 13);
	assert_non_null(b->prefix);
	first_units = b->munits[0];
	rest_units = b->munits[1];
	assert_int_equal(first_units + rest_units, 13);
	queue_init(&q, 1 << 20);
	assert_int_equal(queue_push(&q, b), 0);
	b = queue_pop(&q, 0);
	queue_unconfirmed(&q, b, 1);
	queue_get_stats(&q, &st, &pend, NULL);
	assert_int_equal(st.unconfirmed_batches, 1);
	assert_int_equal(st.unconfirmed_msgs, 1);
	assert_int_equal(st.unconfirmed_units, first_units);
	assert_int_equal(st.dropped_units, 0);
	assert_int_equal(pend, 1);
	r = queue_pop(&q, 0);
	assert_int_equal(r->n, 1);
	assert_int_equal(r->units, rest_units);
	assert_int_equal(r->attempts, 1);
	d = msg(r, 0);
	/* the prefix merged in: metadata and the message's own stack and count */
	assert_non_null(d->task);
	assert_string_equal(d->task->taskid, "T");
	assert_string_equal(d->task->processid, "P");
	assert_int_equal(d->task->profilingstarttime, 1000);
	assert_int_equal(d->task->currenttime, 2000);
	assert_int_equal(d->profiling_case, SKYWALKING__V3__EBPFPROFILING_DATA__PROFILING_ON_CPU);
	assert_int_equal((uint64_t)d->oncpu->dumpcount, rest_units);
	assert_true(d->oncpu->n_stacks >= 1);
	skywalking__v3__ebpfprofiling_data__free_unpacked(d, NULL);
	/* all of it written: nothing comes back, all counted */
	queue_unconfirmed(&q, r, 5);
	queue_get_stats(&q, &st, &pend, NULL);
	assert_int_equal(st.unconfirmed_batches, 2);
	assert_int_equal(st.unconfirmed_msgs, 2);
	assert_int_equal(st.unconfirmed_units, 13);
	assert_int_equal(pend, 0);
	/* nothing written: the whole batch again (a plain return) */
	b = batch_of(100, 9);
	queue_unconfirmed(&q, b, 0);
	queue_get_stats(&q, &st, &pend, NULL);
	assert_int_equal(st.unconfirmed_units, 13);
	assert_int_equal(pend, 1);
	b = queue_pop(&q, 0);
	assert_int_equal(b->units, 9);
	queue_sent(&q, b);
	queue_get_stats(&q, &st, &pend, NULL);
	assert_int_equal(st.sent_units + st.unconfirmed_units + st.dropped_units, 22);
	queue_destroy(&q);
	upload_deltas_free(t);
	view_free(&v);
}

static void grpc_messages_within(void **state)
{
	const struct grpc_msg m[3] = { { NULL, 10 }, { NULL, 0 }, { NULL, 20 } };

	(void)state;
	/* each message is framed with a 5-byte header */
	assert_int_equal(grpc_call_msgs_within(m, 3, 0), 0);
	assert_int_equal(grpc_call_msgs_within(m, 3, 14), 0);
	assert_int_equal(grpc_call_msgs_within(m, 3, 15), 1);
	assert_int_equal(grpc_call_msgs_within(m, 3, 19), 1);
	assert_int_equal(grpc_call_msgs_within(m, 3, 20), 2);
	assert_int_equal(grpc_call_msgs_within(m, 3, 44), 2);
	assert_int_equal(grpc_call_msgs_within(m, 3, 45), 3);
	assert_int_equal(grpc_call_msgs_within(m, 3, 1000), 3);
	assert_int_equal(grpc_call_msgs_within(m, 0, 1000), 0);
}

static void upload_offcpu(void **state)
{
	struct upload_task_meta m = { .task_id = "T", .process_id = "P", .offcpu = true };
	struct delta_table *t = upload_deltas_new();
	struct upload_totals tot;
	struct upload_batch *b = batch_new(UPLOAD_PATH_PROFILING, "t");
	Skywalking__V3__EBPFProfilingData *d;
	struct view v;

	(void)state;
	make_view(&v, true);
	add_sample(&v, 7, 7, 3, 3000000, true);
	add_sample(&v, 7, 8, 2, 2000000, true);
	assert_int_equal(upload_collect(t, &v, 0, &m, b, &tot), 0);
	assert_int_equal(b->n, 1);
	d = msg(b, 0);
	assert_int_equal(d->profiling_case, SKYWALKING__V3__EBPFPROFILING_DATA__PROFILING_OFF_CPU);
	assert_int_equal(d->offcpu->switchcount, 5);
	assert_int_equal(d->offcpu->duration, 5000000);
	assert_int_equal(tot.weight, 5000000);
	skywalking__v3__ebpfprofiling_data__free_unpacked(d, NULL);
	batch_free(b);
	upload_deltas_free(t);
	view_free(&v);
}

/* The flush worker: jobs run in order on its thread; a full queue refuses
 * droppable jobs (counted with their units) but always takes a `must` one;
 * stop runs what is queued. The first job holds the worker on a gate so the
 * queue fills deterministically. */
struct gate {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool open, entered;
	pthread_t ran_on;
};

struct fjob {
	struct gate *g;
	int id;
	int *order;
	size_t *nr;
};

static void gated_job(void *arg)
{
	struct gate *g = arg;

	pthread_mutex_lock(&g->lock);
	g->entered = true;
	g->ran_on = pthread_self();
	pthread_cond_broadcast(&g->cond);
	while (!g->open)
		pthread_cond_wait(&g->cond, &g->lock);
	pthread_mutex_unlock(&g->lock);
}

static void order_job(void *arg)
{
	struct fjob *j = arg;

	j->order[(*j->nr)++] = j->id;
}

static void flush_worker_bounds(void **state)
{
	struct flush_worker w;
	struct gate g = { .lock = PTHREAD_MUTEX_INITIALIZER, .cond = PTHREAD_COND_INITIALIZER };
	struct flush_stats st;
	struct fjob jobs[6];
	int order[6] = { 0 };
	size_t nr = 0, pending;

	(void)state;
	assert_int_equal(flush_worker_start(&w, 2), 0);
	assert_true(flush_worker_submit(&w, gated_job, &g, 0, false));
	pthread_mutex_lock(&g.lock);
	while (!g.entered)
		pthread_cond_wait(&g.cond, &g.lock);
	pthread_mutex_unlock(&g.lock);
	/* the worker is busy on its own thread: queue two, refuse the third */
	assert_false(pthread_equal(g.ran_on, pthread_self()));
	for (int i = 0; i < 6; i++)
		jobs[i] = (struct fjob){ .g = &g, .id = i + 1, .order = order, .nr = &nr };
	assert_true(flush_worker_submit(&w, order_job, &jobs[0], 10, false));
	assert_true(flush_worker_submit(&w, order_job, &jobs[1], 20, false));
	assert_false(flush_worker_submit(&w, order_job, &jobs[2], 30, false));
	assert_false(flush_worker_submit(&w, order_job, &jobs[3], 40, false));
	/* a task's last flush is never refused */
	assert_true(flush_worker_submit(&w, order_job, &jobs[4], 50, true));
	flush_worker_get_stats(&w, &st, &pending);
	assert_int_equal(pending, 3);
	assert_int_equal(st.dropped_jobs, 2);
	assert_int_equal(st.dropped_units, 70);
	assert_int_equal(nr, 0); /* nothing ran on the submitting thread */
	pthread_mutex_lock(&g.lock);
	g.open = true;
	pthread_cond_broadcast(&g.cond);
	pthread_mutex_unlock(&g.lock);
	flush_worker_wait(&w);
	assert_int_equal(nr, 3);
	assert_int_equal(order[0], 1);
	assert_int_equal(order[1], 2);
	assert_int_equal(order[2], 5);
	/* room again; stop still runs what is queued */
	assert_true(flush_worker_submit(&w, order_job, &jobs[5], 60, false));
	flush_worker_stop(&w);
	assert_int_equal(nr, 4);
	assert_int_equal(order[3], 6);
	flush_worker_get_stats(&w, &st, &pending);
	assert_int_equal(st.done_jobs, 5);
	assert_int_equal(st.dropped_jobs, 2);
	assert_int_equal(pending, 0);
	/* no worker: the job runs here and now */
	nr = 0;
	assert_true(flush_worker_submit(NULL, order_job, &jobs[0], 1, false));
	assert_int_equal(nr, 1);
}

/* Discovery on a hand-made /proc: a match registers once, a process whose
 * start time changed (a reused pid) is a new one, the old one exits; a
 * second process with the same entity is not registered (the exits are
 * merged before the new ones, so a restarted process registers at once). */
static void fake_proc(const char *root, unsigned pid, const char *cmd, size_t cmdlen,
		      unsigned long long start)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%u", root, pid);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/%u/cmdline", root, pid);
	f = fopen(path, "w");
	assert_non_null(f);
	fwrite(cmd, 1, cmdlen, f);
	fclose(f);
	snprintf(path, sizeof(path), "%s/%u/stat", root, pid);
	f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, "%u (x) S 1 1 1 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 %llu 4096 1\n", pid, start);
	fclose(f);
	snprintf(path, sizeof(path), "%s/%u/exe", root, pid);
	unlink(path);
	assert_int_equal(symlink("/usr/bin/myapp", path), 0);
}

static void procs_scan_fake(void **state)
{
	static const char yaml[] = "process_discovery:\n"
				   "  scanner:\n"
				   "    mode: REGEX\n"
				   "    regex:\n"
				   "      - match_cmd: \"myapp --serve\"\n"
				   "        service_name: svc\n";
	struct template_host h = { .hostname = "box", .instance_id = "uuid", .ip = fake_ip };
	struct agent_config c;
	struct agent_procs t;
	char root[] = "/tmp/skyprof-procs-XXXXXX", err[256], cmd[600];

	(void)state;
	assert_non_null(mkdtemp(root));
	assert_int_equal(config_load_string(&c, yaml, sizeof(yaml) - 1, err, sizeof(err)), 0);
	procs_init(&t, root);
	fake_proc(root, 100, "myapp\0--serve\0", 14, 5000);
	fake_proc(root, 101, "other\0", 6, 5001);
	assert_int_equal(procs_scan(&t, &c, &h), 1);
	assert_int_equal(t.n, 1);
	assert_int_equal(t.v[0].pid, 100);
	assert_int_equal(t.v[0].start_time, 5000);
	assert_string_equal(t.v[0].service, "svc");
	assert_string_equal(t.v[0].process, "myapp");
	t.v[0].state = PROC_REPORTED; /* as the OAP thread would */
	assert_int_equal(procs_scan(&t, &c, &h), 0);
	assert_int_equal(t.n, 1);
	assert_int_equal(t.v[0].state, PROC_REPORTED);
	/* the same entity in another pid: rover keeps the first */
	fake_proc(root, 102, "myapp\0--serve\0", 14, 5002);
	assert_int_equal(procs_scan(&t, &c, &h), 0);
	assert_int_equal(t.n, 1);
	/* pid 100 reused (another start time), 102 gone: the old 100 exits and
	 * the new one registers in the same scan */
	snprintf(cmd, sizeof(cmd), "rm -rf %s/102", root);
	assert_int_equal(system(cmd), 0);
	fake_proc(root, 100, "myapp\0--serve\0", 14, 6000);
	assert_int_equal(procs_scan(&t, &c, &h), 1);
	assert_int_equal(t.n, 1);
	assert_int_equal(t.v[0].start_time, 6000);
	assert_int_equal(t.v[0].state, PROC_NEW);
	snprintf(cmd, sizeof(cmd), "rm -rf %s/100", root);
	assert_int_equal(system(cmd), 0);
	assert_int_equal(procs_scan(&t, &c, &h), 0);
	assert_int_equal(t.n, 0);
	procs_free(&t);
	config_free(&c);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
	assert_int_equal(system(cmd), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(process_id_formula),
		cmocka_unit_test(task_commands),
		cmocka_unit_test(task_rules),
		cmocka_unit_test(templates),
		cmocka_unit_test(queue_bounds),
		cmocka_unit_test(backoff_grows_with_jitter),
		cmocka_unit_test(proc_helpers),
		cmocka_unit_test(upload_messages),
		cmocka_unit_test(upload_renamed_sample),
		cmocka_unit_test(upload_offcpu),
		cmocka_unit_test(upload_unconfirmed_split),
		cmocka_unit_test(upload_unique_stack_ids),
		cmocka_unit_test(grpc_messages_within),
		cmocka_unit_test(upload_resend_rule),
		cmocka_unit_test(flush_worker_bounds),
		cmocka_unit_test(procs_scan_fake),
	};

	log_set_level(LOG_LVL_ERROR);
	return cmocka_run_group_tests_name("agent", tests, NULL, NULL);
}
