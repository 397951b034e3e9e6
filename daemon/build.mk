# Build rules for the skyprof program and the host unit tests.
# Included by the top-level Makefile; paths are relative to the top.
#
# Every daemon/*.c and daemon/*/*.c except main.c goes into a library that
# both the program and the unit tests link, so a new stage is a new file (or
# folder) and nothing else. Objects mirror the source tree under
# $(BUILD)/daemon and $(BUILD)/asan; each records the headers it included
# (-MMD -MP, the .d files beside it), so a header's change rebuilds only the
# objects that include it.

DAEMON_PKGS  := libnl-3.0 libnl-genl-3.0 libdw libelf zlib libprotobuf-c libnghttp2 openssl yaml-0.1
DAEMON_LIBS   = $(shell pkg-config --libs $(DAEMON_PKGS)) -lm -liberty
DAEMON_CFLAGS = -std=c11 -D_GNU_SOURCE -O2 -g -Wall -Wextra -Werror \
		-Wno-missing-field-initializers \
		-Iinclude/uapi -Idaemon -I$(BUILD)/proto \
		-DSKYPROF_VERSION=\"$(VERSION)\" \
		$(shell pkg-config --cflags $(DAEMON_PKGS))
SAN_FLAGS    := -fsanitize=address,undefined -fno-omit-frame-pointer \
		-fno-sanitize-recover=all

# Hardening of the program (what is installed); tests/host/45-hardening.sh
# reads the ELF and fails when any of it is missing. FORTIFY level 3 where
# the compiler has __builtin_dynamic_object_size (glibc's headers fall back
# to 2 elsewhere); it needs the -O2 above. Not in the ASan/UBSan builds of
# the unit tests and fuzz targets, whose sanitizers do those checks better.
cc_option     = $(shell $(CC) -Werror $(1) -c -x c /dev/null -o /dev/null 2>/dev/null && echo $(1))
HARDEN_CFLAGS := -U_FORTIFY_SOURCE -D_FORTIFY_SOURCE=3 -fstack-protector-strong -fPIE \
		$(call cc_option,-fstack-clash-protection) $(call cc_option,-fcf-protection)
HARDEN_LDFLAGS := -pie -Wl,-z,relro,-z,now -Wl,-z,noexecstack

PROTO_SRC    := $(wildcard proto/*.proto)
PROTO_C      := $(patsubst proto/%.proto,$(BUILD)/proto/%.pb-c.c,$(PROTO_SRC))
PROTO_H      := $(PROTO_C:.c=.h)
# Generated headers appear only as pattern-rule prerequisites, which makes
# them intermediate: without this make deletes them after every build and
# the next one regenerates them and recompiles everything.
.SECONDARY: $(PROTO_C) $(PROTO_H)

# daemon/static/ is linked into build/skyprof-static only (see below).
DAEMON_SRC   := $(filter-out daemon/main.c daemon/static/%,$(wildcard daemon/*.c daemon/*/*.c daemon/*/*/*.c))
DAEMON_OBJ   := $(patsubst daemon/%.c,$(BUILD)/daemon/%.o,$(DAEMON_SRC)) \
		$(patsubst $(BUILD)/proto/%.c,$(BUILD)/daemon/proto-%.o,$(PROTO_C))
ASAN_OBJ     := $(patsubst $(BUILD)/daemon/%.o,$(BUILD)/asan/%.o,$(DAEMON_OBJ))

UNIT_SRC     := $(wildcard tests/unit/test_*.c)
UNIT_BIN     := $(patsubst tests/unit/%.c,$(BUILD)/unit/%,$(UNIT_SRC))

SKYPROF_BIN  := $(BUILD)/skyprof

$(BUILD)/proto/%.pb-c.c $(BUILD)/proto/%.pb-c.h: proto/%.proto
	@mkdir -p $(BUILD)/proto
	protoc-c --proto_path=proto --c_out=$(BUILD)/proto $<

DEP_FLAGS     = -MMD -MP

# The generated protobuf headers come first: a source including one must not
# compile before it exists (the .d files only know it after a first build).
$(BUILD)/daemon/%.o: daemon/%.c $(PROTO_H) daemon/build.mk
	@mkdir -p $(@D)
	$(CC) $(DAEMON_CFLAGS) $(HARDEN_CFLAGS) $(DEP_FLAGS) -c -o $@ $<

