# libFuzzer targets for the parsers of untrusted input (tests/fuzz/fuzz_*.c).
# Included by the top-level Makefile; paths are relative to the top.
#
# The daemon's sources are compiled once more with clang, instrumented for
# coverage (-fsanitize=fuzzer-no-link) and ASan+UBSan, into one library;
# each harness links it and pulls in only what it calls. Seeds are in
# tests/fuzz/corpus/<target>/ (tests/fuzz/make-corpus writes them); runs
# add what they find under $(BUILD)/fuzz/work/<target>/, never the tree.
#
#   make fuzz-build                 the harnesses, $(BUILD)/fuzz/bin/fuzz_<target>
#   make fuzz [FUZZ_SECONDS=N]      every target for N s (default 60) each
#   make fuzz FUZZ_TARGETS="a b"    only those
# The short run in `make check` is tests/fuzz/check with a few seconds each.

FUZZ_CC      ?= clang
FUZZ_TARGETS ?= $(patsubst tests/fuzz/fuzz_%.c,%,$(wildcard tests/fuzz/fuzz_*.c))
FUZZ_SAN     := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
FUZZ_CFLAGS   = $(filter-out -O2,$(DAEMON_CFLAGS)) -O1 $(FUZZ_SAN)
FUZZ_OBJ     := $(patsubst $(BUILD)/daemon/%.o,$(BUILD)/fuzz/obj/%.o,$(DAEMON_OBJ))
FUZZ_LIB     := $(BUILD)/fuzz/libskyprof-fuzz.a
FUZZ_BINS     = $(patsubst %,$(BUILD)/fuzz/bin/fuzz_%,$(FUZZ_TARGETS))

$(BUILD)/fuzz/obj/%.o: daemon/%.c $(PROTO_H) daemon/build.mk
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) $(DEP_FLAGS) -fsanitize=fuzzer-no-link -c -o $@ $<
-include $(FUZZ_OBJ:.o=.d)

# Generated code is not what is being fuzzed (protobuf-c's own unpacker is
# a dependency): sanitized, but without coverage feedback.
$(BUILD)/fuzz/obj/proto-%.o: $(BUILD)/proto/%.c $(PROTO_H)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(filter-out -Wextra,$(FUZZ_CFLAGS)) -c -o $@ $<

$(FUZZ_LIB): $(FUZZ_OBJ)
	rm -f $@ && $(AR) rcs $@ $^

$(BUILD)/fuzz/bin/fuzz_%: tests/fuzz/fuzz_%.c $(FUZZ_LIB)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer -Itests/unit -o $@ $< $(FUZZ_LIB) \
		$(DAEMON_LIBS)

.PHONY: fuzz fuzz-build
fuzz-build: $(FUZZ_BINS)

FUZZ_SECONDS ?= 60
fuzz: fuzz-build
	tests/fuzz/check --seconds $(FUZZ_SECONDS) $(FUZZ_TARGETS)
