#!/usr/bin/env python3
"""An 8-frame animated GIF resized to 256 px wide: Imagery against vipsthumbnail (libvips with
cgif) and gifsicle, each on one core, speed and quality.

The input is made here from the repo's rocket photo: 8 frames of 640x427 panning across it, each
with its own 256-colour palette (ImageMagick), joined by gifsicle, looping for ever. Each tool
writes an animated GIF 256 px wide:

- Imagery: `imagery thumbnail IN --width 256 --format gif` (Lanczos-3 per composed frame, a
  median-cut palette per frame, no dithering);
- vips: `vipsthumbnail 'IN[n=-1]' --size 256x` (every page, libvips' shrink, cgif's quantizer);
- gifsicle: `gifsicle --resize-width 256` (its default resize method, which works in palette
  space: it can add no colours unless --resize-colors allows).

Time: the median wall time of --repeat pinned runs (decode, resize and encode). Quality: every
frame of each output, decoded by Pillow (composed, over white), against Pillow's own Lanczos
reduction of the same composed source frame: mean PSNR, and mean SSIM (scikit-image's
structural_similarity, as bench_avif.py uses it).

Prerequisites: swift build -c release --product imagery, gifsicle, libvips-tools, imagemagick,
`pip install scikit-image`.

Usage: Benchmarks/scripts/bench_gif.py [--repeat 5] [--json out.json] [--sheet sheet.png]
  --sheet writes the same detail of frame 4 from the reference and each tool, enlarged 3x.
"""
import argparse
import json
import math
import os
import shutil
import statistics
import subprocess
import tempfile

import numpy as np
from PIL import Image, ImageDraw, ImageFont, ImageSequence
from pinning import timed
from skimage.metrics import structural_similarity

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
IMAGERY = os.path.join(ROOT, ".build/release/imagery")
PHOTO = os.path.join(ROOT, "Tests/ImageryCodecsTests/Resources/jpeg_small_base_rocket_640x427.jpg")
WIDTH = 256


def make_input(directory):
    frames = []
    for index in range(8):
        frame = os.path.join(directory, f"frame{index}.gif")
        # A pan: each frame a 560x373 window 10 px further along, back to 640x427.
        subprocess.run(["convert", PHOTO, "-crop", f"560x373+{index * 10}+{index * 7}", "+repage",
                        "-resize", "640x427!", "-colors", "256", frame], check=True)
        frames.append(frame)
    animation = os.path.join(directory, "pan_8f_640x427.gif")
    with open(animation, "wb") as out:
        subprocess.run(["gifsicle", "--no-comments", "--loopcount=0", "-d8"] + frames, check=True, stdout=out,
                       stderr=subprocess.DEVNULL)
    return animation


def composed(path):
    """Every frame, composed, as RGB over white."""
    frames = []
    with Image.open(path) as image:
        for frame in ImageSequence.Iterator(image):
            rgba = frame.convert("RGBA")
            white = Image.new("RGBA", rgba.size, (255, 255, 255, 255))
            frames.append(Image.alpha_composite(white, rgba).convert("RGB"))
    return frames


def quality(source_frames, output):
    frames = composed(output)
    if len(frames) != len(source_frames):
        raise SystemExit(f"{output}: {len(frames)} frames, the input has {len(source_frames)}")
    psnrs, ssims = [], []
    for source, frame in zip(source_frames, frames):
        reference = np.asarray(source.resize(frame.size, Image.LANCZOS), dtype=np.float64)
        written = np.asarray(frame, dtype=np.float64)
        mse = np.mean((reference - written) ** 2)
        psnrs.append(99.0 if mse == 0 else 10 * math.log10(255 ** 2 / mse))
        ssims.append(structural_similarity(
            reference.astype(np.uint8), written.astype(np.uint8), channel_axis=2, data_range=255,
            gaussian_weights=True, sigma=1.5, use_sample_covariance=False,
        ))
    return statistics.mean(psnrs), statistics.mean(ssims)


