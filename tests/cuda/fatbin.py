#!/usr/bin/env python3
"""fatbin.py FATBIN OUTDIR: the entries of a .nv_fatbin section (dumped
with objcopy; this toolkit has no cuobjdump), one line each on stdout:
"sass sm_90", "ptx sm_80", with an "a" for an arch-specific entry
("sass sm_90a": flag 0x100000). Each PTX entry is written to
OUTDIR/ptx.N.sm_XX (zstd-compressed by CUDA 13's nvcc, flag 0x8000: the
zstd tool reads it); one it cannot read prints "ptx-unreadable sm_XX ...".
Fatbin headers have magic 0xBA55ED50; an entry's kind is 1 (PTX) or 2
(ELF, SASS), its sm number at byte 28 of the entry header, its flags at
byte 40."""
import struct
import subprocess
import sys

b = open(sys.argv[1], "rb").read()
off, n = 0, 0
while off + 16 <= len(b):
    magic, _, hsz, fsz = struct.unpack_from("<IHHQ", b, off)
    if magic != 0xBA55ED50:
        break
    p, end = off + hsz, off + hsz + fsz
    while p < end:
        kind, _, ehs, size = struct.unpack_from("<HHIQ", b, p)
        comp = struct.unpack_from("<I", b, p + 16)[0]
        arch = "sm_%d" % struct.unpack_from("<I", b, p + 28)[0]
        flags = struct.unpack_from("<Q", b, p + 40)[0]
        if flags & 0x100000:
            arch += "a"
        print({1: "ptx", 2: "sass"}.get(kind, "kind%d" % kind), arch)
        if kind == 1:  # PTX text, or zstd (flag 0x8000) of comp bytes
            data = b[p + ehs:p + ehs + size]
            if flags & 0x8000:
                try:
                    data = subprocess.run(["zstd", "-q", "-d", "-c"], input=data[:comp],
                                          stdout=subprocess.PIPE, check=True).stdout
                except (OSError, subprocess.CalledProcessError) as e:
                    print("ptx-unreadable %s zstd: %s" % (arch, e))
            elif flags & 0x2000:
                print("ptx-unreadable %s: an older compression" % arch)
            n += 1
            open("%s/ptx.%d.%s" % (sys.argv[2], n, arch), "wb").write(data)
        p += ehs + size
    off = end
