#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Ask a running QEMU, through its human monitor on a unix socket, what
every vCPU is doing: `info cpus`, then per vCPU `info registers` and
`info lapic`.  guest/run.sh calls it before it kills a hung guest, so that
a hang leaves evidence (a CPU halted with its timer armed but never
delivered points at the emulator, a CPU spinning in the kernel at the
kernel).

Usage: qemu-state.py SOCKET NCPUS > qemu-state.txt
"""
import socket
import sys


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: qemu-state.py SOCKET NCPUS")
    path, ncpus = sys.argv[1], int(sys.argv[2])
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(10)
    s.connect(path)
    buf = b""

    def until_prompt():
        nonlocal buf
        while b"(qemu) " not in buf:
            data = s.recv(65536)
            if not data:
                raise EOFError("monitor closed")
            buf += data
        out, _, buf = buf.partition(b"(qemu) ")
        return out.decode(errors="replace")

    until_prompt()  # banner
    cmds = ["info cpus"]
    for i in range(ncpus):
        cmds += ["cpu %d" % i, "info registers", "info lapic"]
    for c in cmds:
        s.sendall(c.encode() + b"\n")
        out = until_prompt()
        # The monitor echoes the command line first.
        print("### " + c)
        print("\n".join(out.splitlines()[1:]).rstrip("\r\n"))
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except (OSError, EOFError) as e:
        sys.exit("qemu-state: %s" % e)
