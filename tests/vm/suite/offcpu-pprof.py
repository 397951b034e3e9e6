#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""offcpu-pprof.py FILE.pb.gz: the sample types and value sums of a pprof file.

A minimal decoder of profile.proto's wire format (Profile.sample_type = 1,
sample = 2, string_table = 6; ValueType.type = 1, unit = 2; Sample.value = 2),
so the guest tests need no generated code. Prints
    types=switches/count,off-cpu/nanoseconds sum0=N sum1=M samples=K
"""
import gzip
import sys


def varint(b, i):
    v = s = 0
    while True:
        c = b[i]
        i += 1
        v |= (c & 0x7F) << s
        s += 7
        if c < 0x80:
            return v, i


def fields(b):
    i = 0
    while i < len(b):
        key, i = varint(b, i)
        f, wt = key >> 3, key & 7
        if wt == 0:
            v, i = varint(b, i)
        elif wt == 2:
            n, i = varint(b, i)
            v, i = b[i:i + n], i + n
        elif wt == 1:
            v, i = b[i:i + 8], i + 8
        elif wt == 5:
            v, i = b[i:i + 4], i + 4
        else:
            raise ValueError("wire type %d" % wt)
        yield f, wt, v


def packed(wt, v):
    if wt == 0:
        return [v]
    out, i = [], 0
    while i < len(v):
        x, i = varint(v, i)
        out.append(x)
    return out


def main():
    data = gzip.open(sys.argv[1]).read()
    types, strings, sums, n = [], [], [], 0
    for f, wt, v in fields(data):
        if f == 1:
            t = dict((ff, vv) for ff, _, vv in fields(v))
            types.append((t.get(1, 0), t.get(2, 0)))
        elif f == 2:
            vals = []
            for ff, w2, vv in fields(v):
                if ff == 2:
                    vals += packed(w2, vv)
            sums += [0] * (len(vals) - len(sums))
            for k, x in enumerate(vals):
                sums[k] += x
            n += 1
        elif f == 6:
            strings.append(v.decode())
    names = ",".join("%s/%s" % (strings[a], strings[b]) for a, b in types)
    print("types=%s %s samples=%d" % (
        names, " ".join("sum%d=%d" % (k, x) for k, x in enumerate(sums)), n))


main()
