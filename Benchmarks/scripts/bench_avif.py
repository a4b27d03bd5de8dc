#!/usr/bin/env python3
"""JPEG -> 512 px -> AVIF: Imagery against vipsthumbnail (heifsave) and Pillow with
pillow-avif-plugin, and WebP beside them, on one core, at several encoder speeds and qualities.

Each point is one tool at one setting over the gallery's JPEGs (Sources/ImageryGallery): the
median wall time per image over --repeat runs (decode, resize and encode, pinned to core 0),
the mean bytes per image, and the mean SSIM of the encoded image against the same tool's own
512 px image written losslessly (so the figure measures the encoder, not the resampler).

SSIM is scikit-image's structural_similarity (Wang et al.'s constants: Gaussian window,
sigma 1.5, population covariance), on RGB, for every format alike; every encoded file is
decoded by Pillow (pillow-avif-plugin for AVIF). Bytes at equal SSIM are read off each curve by
linear interpolation between its two neighbouring points.

Prerequisites: a release build with AVIF and WebP (swift build -c release --traits AllFormats
--product imagery), libvips-tools, and `pip install pillow-avif-plugin scikit-image`.

Usage: Benchmarks/scripts/bench_avif.py [--repeat 3] [--json out.json] [--chart chart.png]
"""
import argparse
import glob
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

import numpy as np
import pillow_avif  # noqa: F401  (registers AVIF with Pillow)
from PIL import Image, ImageDraw, ImageFont
from pinning import pinned, timed
from skimage.metrics import structural_similarity

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
IMAGERY = os.path.join(ROOT, ".build/release/imagery")
SIZE = 512
QUALITIES = [35, 50, 65, 80]
WEBP_QUALITIES = [50, 65, 80, 90]
SPEEDS = [6, 8, 9, 10]
TARGETS = [0.95, 0.97]


def ssim(reference_path, encoded_path):
    reference = np.asarray(Image.open(reference_path).convert("RGB"))
    encoded = np.asarray(Image.open(encoded_path).convert("RGB"))
    if reference.shape != encoded.shape:
        raise SystemExit(f"{encoded_path}: {encoded.shape} against {reference.shape}")
    return structural_similarity(
        reference, encoded, channel_axis=2, data_range=255, gaussian_weights=True, sigma=1.5,
        use_sample_covariance=False,
    )


def point(tool, codec, speed, quality, seconds, directory, references, extension, files):
    outputs = [os.path.join(directory, os.path.splitext(os.path.basename(f))[0] + extension) for f in files]
    sizes = [os.path.getsize(o) for o in outputs]
    scores = [ssim(references[f], o) for f, o in zip(files, outputs)]
    return {
        "tool": tool, "codec": codec, "speed": speed, "quality": quality,
        "msPerImage": round(statistics.median(seconds) * 1000 / len(files), 1),
        "bytesPerImage": round(sum(sizes) / len(sizes)), "ssim": round(sum(scores) / len(scores), 5),
    }


