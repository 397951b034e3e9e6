# skyprof top-level Makefile. `make help` lists the targets.

VERSION  := $(shell cat VERSION)
BUILD    ?= build
KVER     ?= $(shell uname -r)
KDIR     ?= /lib/modules/$(KVER)/build
PREFIX   ?= /usr/local
DESTDIR  ?=
export SKYPROF_CACHE ?= /var/cache/skyprof-test

.PHONY: all help kmod kmod-one kmod-matrix guest-payload daemon deps static deb rpm check check-loaded check-debug unit demo bench \
	install dkms-install clean checkpatch

all: daemon
	@if [ -e "$(KDIR)/Makefile" ]; then $(MAKE) kmod; \
	else echo "skyprof: no kernel headers at $(KDIR): module not built (make kmod KDIR=...)"; fi

help:
	@echo "make            daemon, and the module for the running kernel if its headers exist"
	@echo "make kmod KDIR=<headers>   build skyprof.ko against a kernel build dir"
	@echo "make daemon     build $(BUILD)/skyprof"
	@echo "make deps       install build and test dependencies (apt-get, idempotent)"
	@echo "make check      everything: unit tests, module per kernel, guest suites"
	@echo "make check LOAD=N   the same with N busy processes beside it; make check-loaded: N=2"
	@echo "make check-debug   the guest suite + full stress + kmemleak on the 6.1-debug kernel (KASAN, lockdep, ...)"
	@echo "make checkpatch the kernel's checkpatch.pl --strict over kmod/ and include/uapi/"
	@echo "make demo       boot a guest, load the module, profile a workload"
	@echo "make bench      benchmarks against perf and bpftrace (not part of check)"
	@echo "make insnprof   the QEMU plugin counting guest instructions per block (tests/bench/insnprof.c)"
	@echo "make fuzz [FUZZ_SECONDS=60] [FUZZ_TARGETS=..]   the libFuzzer targets (tests/fuzz), N s each"
	@echo "make fuzz-genl [FUZZ_GENL_SECONDS=600]   the in-guest genl fuzzer, long"
	@echo "make stress [KERNELS=..]   the stress suite at full counts on every kernel"
	@echo "make install [PREFIX=.. DESTDIR=..]   make dkms-install   make clean"
	@echo "make static     build $(BUILD)/skyprof-static: every library linked in (RHEL/CentOS 7 and other old userlands)"
	@echo "make deb        $(BUILD)/skyprof_VERSION_amd64.deb and skyprof-dkms_VERSION_all.deb (debhelper, dh-dkms; lintian-checked)"
	@echo "make rpm        $(BUILD)/skyprof-VERSION-1.x86_64.rpm (the static program) and skyprof-dkms-VERSION-1.noarch.rpm (rpmbuild)"

include daemon/build.mk
# Test programs (optional until their rooms exist).
-include tests/kmod/build.mk
-include tests/workloads/build.mk
-include tests/fuzz/build.mk
-include tests/bench/build.mk

KERNELS ?= $(shell awk '!/^\#/ && NF >= 4 {print $$1}' tests/vm/kernels)

daemon: $(SKYPROF_BIN)

static: $(STATIC_BIN)

# Builds out of tree in a per-kernel copy so that several kernels never share
# object files; the result is $(BUILD)/kmod/<name>/skyprof.ko.
KMOD_NAME ?= host
kmod:
	tests/vm/build-kmod --kdir "$(KDIR)" --out "$(BUILD)/kmod/$(KMOD_NAME)"

# One kernel of the matrix: make kmod-one KERNEL=6.1 (fetches it if needed).
kmod-one:
	@tests/vm/fetch-kernels $(KERNEL)
	@tests/vm/build-kmod --name $(KERNEL) --kdir "$(SKYPROF_CACHE)/kernels/$(KERNEL)/kdir" \
		--out "$(BUILD)/kmod/$(KERNEL)"

kmod-matrix:
	@for k in $(KERNELS); do $(MAKE) -s kmod-one KERNEL=$$k || exit 1; done

