#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tests/install/install_test.sh BUILD: make install as a user runs it, into a DESTDIR
# with PREFIX=/usr, then what was installed used as a user would: the module where
# modprobe finds it (depmod's modules.dep names it), the unit naming the installed
# daemon, the udev rule, and README's C example built against the installed
# library with pkg-config and with CMake's find_package(cxltier), then run (it
# loads the installed libcxltier; with no /dev/cxltier here, cxltier_new() fails and
# it exits 1).  TAP; exit 0 when every case passed.
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${1:?usage: install_test.sh BUILD}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
dest=$work/dest
n=0 bad=0
ok() { n=$((n + 1)); echo "ok $n $1"; }
nok() { n=$((n + 1)); bad=$((bad + 1)); echo "not ok $n $1"; [ -z "${2:-}" ] || sed 's/^/# /' <<<"$2" | tail -n 15; }

echo "TAP version 13"
if out=$(make -C "$ROOT" install DESTDIR="$dest" PREFIX=/usr BUILD="$BUILD" 2>&1); then
	ok "make install DESTDIR=... PREFIX=/usr"
else
	nok "make install DESTDIR=... PREFIX=/usr" "$out"
	echo "1..$n"
	exit 1
fi
kver=$(cat "$ROOT/.cache/kernel/KVER")

# The module, and depmod's word that modprobe finds it.
ko=$(cd "$dest/lib/modules/$kver" 2>/dev/null && find updates -name 'cxltier.ko*' | head -n1)
if [ -n "$ko" ] && grep -q "^$ko:" "$dest/lib/modules/$kver/modules.dep"; then
	ok "module in lib/modules/$kver/$ko, listed in modules.dep"
else
	nok "module installed and listed in modules.dep" "$(ls -R "$dest/lib/modules" 2>&1 | head -n 20)"
fi

for f in usr/bin/cxltierctl usr/sbin/cxltier-procd usr/include/cxltier.h \
	usr/lib/pkgconfig/cxltier.pc usr/lib/cmake/cxltier/cxltierConfig.cmake \
	usr/lib/udev/rules.d/60-cxltier.rules usr/lib/systemd/system/cxltier-procd.service \
	usr/share/bash-completion/completions/cxltierctl \
	usr/share/man/man8/cxltierctl.8 usr/share/man/man8/cxltier-procd.8 \
	usr/share/man/man3/libcxltier.3 usr/share/man/man4/cxltier.4 \
	usr/share/man/man1/cxltier-ckpt-job.1 usr/lib/cxltier/libcxltier-preload.so; do
	[ -e "$dest/$f" ] && ok "/$f" || nok "/$f is not installed"
done
unit=$dest/usr/lib/systemd/system/cxltier-procd.service
grep -qx 'ExecStart=/usr/sbin/cxltier-procd' "$unit" 2>/dev/null &&
	ok "the unit starts the installed daemon (/usr/sbin/cxltier-procd)" ||
	nok "the unit's ExecStart: $(grep ExecStart "$unit" 2>&1)"
out=$("$dest/usr/bin/cxltierctl" --help 2>&1) && grep -q 'tier' <<<"$out" &&
	ok "the installed cxltierctl runs (--help)" || nok "the installed cxltierctl --help" "$out"

# README's example, exactly as README.md shows it.
awk '/^Mapping a global region from C/ { f = 1; next } f && /^```c/ { c = 1; next }
	c && /^```/ { exit } c { print }' "$ROOT/README.md" >"$work/demo.c"
grep -q 'cxltier_region_map' "$work/demo.c" || nok "README's C example not found" "$(head -n 5 "$work/demo.c")"

# pkg-config: relocatable (${pcfiledir}), so the paths point into DESTDIR.
export PKG_CONFIG_PATH=$dest/usr/lib/pkgconfig
flags=$(pkg-config --cflags --libs cxltier 2>&1)
inc=$(pkg-config --cflags-only-I cxltier 2>/dev/null | sed 's/^ *-I//; s/ *$//')
libd=$(pkg-config --libs-only-L cxltier 2>/dev/null | sed 's/^ *-L//; s/ *$//')
if [ "$(realpath -m "$inc")" = "$dest/usr/include" ] && [ "$(realpath -m "$libd")" = "$dest/usr/lib" ]; then
	ok "pkg-config --cflags --libs cxltier: $flags"
else
	nok "pkg-config --cflags --libs cxltier: $flags (not $dest/usr/include and lib)"
fi
# shellcheck disable=SC2086
if out=$(cc -Wall -Werror -o "$work/demo-pc" "$work/demo.c" $flags 2>&1); then
	ok "README's C example builds with pkg-config"
else
	nok "README's C example builds with pkg-config" "$out"
fi
LD_LIBRARY_PATH=$dest/usr/lib "$work/demo-pc" >/dev/null 2>&1
rc=$?
lib=$(LD_LIBRARY_PATH=$dest/usr/lib ldd "$work/demo-pc" 2>/dev/null | awk '/libcxltier/ { print $3 }')
[ "$rc" = 1 ] && [ "$lib" = "$dest/usr/lib/libcxltier.so.1" ] &&
	ok "it runs on the installed libcxltier.so.1 (exit 1: no /dev/cxltier here)" ||
	nok "it runs on the installed library: exit $rc, libcxltier from ${lib:-nowhere}"

# CMake: find_package(cxltier) and the imported target.
mkdir -p "$work/cm"
cp "$work/demo.c" "$work/cm/"
cat >"$work/cm/CMakeLists.txt" <<'CM'
cmake_minimum_required(VERSION 3.25)
project(demo C)
find_package(cxltier 0.1 REQUIRED)
add_executable(demo demo.c)
target_link_libraries(demo PRIVATE cxltier::cxltier)
CM
if out=$(cmake -S "$work/cm" -B "$work/cm/build" -DCMAKE_PREFIX_PATH="$dest/usr" 2>&1 &&
	cmake --build "$work/cm/build" 2>&1); then
	ok "README's C example builds with find_package(cxltier)"
else
	nok "README's C example builds with find_package(cxltier)" "$out"
fi

echo "1..$n"
echo "$((n - bad)) passed, $bad failed, 0 skipped"
[ "$bad" -eq 0 ]
