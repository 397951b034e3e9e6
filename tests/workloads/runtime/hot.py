# SPDX-License-Identifier: GPL-2.0
# Two hot functions for SECONDS, CPython's interpreter all the way down:
# every sample is in python3's own code under Py_BytesMain.
# Usage: python3 hot.py SECONDS
import sys
import time


def hot_a(n):
    x = 1
    for i in range(n):
        x = (x * 1103515245 + 12345) & 0xFFFFFFFF
    return x


def hot_b(n):
    x = 3
    for i in range(n):
        x = (x * 22695477 + 1) & 0xFFFFFFFF
    return x


end = time.monotonic() + float(sys.argv[1])
sink = 0
while time.monotonic() < end:
    sink ^= hot_a(7000)
    sink ^= hot_b(3000)
print("done", sink & 1)
