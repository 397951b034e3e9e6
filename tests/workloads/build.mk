# Workloads with known stacks for the module tests and benchmarks.
# Frame pointers, no inlining, no sibling calls, non-PIE: the user chain a
# frame-pointer walk sees is exactly the source's call chain, at the
# addresses listed in $(BUILD)/workloads/<name>.syms (nm -S).
# Included by the top-level Makefile; paths are relative to the top.

WORKLOAD_SRC    := $(wildcard tests/workloads/*.c)
WORKLOAD_BIN    := $(patsubst tests/workloads/%.c,$(BUILD)/workloads/%,$(WORKLOAD_SRC))
WORKLOAD_CFLAGS := -std=c11 -D_GNU_SOURCE -O2 -g -Wall -Wextra -Werror \
		   -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer \
		   -fno-optimize-sibling-calls -fno-inline -no-pie -fno-pie

# fp_chain is nofp_chain's twin built with frame pointers (the default flags),
# so the DWARF tests can show that --dwarf changes nothing where frame
# pointers already give the whole chain.
WORKLOAD_BIN    += $(BUILD)/workloads/fp_chain

.PHONY: workloads
workloads: $(WORKLOAD_BIN)

$(BUILD)/workloads/%: tests/workloads/%.c tests/workloads/build.mk $(wildcard tests/workloads/*.h)
	@mkdir -p $(@D)
	$(CC) $(WORKLOAD_CFLAGS) -o $@ $<
	nm -S --defined-only $@ >$@.syms

# nofp_chain is the exception: built like distribution code, without frame
# pointers (the later -fomit wins over -fno-omit), for the DWARF unwind tests.
$(BUILD)/workloads/nofp_chain: WORKLOAD_CFLAGS += -fomit-frame-pointer -momit-leaf-frame-pointer

# fp_chain: the same source with the default (frame-pointer) flags.
$(BUILD)/workloads/fp_chain: tests/workloads/nofp_chain.c tests/workloads/build.mk
	@mkdir -p $(@D)
	$(CC) $(WORKLOAD_CFLAGS) -o $@ $<
	nm -S --defined-only $@ >$@.syms
