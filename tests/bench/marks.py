#!/usr/bin/env python3
# tests/bench/marks.py MARKS-FILE < guest console > console log
#
# Sits on the stdout of tests/vm/run (the guest's serial console) and passes
# it through unchanged. On every line "BENCH-MARK <tag>" the guest prints
# (tests/bench/guest.sh, around each measured window) it appends to
# MARKS-FILE
#     <tag> <qemu cpu ns> <host monotonic ns>
# where qemu cpu ns is the CPU time the host gave the whole QEMU process so
# far (all its threads: the vCPUs that execute the guest, and the I/O
# thread). Under TCG a guest second is host real time, and other jobs on the
# host take CPU from the vCPU threads at random: the work the guest did per
# CPU-second of emulation does not depend on that, the work per guest second
# does. guest.sh's windows are then compared both ways (see report.py).
#
# The QEMU process is the one whose stdout is the pipe we read.
import os
import sys
import time


def qemu_pid():
    me = os.readlink("/proc/self/fd/0")
    if not me.startswith("pipe:"):
        return None
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/comm") as f:
                if not f.read().startswith("qemu-system"):
                    continue
            if os.readlink(f"/proc/{pid}/fd/1") == me:
                return int(pid)
        except OSError:
            continue
    return None


def cpu_ns(pid):
    total = 0
    try:
        for t in os.listdir(f"/proc/{pid}/task"):
            try:
                with open(f"/proc/{pid}/task/{t}/schedstat") as f:
                    total += int(f.read().split()[0])
            except (OSError, ValueError, IndexError):
                pass
    except OSError:
        return -1
    return total


def main():
    out = open(sys.argv[1], "a", buffering=1)
    pid = None
    buf = b""
    stdin = sys.stdin.buffer.raw
    stdout = sys.stdout.buffer
    while True:
        chunk = stdin.read(65536)
        if not chunk:
            break
        stdout.write(chunk)
        stdout.flush()
        buf += chunk
        while b"\n" in buf:
            line, buf = buf.split(b"\n", 1)
            i = line.find(b"BENCH-MARK ")
            if i < 0:
                continue
            now = time.monotonic_ns()
            if pid is None:
                pid = qemu_pid()
            tag = line[i + 11:].strip().decode("ascii", "replace").split()[0:1]
            if tag:
                out.write(f"{tag[0]} {cpu_ns(pid) if pid else -1} {now}\n")
    out.close()


if __name__ == "__main__":
    main()
