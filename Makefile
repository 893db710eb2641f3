# SPDX-License-Identifier: GPL-2.0
#
# cxltier top-level Makefile.
#
#   make              build the module (kmod/cxltier.ko), the userspace and the
#                     guest selftests (build/)
#   make check        set up what is missing, build, run host tests and guest selftests
#   make check T=dir  run one selftests/ group in the guest (host tests still run)
#   make check KERNEL=newest  the guest groups on the newest kernel Debian ships (7.3,
#                     trixie-backports), the module built in a trixie chroot
#                     (qemu/newest-kernel; make newest-module builds it only)
#   make demo         boot the default emulated CXL topology and show what cxltier does
#   make bench-sim    run the policy simulator (bench/out/sim.json, bench/out/*.png)
#   make bench-traces record the simulator's program traces again (liblinear-train,
#                     redis-server, sort in the guest under QEMU's pagetrace plugin;
#                     bench/sim/traces/; bench/trace/record)
#   make bench        the guest benchmark: boots of the pool topology, the same Zipf
#                     workload, liblinear-train, redis-server and a DLRM-like training
#                     step in PyTorch on cxltier, the kernel's tiering, DAMON, DRAM and
#                     CXL, three seeds, about 80 minutes each on 2 CPUs
#                     (bench/out/guest.json, bench/out/guest.png; bench/run-guest)
#   make bench-ckpt   the checkpoint benchmark: one boot of the persist topology, commit
#                     and restore of a 64 MiB state against a file written with msync
#                     (bench/out/ckpt.json; bench/run-ckpt)
#   make install      install the module (lib/modules/KVER/updates, then depmod), the
#                     tools, the library with its headers, pkg-config and CMake files,
#                     the systemd unit and the udev rule; PREFIX (default /usr/local)
#                     and DESTDIR as usual, KDIR/KVER for the kernel
#   make dkms-install the module's sources into $(DESTDIR)/usr/src/cxltier-VERSION, then
#                     (without DESTDIR) dkms add, build and install for KVER (default:
#                     the running kernel); DKMS rebuilds it for every kernel installed
#   make deb          the Debian packages (debian/: cxltier-dkms, libcxltier1,
#                     libcxltier-dev, cxltier-tools) built with dpkg-buildpackage from a
#                     copy of the tree, checked with lintian, left in build/deb/
#   make check-packages  make deb, then the packages installed with apt into a Debian 12
#                     chroot (DKMS builds the module there), README's C example built
#                     against them and the demo's steps run from them in the guest
#                     (tests/packages/packages_test.sh)
#   make sparse       module build with sparse (C=2)
#   make checkpatch   kernel style check of kmod/ and include/
#   make debug-kernel build the checker guest kernel (KASAN, KFENCE, lockdep, ...)
#                     into $CXLT_KCACHE once per machine (qemu/build-debug-kernel)
#   make check-debug  build the module and a guest image for the debug kernel and run
#                     every guest selftests group on it (T=dir: one group)
#   make crash-test   the host-driven crash loop: TRIALS=N (default 30) kills of QEMU
#                     during checkpoint commits and region creates and destroys
#                     (tests/crash/crash_test.sh); ends "N trials, T torn, L lost"
#   make pool-kill-test  the shared pool's kill loop: TRIALS=N (default 20) kills of one
#                     host's QEMU while two hosts create and destroy regions on a
#                     pool they share (tests/pool/kill_test.sh)
#   make pool-pause-test  the shared pool's pause loop: TRIALS=N (default 10) stops of
#                     one host's QEMU for longer than the lease (tests/pool/pause_test.sh)
#   make poolcore-mutate  removes each write-back, fence, invalidate and lease check of
#                     the pool core (kmod/poolcore/) in turn; the host tests over the
#                     simulated device must fail each time (tests/poolcore/mutate.sh)
#
# KDIR selects the kernel build tree; it defaults to the Debian 6.12 headers that
# scripts/setup unpacks into .cache/ (the guest kernel).  On a real CXL host use
#   make KDIR=/lib/modules/$(uname -r)/build

ROOT   := $(CURDIR)
CACHE  ?= $(ROOT)/.cache
KVER   ?= $(shell cat $(CACHE)/kernel/KVER 2>/dev/null)
KDIR   ?= $(CACHE)/kernel/$(KVER)/usr/src/linux-headers-$(KVER)
BUILD  ?= $(ROOT)/build
# Recursive (=): KDIR names the cache that `setup` fills, so expand it only when used.
# Kbuild's objects in parallel (a sub-make of a plain `make` would build them one by one).
KJOBS  ?= -j$(shell nproc)
KMAKE  = $(MAKE) $(KJOBS) -C $(KDIR) M=$(ROOT) W=1

.PHONY: all module userspace selftests sparse checkpatch check demo bench-sim bench-traces bench setup \
	guest clean debug-kernel debug-module debug-guest check-debug guest-tools crash-test pool-kill-test \
	pool-pause-test poolcore-mutate model-3hosts bench-ckpt install dkms-src dkms-install deb check-packages \
	newest-kernel newest-module newest-guest slurm-guest check-slurm

