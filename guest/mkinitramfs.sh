#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Build the guest initramfs for one kernel flavour: busybox-static with
# applet links, cyclictest, hackbench, trace-cmd, bpftool, perf (Debian's
# linux-perf, for perf bench) and the shared libraries ldd reports, the
# flavour's modules, every executable in build/tools/bin/ (installed to
# /usr/bin), and guest/init.
#
# Usage: guest/mkinitramfs.sh lean|debug|kasan|kasan-nolockdep|step|mutant
#
# Output: build/initramfs-<flavour>.cpio.gz: a gzip'ed cpio archive and,
# appended to it, an uncompressed one with perf and the libraries only it
# needs (the kernel unpacks concatenated archives; gunzip of those 30 MB
# under TCG made every boot 0.5-0.8 s slower, copying them costs 0.1 s;
# zcat sees only the first).
# Rebuilt only when the content of an input changed (md5 stamp in
# build/initramfs-<flavour>.stamp).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
cli_prog=mkinitramfs
# shellcheck source=lib/sh/cli.sh
. "$top/lib/sh/cli.sh"
[ $# -eq 1 ] || usage "want one flavour"
case $1 in lean|debug|kasan|kasan-nolockdep|step|mutant) flavour=$1 ;; -h|--help) usage ;; *) usage "unknown flavour '$1'" ;; esac
out=$top/build/initramfs-$flavour.cpio.gz
stamp=$top/build/initramfs-$flavour.stamp
modroot=$top/build/obj-$flavour/modroot

[ -d "$modroot/lib/modules" ] || die "no modules in $modroot: run make kernel$([ "$flavour" = lean ] || echo "-$flavour")"
busybox=$(command -v busybox) || die "busybox missing: make deps"
bins=
for b in cyclictest hackbench trace-cmd bpftool chrt jq; do
	p=$(PATH=$PATH:/usr/sbin:/sbin command -v $b) || die "$b missing: make deps"
	bins="$bins $p"
done
# perf: Debian's /usr/bin/perf is either the binary itself (linux-perf
# 6.1) or linux-base's wrapper script that execs perf_<kernel version>,
# which would look for a perf_6.12 in the guest: take the binary and
# install it as /usr/bin/perf.
perf=$(command -v perf) || die "perf missing: make deps (linux-perf)"
if [ "$(head -c 4 "$perf" | tail -c 3)" != ELF ]; then
	perf=$(ls /usr/bin/perf_[0-9]* 2>/dev/null | sort -V | tail -1)
	[ -n "$perf" ] || die "$(command -v perf) is a wrapper and no /usr/bin/perf_<version> exists: make deps (linux-perf)"
fi
# Terminal descriptions for ncurses (proxytop): the guest console is
# TERM=linux; xterm for a terminal attached over the serial line.
terminfo="/lib/terminfo/l/linux /lib/terminfo/x/xterm"
for f in $terminfo; do
	[ -f "$f" ] || die "$f missing: make deps (ncurses-base)"
done
tools=
if [ -d "$top/build/tools/bin" ]; then
	for f in "$top"/build/tools/bin/*; do
		[ -f "$f" ] && [ -x "$f" ] && tools="$tools $f"
	done
fi
# Shared libraries (and the loader) of every dynamic executable.
# sharedlibs FILE...: their shared libraries and loader, one a line.
sharedlibs() {
	for f in "$@"; do ldd "$f" 2>/dev/null || true; done |
		sed -n -e 's/.*=> \(\/[^ ]*\) .*/\1/p' -e 's/^[[:space:]]*\(\/[^ ]*\) (.*/\1/p' | sort -u
}
# shellcheck disable=SC2086 # lists of paths
libs=$(sharedlibs $bins $tools)

T=${TMPDIR-/tmp}/mkinitramfs.$$
trap 'rm -rf "$T" "$out.tmp.$$"' 0
mkdir -p "$T"
# The libraries perf needs that the rest does not (libpython, libperl, ...).
echo "$libs" > "$T/libs"
perf_libs=$(sharedlibs "$perf" | grep -vxF -f "$T/libs" || true)

# Content stamp: paths and md5s of every input, including this script.
{
	echo "$busybox $bins $perf $tools $libs $perf_libs" | tr ' ' '\n'
	md5sum "$0" "$top/guest/init" "$busybox" $bins "$perf" $tools $libs $perf_libs $terminfo
	(cd "$modroot" && find . -type f | LC_ALL=C sort | xargs md5sum)
} | md5sum | cut -d' ' -f1 > "$T/stamp"
if [ -f "$out" ] && cmp -s "$T/stamp" "$stamp"; then
	echo "mkinitramfs: $out is up to date"
	exit 0
fi

r=$T/root
mkdir -p "$r/bin" "$r/sbin" "$r/usr/bin" "$r/usr/sbin" "$r/etc" "$r/proc" "$r/sys" \
	"$r/dev" "$r/tmp" "$r/run" "$r/root" "$r/px/out" "$r/px/share" "$r/px/repo" "$r/lib/modules"
cp "$busybox" "$r/bin/busybox"
"$busybox" --list-full | while read -r a; do
	[ "$a" = bin/busybox ] || [ -e "$r/$a" ] || ln -s /bin/busybox "$r/$a"
done
for f in $bins $libs $terminfo; do
	mkdir -p "$r$(dirname "$f")"
	cp -L "$f" "$r$f"
done
for f in $tools; do
	cp -L "$f" "$r/usr/bin/"
done
cp -a "$modroot/lib/modules/." "$r/lib/modules/"
cp "$top/guest/init" "$r/init"
chmod 755 "$r/init"
echo "root:x:0:0:root:/root:/bin/sh" > "$r/etc/passwd"
echo "root:x:0:" > "$r/etc/group"

# perf's archive: only what the first one lacks, installed as /usr/bin/perf.
p=$T/perf
mkdir -p "$p/usr/bin"
cp -L "$perf" "$p/usr/bin/perf"
for f in $perf_libs; do
	mkdir -p "$p$(dirname "$f")"
	cp -L "$f" "$p$f"
done

mkdir -p "$(dirname "$out")"
(cd "$r" && find . | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet) | gzip -1 > "$out.tmp.$$"
# The kernel looks for the next archive at a 4-byte boundary and skips
# zeros up to it ("invalid magic at start of compressed archive" without).
head -c $(((4 - $(wc -c < "$out.tmp.$$") % 4) % 4)) /dev/zero >> "$out.tmp.$$"
(cd "$p" && find . | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet) >> "$out.tmp.$$"
mv "$out.tmp.$$" "$out"
cp "$T/stamp" "$stamp"
echo "mkinitramfs: $out ($(du -k "$out" | cut -f1) KiB, perf's $(du -sk "$p" | cut -f1) KiB uncompressed; $(echo $tools | wc -w) tools from build/tools/bin)"