# checkpatch (issue 3): the kernel's own scripts/checkpatch.pl, from Debian's
# linux-source-6.1 (tests/vm/fetch-checkpatch caches it), over every C file
# of the module and the uapi header. --strict: the module is new code held to
# what the strictest subsystems (netdev) ask of patches; --no-tree because
# this is not a kernel tree. Any message fails.
# Ignored, for one file only:
#   kmod/compat/compat.h: LINUX_VERSION_CODE and CONSTANT_COMPARISON (the
#   operands of a version test are both upper case, so checkpatch takes the
#   left one for a constant). The compat header is the one place allowed a
#   version test: copy_from_user_nmi() returned bytes copied before 3.13 and
#   bytes not copied since, which compiles the same both ways, so no compile
#   probe can tell (docs/kernel-compat.md). Core code has
#   no version tests, and checkpatch keeps it so.
CHECKPATCH_FILES  = $(sort $(wildcard kmod/*.c kmod/*.h kmod/compat/*.h kmod/compat/probes/*.c \
		    include/uapi/*.h))
CHECKPATCH_COMPAT = kmod/compat/compat.h
CHECKPATCH_OPTS   = --no-tree --strict --show-types --quiet -f
checkpatch:
	@cp=$$(tests/vm/fetch-checkpatch)/checkpatch.pl && rc=0 && \
	perl $$cp $(CHECKPATCH_OPTS) $(filter-out $(CHECKPATCH_COMPAT),$(CHECKPATCH_FILES)) || rc=1; \
	perl $$cp $(CHECKPATCH_OPTS) --ignore LINUX_VERSION_CODE,CONSTANT_COMPARISON \
		$(CHECKPATCH_COMPAT) || rc=1; \
	if [ $$rc = 0 ]; then echo "checkpatch: $(words $(CHECKPATCH_FILES)) files clean"; \
	else echo "checkpatch: findings above"; fi; exit $$rc

# Everything tests/vm/run copies into a guest.
guest-payload: daemon $(if $(wildcard tests/kmod/build.mk),kmod-tests) \
	$(if $(wildcard tests/workloads/build.mk),workloads)

deps:
	@tests/deps.sh

unit: $(UNIT_BIN)
	@tests/unit/run $(UNIT_BIN)

# LOAD=N: the whole check with N busy processes beside it (tests/with-load).
LOAD ?= 0
check: deps
	@tests/with-load $(LOAD) tests/check

check-loaded: deps
	@tests/with-load $(if $(filter-out 0,$(LOAD)),$(LOAD),2) tests/check

check-debug: deps guest-payload
	@tests/vm/check-debug

demo: deps
	@tests/demo

bench: deps
	@tests/bench/run

# What `make install` puts where (docs/install.md lists the same files, and
# tests/host/50-install.sh checks the list). The unit and the config live
# outside PREFIX by default because systemd and the unit look for them there;
# the unit's paths are rewritten to the PREFIX and SYSCONFDIR installed to.
SYSCONFDIR ?= /etc
UNITDIR    ?= $(PREFIX)/lib/systemd/system
MANDIR     ?= $(PREFIX)/share/man
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
DOCDIR     ?= $(PREFIX)/share/doc/skyprof
# The rpm installs the static program: INSTALL_BIN=$(BUILD)/skyprof-static.
INSTALL_BIN ?= $(SKYPROF_BIN)
install: $(INSTALL_BIN)
	install -D -m 0755 $(INSTALL_BIN) $(DESTDIR)$(PREFIX)/bin/skyprof
	install -D -m 0644 daemon/man/skyprof.8 $(DESTDIR)$(MANDIR)/man8/skyprof.8
	install -D -m 0644 daemon/completion/skyprof.bash-completion $(DESTDIR)$(BASHCOMPDIR)/skyprof
	install -D -m 0644 docs/agent.md $(DESTDIR)$(DOCDIR)/agent.md
	install -D -m 0644 docs/install.md $(DESTDIR)$(DOCDIR)/install.md
	mkdir -p $(DESTDIR)$(UNITDIR)
	sed -e 's|/usr/local/bin/skyprof|$(PREFIX)/bin/skyprof|g' \
	    -e 's|/etc/skyprof/|$(SYSCONFDIR)/skyprof/|g' \
	    -e 's|/usr/share/doc/skyprof/|$(DOCDIR)/|g' \
	    dist/skyprof-agent.service >$(DESTDIR)$(UNITDIR)/skyprof-agent.service
	chmod 0644 $(DESTDIR)$(UNITDIR)/skyprof-agent.service
	@# An edited config is the admin's: never overwritten.
	if [ -e $(DESTDIR)$(SYSCONFDIR)/skyprof/agent.yaml ]; then \
		echo "install: keeping $(DESTDIR)$(SYSCONFDIR)/skyprof/agent.yaml"; \
	else install -D -m 0640 dist/skyprof-agent.yaml $(DESTDIR)$(SYSCONFDIR)/skyprof/agent.yaml; fi

# The module sources, as DKMS wants them, in /usr/src/skyprof-VERSION: only
# the files the Kbuild needs (no objects of an in-tree build), and dkms.conf
# with the version of the VERSION file.
DKMS_SRC = $(DESTDIR)/usr/src/skyprof-$(VERSION)
dkms-install:
	rm -rf "$(DKMS_SRC)" && mkdir -p "$(DKMS_SRC)"
	tar -c --exclude='*.o' --exclude='*.ko' --exclude='*.cmd' --exclude='*.mod' \
		--exclude='*.mod.c' --exclude='compat-generated*' --exclude='.probes' \
		Kbuild VERSION kmod include | tar -x -C "$(DKMS_SRC)"
	sed 's/@VERSION@/$(VERSION)/' dkms.conf >"$(DKMS_SRC)/dkms.conf"
	@echo "module sources in $(DKMS_SRC): dkms add skyprof/$(VERSION) && dkms install skyprof/$(VERSION)"

# `make deb` (issue 21): skyprof_VERSION_amd64.deb and
# skyprof-dkms_VERSION_all.deb in $(BUILD)/, built by debhelper and dh-dkms
# from dist/debian/ in a copy of the tree (no debian/ directory at the top,
# and the tree's own build/ stays out of the package build). lintian runs
# on the result: any error or warning not overridden (with its reason, in
# dist/debian/*.lintian-overrides) fails the target.
DEB_TOP = $(BUILD)/deb
DEB_SRC = $(DEB_TOP)/skyprof-$(VERSION)
DEBS    = $(BUILD)/skyprof_$(VERSION)_amd64.deb $(BUILD)/skyprof-dkms_$(VERSION)_all.deb
deb:
	rm -rf $(DEB_TOP) && mkdir -p $(DEB_SRC)
	tar -c --exclude-vcs --exclude='./$(BUILD)' --exclude='*.o' --exclude='*.ko' \
		--exclude='*.cmd' --exclude='*.mod' --exclude='*.mod.c' . | tar -x -C $(DEB_SRC)
	cp -r dist/debian $(DEB_SRC)/debian
	sed 's/@VERSION@/$(VERSION)/g' dist/debian/changelog.in >$(DEB_SRC)/debian/changelog
	rm $(DEB_SRC)/debian/changelog.in
	cd $(DEB_SRC) && dpkg-buildpackage -b -us -uc >../build.log 2>&1 || \
		{ tail -40 ../build.log; exit 1; }
	cp $(patsubst $(BUILD)/%,$(DEB_TOP)/%,$(DEBS)) $(BUILD)/
	lintian --fail-on error,warning $(DEBS)
	@echo "deb: $(DEBS)"

# `make rpm` (issue 21): skyprof-VERSION-1.x86_64.rpm (the static program)
# and skyprof-dkms-VERSION-1.noarch.rpm in $(BUILD)/, built by rpmbuild from
# dist/rpm/skyprof.spec and a tarball of the tree, in $(BUILD)/rpm.
RPM_TOP = $(abspath $(BUILD))/rpm
RPMS    = $(BUILD)/skyprof-$(VERSION)-1.x86_64.rpm $(BUILD)/skyprof-dkms-$(VERSION)-1.noarch.rpm
rpm:
	rm -rf $(RPM_TOP) && mkdir -p $(RPM_TOP)/SOURCES $(RPM_TOP)/SPECS
	tar -c -z --exclude-vcs --exclude='./$(BUILD)' --exclude='*.o' --exclude='*.ko' \
		--exclude='*.cmd' --exclude='*.mod' --exclude='*.mod.c' \
		--transform='s|^\.|skyprof-$(VERSION)|' -f $(RPM_TOP)/SOURCES/skyprof-$(VERSION).tar.gz .
	sed 's/@VERSION@/$(VERSION)/g' dist/rpm/skyprof.spec >$(RPM_TOP)/SPECS/skyprof.spec
	rpmbuild --define '_topdir $(RPM_TOP)' -bb $(RPM_TOP)/SPECS/skyprof.spec \
		>$(RPM_TOP)/build.log 2>&1 || { tail -40 $(RPM_TOP)/build.log; exit 1; }
	cp $(RPM_TOP)/RPMS/x86_64/$(notdir $(word 1,$(RPMS))) $(RPM_TOP)/RPMS/noarch/$(notdir $(word 2,$(RPMS))) $(BUILD)/
	@echo "rpm: $(RPMS)"

clean:
	rm -rf $(BUILD)
