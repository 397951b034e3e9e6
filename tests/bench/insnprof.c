// SPDX-License-Identifier: GPL-2.0
/*
 * insnprof.so: a QEMU TCG plugin that counts the guest instructions each
 * translated block executes, for an exact account of where a guest's
 * instructions go (which kernel or daemon function the sampling costs).
 * Under TCG there is no PMU and a timer-driven profiler cannot see inside
 * interrupt handlers; the emulator itself can count every instruction.
 *
 *   VM_QEMU_EXTRA="-plugin build/bench/insnprof.so,snap=DIR/snap[,mark=HEX]..." \
 *       tests/vm/run --icount=1 --out DIR ...
 *
 * Snapshots of all the counters (lines "VADDR INSNS_IN_BLOCK EXECUTIONS",
 * cumulative since boot) are written to SNAP.NAME:
 *   - when the file SNAP appears (the guest writes NAME into $OUT/snap.tmp
 *     and renames it to $OUT/snap): SNAP.NAME, then SNAP.NAME.done, after
 *     which SNAP is removed; asynchronous, the guest runs on meanwhile;
 *   - synchronously, each time a block starting at a mark address runs
 *     (e.g. a workload's function at a fixed non-PIE address):
 *     SNAP.mSEQ.K, K the mark's index; under -icount the guest's clock does
 *     not advance while the file is written.
 * tests/bench/insnprof-report turns two snapshots into instructions per
 * symbol. A development tool: make bench does not use it.
 *
 * The few plugin API entry points used are declared here (QEMU's
 * qemu-plugin.h is not packaged); they exist unchanged from plugin API
 * version 1 on, and the plugin says version 2, the lowest the guests' QEMU
 * 10.0 accepts (it takes 2 to 4; QEMU 7.2 takes only 1). Each block's count
 * is bumped by a callback, not an inline op: 10.0 dropped the inline op on
 * plain memory for per-vCPU scoreboards, and its inline ops abort an
 * -icount guest at boot ("Bad icount read"); callbacks work under -icount.
 */
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef uint64_t qemu_plugin_id_t;
typedef struct {
	const char *target_name;
	struct {
		int min, cur;
	} version;
	bool system_emulation;
	union {
		struct {
			int smp_vcpus, max_vcpus;
		} system;
	};
} qemu_info_t;
struct qemu_plugin_tb;
enum qemu_plugin_cb_flags { QEMU_PLUGIN_CB_NO_REGS };
typedef void (*qemu_plugin_vcpu_tb_trans_cb_t)(qemu_plugin_id_t id, struct qemu_plugin_tb *tb);
typedef void (*qemu_plugin_vcpu_udata_cb_t)(unsigned int vcpu_index, void *userdata);
void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id, qemu_plugin_vcpu_tb_trans_cb_t cb);
void qemu_plugin_register_vcpu_tb_exec_cb(struct qemu_plugin_tb *tb, qemu_plugin_vcpu_udata_cb_t cb,
					  enum qemu_plugin_cb_flags flags, void *userdata);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
uint64_t qemu_plugin_tb_vaddr(const struct qemu_plugin_tb *tb);

#define EXPORT __attribute__((visibility("default")))
EXPORT int qemu_plugin_version = 2;

/* One per translation (a block translated again gets a new one). */
struct block {
	uint64_t vaddr;
	uint64_t insns;
	uint64_t execs; /* bumped by on_exec on whichever vCPU runs it */
};

#define CHUNK	   65536
#define MAX_CHUNKS 16384
#define MAX_MARKS  8

static struct block *chunks[MAX_CHUNKS];
static size_t nr_blocks;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static const char *snap;
static uint64_t marks[MAX_MARKS];
static int nr_marks, mark_seq;

static struct block *new_block(void)
{
	struct block *b = NULL;
	size_t c;