all: module userspace selftests

setup:
	@scripts/setup --check 2>/dev/null || scripts/setup

module: setup
	@test -d "$(KDIR)" || { echo "make: KDIR=$(KDIR) is not a kernel build tree" >&2; exit 1; }
	$(KMAKE) modules

sparse: setup
	$(KMAKE) C=2 modules

checkpatch: setup
	@scripts/checkpatch

userspace: setup
	@cmake -S . -B $(BUILD) -G Ninja >/dev/null
	cmake --build $(BUILD)

selftests: setup userspace
	$(MAKE) -C selftests O=$(BUILD)/selftests

# Installed as a distribution would: the module under updates/ (it overrides nothing
# in-tree), depmod run on the tree it went into (Debian's header packages have no
# System.map, so Kbuild's modules_install skips depmod).
PREFIX ?= /usr/local
install: module userspace
	$(MAKE) -C $(KDIR) M=$(ROOT) modules_install INSTALL_MOD_PATH=$(DESTDIR) \
		INSTALL_MOD_DIR=updates KERNELRELEASE=$(KVER)
	depmod -b "$(if $(DESTDIR),$(DESTDIR),/)" $(KVER)
	DESTDIR=$(DESTDIR) cmake --install $(BUILD) --prefix $(PREFIX)

# DKMS: dkms.conf and the sources Kbuild needs (no objects), in DKMS_SRC.
DKMS_VERSION := $(shell sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' $(ROOT)/dkms.conf)
DKMS_SRC ?= $(DESTDIR)/usr/src/cxltier-$(DKMS_VERSION)
dkms-src:
	@rm -rf "$(DKMS_SRC)" && mkdir -p "$(DKMS_SRC)"
	@find Kbuild dkms.conf kmod include \( -name '*.[ch]' -o -name Kbuild -o -name dkms.conf \) \
		-type f | cpio -pdm --quiet "$(DKMS_SRC)"
	@echo "dkms: sources in $(DKMS_SRC)"
DKMS_KVER ?= $(shell uname -r)
dkms-install: dkms-src
ifeq ($(DESTDIR),)
	dkms add -m cxltier -v $(DKMS_VERSION)
	dkms build -m cxltier -v $(DKMS_VERSION) -k $(DKMS_KVER)
	dkms install -m cxltier -v $(DKMS_VERSION) -k $(DKMS_KVER)
endif

# Debian packages, from a copy of the files git knows (so no build/ or .cache/ goes
# into the source package); lintian's errors and warnings fail it.
DEB_OUT ?= $(BUILD)/deb
deb: setup
	@rm -rf "$(DEB_OUT)" && mkdir -p "$(DEB_OUT)/src/cxltier-$(DKMS_VERSION)"
	@git ls-files -z --cached --others --exclude-standard | \
		cpio -0pdm --quiet "$(DEB_OUT)/src/cxltier-$(DKMS_VERSION)"
	cd "$(DEB_OUT)/src/cxltier-$(DKMS_VERSION)" && dpkg-buildpackage -us -uc -j$(shell nproc)
	@mv "$(DEB_OUT)"/src/*.deb "$(DEB_OUT)"/src/*.changes "$(DEB_OUT)"/src/*.dsc \
		"$(DEB_OUT)"/src/*.tar.* "$(DEB_OUT)"/src/*.buildinfo "$(DEB_OUT)"/
	lintian --fail-on error,warning \
		"$(DEB_OUT)"/*.changes
	@ls "$(DEB_OUT)"/*.deb

check-packages: deb
	tests/packages/packages_test.sh

# The guest image: busybox, the kernel's CXL/DAX modules, our module, tools and selftests.
guest: all
	qemu/build-guest --build $(BUILD)

# KERNEL=newest: the guest groups on the newest kernel Debian ships (the host tests do
# not change with the kernel), as check-debug does on the debug kernel.
ifeq ($(KERNEL),newest)
check: newest-guest
	@CXLT_BUILD=$(BUILD) scripts/check --guest-only --kernel newest $(if $(T),--only $(T))
else
check: all guest
	@CXLT_BUILD=$(BUILD) scripts/check $(if $(T),--only $(T))
endif

# --- the newest kernel Debian ships ----------------------------------------------------------
# A trixie chroot with its image and headers, outside the clone (qemu/newest-kernel);
# the module builds inside it (a newer gcc and glibc than bookworm's).
newest-kernel: setup
	@qemu/newest-kernel get

newest-module: newest-kernel
	@qemu/newest-kernel module $(BUILD)/newest

newest-guest: newest-module guest-tools selftests
	qemu/build-guest --build $(BUILD) --kernel newest

# --- the debug (checker) kernel ------------------------------------------------------------
# Kbuild of 6.12 writes an external module's objects next to its sources (MO= came in
# 6.13), so the debug module builds from a copy of the sources in $(DEBUG_SRC); the
# Debian build keeps kmod/cxltier.ko.  The copy keeps modification times, so only what
# changed recompiles; sources deleted from the tree disappear from the copy.
DEBUG_SRC := $(BUILD)/debug/src

debug-kernel: setup
	@qemu/build-debug-kernel

debug-module: debug-kernel
	@mkdir -p $(DEBUG_SRC)
	@cd $(DEBUG_SRC) && find . \( -name '*.[ch]' -o -name Kbuild \) -type f -delete
	@find Kbuild kmod include \( -name '*.[ch]' -o -name Kbuild \) -type f | \
		cpio -pdm --quiet $(DEBUG_SRC)
	@. scripts/kernel-env && cxlt_kernel_env $(ROOT) debug || { echo "make: $$KERR" >&2; exit 1; }; \
		$(MAKE) $(KJOBS) -C "$$KDIR" M=$(DEBUG_SRC) W=1 modules

# What the guest image needs from the userspace build (not the host tests).
guest-tools: setup
	@cmake -S . -B $(BUILD) -G Ninja >/dev/null
	cmake --build $(BUILD) --target cxltierctl

debug-guest: debug-module guest-tools selftests
	qemu/build-guest --build $(BUILD) --kernel debug

# The guest part of `make check` on the debug kernel (the host tests do not change).
check-debug: debug-guest
	@CXLT_BUILD=$(BUILD) scripts/check --guest-only --kernel debug $(if $(T),--only $(T))

# Slurm: three hosts on a private network with Debian's slurmctld and slurmd, cxltier's
# SPANK plugin and job_submit.lua (tests/slurm/cluster_test.sh), and make demo's part 3
# (Slurm) checked step by step; the Slurm overlay of
# the guest image is qemu/build-slurm's.
slurm-guest: all guest
	qemu/build-slurm --build $(BUILD)

check-slurm: slurm-guest
	@CXLT_BUILD=$(BUILD) tests/slurm/cluster_test.sh
	@CXLT_BUILD=$(BUILD) qemu/demo --check --short --part 3

# The shared pool's kill loop: TRIALS=N (default 20) kills of one host's QEMU while it
# creates and destroys regions on a pool another host shares (tests/pool/kill_test.sh).
KILL_TRIALS ?= 20
pool-kill-test: all guest
	@CXLT_BUILD=$(BUILD) tests/pool/kill_test.sh --trials $(if $(TRIALS),$(TRIALS),$(KILL_TRIALS))

# The shared pool's pause loop: TRIALS=N (default 10) stops (SIGSTOP) of one host's QEMU
# for longer than the lease while both create, check and destroy regions and it holds
# some mapped (tests/pool/pause_test.sh).  TRIALS only when given: crash-test's default
# below is not this loop's.
PAUSE_TRIALS ?= 10
pool-pause-test: all guest
	@CXLT_BUILD=$(BUILD) tests/pool/pause_test.sh --trials $(if $(filter command line environment%,$(origin TRIALS)),$(TRIALS),$(PAUSE_TRIALS))

# Every cache maintenance and lease check of the pool core has a test that fails without it.
poolcore-mutate: userspace
	@tests/poolcore/mutate.sh $(BUILD)

# The lease model with three hosts, the bakery's configuration by a bitstate search to
# its end (make check's lease_model_3hosts gives it 60 s; the other two are exhaustive
# in both).
model-3hosts:
	@CXLT_MODEL_SET=hosts3 tests/model/run.sh

# The crash loop needs only the module, the tools and the worker in the image.
TRIALS ?= 30
crash-test: module guest-tools
	cmake --build $(BUILD) --target cxlt-crash-worker
	qemu/build-guest --build $(BUILD)
	@CXLT_BUILD=$(BUILD) tests/crash/crash_test.sh --trials $(TRIALS)

demo: all guest slurm-guest
	@CXLT_BUILD=$(BUILD) qemu/demo

bench-ckpt: module guest-tools
	cmake --build $(BUILD) --target cxlt-bench-ckpt
	qemu/build-guest --build $(BUILD)
	@bench/run-ckpt $(BUILD)

bench-sim: userspace
	@bench/run-sim $(BUILD)

bench-traces: guest-tools
	cmake --build $(BUILD) --target cxlt-bench-svmdata cxlt-bench-redisload
	qemu/build-guest --build $(BUILD)
	@bench/trace/record $(BUILD)

# Only what the guest run needs: the bench programs, process mode's service and the
# preload of `cxltierctl run --regions` (rows of their own), not the host tests, not
# the selftests (the image takes them when they are built).
bench: module guest-tools
	cmake --build $(BUILD) --target cxlt-bench-zipf cxlt-bench-pin cxlt-bench-prog cxlt-bench-redisload \
		cxlt-bench-svmdata cxlt-bench-report cxltier-procd cxltier_preload
	qemu/build-guest --build $(BUILD)
	qemu/build-torch --build $(BUILD)
	@bench/run-guest $(BUILD)

clean:
	-$(KMAKE) clean 2>/dev/null
	rm -rf $(BUILD)
