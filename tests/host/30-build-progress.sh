#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Host check: kernel/build.sh prints a progress line while make runs
# (objects built, elapsed, an estimate once the flavour was built before)
# and leaves nothing running behind.  No kernel is built: build.sh runs in
# a scratch copy of the repository layout, against a fake tree and a fake
# make that "compiles" objects slowly.
#
#   ok build-progress/lines, ok build-progress/estimate, ok build-progress/no-leftover
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
T=${TMPDIR-/tmp}/pxbuildprog.$$
trap 'rm -rf "$T"' 0
mkdir -p "$T/kernel/config" "$T/build/linux/.git" "$T/build/linux/scripts/kconfig" \
	"$T/build/linux/kernel" "$T/build/linux/init" "$T/bin" "$T/lib/sh"
cp "$top/kernel/build.sh" "$T/kernel/"
cp "$top/lib/sh/cli.sh" "$T/lib/sh/"
cp "$top/kernel/config/lean.config" "$T/kernel/config/"
: > "$T/build/linux/kernel/Kconfig.preempt"
: > "$T/build/linux/init/Kconfig"
# merge_config.sh -m -O OBJ .config FRAGMENTS: the fragments' symbols, as
# Kconfig would keep them (=n lines dropped).
cat > "$T/build/linux/scripts/kconfig/merge_config.sh" <<'MC'
#!/bin/sh
while [ $# -gt 0 ]; do case $1 in -O) out=$2; shift 2 ;; -m) shift ;; *) break ;; esac; done
shift
cat "$@" | grep -E '^CONFIG_[A-Z0-9_]+=' | grep -v '=n$' > "$out/.config"
MC
chmod +x "$T/build/linux/scripts/kconfig/merge_config.sh"
# make -s -C TREE O=OBJ ... TARGETS: bzImage writes $FAKE_OBJS objects,
# one every $FAKE_DELAY seconds.
cat > "$T/bin/make" <<'MK'
#!/bin/sh
for a; do case $a in O=*) o=${a#O=} ;; INSTALL_MOD_PATH=*) m=${a#INSTALL_MOD_PATH=} ;; esac; done
for a; do
	case $a in
	tinyconfig) : > "$o/.config" ;;
	bzImage)
		i=0
		while [ $i -lt "${FAKE_OBJS:-12}" ]; do
			mkdir -p "$o/d$((i % 3))"; : > "$o/d$((i % 3))/f$i.o"
			sleep "${FAKE_DELAY:-0.25}"; i=$((i + 1))
		done
		mkdir -p "$o/arch/x86/boot" "$o/include/config"
		: > "$o/arch/x86/boot/bzImage"; echo 6.12.0-fake > "$o/include/config/kernel.release" ;;
	modules_install) mkdir -p "$m/lib/modules/6.12.0-fake" ;;
	esac
done
exit 0
MK
chmod +x "$T/bin/make"
# run NAME TICK OBJS DELAY: build.sh with a progress line every TICK s, a
# make writing OBJS objects DELAY s apart.
run() {
	start=$(date +%s)
	# Through a pipe, as under tee or CI: a leftover sleep would hold it.
	{ PATH=$T/bin:$PATH PX_PROGRESS_SECS=$2 FAKE_OBJS=$3 FAKE_DELAY=$4 \
		sh "$T/kernel/build.sh" lean 2>&1; echo $? > "$T/rc"; } | cat > "$T/$1.out"
	rc=$(cat "$T/rc")
	wall=$(($(date +%s) - start))
	sed 's/^/# /' "$T/$1.out"
}
run first 1 12 0.25
n=$(grep -c '^build: lean: [0-9]* objects, 0m0[0-9]s elapsed$' "$T/first.out")
if [ $rc -eq 0 ] && [ "$n" -ge 2 ] && grep -q '^build: lean kernel 6.12.0-fake in ' "$T/first.out"; then
	ok=1; echo "ok build-progress/lines"
else
	echo "not ok build-progress/lines - exit $rc, $n progress lines in a 3 s build, want >= 2"
fi
# Rebuild after a change: the first build's object count gives an estimate.
sleep 1; touch "$T/build/linux/init/Kconfig.new"
run second 1 12 0.25
if [ $rc -eq 0 ] && grep -q '^build: lean: [0-9]* objects, 0m0[0-9]s elapsed, ~0m0[0-9]s left of ~12$' "$T/second.out"; then
	echo "ok build-progress/estimate"
else
	echo "not ok build-progress/estimate - exit $rc, no 'left of ~12' line in the second build"
fi
# The progress loop and its sleep end with make: nothing holds stdout, the
# pipe closes right after a 1 s build, not at the next tick 20 s later.
sleep 1; touch "$T/build/linux/init/Kconfig.new2"
run third 20 2 0.5
if [ $rc -eq 0 ] && [ "$wall" -le 10 ] && ! pgrep -f "$T/kernel/build.sh" > /dev/null; then
	echo "ok build-progress/no-leftover"
else
	echo "not ok build-progress/no-leftover - build took ${wall}s or left a process behind"
fi