	pthread_mutex_lock(&lock);
	c = nr_blocks / CHUNK;
	if (c < MAX_CHUNKS && !chunks[c])
		chunks[c] = calloc(CHUNK, sizeof(struct block));
	if (c < MAX_CHUNKS && chunks[c])
		b = &chunks[c][nr_blocks++ % CHUNK];
	pthread_mutex_unlock(&lock);
	return b;
}

static void dump(const char *path)
{
	char tmp[4096];
	size_t n;
	FILE *f;

	snprintf(tmp, sizeof(tmp), "%s.part", path);
	f = fopen(tmp, "w");
	if (!f)
		return;
	pthread_mutex_lock(&lock);
	n = nr_blocks;
	pthread_mutex_unlock(&lock);
	for (size_t i = 0; i < n; i++) {
		const struct block *b = &chunks[i / CHUNK][i % CHUNK];

		/* Counters the vCPUs go on bumping: a snapshot. */
		uint64_t execs = __atomic_load_n(&b->execs, __ATOMIC_RELAXED);

		if (execs)
			fprintf(f, "%llx %llu %llu\n", (unsigned long long)b->vaddr,
				(unsigned long long)b->insns, (unsigned long long)execs);
	}
	fclose(f);
	rename(tmp, path);
}

static void on_mark(unsigned int vcpu, void *userdata)
{
	char path[4096];

	(void)vcpu;
	snprintf(path, sizeof(path), "%s.m%03d.%d", snap, mark_seq++, (int)(uintptr_t)userdata);
	dump(path);
}

static void on_exec(unsigned int vcpu, void *userdata)
{
	struct block *b = userdata;

	(void)vcpu;
	/* vCPUs run in threads of their own without -icount. */
	__atomic_fetch_add(&b->execs, 1, __ATOMIC_RELAXED);
}

static void on_translate(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	struct block *b = new_block();

	(void)id;
	if (!b)
		return;
	b->vaddr = qemu_plugin_tb_vaddr(tb);
	b->insns = qemu_plugin_tb_n_insns(tb);
	qemu_plugin_register_vcpu_tb_exec_cb(tb, on_exec, QEMU_PLUGIN_CB_NO_REGS, b);
	for (int m = 0; m < nr_marks; m++)
		if (b->vaddr == marks[m])
			qemu_plugin_register_vcpu_tb_exec_cb(tb, on_mark, QEMU_PLUGIN_CB_NO_REGS,
							     (void *)(uintptr_t)m);
}

/* Polls for the guest's snapshot requests (SNAP, holding a name). */
static void *watch(void *arg)
{
	char name[128], path[4096];

	(void)arg;
	for (;;) {
		FILE *f;

		usleep(20000);
		f = fopen(snap, "r");
		if (!f)
			continue;
		if (!fgets(name, sizeof(name), f))
			name[0] = '\0';
		fclose(f);
		name[strcspn(name, "\n/")] = '\0';
		snprintf(path, sizeof(path), "%s.%s", snap, name[0] ? name : "snap");
		dump(path);
		unlink(snap);
		snprintf(path, sizeof(path), "%s.%s.done", snap, name[0] ? name : "snap");
		f = fopen(path, "w");
		if (f)
			fclose(f);
	}
	return NULL;
}

EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info, int argc, char **argv)
{
	pthread_t t;

	(void)info;
	for (int i = 0; i < argc; i++) {
		if (!strncmp(argv[i], "snap=", 5))
			snap = argv[i] + 5;
		else if (!strncmp(argv[i], "mark=", 5) && nr_marks < MAX_MARKS)
			marks[nr_marks++] = strtoull(argv[i] + 5, NULL, 16);
		else {
			fprintf(stderr, "insnprof: unknown argument %s\n", argv[i]);
			return -1;
		}
	}
	if (!snap) {
		fprintf(stderr, "insnprof: snap=PATH is required\n");
		return -1;
	}
	qemu_plugin_register_vcpu_tb_trans_cb(id, on_translate);
	if (pthread_create(&t, NULL, watch, NULL))
		return -1;
	pthread_detach(t);
	return 0;
}
