# Test client of skyprof.ko for the in-guest suite (tests/vm/suite/NN-kmod-*.sh).
# Host-built, dynamically linked against libnl-genl-3 (the guest has it).
# Included by the top-level Makefile; paths are relative to the top.

KTEST_PKGS   := libnl-genl-3.0
KTEST_CFLAGS := -std=c11 -D_GNU_SOURCE -O2 -g -Wall -Wextra -Werror \
		-Wno-missing-field-initializers -Iinclude/uapi -Itests/kmod \
		$(shell pkg-config --cflags $(KTEST_PKGS))
KTEST_LIBS   := $(shell pkg-config --libs $(KTEST_PKGS))
KTEST_SRC    := tests/kmod/ktest.c tests/kmod/nl.c tests/kmod/ring.c
KTEST_BIN    := $(BUILD)/tests/skyprof-ktest
GENLFUZZ_BIN := $(BUILD)/tests/skyprof-genlfuzz

.PHONY: kmod-tests
kmod-tests: $(KTEST_BIN) $(GENLFUZZ_BIN)

$(KTEST_BIN): $(KTEST_SRC) $(wildcard tests/kmod/*.h) include/uapi/skyprof.h tests/kmod/build.mk
	@mkdir -p $(@D)
	$(CC) $(KTEST_CFLAGS) -o $@ $(KTEST_SRC) $(KTEST_LIBS)

$(GENLFUZZ_BIN): tests/kmod/genlfuzz.c tests/kmod/nl.c $(wildcard tests/kmod/*.h) include/uapi/skyprof.h tests/kmod/build.mk
	@mkdir -p $(@D)
	$(CC) $(KTEST_CFLAGS) -o $@ tests/kmod/genlfuzz.c tests/kmod/nl.c $(KTEST_LIBS)

PRIVPROBE_BIN := $(BUILD)/tests/skyprof-privprobe
kmod-tests: $(PRIVPROBE_BIN)
$(PRIVPROBE_BIN): tests/kmod/privprobe.c tests/kmod/nl.c $(wildcard tests/kmod/*.h) include/uapi/skyprof.h tests/kmod/build.mk
	@mkdir -p $(@D)
	$(CC) $(KTEST_CFLAGS) -o $@ tests/kmod/privprobe.c tests/kmod/nl.c $(KTEST_LIBS)

# Long in-guest genl fuzz runs: make fuzz-genl [FUZZ_GENL_SECONDS=600] [FUZZ_GENL_SEED=N]
.PHONY: fuzz-genl
fuzz-genl:
	tests/fuzz/run-genl $(or $(FUZZ_GENL_SECONDS),600) $(FUZZ_GENL_SEED)

# The stress suite at issue 11's full counts on every kernel (KERNELS=...):
# make stress; make check runs it at a fifth of the counts.
.PHONY: stress
stress:
	tests/vm/stress-run
