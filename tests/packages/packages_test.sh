#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tests/packages/packages_test.sh [DEBDIR]: the Debian packages used as a user would.
#
#  1. A Debian 12 system: a chroot made with debootstrap from the machine's own Debian
#     URI, with build-essential, cmake, dkms and the rig's kernel (image and headers,
#     the version in .cache/kernel/KVER), cached in $CXLT_KCACHE/chroot (outside the
#     clone, like the debug kernel); each run works on a fresh copy of it.
#  2. `apt-get install ./cxltier-*.deb` there, as README.md says: the packages' own
#     maintainer scripts run (DKMS builds the module for the installed kernel, the
#     group "cxltier" is made); then what was installed: the module where modprobe
#     finds it, made for that kernel, the tools, the man pages, README's C example
#     built with pkg-config and with CMake against libcxltier-dev and linked to
#     libcxltier1's library.
#  3. The guest image made from the chroot's installed files (qemu/build-guest
#     --installed), and make demo's first part run on it (qemu/demo --check --short
#     --part 1): every step of the demo, from the installed module and tools.
#
# DEBDIR defaults to build/deb (make deb).  TAP; the last line is "N passed, N failed,
# N skipped"; exit 1 when a case failed.  A step whose setup fails (debootstrap, apt)
# fails.  Measured here: 1.5 min, and 4 min more the first time (debootstrap and the
# kernel); make deb before it takes 2 min.
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${CXLT_BUILD:-$ROOT/build}
DEBDIR=$(realpath -m "${1:-$BUILD/deb}")
# shellcheck source=../../scripts/kernel-env
. "$ROOT/scripts/kernel-env"
cxlt_kernel_env "$ROOT" debian || KVER=
BASE=$CXLT_KCACHE/chroot/bookworm-$KVER
WORK=$BUILD/packages
R=$WORK/root

n=0 bad=0
ok() { n=$((n + 1)); echo "ok $n $1"; }
nok() { n=$((n + 1)); bad=$((bad + 1)); echo "not ok $n $1"; [ -z "${2:-}" ] || sed 's/^/# /' <<<"$2" | tail -n 20; }
finish() {
	echo "1..$n"
	echo "$((n - bad)) passed, $bad failed, 0 skipped"
	[ $bad -eq 0 ]
	exit
}
log() { echo "# $*"; }
# shellcheck source=../../scripts/debian-chroot
. "$ROOT/scripts/debian-chroot"
cleanup() {
	cxlt_chroot_umount "$BASE.tmp"
	cxlt_chroot_umount "$R"
}
trap cleanup EXIT

echo "TAP version 13"
[ -n "$KVER" ] || { nok "the rig's kernel version (.cache/kernel/KVER; run scripts/setup)"; finish; }
debs=("$DEBDIR"/cxltier-dkms_*.deb "$DEBDIR"/cxltier-tools_*_amd64.deb
	"$DEBDIR"/libcxltier1_*_amd64.deb "$DEBDIR"/libcxltier-dev_*_amd64.deb
	"$DEBDIR"/cxltier-slurm_*_amd64.deb)
for d in "${debs[@]}"; do
	[ -f "$d" ] || { nok "package $d (run make deb)"; finish; }
done
[ "$(id -u)" -eq 0 ] || { nok "root (debootstrap, chroot and mount need it)"; finish; }

# --- 1. the Debian 12 system, once per machine and kernel ---------------------------------
if [ ! -f "$BASE/.cxlt-ok" ]; then
	log "making a Debian 12 chroot in $BASE (debootstrap, then the kernel $KVER; a few minutes)"
	# The same suites as this machine: the kernel may be in bookworm-security or -updates.
	if ! out=$(cxlt_chroot_make "$BASE" bookworm host -- build-essential cmake pkg-config dkms \
			kmod initramfs-tools "linux-image-$KVER" "linux-headers-$KVER" 2>&1); then
		nok "a Debian 12 chroot with build-essential, cmake, dkms and linux-headers-$KVER" "$out"
		finish
	fi
	touch "$BASE/.cxlt-ok"
fi
ok "a Debian 12 system with kernel $KVER and its headers ($BASE)"

