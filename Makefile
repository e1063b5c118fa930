# SPDX-License-Identifier: GPL-2.0
# proxyexec: Proxy Execution on Debian's linux-source-6.12, tested in QEMU.
#
# The two commands:
#   make demo    set everything up, boot the lean guest, run the demo
#   make check   set everything up, run all tests ("N passed, N failed")
# Every step is incremental: a second run redoes nothing that is current.
.NOTPARALLEL:
SHELL := /bin/sh
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
PKGS := linux-source-6.12 bc bison flex libssl-dev libelf-dev dwarves \
	qemu-system-x86 clang llvm libbpf-dev bpftool rt-tests trace-cmd \
	busybox-static ccache gnuplot-nox cpio git kmod zstd rsync build-essential \
	libtracecmd-dev libtraceevent-dev libtracefs-dev libncurses-dev ncurses-base jq \
	linux-perf procps
# Extra options, e.g. make check TESTFLAGS="--kernel lean", make boot RUNFLAGS="--cpus 4"
TESTFLAGS ?=
RUNFLAGS ?=
# The demo's bench: the CI size with 4-s scenarios (the self-test uses 2 s).
BENCHFLAGS ?= --quick --duration 4
# e.g. make soak SOAKFLAGS="--duration 2h --boots 4"
SOAKFLAGS ?=
DEMO_CPUS ?= 4

.PHONY: help deps tree kernel kernel-debug kernel-kasan kernel-kasan-nolockdep tools unit \
	image image-lean image-debug image-kasan image-kasan-nolockdep \
	boot demo check test soak soak-short clean distclean

help:
	@sed -n 's/^#   make /make /p' Makefile
	@echo "targets: deps tree kernel kernel-debug kernel-kasan kernel-kasan-nolockdep tools unit image boot demo check test soak soak-short clean distclean"

# Install only the packages that are missing.
deps:
	@missing=$$(for p in $(PKGS); do \
		dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q '^install ok installed' || echo $$p; \
	done | tr '\n' ' '); \
	if [ -n "$$missing" ]; then \
		echo "deps: installing $$missing"; \
		$(SUDO) apt-get update && \
		$(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $$missing; \
	else echo "deps: all packages installed"; fi

tree: deps
	kernel/prepare-tree.sh

kernel: tree
	kernel/build.sh lean

kernel-debug: tree
	kernel/build.sh debug

# The soak kernel: debug + KASAN (kernel/config/kasan.config).
kernel-kasan: tree
	kernel/build.sh kasan

# KASAN and the detectors without lock debugging: the lock code users run.
kernel-kasan-nolockdep: tree
	kernel/build.sh kasan-nolockdep

tools: tree
	@if [ -f tools/Makefile ]; then $(MAKE) -C tools; else echo "tools: no tools/Makefile yet, skipping"; fi

# Host unit tests (tools/Makefile builds them into build/tests/unit/).
unit: tree
	@if [ -f tools/Makefile ]; then $(MAKE) -C tools unit; else echo "unit: no tools/Makefile yet, skipping"; fi

image-lean: kernel tools
	guest/mkinitramfs.sh lean

image-debug: kernel-debug tools
	guest/mkinitramfs.sh debug

image-kasan: kernel-kasan tools
	guest/mkinitramfs.sh kasan

image-kasan-nolockdep: kernel-kasan-nolockdep tools
	guest/mkinitramfs.sh kasan-nolockdep

image: image-lean image-debug

boot: image-lean
	guest/run.sh --interactive $(RUNFLAGS)

# The main job.  tests/demo.sh (and later bench/run.sh) supply its content;
# until then, cyclictest on every vCPU.
# The main job: the demo in a proxy-on guest, then the benchmark (proxy off
# vs v4-style vs current, table + plots in bench/results/<date-time>/).
demo: image-lean
	guest/run.sh --cpus $(DEMO_CPUS) --timeout 900 --share tests $(RUNFLAGS) -- sh demo.sh
	bench/run.sh $(BENCHFLAGS)

# One scenario recorded with trace-cmd until its break threshold trips, and
# the worst sample's story (bench/postmortem.sh; build/postmortem/<date-time>/),
# e.g. make postmortem PMFLAGS="--cpus 4 inversion xcpu -c 0,1 --break 5000"
PMFLAGS ?= inversion sleep-owner -n 20 --break 5000
.PHONY: postmortem
postmortem: image-lean
	bench/postmortem.sh $(PMFLAGS)

check: image-lean image-debug image-kasan-nolockdep unit
	tests/run.sh $(TESTFLAGS)

# Tests only, against whatever kernels and images exist.
test:
	tests/run.sh $(TESTFLAGS)

# The long stress run (default 2 debug boots x 30 min, 8 vCPUs; results and
# summary.txt in build/soak/<date-time>/).  Builds the image it boots.
soak: $(if $(findstring lean,$(SOAKFLAGS)),image-lean,$(if $(findstring nolockdep,$(SOAKFLAGS)),image-kasan-nolockdep,$(if $(findstring debug,$(SOAKFLAGS)),image-debug,image-kasan)))
	tests/soak.sh $(SOAKFLAGS)

# The soak, short: 60 s per return strategy on the debug kernel, the two
# boots side by side (about 2 minutes; not part of make check).
soak-short: image-debug
	tests/soak.sh --kernel debug --duration 60s $(SOAKFLAGS)

clean:
	@if [ -f tools/Makefile ]; then $(MAKE) -C tools clean; fi
	rm -rf build/initramfs-* build/runs build/test-results build/tests

# Also the kernel tree and objects (ccache in ~/.cache/proxyexec-ccache stays).
distclean: clean
	rm -rf build
