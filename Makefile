# SPDX-License-Identifier: GPL-2.0
#
# cxltier top-level Makefile.
#
#   make              build the module (kmod/cxltier.ko), the userspace and the
#                     guest selftests (build/)
#   make check        set up what is missing, build, run host tests and guest selftests
#   make check T=dir  run one selftests/ group in the guest (host tests still run)
#   make demo         boot the default emulated CXL topology and show what cxltier does
#   make bench-sim    run the policy simulator (bench/out/sim.json, bench/out/*.png)
#   make sparse       module build with sparse (C=2)
#   make checkpatch   kernel style check of kmod/ and include/
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
KMAKE  = $(MAKE) -C $(KDIR) M=$(ROOT) W=1

.PHONY: all module userspace selftests sparse checkpatch check demo bench-sim setup \
	guest clean

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

selftests: setup
	$(MAKE) -C selftests O=$(BUILD)/selftests

# The guest image: busybox, the kernel's CXL/DAX modules, our module, tools and selftests.
guest: all
	qemu/build-guest --build $(BUILD)

check: all guest
	@CXLT_BUILD=$(BUILD) scripts/check $(if $(T),--only $(T))

demo: all guest
	@CXLT_BUILD=$(BUILD) qemu/demo

bench-sim: userspace
	@bench/run-sim $(BUILD)

clean:
	-$(KMAKE) clean 2>/dev/null
	rm -rf $(BUILD)