$(BUILD)/daemon/proto-%.o: $(BUILD)/proto/%.c $(PROTO_H) daemon/build.mk
	@mkdir -p $(@D)
	$(CC) $(filter-out -Wextra,$(DAEMON_CFLAGS)) $(HARDEN_CFLAGS) -c -o $@ $<

$(BUILD)/asan/%.o: daemon/%.c $(PROTO_H) daemon/build.mk
	@mkdir -p $(@D)
	$(CC) $(DAEMON_CFLAGS) $(SAN_FLAGS) $(DEP_FLAGS) -c -o $@ $<

$(BUILD)/asan/proto-%.o: $(BUILD)/proto/%.c $(PROTO_H)
	@mkdir -p $(@D)
	$(CC) $(filter-out -Wextra,$(DAEMON_CFLAGS)) $(SAN_FLAGS) -c -o $@ $<

# Thin archives (T): members are named by their path, so two stages may
# each have a file of one name (cli/top.c, profile/top.c).
$(BUILD)/libskyprof.a: $(DAEMON_OBJ)
	@mkdir -p $(@D)
	rm -f $@ && $(AR) rcsT $@ $^

$(BUILD)/libskyprof-asan.a: $(ASAN_OBJ)
	@mkdir -p $(@D)
	rm -f $@ && $(AR) rcsT $@ $^

$(SKYPROF_BIN): daemon/main.c $(BUILD)/libskyprof.a
	$(CC) $(DAEMON_CFLAGS) $(HARDEN_CFLAGS) $(HARDEN_LDFLAGS) -MMD -MP -MF $@.d -o $@ $< \
		$(BUILD)/libskyprof.a $(DAEMON_LIBS)

# The program under ASan+UBSan, for host tests that throw hostile input at
# a running agent (tests/host/42-agent-oap-garbage.sh). Not installed.
$(BUILD)/skyprof-asan: daemon/main.c $(BUILD)/libskyprof-asan.a
	$(CC) $(DAEMON_CFLAGS) $(SAN_FLAGS) -o $@ $< $(BUILD)/libskyprof-asan.a $(DAEMON_LIBS)

$(BUILD)/unit/%: tests/unit/%.c $(BUILD)/libskyprof-asan.a
	@mkdir -p $(@D)
	$(CC) $(DAEMON_CFLAGS) $(SAN_FLAGS) -MMD -MP -MF $@.d -Itests/unit -o $@ $< \
		$(BUILD)/libskyprof-asan.a $(DAEMON_LIBS) -lcmocka

# The fake OAP (tests/fake-oap) reads proto/sw_*.proto at run time; guests get
# build/ and tests/ but not proto/, so a copy rides along under build/tests.
FAKE_OAP_PROTO := $(patsubst proto/%,$(BUILD)/tests/fake-oap/proto/%,$(wildcard proto/sw_*.proto))
$(BUILD)/tests/fake-oap/proto/%.proto: proto/%.proto
	@mkdir -p $(@D)
	cp $< $@
$(SKYPROF_BIN): | $(FAKE_OAP_PROTO)

# `make static` (issue 21): the program with every library linked in, for
# hosts whose userland is older than the build host's (RHEL/CentOS 7: glibc
# 2.17, OpenSSL 1.0.2, no nghttp2) and for the rpm. static-pie keeps the
# address-space randomisation of the dynamic build; the archives of Debian's
# -dev packages are compiled position-independent, as static-pie needs.
# libdw's archive does not bring what its decompressors need (zstd, lzma,
# bz2), which pkg-config --static only partly lists.
STATIC_BIN  := $(BUILD)/skyprof-static
STATIC_LIBS  = $(shell pkg-config --static --libs $(DAEMON_PKGS)) -lzstd -llzma -lbz2 -lm -liberty
# daemon/static/static_glibc.c says what static glibc costs and how it is
# handled: NSS limited to its built-in services, dlopen wrapped to fail.
$(STATIC_BIN): daemon/main.c daemon/static/static_glibc.c $(BUILD)/libskyprof.a
	$(CC) $(DAEMON_CFLAGS) $(HARDEN_CFLAGS) -static-pie -Wl,-z,relro,-z,now -Wl,-z,noexecstack \
		-Wl,--wrap=dlopen -o $@ daemon/main.c daemon/static/static_glibc.c \
		$(BUILD)/libskyprof.a $(STATIC_LIBS)

-include $(DAEMON_OBJ:.o=.d) $(ASAN_OBJ:.o=.d) $(SKYPROF_BIN).d $(UNIT_BIN:=.d)
