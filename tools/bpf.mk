# SPDX-License-Identifier: GPL-2.0
# tools/bpf.mk: the libbpf CO-RE tools (pxchain pxdonor pxwakelat proxytop
# pxlockwait).
#
# Included at the end of tools/Makefile, whose `all` then builds them once
# the lean kernel exists (make -C tools bpf-tools forces it).  Also usable
# alone: make -f tools/bpf.mk bpf-tools (needs build/tools/libpxutil.a).
#
# Pipeline, libbpf-tools style (a tool's files share its name):
#   build/obj-lean/vmlinux --bpftool btf dump--> build/bpf/vmlinux.h
#   bpf/foo.bpf.c --clang -target bpf--> build/bpf/foo.bpf.o
#            --bpftool gen skeleton--> build/bpf/foo.skel.h
#   tools/observe/foo.c (+ skel) --> build/bpf/foo.o --> build/tools/bin/foo
#
# vmlinux.h comes from OUR kernel's BTF, never from the host and never
# committed.  Override PX_BPF_VMLINUX to use another BTF file (e.g. for a
# compile check against /sys/kernel/btf/vmlinux with PX_BPF_OUT=/tmp/x).
# Links Debian's libbpf, libelf and zlib dynamically; PX_BPF_STATIC=1
# links them statically (the guest then needs no extra libraries).
# V=1 shows the commands.

PX_BPF_TOP	:= $(abspath $(dir $(lastword $(MAKEFILE_LIST)))/..)
PX_BPF_SRC	:= $(PX_BPF_TOP)/tools/observe
PX_BPF_OUT	?= $(PX_BPF_TOP)/build/bpf
PX_BPF_BIN	?= $(or $(BINDIR),$(PX_BPF_TOP)/build/tools/bin)
PX_BPF_LIBPX	?= $(or $(LIBPX),$(PX_BPF_TOP)/build/tools/libpxutil.a)
PX_BPF_VMLINUX	?= $(PX_BPF_TOP)/build/obj-lean/vmlinux
PX_BPF_TOOLS	:= pxchain pxdonor pxwakelat proxytop pxlockwait

BPF_CLANG	?= clang
BPFTOOL		?= bpftool
PX_BPF_ARCH	:= $(shell uname -m | sed -e 's/x86_64/x86/' -e 's/aarch64/arm64/')

PX_BPF_CFLAGS	:= -g -O2 -Wall -target bpf -D__TARGET_ARCH_$(PX_BPF_ARCH) \
		   -I$(PX_BPF_OUT) -I$(PX_BPF_TOP)/bpf -I$(PX_BPF_SRC)
PX_BPF_UCFLAGS	:= -g -O2 -Wall -Wextra -Wno-unused-parameter -Wno-missing-field-initializers \
		   -I$(PX_BPF_OUT) -I$(PX_BPF_TOP)/bpf -I$(PX_BPF_SRC) \
		   -I$(PX_BPF_TOP)/tools/lib
ifeq ($(PX_BPF_STATIC),1)
PX_BPF_LDLIBS	:= -static -lbpf -lelf -lz -lzstd
else
PX_BPF_LDLIBS	:= -lbpf -lelf -lz
endif

ifeq ($(V),1)
PX_BPF_Q	:=
PX_BPF_MSG	:= @true
else
PX_BPF_Q	:= @
PX_BPF_MSG	:= @printf '  %-8s %s\n'
endif