cxlt_chroot_umount "$R" || { nok "$R: something is still mounted in it"; finish; }
rm -rf "$WORK" && mkdir -p "$WORK"
cp -a "$BASE" "$R" || { nok "copy of the chroot into $R"; finish; }
mkdir -p "$R/tmp/debs" && cp "${debs[@]}" "$R/tmp/debs/"
cxlt_chroot_mount "$R" || { nok "mount /proc and /dev in $R"; finish; }

# --- 2. apt install ./cxltier-*.deb, as README.md says -------------------------------------
t0=$SECONDS
if out=$(cxlt_chroot_run "$R" sh -c 'cd /tmp/debs && apt-get install -y -q ./*.deb' 2>&1); then
	ok "apt-get install ./cxltier-dkms ./cxltier-tools ./libcxltier1 ./libcxltier-dev ./cxltier-slurm ($((SECONDS - t0)) s)"
else
	nok "apt-get install of the packages" "$out"
	finish
fi
echo "$out" | grep -iE 'dkms|module|cxltier' | head -n 12 | sed 's/^/# apt: /'

ko=$(cxlt_chroot_run "$R" modinfo -k "$KVER" -n cxltier 2>&1)
if [[ $ko == /lib/modules/$KVER/updates/dkms/cxltier.ko* ]] && [ -f "$R$ko" ]; then
	ok "DKMS built the module for $KVER; modprobe finds it ($ko)"
else
	nok "DKMS built the module for $KVER (modinfo -n cxltier: $ko)" \
		"$(cxlt_chroot_run "$R" dkms status 2>&1; ls "$R/var/lib/dkms/cxltier/"*/build/make.log 2>/dev/null)"
fi
vm=$(cxlt_chroot_run "$R" modinfo -k "$KVER" -F vermagic cxltier 2>&1)
[[ $vm == "$KVER "* ]] && ok "its vermagic is $KVER's: $vm" || nok "the module's vermagic: $vm"
st=$(cxlt_chroot_run "$R" dkms status cxltier 2>/dev/null)
grep -q "installed" <<<"$st" && ok "dkms status: $st" || nok "dkms status says installed" "$st"
cxlt_chroot_run "$R" getent group cxltier >/dev/null && ok "the group cxltier exists (cxltier-tools' postinst)" ||
	nok "the group cxltier (cxltier-tools' postinst)"
for f in /usr/bin/cxltierctl /usr/bin/cxltier-ckpt-job /usr/sbin/cxltier-procd \
	/lib/udev/rules.d/60-cxltier.rules /lib/systemd/system/cxltier-procd.service \
	/usr/share/bash-completion/completions/cxltierctl /usr/share/man/man8/cxltierctl.8.gz \
	/usr/share/man/man8/cxltier-procd.8.gz /usr/share/man/man3/libcxltier.3.gz \
	/usr/share/man/man4/cxltier.4.gz /usr/share/man/man1/cxltier-ckpt-job.1.gz \
	/usr/lib/x86_64-linux-gnu/cxltier/libcxltier-preload.so; do
	[ -e "$R$f" ] && ok "$f" || nok "$f is not installed"
done
# cxltierctl run --regions finds the installed preload (the job's LD_PRELOAD names it).
out=$(cxlt_chroot_run "$R" cxltierctl run --regions -- sh -c 'echo "LD_PRELOAD=$LD_PRELOAD"' 2>&1)
[ "$out" = "LD_PRELOAD=/usr/lib/x86_64-linux-gnu/cxltier/libcxltier-preload.so" ] &&
	ok "cxltierctl run --regions puts the installed libcxltier-preload.so in LD_PRELOAD" ||
	nok "cxltierctl run --regions" "$out"
out=$(cxlt_chroot_run "$R" cxltierctl --help 2>&1) && grep -q 'tier' <<<"$out" &&
	ok "cxltierctl runs in the chroot (--help)" || nok "cxltierctl --help in the chroot" "$out"

# cxltier-slurm: what README's Slurm lines name, and the plugin's libraries resolve
# (slurmd dlopen()s it).
spank=/usr/lib/x86_64-linux-gnu/cxltier/slurm/cxltier_spank.so
for f in $spank /usr/sbin/cxltier-slurm-gres /usr/share/cxltier/slurm/job_submit.lua \
	/lib/systemd/system/cxltier-slurm-gres.service /usr/share/man/man8/cxltier-slurm-gres.8.gz; do
	[ -e "$R$f" ] && ok "$f" || nok "$f is not installed"
