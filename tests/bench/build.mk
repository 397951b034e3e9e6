# Programs of make bench (tests/bench/run builds them; not part of make check).
# Included by the top-level Makefile; paths are relative to the top.
#   work   the guest workload (frame pointers, no inlining, non-PIE, like
#          tests/workloads: every profiler sees its whole chain)
#   micro  host microbenchmarks, linked with the daemon library
#   bpfcount  reads the sample counts of a running bpftrace from its map

BENCH_WORK_CFLAGS := -std=c11 -D_GNU_SOURCE -O2 -g -Wall -Wextra -Werror \
		     -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer \
		     -fno-optimize-sibling-calls -fno-inline -no-pie -fno-pie
BENCH_BIN := $(BUILD)/bench/work $(BUILD)/bench/micro $(BUILD)/bench/bpfcount

.PHONY: bench-progs
bench-progs: $(BENCH_BIN)

$(BUILD)/bench/work: tests/bench/work.c tests/bench/build.mk
	@mkdir -p $(@D)
	$(CC) $(BENCH_WORK_CFLAGS) -o $@ $<

$(BUILD)/bench/micro: tests/bench/micro.c $(BUILD)/libskyprof.a tests/bench/build.mk
	@mkdir -p $(@D)
	$(CC) $(DAEMON_CFLAGS) -o $@ $< $(BUILD)/libskyprof.a $(DAEMON_LIBS)

$(BUILD)/bench/bpfcount: tests/bench/bpfcount.c tests/bench/build.mk
	@mkdir -p $(@D)
	$(CC) -std=c11 -D_GNU_SOURCE -O2 -Wall -Wextra -Werror -o $@ $<

# A development tool, not used by make bench: a QEMU TCG plugin counting the
# guest's instructions per translated block (tests/bench/insnprof.c).
.PHONY: insnprof
insnprof: $(BUILD)/bench/insnprof.so

$(BUILD)/bench/insnprof.so: tests/bench/insnprof.c tests/bench/build.mk
	@mkdir -p $(@D)
	$(CC) -std=gnu11 -O2 -Wall -Wextra -Werror -fPIC -shared -fvisibility=hidden -o $@ $< -lpthread