PX_BPF_HDRS	:= $(wildcard $(PX_BPF_TOP)/bpf/*.h)
PX_BPF_BINS	:= $(addprefix $(PX_BPF_BIN)/,$(PX_BPF_TOOLS))
PX_BPF_OBJS	:= $(patsubst %,$(PX_BPF_OUT)/%.bpf.o,$(PX_BPF_TOOLS))
PX_BPF_SKELS	:= $(patsubst %,$(PX_BPF_OUT)/%.skel.h,$(PX_BPF_TOOLS))
PX_BPF_UOBJS	:= $(patsubst %,$(PX_BPF_OUT)/%.o,$(PX_BPF_TOOLS))
PX_BPF_COMMON	:= $(PX_BPF_OUT)/pxbpf_user.o

.PHONY: bpf-tools bpf-clean
bpf-tools: $(PX_BPF_BINS)

# Hook into tools/Makefile's `all` only when there is a kernel to take
# vmlinux.h from, so the library and lab programs build before it.
ifneq ($(wildcard $(PX_BPF_VMLINUX)),)
all: bpf-tools
else
$(info bpf.mk: no $(PX_BPF_VMLINUX) yet: skipping the BPF tools (make kernel first))
endif

bpf-clean:
	rm -rf $(PX_BPF_OUT) $(PX_BPF_BINS)

$(PX_BPF_OUT) $(PX_BPF_BIN):
	$(PX_BPF_Q)mkdir -p $@

$(PX_BPF_OUT)/vmlinux.h: $(PX_BPF_VMLINUX) | $(PX_BPF_OUT)
	$(PX_BPF_MSG) BTF $@
	$(PX_BPF_Q)$(BPFTOOL) btf dump file $< format c > $@.tmp
	$(PX_BPF_Q)n=$$($(BPFTOOL) btf dump file $< format raw | grep -c "STRUCT 'task_struct' "); \
	[ "$$n" = 1 ] || echo "bpf.mk: warning: $< has $$n struct task_struct in its BTF" \
		"(objects built with different configs, e.g. a stale ccache hit):" \
		"CO-RE relocations will be ambiguous and the tools will not load" >&2
	$(PX_BPF_Q)mv $@.tmp $@

# No rule makes the kernel: say what to do instead.
$(PX_BPF_VMLINUX):
	@echo "bpf.mk: $@ missing: build the lean kernel first (kernel/build.sh lean)" >&2
	@false

# A tool's own header (tools/observe/foo.h: the types its BPF program and
# user side share beyond bpf/pxtypes.h) is optional.
.SECONDEXPANSION:
$(PX_BPF_OBJS): $(PX_BPF_OUT)/%.bpf.o: $(PX_BPF_TOP)/bpf/%.bpf.c \
		$(PX_BPF_OUT)/vmlinux.h $(PX_BPF_HDRS) $$(wildcard $(PX_BPF_SRC)/$$*.h)
	$(PX_BPF_MSG) BPF $@
	$(PX_BPF_Q)$(BPF_CLANG) $(PX_BPF_CFLAGS) -c $< -o $@

$(PX_BPF_SKELS): $(PX_BPF_OUT)/%.skel.h: $(PX_BPF_OUT)/%.bpf.o
	$(PX_BPF_MSG) GEN-SKEL $@
	$(PX_BPF_Q)$(BPFTOOL) gen skeleton $< > $@.tmp
	$(PX_BPF_Q)mv $@.tmp $@

$(PX_BPF_UOBJS): $(PX_BPF_OUT)/%.o: $(PX_BPF_SRC)/%.c $(PX_BPF_OUT)/%.skel.h \
		$$(wildcard $(PX_BPF_SRC)/$$*.h) $(PX_BPF_SRC)/pxbpf_user.h \
		$(PX_BPF_HDRS) $(PX_BPF_TOP)/tools/lib/pxutil.h
	$(PX_BPF_MSG) CC $@
	$(PX_BPF_Q)$(CC) $(PX_BPF_UCFLAGS) -c $< -o $@

$(PX_BPF_COMMON): $(PX_BPF_SRC)/pxbpf_user.c $(PX_BPF_SRC)/pxbpf_user.h \
		$(PX_BPF_HDRS) $(PX_BPF_TOP)/tools/lib/pxutil.h | $(PX_BPF_OUT)
	$(PX_BPF_MSG) CC $@
	$(PX_BPF_Q)$(CC) $(PX_BPF_UCFLAGS) -c $< -o $@

$(PX_BPF_BINS): $(PX_BPF_BIN)/%: $(PX_BPF_OUT)/%.o $(PX_BPF_COMMON) $(PX_BPF_LIBPX) | $(PX_BPF_BIN)
	$(PX_BPF_MSG) LINK $@
	$(PX_BPF_Q)$(CC) -o $@ $(filter %.o %.a,$^) $(PX_BPF_LDLIBS)

.DELETE_ON_ERROR:
.SECONDARY: $(PX_BPF_OBJS) $(PX_BPF_SKELS) $(PX_BPF_UOBJS) $(PX_BPF_COMMON)
