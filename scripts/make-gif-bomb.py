#!/usr/bin/env python3
"""Writes an animation bomb: a GIF whose logical screen is 2000x2000 and which holds 3,000
frames of one pixel each, so the file is small while every frame composed at full size would be
12 gigapixels in all. Imagery must refuse it from its header (Tests/ImageryCodecsTests and the
server's animation tests use the copy in Tests/ImageryCodecsTests/Resources).

Usage: scripts/make-gif-bomb.py OUT.gif [--frames 3000] [--size 2000]
"""
import argparse
import struct


def bomb(frames, size):
    out = bytearray(b"GIF89a")
    out += struct.pack("<HHBBB", size, size, 0x80, 0, 0)            # global table of 2 colours
    out += bytes([0, 0, 0, 255, 255, 255])
    out += b"\x21\xff\x0bNETSCAPE2.0\x03\x01\x00\x00\x00"             # loop for ever
    for _ in range(frames):
        out += b"\x21\xf9\x04\x00\x01\x00\x00\x00"                   # 10 ms, no transparency
        out += b"\x2c" + struct.pack("<HHHHB", 0, 0, 1, 1, 0)         # a 1x1 frame at (0, 0)
        # LZW, minimum code size 2: clear (4), index 1, end (5), as 3-bit codes, LSB first.
        out += bytes([2, 2, 0x4C, 0x01, 0])
    out += b"\x3b"
    return bytes(out)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out")
    parser.add_argument("--frames", type=int, default=3000)
    parser.add_argument("--size", type=int, default=2000)
    arguments = parser.parse_args()
    with open(arguments.out, "wb") as file:
        file.write(bomb(arguments.frames, arguments.size))


if __name__ == "__main__":
    main()
