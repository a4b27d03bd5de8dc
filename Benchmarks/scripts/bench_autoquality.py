#!/usr/bin/env python3
"""Autoquality and format:best in imagery-server, beside a fixed q80 and Accept negotiation.

Usage: Benchmarks/scripts/bench_autoquality.py [--server PATH] [--corpus DIR] [--rounds 3] [--output bench-out]
       (build first: swift build -c release --traits AllFormats --product imagery-server;
        needs nginx for the origin, and Pillow with pillow-avif-plugin and scikit-image)

The 15 JPEG photos of the team corpus (../shared/corpus, 0.3-20 MP; without it, the same 15 as
the embedded gallery's 480 px copies, Sources/ImageryGallery/Gallery), each fitted into
800 x 800, are asked for in six ways:
- q80:          JPEG at quality 80
- aq 70-80:     JPEG, aq:dssim:0.02:70:80:0.002 (imgproxy's documented example)
- aq 50-90:     JPEG, aq:dssim:0.02:50:90:0.002
- negotiated:   no format, Accept of a browser that takes AVIF and WebP
- best:         f:best, the same Accept
- best + aq:    f:best/aq:dssim:0.02:70:80:0.002, the same Accept
Every answer is measured against the processed image itself (the same URL as lossless PNG) with
scikit-image's SSIM over BT.601 luma (gaussian_weights, sigma 1.5, use_sample_covariance=False,
data_range=255), as DSSIM = (1 - SSIM) / 2: independently of the server's own measure.
Every request is cold (a cache buster no earlier request used), on one connection, the ways
alternating in a rotating order. Encodes per request are read from the server's /metrics
(imagery_image_encodes) around each request. Writes OUTPUT/autoquality.{json,md,png}.
The server and the origin bind 127.0.0.1, are started here and stopped by PID.
"""
import argparse
import http.client
import io
import json
import re
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy
from PIL import Image, ImageDraw, ImageFont
from skimage.metrics import structural_similarity

try:
    import pillow_avif  # noqa: F401 - registers AVIF with Pillow
except ImportError:
    pass

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_server  # noqa: E402 - the sibling script's server helpers

ROOT = bench_server.ROOT
GALLERY = ROOT / "Sources" / "ImageryGallery" / "Gallery"
ACCEPT = "image/avif,image/webp,image/apng,*/*;q=0.8"
AQ = "aq:dssim:0.02:70:80:0.002"
WAYS = [
    ("q80", "q:80", "jpg", None),
    ("aq 70-80", AQ, "jpg", None),
    ("aq 50-90", "aq:dssim:0.02:50:90:0.002", "jpg", None),
    ("negotiated", "", None, ACCEPT),
    ("best", "f:best", None, ACCEPT),
    ("best + aq", "f:best/" + AQ, None, ACCEPT),
]


def luma(data):
    image = Image.open(io.BytesIO(data))
    image.load()
    if image.mode in ("RGBA", "LA", "P"):
        image = image.convert("RGBA")
        flat = Image.new("RGBA", image.size, (255, 255, 255, 255))
        flat.alpha_composite(image)
        image = flat
    rgb = numpy.asarray(image.convert("RGB"), dtype=numpy.float64)
    return rgb[..., 0] * 0.299 + rgb[..., 1] * 0.587 + rgb[..., 2] * 0.114


def dssim(reference, data):
    ssim = structural_similarity(reference, luma(data), gaussian_weights=True, sigma=1.5,
                                 use_sample_covariance=False, data_range=255)
    return (1 - ssim) / 2


def encodes_sum(connection):
    connection.request("GET", "/metrics")
    text = connection.getresponse().read().decode()
    match = re.search(r"^imagery_image_encodes_sum (\S+)$", text, re.M)
    return float(match.group(1)) if match else 0.0


