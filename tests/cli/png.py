#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
# A PNG reader with the standard library only (zlib), for the report's
# browser test: `png.py stats FILE` prints "WIDTH HEIGHT INK COLOURS" (INK:
# share of pixels that are not near-white, COLOURS: distinct colours seen);
# `png.py crop FILE OUT X Y W H` writes a part of it (to look at).
# 8-bit RGB/RGBA/grey, non-interlaced: what Chromium's screenshots are.
import struct
import sys
import zlib


def read(path):
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise SystemExit(f"{path}: not a PNG file")
    pos, idat, ihdr = 8, b"", None
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            ihdr = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    w, h, depth, ctype, _, _, interlace = ihdr
    chans = {0: 1, 2: 3, 4: 2, 6: 4}.get(ctype)
    if depth != 8 or not chans or interlace:
        raise SystemExit(f"{path}: unsupported PNG (depth {depth}, type {ctype})")
    raw, stride, rows, prev = zlib.decompress(idat), w * chans, [], bytearray(w * chans)
    for y in range(h):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - chans] if i >= chans else 0
            b = prev[i]
            c = prev[i - chans] if i >= chans else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pr = a if pa <= pb and pa <= pc else b if pb <= pc else c
                line[i] = (line[i] + pr) & 255
        rows.append(bytes(line))
        prev = line
    return w, h, chans, rows


def rgb(chans, row, x):
    px = row[x * chans:(x + 1) * chans]
    return tuple(px[:3]) if chans >= 3 else (px[0],) * 3


def stats(path):
    w, h, chans, rows = read(path)
    ink, colours = 0, set()
    for row in rows[::2]:
        for x in range(0, w, 2):
            p = rgb(chans, row, x)
            colours.add(p)
            ink += min(p) < 240
    print(w, h, f"{ink / (((h + 1) // 2) * ((w + 1) // 2)):.4f}", len(colours))


def crop(path, out, x0, y0, cw, ch):
    w, h, chans, rows = read(path)
    body = b"".join(b"\0" + bytes(v for x in range(x0, min(w, x0 + cw)) for v in rgb(chans, rows[y], x))
                    for y in range(y0, min(h, y0 + ch)))
    cw, ch = min(w, x0 + cw) - x0, min(h, y0 + ch) - y0

    def chunk(kind, b):
        return struct.pack(">I", len(b)) + kind + b + struct.pack(">I", zlib.crc32(kind + b))
    with open(out, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", cw, ch, 8, 2, 0, 0, 0))
                + chunk(b"IDAT", zlib.compress(body)) + chunk(b"IEND", b""))


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "stats":
        stats(sys.argv[2])
    elif len(sys.argv) == 8 and sys.argv[1] == "crop":
        crop(sys.argv[2], sys.argv[3], *map(int, sys.argv[4:]))
    else:
        raise SystemExit("usage: png.py stats FILE | crop FILE OUT X Y W H")