def imagery(files, work, repeat):
    references = {}
    ref = os.path.join(work, "imagery-ref")
    subprocess.run([IMAGERY, "thumbnail", *files, "--fit", f"{SIZE}x{SIZE}", "--format", "png", "-o", ref, "--jobs", "1"],
                   check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for f in files:
        references[f] = os.path.join(ref, os.path.splitext(os.path.basename(f))[0] + ".png")
    points = []
    settings = [("avif", s, q) for s in SPEEDS for q in QUALITIES] + [("webp", None, q) for q in WEBP_QUALITIES]
    for codec, speed, quality in settings:
        out = os.path.join(work, f"imagery-{codec}-{speed}-{quality}")
        command = [IMAGERY, "thumbnail", *files, "--fit", f"{SIZE}x{SIZE}", "--format", codec, "--quality", str(quality),
                   "-o", out, "--jobs", "1"] + (["--avif-speed", str(speed)] if speed is not None else [])
        seconds = [timed(command) for _ in range(repeat)]
        points.append(point("Imagery", codec, speed, quality, seconds, out, references, "." + codec, files))
        print(json.dumps(points[-1]), file=sys.stderr)
    return points


def vips(files, work, repeat):
    env = dict(os.environ, VIPS_CONCURRENCY="1")
    ref = os.path.join(work, "vips-ref")
    os.makedirs(ref)
    subprocess.run(["vipsthumbnail", *files, "--size", str(SIZE), "-o", os.path.join(ref, "%s.png")], check=True, env=env)
    references = {f: os.path.join(ref, os.path.splitext(os.path.basename(f))[0] + ".png") for f in files}
    points = []
    for speed in SPEEDS:
        effort = max(0, 9 - speed)  # libvips' effort is aom's speed counted down from 9
        for quality in QUALITIES:
            out = os.path.join(work, f"vips-avif-{speed}-{quality}")
            os.makedirs(out)
            command = ["vipsthumbnail", *files, "--size", str(SIZE), "-o",
                       os.path.join(out, f"%s.avif[Q={quality},effort={effort},compression=av1]")]
            seconds = [timed(command, env) for _ in range(repeat)]
            points.append(point("vipsthumbnail", "avif", speed, quality, seconds, out, references, ".avif", files))
            print(json.dumps(points[-1]), file=sys.stderr)
    return points


PILLOW_WORKER = r"""
import io, os, sys, time, json
import pillow_avif
from PIL import Image
files, out, fmt, quality, speed, repeat = sys.argv[1].split("|"), sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5]), int(sys.argv[6])
blobs = [open(f, "rb").read() for f in files]
times = []
for _ in range(repeat):
    started = time.perf_counter()
    for f, data in zip(files, blobs):
        image = Image.open(io.BytesIO(data))
        image.draft("RGB", (512, 512))
        image.thumbnail((512, 512), Image.LANCZOS)
        buffer = io.BytesIO()
        if fmt == "PNG":
            image.save(buffer, "PNG")
        else:
            image.save(buffer, "AVIF", quality=quality, speed=speed, max_threads=1)
        open(os.path.join(out, os.path.splitext(os.path.basename(f))[0] + "." + fmt.lower()), "wb").write(buffer.getvalue())
    times.append(time.perf_counter() - started)
print(json.dumps(times))
"""


def pillow(files, work, repeat):
    def run(out, fmt, quality, speed, repeats):
        os.makedirs(out, exist_ok=True)
        result = subprocess.run(pinned([sys.executable, "-c", PILLOW_WORKER, "|".join(files), out, fmt, str(quality), str(speed), str(repeats)]),
                                check=True, capture_output=True, text=True)
        return json.loads(result.stdout)
    ref = os.path.join(work, "pillow-ref")
    run(ref, "PNG", 0, 0, 1)
    references = {f: os.path.join(ref, os.path.splitext(os.path.basename(f))[0] + ".png") for f in files}
    points = []
    for speed in SPEEDS:
        for quality in QUALITIES:
            out = os.path.join(work, f"pillow-avif-{speed}-{quality}")
            seconds = run(out, "AVIF", quality, speed, repeat)
            points.append(point("Pillow", "avif", speed, quality, seconds, out, references, ".avif", files))
            print(json.dumps(points[-1]), file=sys.stderr)
    return points


def at_ssim(curve, target):
    """Bytes and ms per image where the curve (points of one tool, codec and speed) reaches target."""
    curve = sorted(curve, key=lambda p: p["ssim"])
    for low, high in zip(curve, curve[1:]):
        if low["ssim"] <= target <= high["ssim"]:
            t = (target - low["ssim"]) / (high["ssim"] - low["ssim"]) if high["ssim"] > low["ssim"] else 0
            return (low["bytesPerImage"] + t * (high["bytesPerImage"] - low["bytesPerImage"]),
                    low["msPerImage"] + t * (high["msPerImage"] - low["msPerImage"]))
    return None


def curves(points):
    grouped = {}
    for p in points:
        grouped.setdefault((p["tool"], p["codec"], p["speed"]), []).append(p)
    return grouped


def chart(points, path):
    width, height, left, bottom, top, right = 1100, 640, 90, 70, 40, 330
    image = Image.new("RGB", (width, height), "white")
    draw = ImageDraw.Draw(image)
    font = ImageFont.load_default(size=14)
    xs = [p["bytesPerImage"] / 1024 for p in points]
    ys = [p["ssim"] for p in points]
    x0, x1, y0, y1 = 0, max(xs) * 1.05, min(ys) - 0.005, 1.0
    def at(x, y):
        return (left + (x - x0) / (x1 - x0) * (width - left - right), height - bottom - (y - y0) / (y1 - y0) * (height - top - bottom))
    draw.rectangle([left, top, width - right, height - bottom], outline="black")
    for k in range(6):
        x = x0 + (x1 - x0) * k / 5
        draw.text(at(x, y0), f"{x:.0f} KB", fill="black", font=font, anchor="mt")
        y = y0 + (y1 - y0) * k / 5
        draw.text((left - 6, at(x0, y)[1]), f"{y:.3f}", fill="black", font=font, anchor="rm")
    draw.text((left + (width - left - right) / 2, height - 28), "bytes per 512 px image (mean over the gallery)", fill="black", font=font, anchor="mt")
    draw.text((left, 12), "SSIM against the tool's own lossless 512 px image (up is better, left is smaller)", fill="black", font=font)
    palette = {"Imagery": [(31, 119, 180), (70, 150, 210), (120, 180, 230), (170, 205, 240)],
               "vipsthumbnail": [(214, 39, 40), (230, 90, 90), (240, 140, 140), (250, 190, 190)],
               "Pillow": [(255, 127, 14), (255, 160, 70), (255, 190, 120), (255, 215, 170)]}
    legend_y = top
    for (tool, codec, speed), curve in sorted(curves(points).items(), key=lambda item: (item[0][0], item[0][1], item[0][2] or 0)):
        colour = (40, 160, 60) if codec == "webp" else palette[tool][SPEEDS.index(speed) % 4]
        line = [at(p["bytesPerImage"] / 1024, p["ssim"]) for p in sorted(curve, key=lambda p: p["quality"])]
        draw.line(line, fill=colour, width=3)
        for x, y in line:
            draw.ellipse([x - 4, y - 4, x + 4, y + 4], fill=colour)
        ms = statistics.median(p["msPerImage"] for p in curve)
        label = f"{tool} WebP" if codec == "webp" else f"{tool} AVIF speed {speed}"
        draw.line([(width - right + 15, legend_y + 8), (width - right + 45, legend_y + 8)], fill=colour, width=3)
        draw.text((width - right + 52, legend_y), f"{label}, {ms:.0f} ms/image", fill="black", font=font)
        legend_y += 22
    image.save(path)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--json")
    parser.add_argument("--chart")
    args = parser.parse_args()
    for tool in ["taskset", "vipsthumbnail"]:
        if shutil.which(tool) is None:
            raise SystemExit(f"needs {tool}")
    if not os.access(IMAGERY, os.X_OK):
        raise SystemExit("needs swift build -c release --traits AllFormats --product imagery")
    files = sorted(glob.glob(os.path.join(ROOT, "Sources/ImageryGallery/Gallery/*.jpg")))
    with tempfile.TemporaryDirectory() as work:
        points = imagery(files, work, args.repeat) + vips(files, work, args.repeat) + pillow(files, work, args.repeat)
    if args.json:
        json.dump({"files": len(files), "size": SIZE, "points": points}, open(args.json, "w"), indent=1)
    if args.chart:
        chart(points, args.chart)
    print(f"{len(files)} gallery JPEGs -> {SIZE} px, 1 core, median of {args.repeat} runs\n")
    header = "| Tool | Codec | Speed | " + " | ".join(f"KB at SSIM {t} | ms/image at {t}" for t in TARGETS) + " |"
    print(header)
    print("|" + "---|" * (3 + 2 * len(TARGETS)))
    for (tool, codec, speed), curve in sorted(curves(points).items(), key=lambda item: (item[0][1], item[0][0], item[0][2] or 0)):
        cells = []
        for target in TARGETS:
            found = at_ssim(curve, target)
            cells += [f"{found[0] / 1024:.1f}", f"{found[1]:.0f}"] if found else ["outside", "outside"]
        print(f"| {tool} | {codec.upper()} | {speed if speed is not None else 'libwebp default'} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
