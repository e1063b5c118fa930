#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Build the guest initramfs for one kernel flavour: busybox-static with
# applet links, cyclictest, hackbench, trace-cmd, bpftool and the shared
# libraries ldd reports, the flavour's modules, every executable in
# build/tools/bin/ (installed to /usr/bin), and guest/init.
#
# Usage: guest/mkinitramfs.sh lean|debug|kasan
#
# Output: build/initramfs-<flavour>.cpio.gz.  Rebuilt only when the
# content of an input changed (md5 stamp in build/initramfs-<flavour>.stamp).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
flavour=${1:?usage: guest/mkinitramfs.sh lean|debug|kasan}
case $flavour in lean|debug|kasan) ;; *) echo "mkinitramfs: unknown flavour '$flavour' (lean|debug|kasan)" >&2; exit 2 ;; esac
out=$top/build/initramfs-$flavour.cpio.gz
stamp=$top/build/initramfs-$flavour.stamp
modroot=$top/build/obj-$flavour/modroot
die() { echo "mkinitramfs: $*" >&2; exit 1; }

[ -d "$modroot/lib/modules" ] || die "no modules in $modroot: run make kernel$([ "$flavour" = lean ] || echo "-$flavour")"
busybox=$(command -v busybox) || die "busybox missing: make deps"
bins=
for b in cyclictest hackbench trace-cmd bpftool chrt jq; do
	p=$(PATH=$PATH:/usr/sbin:/sbin command -v $b) || die "$b missing: make deps"
	bins="$bins $p"
done
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
libs=$(for f in $bins $tools; do ldd "$f" 2>/dev/null || true; done |
	sed -n -e 's/.*=> \(\/[^ ]*\) .*/\1/p' -e 's/^[[:space:]]*\(\/[^ ]*\) (.*/\1/p' | sort -u)

T=${TMPDIR-/tmp}/mkinitramfs.$$
trap 'rm -rf "$T" "$out.tmp.$$"' 0
mkdir -p "$T"

# Content stamp: paths and md5s of every input, including this script.
{
	echo "$busybox $bins $tools $libs" | tr ' ' '\n'
	md5sum "$0" "$top/guest/init" "$busybox" $bins $tools $libs $terminfo
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

mkdir -p "$(dirname "$out")"
(cd "$r" && find . | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet) | gzip -1 > "$out.tmp.$$"
mv "$out.tmp.$$" "$out"
cp "$T/stamp" "$stamp"
echo "mkinitramfs: $out ($(du -k "$out" | cut -f1) KiB; $(echo $tools | wc -w) tools from build/tools/bin)"