done
out=$(cxlt_chroot_run "$R" ldd "$spank" 2>&1)
! grep -q "not found" <<<"$out" && grep -q libcxltier <<<"$out" &&
	ok "the SPANK plugin's libraries resolve (libcxltier1's)" || nok "ldd of the SPANK plugin" "$out"
# No module in the chroot: the node offers 0, as README's command prints it.
out=$(cxlt_chroot_run "$R" cxltier-slurm-gres --node n1 --conf /tmp/gres.conf 2>&1)
grep -q "^NodeName=n1 Name=cxlmem Count=0 Flags=CountOnly" <<<"$out" &&
	grep -q "Count=0" "$R/tmp/gres.conf" && ok "cxltier-slurm-gres --conf writes gres.conf (0: no module here)" ||
	nok "cxltier-slurm-gres --conf" "$out"

# README's C example, as README.md shows it, against libcxltier-dev.
awk '/^Mapping a global region from C/ { f = 1; next } f && /^```c/ { c = 1; next }
	c && /^```/ { exit } c { print }' "$ROOT/README.md" >"$R/tmp/demo.c"
grep -q 'cxltier_region_map' "$R/tmp/demo.c" || nok "README's C example not found in README.md"
if out=$(cxlt_chroot_run "$R" sh -c 'cc -Wall -Werror -o /tmp/demo-pc /tmp/demo.c $(pkg-config --cflags --libs cxltier)' 2>&1); then
	ok "README's C example builds with pkg-config"
else
	nok "README's C example builds with pkg-config" "$out"
fi
mkdir -p "$R/tmp/demo-cmake"
cat >"$R/tmp/demo-cmake/CMakeLists.txt" <<'EOF'
cmake_minimum_required(VERSION 3.25)
project(demo C)
find_package(cxltier REQUIRED)
add_executable(demo /tmp/demo.c)
target_link_libraries(demo PRIVATE cxltier::cxltier)
EOF
if out=$(cxlt_chroot_run "$R" sh -c 'cmake -S /tmp/demo-cmake -B /tmp/demo-cmake/b && cmake --build /tmp/demo-cmake/b' 2>&1); then
	ok "README's C example builds with CMake's find_package(cxltier)"
else
	nok "README's C example builds with CMake's find_package(cxltier)" "$out"
fi
lib=$(cxlt_chroot_run "$R" ldd /tmp/demo-cmake/b/demo 2>&1 | awk '/libcxltier/ { print $3 }')
[ "$lib" = /lib/x86_64-linux-gnu/libcxltier.so.1 ] || [ "$lib" = /usr/lib/x86_64-linux-gnu/libcxltier.so.1 ] &&
	ok "it links libcxltier1's library ($lib)" || nok "the example's libcxltier: '$lib'"

# --- 3. make demo's first part on a guest made of the installed files -----------------------
cxlt_chroot_umount "$R" || { nok "$R: cannot unmount /proc and /dev"; finish; }
img=$BUILD/guest-installed/initrd.cpio.gz
if out=$("$ROOT/qemu/build-guest" --build "$BUILD" --installed "$R" 2>&1); then
	ok "guest image from the installed files ($(tail -n1 <<<"$out"))"
else
	nok "qemu/build-guest --installed" "$out"
	finish
fi
# The module the guest loads is DKMS's: the build tree's (extra/) is not in the image.
files=$(zcat "$img" | cpio -t --quiet 2>/dev/null | grep 'cxltier\.ko')
[ "$files" = "./lib/modules/$KVER/updates/dkms/cxltier.ko" ] || [ "$files" = "lib/modules/$KVER/updates/dkms/cxltier.ko" ] &&
	ok "the image's module is the one DKMS built ($files)" || nok "the image's cxltier.ko: $files"
t0=$SECONDS
out=$(CXLT_BUILD="$BUILD" CXLT_INITRD="$img" \
	"$ROOT/qemu/demo" --check --short --part 1 2>&1)
rc=$?
grep -E '^(not )?ok [0-9]+ |^# demo part' <<<"$out" | sed 's/^/# demo: /'
if [ $rc -eq 0 ]; then
	ok "make demo's first part, every step, from the packages ($((SECONDS - t0)) s): $(tail -n1 <<<"$out")"
else
	nok "make demo's first part from the packages" "$(grep -B2 -A8 '^not ok' <<<"$out" | head -n 40)"
fi
finish
