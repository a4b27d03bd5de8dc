#!/usr/bin/env python3
"""Turns a single-image HEIC into a HEIF grid ('grid' item) whose tiles are that image.

Usage: scripts/make-heic-grid.py SOURCE.heic OUT.heic ROWS COLUMNS WIDTH HEIGHT

Every tile reference points at the source's one coded image, so the file stays small whatever
the grid claims: a grid of 255x255 tiles declaring 81600x54570 pixels (the hostile case the
decoder must refuse from its header) is a few hundred kilobytes. Debian's heif-enc 1.15 writes
no grids, so the boxes are written here (ISO/IEC 23008-12: iinf, iref 'dimg', ipma, iloc).
"""
import struct
import sys


def box(kind, payload):
    return struct.pack(">I4s", 8 + len(payload), kind.encode()) + payload


def children(data, start, end):
    found = []
    while start < end:
        size, kind = struct.unpack(">I4s", data[start:start + 8])
        found.append((kind.decode(), data[start + 8:start + size]))
        start += size
    return found


def main():
    source, out = sys.argv[1], sys.argv[2]
    rows, columns, width, height = map(int, sys.argv[3:7])
    data = open(source, "rb").read()
    top = children(data, 0, len(data))
    kinds = [k for k, _ in top]
    assert kinds == ["ftyp", "meta", "mdat"], kinds
    ftyp, meta, mdat = (p for _, p in top)
    parts = dict(children(meta, 4, len(meta)))
    (primary,) = struct.unpack(">H", parts["pitm"][4:6])
    grid_id = primary + 100

    # iinf: one more entry, an infe (version 2) of type 'grid'.
    version = parts["iinf"][0]
    assert version == 0
    (count,) = struct.unpack(">H", parts["iinf"][4:6])
    infe = box("infe", b"\x02\x00\x00\x00" + struct.pack(">HH", grid_id, 0) + b"grid" + b"\x00")
    iinf = parts["iinf"][:4] + struct.pack(">H", count + 1) + parts["iinf"][6:] + infe

    # iref: the grid's tiles, row by row, all the source's coded image.
    references = parts.get("iref", b"\x00\x00\x00\x00")
    dimg = box("dimg", struct.pack(">HH", grid_id, rows * columns) + struct.pack(">H", primary) * (rows * columns))
    iref = references + dimg

    # ipco/ipma: an ispe of the claimed size for the grid.
    iprp = dict(children(parts["iprp"], 0, len(parts["iprp"])))
    ipco_items = children(iprp["ipco"], 0, len(iprp["ipco"]))
    ispe = box("ispe", b"\x00\x00\x00\x00" + struct.pack(">II", width, height))
    ipco = iprp["ipco"] + ispe
    index = len(ipco_items) + 1
    ipma = iprp["ipma"]
    assert ipma[0] == 0 and ipma[3] & 1 == 0, "ipma version 0 with 7-bit indices"
    (entries,) = struct.unpack(">I", ipma[4:8])
    ipma = ipma[:4] + struct.pack(">I", entries + 1) + ipma[8:] + struct.pack(">HBB", grid_id, 1, index)
    new_iprp = box("ipco", ipco) + box("ipma", ipma)

    # The grid's own data: version 0, 32-bit sizes, rows and columns less one.
    grid = bytes([0, 1, rows - 1, columns - 1]) + struct.pack(">II", width, height)

    def build(shift, grid_offset):
        iloc = parts["iloc"]
        assert iloc[0] == 0, "iloc version 0"
        offset_size, length_size, base_size = iloc[4] >> 4, iloc[4] & 15, iloc[5] >> 4
        assert offset_size == 4 and length_size == 4 and base_size in (0, 4)
        (items,) = struct.unpack(">H", iloc[6:8])
        at, body = 8, b""
        for _ in range(items):
            item, reference = struct.unpack(">HH", iloc[at:at + 4])
            at += 4
            base = struct.unpack(">I", iloc[at:at + 4])[0] if base_size else 0
            at += base_size
            (extents,) = struct.unpack(">H", iloc[at:at + 2])
            at += 2
            body += struct.pack(">HH", item, reference)
            if base_size:
                body += struct.pack(">I", base + shift if base else 0)
            body += struct.pack(">H", extents)
            for _ in range(extents):
                offset, length = struct.unpack(">II", iloc[at:at + 8])
                at += 8
                body += struct.pack(">II", offset + (shift if base_size == 0 or base == 0 else 0), length)
        body += struct.pack(">HH", grid_id, 0) + (b"\x00" * base_size) + struct.pack(">HII", 1, grid_offset, len(grid))
        new_iloc = iloc[:6] + struct.pack(">H", items + 1) + body
        kept = []
        for kind, payload in children(meta, 4, len(meta)):
            if kind == "pitm":
                payload = payload[:4] + struct.pack(">H", grid_id)
            elif kind == "iloc":
                payload = new_iloc
            elif kind == "iinf":
                payload = iinf
            elif kind == "iprp":
                payload = new_iprp
            elif kind == "iref":
                continue
            kept.append(box(kind, payload))
        kept.append(box("iref", iref))
        new_meta = box("meta", meta[:4] + b"".join(kept))
        return box("ftyp", ftyp) + new_meta + box("mdat", mdat + grid)

    old_mdat_payload = 8 + len(ftyp) + 8 + len(meta) + 8
    draft = build(0, 0)
    new_mdat_payload = len(draft) - len(mdat) - len(grid)
    shift = new_mdat_payload - old_mdat_payload
    final = build(shift, new_mdat_payload + len(mdat))
    assert len(final) == len(draft)
    open(out, "wb").write(final)


if __name__ == "__main__":
    main()
