#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tests/install/dkms_test.sh [--newest]: DKMS builds the module as it would for an
# installed kernel, in trees of its own (--sourcetree, --dkmstree: nothing of the host's
# DKMS state is touched, nothing is installed or loaded): make dkms-src, dkms add, dkms
# build against the cached headers of the guest kernel (.cache/kernel), or with
# --newest against the newest kernel's, inside its trixie chroot (make newest-kernel:
# its gcc and glibc are newer than this machine's).  Checks that dkms.conf's version is
# the project's, that the build and its clean step succeed and that the module it built
# is for that kernel.  TAP; exit 0 when every case passed.
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
n=0 bad=0
ok() { n=$((n + 1)); echo "ok $n $1"; }
nok() { n=$((n + 1)); bad=$((bad + 1)); echo "not ok $n $1"; [ -z "${2:-}" ] || sed 's/^/# /' <<<"$2" | tail -n 20; }
finish() { echo "1..$n"; echo "$((n - bad)) passed, $bad failed, 0 skipped"; [ "$bad" -eq 0 ]; exit; }

echo "TAP version 13"
if [ "${1:-}" = --newest ]; then
	# shellcheck source=../../scripts/kernel-env
	. "$ROOT/scripts/kernel-env"
	# shellcheck source=../../scripts/debian-chroot
	. "$ROOT/scripts/debian-chroot"
	cxlt_kernel_env "$ROOT" newest || { nok "the newest kernel: $KERR"; finish; }
	# Paths as the chroot sees them (in its /tmp); dkms and modinfo run inside it.
	chroot_root=$KROOT
	work=$(mktemp -d "$KROOT/tmp/cxltier-dkms.XXXXXX")
	trap 'cxlt_chroot_umount "$chroot_root"; rm -rf "$work"' EXIT
	cxlt_chroot_mount "$KROOT" || { nok "mount /proc and /dev in $KROOT"; finish; }
	path_in() { echo "${1#"$chroot_root"}"; }
	run() { cxlt_chroot_run "$chroot_root" "$@"; }
	kver=$KVER kdir=/usr/src/linux-headers-$KVER
	run sh -c 'command -v dkms' >/dev/null || { nok "dkms is not in $KROOT (CXLT_NEWEST_REFRESH=1 make newest-kernel)"; finish; }
else
	work=$(mktemp -d)
	trap 'rm -rf "$work"' EXIT
	path_in() { echo "$1"; }
	run() { "$@"; }
	command -v dkms >/dev/null || { nok "dkms is not installed (scripts/setup installs it)"; finish; }
	kver=$(cat "$ROOT/.cache/kernel/KVER" 2>/dev/null)
	kdir=$ROOT/.cache/kernel/$kver/usr/src/linux-headers-$kver
	[ -n "$kver" ] && [ -d "$kdir" ] || { nok "no cached kernel headers in .cache/kernel (run scripts/setup)"; finish; }
fi

ver=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' "$ROOT/dkms.conf")
proj=$(sed -n 's/^project(cxltier VERSION \([0-9.]*\).*/\1/p' "$ROOT/CMakeLists.txt")
[ -n "$ver" ] && [ "$ver" = "$proj" ] && ok "dkms.conf's version is the project's ($ver)" ||
	nok "dkms.conf says '$ver', CMakeLists.txt '$proj'"

src=$work/src/cxltier-$ver
out=$(make -s -C "$ROOT" dkms-src DKMS_SRC="$src" 2>&1) && [ -f "$src/dkms.conf" ] &&
	[ -f "$src/kmod/Kbuild" ] && [ -f "$src/include/uapi/linux/cxltier.h" ] &&
	! find "$src" -name '*.o' | grep -q . &&
	ok "make dkms-src: dkms.conf, Kbuild and the sources, no objects" ||
	nok "make dkms-src" "$out"

mkdir -p "$work/tree"
trees=(--sourcetree "$(path_in "$work/src")" --dkmstree "$(path_in "$work/tree")")
out=$(run dkms add -m cxltier -v "$ver" "${trees[@]}" 2>&1) && ok "dkms add" || nok "dkms add" "$out"
out=$(run dkms build -m cxltier -v "$ver" -k "$kver" --kernelsourcedir "$kdir" "${trees[@]}" 2>&1)
rc=$?
ko=$(find "$work/tree/cxltier/$ver/$kver" -name 'cxltier.ko*' 2>/dev/null | head -n1)
[ $rc -eq 0 ] && [ -n "$ko" ] && ok "dkms build -k $kver" || nok "dkms build -k $kver (exit $rc)" "$out"
grep -q 'bad exit status' <<<"$out" && nok "dkms's clean step failed" "$(grep 'bad exit' <<<"$out")" ||
	ok "dkms's clean step succeeds"
vm=$( [ -n "$ko" ] && run modinfo -F vermagic "$(path_in "$ko")" 2>/dev/null)
[[ $vm == "$kver "* ]] && ok "the module is for $kver (vermagic $vm)" ||
	nok "the module's vermagic: '${vm:-none}'"
finish
