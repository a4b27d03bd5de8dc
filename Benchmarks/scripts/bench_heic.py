#!/usr/bin/env python3
"""HEIC -> 512 px JPEG: Imagery against vipsthumbnail and Pillow with pillow-heif, on one core.

The inputs are HEICs made here with heif-enc (libheif-examples, -q 50, no embedded thumbnail)
from JPEGs in every clone: the two 12 MP photos in Benchmarks/Corpus, and three 1.3-4 MP test
images (Tests/ImageryCodecsTests/Resources: colour, a grey one, one with EXIF orientation 6,
which heif-enc keeps as Exif and does not turn into irot). Each tool decodes, resizes to fit 512 x 512 and writes a
JPEG at quality 85, pinned to core 0; the figure is the median over --repeat runs of the wall
time per image, per group.

Prerequisites: a release build with HEIF (swift build -c release --traits AllFormats --product
imagery), libvips-tools, libheif-examples, and `pip install pillow-heif`.

Usage: Benchmarks/scripts/bench_heic.py [--repeat 5]
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

from pinning import pinned, timed

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
IMAGERY = os.path.join(ROOT, ".build/release/imagery")

PILLOW_WORKER = r"""
import os, sys, time, json
import pillow_heif
from PIL import Image
pillow_heif.register_heif_opener()
files, out, repeat = sys.argv[1].split("|"), sys.argv[2], int(sys.argv[3])
times = []
for _ in range(repeat):
    started = time.perf_counter()
    for f in files:
        image = Image.open(f)
        image.thumbnail((512, 512), Image.LANCZOS)
        image.convert("RGB").save(os.path.join(out, os.path.splitext(os.path.basename(f))[0] + ".jpg"), "JPEG", quality=85)
    times.append(time.perf_counter() - started)
print(json.dumps(times))
"""


def measure(files, work, repeat):
    env = dict(os.environ, VIPS_CONCURRENCY="1")
    results = {}
    out = os.path.join(work, "imagery")
    command = [IMAGERY, "thumbnail", *files, "--fit", "512x512", "--format", "jpeg", "--quality", "85", "-o", out, "--jobs", "1"]
    results["Imagery"] = statistics.median(timed(command) for _ in range(repeat))
    out = os.path.join(work, "vips")
    os.makedirs(out, exist_ok=True)
    command = ["vipsthumbnail", *files, "--size", "512", "-o", os.path.join(out, "%s.jpg[Q=85]")]
    results["vipsthumbnail"] = statistics.median(timed(command, env) for _ in range(repeat))
    out = os.path.join(work, "pillow")
    os.makedirs(out, exist_ok=True)
    done = subprocess.run(pinned([sys.executable, "-c", PILLOW_WORKER, "|".join(files), out, str(repeat)]),
                          check=True, capture_output=True, text=True)
    results["Pillow + pillow-heif"] = statistics.median(json.loads(done.stdout))
    for tool, directory in [("Imagery", "imagery"), ("vipsthumbnail", "vips"), ("Pillow + pillow-heif", "pillow")]:
        written = len(os.listdir(os.path.join(work, directory)))
        if written != len(files):
            raise SystemExit(f"{tool} wrote {written} of {len(files)} files")
    return {tool: seconds * 1000 / len(files) for tool, seconds in results.items()}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    for tool in ["taskset", "vipsthumbnail", "heif-enc"]:
        if shutil.which(tool) is None:
            raise SystemExit(f"needs {tool}")
    if not os.access(IMAGERY, os.X_OK):
        raise SystemExit("needs swift build -c release --traits AllFormats --product imagery")
    groups = {
        "12 MP (2 photos)": sorted(glob.glob(os.path.join(ROOT, "Benchmarks/Corpus/*.jpg"))),
        "1.3-4 MP (3 photos)": [os.path.join(ROOT, "Tests/ImageryCodecsTests/Resources", name) for name in [
            "jpeg_med_prog_greenmeadow_1280x1024.jpg", "jpeg_med_gray_pier_2560x1600.jpg", "jpeg_exif6_aqua_2560x1600.jpg"]],
    }
    print(f"HEIC -> fit 512x512 -> JPEG q85, 1 core, median of {args.repeat} runs, ms per image\n")
    print("| Group | Imagery | vipsthumbnail | Pillow + pillow-heif | Imagery / faster peer |")
    print("|---|---|---|---|---|")
    for name, jpegs in groups.items():
        with tempfile.TemporaryDirectory() as work:
            heics = []
            for jpeg in jpegs:
                heic = os.path.join(work, os.path.splitext(os.path.basename(jpeg))[0] + ".heic")
                subprocess.run(["heif-enc", "-q", "50", "-o", heic, jpeg], check=True, stdout=subprocess.DEVNULL)
                heics.append(heic)
            figures = measure(heics, work, args.repeat)
        faster = min(figures["vipsthumbnail"], figures["Pillow + pillow-heif"])
        print(f"| {name} | {figures['Imagery']:.1f} | {figures['vipsthumbnail']:.1f} | {figures['Pillow + pillow-heif']:.1f} | "
              f"{figures['Imagery'] / faster:.2f}x |")


if __name__ == "__main__":
    main()