def get(connection, path, accept):
    headers = {"Accept": accept} if accept else {}
    started = time.perf_counter()
    connection.request("GET", path, headers=headers)
    response = connection.getresponse()
    body = response.read()
    elapsed = (time.perf_counter() - started) * 1000
    if response.status != 200:
        raise SystemExit(f"{path}: {response.status} {body[:200]!r}")
    return body, elapsed, response.getheader("Content-Type")


def chart(summary, path):
    """Total bytes of each way against q80's, and its worst DSSIM, as bars."""
    font = ImageFont.load_default(size=15)
    small = ImageFont.load_default(size=13)
    left, bar, gap, width = 150, 22, 16, 900
    height = 60 + len(summary) * (bar + gap)
    image = Image.new("RGB", (left + width + 40, height), "white")
    draw = ImageDraw.Draw(image)
    draw.text((10, 10), "Total bytes of the photos at 800 px against q80 (fewer is better), median time against q80, worst DSSIM", fill="black", font=font)
    largest = max(way["bytes_vs_q80"] for way in summary.values())
    for index, (name, way) in enumerate(summary.items()):
        y = 50 + index * (bar + gap)
        draw.text((10, y + 3), name, fill="black", font=font)
        length = int(way["bytes_vs_q80"] / largest * (width - 330))
        colour = (150, 150, 150) if name == "q80" else (31, 119, 180)
        draw.rectangle([left, y, left + length, y + bar], fill=colour)
        draw.text((left + length + 8, y + 4), f"{way['bytes_vs_q80']:.2f}x bytes, {way['ms_vs_q80']:.2f}x time, DSSIM <= {way['worst_dssim']:.4f}",
                  fill="black", font=small)
    image.save(path)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--server", default=str(ROOT / ".build" / "release" / "imagery-server"))
    parser.add_argument("--corpus", default=str(ROOT.parent / "shared" / "corpus"))
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--output", default=str(ROOT / "bench-out"))
    args = parser.parse_args()
    binary = Path(args.server)
    if not binary.exists():
        raise SystemExit("build first: swift build -c release --traits AllFormats --product imagery-server")
    if not shutil.which("nginx") and not Path("/usr/sbin/nginx").exists():
        raise SystemExit("skipped: nginx is not installed")
    corpus = Path(args.corpus)
    sources = sorted(corpus.glob("jpeg_*.jpg")) if corpus.is_dir() else []
    if not sources:
        print(f"{corpus} has no photos: the gallery's 480 px copies instead", file=sys.stderr)
        sources = sorted(GALLERY.glob("*.jpg"))
    photos = [path.name for path in sources]
    work = Path(tempfile.mkdtemp(prefix="imagery-bench-aq-"))
    work.chmod(0o755)   # nginx's workers run as nobody
    (work / "photos").mkdir()
    (work / "nginx").mkdir()
    for path in sources:
        shutil.copy(path, work / "photos" / path.name)
    bench_server.PHOTOS[:] = photos   # the origin's health check asks for the first
    origin, origin_port = bench_server.origin_server(work)
    port = bench_server.free_port()
    server = bench_server.Server(
        "imagery-server", [str(binary), "--host", "127.0.0.1", "--port", str(port), "--allow-loopback-sources"],
        "", f"http://127.0.0.1:{port}/health")
    rows = {name: [] for name, *_ in WAYS}
    try:
        origin.start()
        server.start()
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
        total, done, buster = args.rounds * len(photos), 0, 0
        for round_ in range(args.rounds):
            for index, photo in enumerate(photos):
                source = f"http://127.0.0.1:{origin_port}/{photo}"
                buster += 1
                exact, _, _ = get(connection, f"/unsafe/rs:fit:800:800/cb:ref{round_}/plain/{source}@png", None)
                reference = luma(exact)
                shift = (round_ + index) % len(WAYS)
                for name, options, extension, accept in WAYS[shift:] + WAYS[:shift]:
                    buster += 1
                    parts = "/".join(part for part in ["rs:fit:800:800", options, f"cb:{buster}"] if part)
                    path = f"/unsafe/{parts}/plain/{source}" + (f"@{extension}" if extension else "")
                    before = encodes_sum(connection)
                    body, elapsed, kind = get(connection, path, accept)
                    encodes = encodes_sum(connection) - before
                    rows[name].append({"photo": photo, "round": round_, "bytes": len(body), "ms": elapsed,
                                       "encodes": encodes, "type": kind, "dssim": dssim(reference, body) if round_ == 0 else None})
                done += 1
                print(f"\r{done}/{total} photos", end="", file=sys.stderr, flush=True)
        print(file=sys.stderr)
    finally:
        server.stop()
        origin.stop()
        shutil.rmtree(work, ignore_errors=True)

    q80 = rows["q80"]
    q80_bytes = sum(row["bytes"] for row in q80 if row["round"] == 0)
    q80_ms = statistics.median(row["ms"] for row in q80)
    q80_dssim = {row["photo"]: row["dssim"] for row in q80 if row["round"] == 0}
    summary = {}
    for name, *_ in WAYS:
        first = [row for row in rows[name] if row["round"] == 0]
        over = [row["photo"] for row in first if name.startswith("aq") and row["dssim"] > max(0.022, q80_dssim[row["photo"]]) + 1e-9]
        summary[name] = {
            "bytes": sum(row["bytes"] for row in first),
            "bytes_vs_q80": sum(row["bytes"] for row in first) / q80_bytes,
            "worst_dssim": max(row["dssim"] for row in first),
            "median_dssim": statistics.median(row["dssim"] for row in first),
            "median_ms": statistics.median(row["ms"] for row in rows[name]),
            "ms_vs_q80": statistics.median(row["ms"] for row in rows[name]) / q80_ms,
            "median_encodes": statistics.median(row["encodes"] for row in rows[name]),
            "max_encodes": max(row["encodes"] for row in rows[name]),
            "types": sorted({row["type"] for row in first}),
            "over_target": over,
        }
    negotiated = {row["photo"]: row for row in rows["negotiated"] if row["round"] == 0}
    # f:best is no worse than negotiation's answer; with aq, no worse than that or the target.
    for name, bound in (("best", 0.0), ("best + aq", 0.022)):
        first = [row for row in rows[name] if row["round"] == 0]
        summary[name]["larger_than_negotiated"] = [row["photo"] for row in first if row["bytes"] > negotiated[row["photo"]]["bytes"]]
        summary[name]["worse_than_negotiated"] = [row["photo"] for row in first
                                                  if row["dssim"] > max(bound, negotiated[row["photo"]]["dssim"]) + 1e-4]
    output = Path(args.output)
    output.mkdir(parents=True, exist_ok=True)
    (output / "autoquality.json").write_text(json.dumps({"summary": summary, "rows": rows}, indent=2))
    lines = ["| Way | total bytes | vs q80 | worst DSSIM | median DSSIM | median ms | vs q80 | encodes (median / max) | answered as |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---|"]
    for name, way in summary.items():
        lines.append(f"| {name} | {way['bytes']:,} | {way['bytes_vs_q80']:.2f}x | {way['worst_dssim']:.4f} | {way['median_dssim']:.4f} | "
                     f"{way['median_ms']:.0f} | {way['ms_vs_q80']:.2f}x | {way['median_encodes']:.0f} / {way['max_encodes']:.0f} | "
                     f"{', '.join(t.split('/')[-1] for t in way['types'])} |")
    notes = []
    for name, way in summary.items():
        if way["over_target"]:
            notes.append(f"- {name}: over its target (and q80's DSSIM): {', '.join(way['over_target'])}")
        for key in ("larger_than_negotiated", "worse_than_negotiated"):
            if way.get(key):
                notes.append(f"- {name}: {key.replace('_', ' ')}: {', '.join(way[key])}")
    (output / "autoquality.md").write_text("\n".join(lines + [""] + notes) + "\n")
    chart(summary, output / "autoquality.png")
    print("\n".join(lines + [""] + notes))


if __name__ == "__main__":
    main()
