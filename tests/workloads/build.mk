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
	$(CC) $(WORKLOAD_CFLAGS) -o $@ $< $(WORKLOAD_LIBS)
	nm -S --defined-only $@ >$@.syms

# nofp_chain is the exception: built like distribution code, without frame
# pointers (the later -fomit wins over -fno-omit), for the DWARF unwind tests.
$(BUILD)/workloads/nofp_chain: WORKLOAD_CFLAGS += -fomit-frame-pointer -momit-leaf-frame-pointer

# The side-band tests' programs: short_spin2 is short_spin under another
# name and leaf function (another file, short_spin2_leaf), short_spin_static the same linked
# statically (no libraries to map), dl_spin's library is libdl_leaf.so.
SIDEBAND_WORKLOADS := $(BUILD)/workloads/short_spin2 $(BUILD)/workloads/short_spin_static \
		      $(BUILD)/workloads/libdl_leaf.so
workloads: $(SIDEBAND_WORKLOADS)
$(BUILD)/workloads/short_spin2: tests/workloads/short_spin.c tests/workloads/build.mk
	@mkdir -p $(@D)
	$(CC) $(WORKLOAD_CFLAGS) -DLEAF=short_spin2_leaf -o $@ $<
	nm -S --defined-only $@ >$@.syms

$(BUILD)/workloads/short_spin_static: tests/workloads/short_spin.c tests/workloads/build.mk
	@mkdir -p $(@D)
	$(CC) $(WORKLOAD_CFLAGS) -static -o $@ $<
	nm -S --defined-only $@ >$@.syms

$(BUILD)/workloads/libdl_leaf.so: tests/workloads/lib/dl_leaf.c tests/workloads/build.mk
	@mkdir -p $(@D)
	$(CC) -std=c11 -D_GNU_SOURCE -O2 -g -Wall -Wextra -Werror -fno-omit-frame-pointer -fPIC -shared -o $@ $<
	nm -S --defined-only $@ >$@.syms

$(BUILD)/workloads/dl_spin: WORKLOAD_LIBS = -ldl

# fp_chain: the same source with the default (frame-pointer) flags.
$(BUILD)/workloads/fp_chain: tests/workloads/nofp_chain.c tests/workloads/build.mk
	@mkdir -p $(@D)
	$(CC) $(WORKLOAD_CFLAGS) -o $@ $<
	nm -S --defined-only $@ >$@.syms

# The runtime tests' programs (tests/vm/suite/NN-runtime-*.sh) that need a
# build: the Java one compiled by the host's javac for the guests' JRE 17,
# the Go one by the host's Go toolchain with its default flags (as users
# build). Each is left out when its toolchain is missing: its test then
# skips. The JavaScript and Python programs run from the source tree.
RUNTIME_BIN := $(if $(shell command -v javac),$(BUILD)/workloads/runtime/Hot.class) \
	       $(if $(shell command -v go),$(BUILD)/workloads/runtime/gohot)
workloads: $(RUNTIME_BIN)

$(BUILD)/workloads/runtime/Hot.class: tests/workloads/runtime/Hot.java tests/workloads/build.mk
	@mkdir -p $(@D)
	javac --release 17 -d $(@D) $<

$(BUILD)/workloads/runtime/gohot: tests/workloads/runtime/gohot.go tests/workloads/build.mk
	@mkdir -p $(@D) $(BUILD)/gocache
	GOCACHE=$(abspath $(BUILD))/gocache GOFLAGS= go build -o $(abspath $@) $<
