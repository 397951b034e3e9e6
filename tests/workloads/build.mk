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

.PHONY: workloads
workloads: $(WORKLOAD_BIN)

$(BUILD)/workloads/%: tests/workloads/%.c tests/workloads/build.mk
	@mkdir -p $(@D)
	$(CC) $(WORKLOAD_CFLAGS) -o $@ $<
	nm -S --defined-only $@ >$@.syms

# nofp_chain is the exception: built like distribution code, without frame
# pointers (the later -fomit wins over -fno-omit), for the DWARF unwind tests.
$(BUILD)/workloads/nofp_chain: WORKLOAD_CFLAGS += -fomit-frame-pointer -momit-leaf-frame-pointer