def sheet(source_frames, outputs, path):
    """Frame 4's top-left 96x64 detail, 3x, nearest neighbour: the reference, then each tool."""
    frame = 3
    first = composed(next(iter(outputs.values())))[frame]
    reference = source_frames[frame].resize(first.size, Image.LANCZOS)
    panels = [("Reference (Pillow Lanczos)", reference)] + [(tool, composed(output)[frame]) for tool, output in outputs.items()]
    box, scale = (60, 40, 156, 104), 3
    width, height = (box[2] - box[0]) * scale, (box[3] - box[1]) * scale
    font = ImageFont.load_default()
    canvas = Image.new("RGB", (len(panels) * (width + 10) + 10, height + 40), "white")
    draw = ImageDraw.Draw(canvas)
    for index, (label, image) in enumerate(panels):
        x = 10 + index * (width + 10)
        canvas.paste(image.crop(box).resize((width, height), Image.NEAREST), (x, 30))
        draw.text((x, 8), label, fill="black", font=font)
    canvas.save(path)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--json")
    parser.add_argument("--sheet")
    args = parser.parse_args()
    for tool in ["taskset", "vipsthumbnail", "gifsicle", "convert"]:
        if shutil.which(tool) is None:
            raise SystemExit(f"needs {tool}")
    with tempfile.TemporaryDirectory() as work:
        source = make_input(work)
        source_frames = composed(source)
        outputs = {name: os.path.join(work, name) for name in ["imagery", "vips", "gifsicle"]}
        for directory in outputs.values():
            os.makedirs(directory)
        commands = {
            "vipsthumbnail": (["vipsthumbnail", f"{source}[n=-1]", "--size", f"{WIDTH}x",
                               "-o", os.path.join(outputs["vips"], "out.gif")], os.path.join(outputs["vips"], "out.gif")),
            "gifsicle": (["gifsicle", "--resize-width", str(WIDTH), source, "-o", os.path.join(outputs["gifsicle"], "out.gif")],
                         os.path.join(outputs["gifsicle"], "out.gif")),
        }
        if os.access(IMAGERY, os.X_OK):
            commands = {"Imagery": ([IMAGERY, "thumbnail", source, "--width", str(WIDTH), "--format", "gif", "--jobs", "1",
                                     "-o", outputs["imagery"]], os.path.join(outputs["imagery"], "pan_8f_640x427.gif")), **commands}
        else:
            print(f"(no {IMAGERY}: swift build -c release --product imagery; Imagery is left out)\n")
        settings = {
            "Imagery": "Lanczos-3, median cut per frame, no dither",
            "vipsthumbnail": "libvips 8.14 shrink, cgif 0.3 (default effort)",
            "gifsicle": "gifsicle 1.93, default --resize-method (mix), palette kept",
        }
        rows = []
        for tool, (command, output) in commands.items():
            timed(command)   # warm the file cache and check that it runs
            seconds = statistics.median(timed(command) for _ in range(args.repeat))
            psnr, ssim = quality(source_frames, output)
            rows.append({"tool": tool, "settings": settings[tool], "ms": seconds * 1000, "bytes": os.path.getsize(output),
                         "psnr": psnr, "ssim": ssim})
        if args.sheet:
            sheet(source_frames, {tool: output for tool, (_, output) in commands.items()}, args.sheet)
    anchor = next((row for row in rows if row["tool"] == "Imagery"), rows[0])
    print(f"8-frame 640x427 animated GIF -> {WIDTH} px wide GIF, 1 core, median of {args.repeat} runs\n")
    print("| Tool | Settings | Median ms | Ratio to Imagery | Bytes | Mean SSIM | Mean PSNR (dB) |")
    print("|---|---|---|---|---|---|---|")
    for row in rows:
        print(f"| {row['tool']} | {row['settings']} | {row['ms']:.0f} | {row['ms'] / anchor['ms']:.2f}x | {row['bytes']:,} | "
              f"{row['ssim']:.4f} | {row['psnr']:.2f} |")
    if args.json:
        with open(args.json, "w") as out:
            json.dump(rows, out, indent=2)


if __name__ == "__main__":
    main()
