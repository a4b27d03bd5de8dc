#!/usr/bin/env python3
"""SVG -> 256 px PNG and a 24 MP LZW TIFF -> 512 px JPEG: Imagery against its peers, on one core.

Inputs:
- two SVGs from Tests/ImageryCodecsTests/Resources: a logo (svg_logo_gvim_376x376.svg) and an
  illustration with text (svg_text_dependencies_2457x908.svg), each rasterised to fit 256 x 256
  and written as PNG by Imagery, vipsthumbnail and rsvg-convert;
- a TIFF made here from the corpus JPEG jpeg_large_base_kleiber_6028x3391.jpg (--corpus), forced
  to 6000 x 4000 (24 MP; the aspect changes) with `vips thumbnail --size force` and saved as RGB,
  8 bits, LZW with the horizontal predictor, striped (128 rows per strip); tiffinfo checks it.
  It is reduced to fit 512 x 512 and written as JPEG at quality 80 by Imagery, vipsthumbnail and
  Pillow (open, thumbnail((512, 512), LANCZOS), save; TIFF has no draft()).

Commands, all pinned to core 0 with pinning.py (taskset), VIPS_CONCURRENCY=1 for libvips:
  imagery thumbnail IN --fit 256x256 --format png -o DIR --jobs 1
  imagery thumbnail IN --fit 512x512 --format jpeg --quality 80 -o DIR --jobs 1
  vipsthumbnail IN -s 256 -o OUT.png            vipsthumbnail IN -s 512 -o OUT.jpg[Q=80]
  rsvg-convert -w 256 -h 256 --keep-aspect-ratio -f png -o OUT.png IN
(rsvg-convert stretches to -w x -h without --keep-aspect-ratio; with it, it fits the box.)

Timing method: the CLIs (Imagery, vipsthumbnail, rsvg-convert) are timed as a whole process
each, from the parent's fork to its exit, so their figures include process start (dynamic
loading, library init). Pillow is timed inside one long-lived Python worker (started once,
pinned to the same core, with PIL already imported): open + thumbnail + save to a file, the
way a server or batch script would use it. So that the comparison stays fair, each CLI's
process-start floor is measured the same way and reported in its own rows: `imagery --help`,
`vipsthumbnail --help` and `rsvg-convert --version`, and for reference what a fresh Pillow
process would add (`python3 -c "from PIL import Image"`). Subtract a CLI's floor from its
figure to compare work alone.

Every command runs once untimed first (page cache, and a failure stops the run with the
tool's message); then --repeat rounds, interleaved: A, B, C, A, B, C, ... per input. The
figure is the median wall time in ms; the ratio is to the fastest peer (not Imagery) on that
input. Each output is checked with Pillow: it opens and fits the box (longest side = box,
+-1 px, neither side over box + 1).

Prerequisites: a release build with SVG and TIFF (swift build -c release --traits SVG,TIFF
--product imagery), libvips-tools, librsvg2-bin, libtiff-tools, Pillow. No network.

Usage: Benchmarks/scripts/bench_svg_tiff.py [--binary .build/release/imagery] [--repeat 5]
       [--corpus ../shared/corpus] [--workdir DIR] [--json out.json] [--chart chart.png]
"""
import argparse
import json
import os
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

try:
    from PIL import Image, ImageDraw, ImageFont
except ImportError:
    raise SystemExit("needs Pillow (pip install Pillow)")
from pinning import pinned, timed

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
RESOURCES = os.path.join(ROOT, "Tests/ImageryCodecsTests/Resources")
CORPUS_JPEG = "jpeg_large_base_kleiber_6028x3391.jpg"
TIFF_NAME = "kleiber_6000x4000_lzw.tif"
VIPS_ENV = dict(os.environ, VIPS_CONCURRENCY="1")
PEERS_PALETTE = {"Imagery": (31, 119, 180), "vipsthumbnail": (214, 39, 40), "rsvg-convert": (44, 160, 44),
                 "Pillow": (255, 160, 60)}

PILLOW_WORKER = r"""
import json, sys, time
from PIL import Image
print("ready", flush=True)
for line in sys.stdin:
    job = json.loads(line)
    started = time.perf_counter()
    image = Image.open(job["in"])
    image.thumbnail((job["box"], job["box"]), Image.LANCZOS)
    image.convert("RGB").save(job["out"], "JPEG", quality=job["quality"])
    print(json.dumps(time.perf_counter() - started), flush=True)
"""


class PillowWorker:
    """One pinned Python process that thumbnails on request and reports its own time."""

    def __init__(self):
        self.process = subprocess.Popen(pinned([sys.executable, "-c", PILLOW_WORKER]), stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, text=True)
        if self.process.stdout.readline().strip() != "ready":
            raise SystemExit("the Pillow worker did not start")

    def run(self, source, out, box, quality):
        self.process.stdin.write(json.dumps({"in": source, "out": out, "box": box, "quality": quality}) + "\n")
        self.process.stdin.flush()
        line = self.process.stdout.readline()
        if not line:
            raise SystemExit(f"the Pillow worker failed on {source}")
        return json.loads(line)

    def close(self):
        self.process.stdin.close()
        self.process.wait()


def cli(command, env=None):
    """A CLI measurement: one pinned process, timed from start to exit."""
    return lambda: timed(command, env)


def check_once(name, command, env=None, hint=""):
    """Runs `command` once, untimed; a failure ends the run with the tool's own message."""
    done = subprocess.run(pinned(command), capture_output=True, text=True, env=env)
    if done.returncode != 0:
        raise SystemExit(f"{name} failed (exit {done.returncode}): {' '.join(command)}\n{done.stderr.strip()}{hint}")


def make_tiff(jpeg, tiff):
    """The 24 MP input: the corpus JPEG forced to 6000 x 4000, RGB 8-bit LZW, striped."""
    if not os.path.exists(tiff):
        print(f"making {tiff} from {jpeg}", file=sys.stderr)
        subprocess.run(["vips", "thumbnail", jpeg, f"{tiff}[compression=lzw,tile=false]", "6000", "--height", "4000",
                        "--size", "force"], check=True)
    info = subprocess.run(["tiffinfo", tiff], check=True, capture_output=True, text=True).stdout
    wanted = ["Image Width: 6000 Image Length: 4000", "Compression Scheme: LZW", "Bits/Sample: 8",
              "Samples/Pixel: 3", "Photometric Interpretation: RGB", "Rows/Strip:"]
    missing = [w for w in wanted if w not in info]
    if missing or "Tile Width" in info:
        raise SystemExit(f"{tiff} is not a striped 6000x4000 RGB 8-bit LZW TIFF (tiffinfo lacks {missing}):\n{info}")
    return info


def verify(path, box):
    """Bytes, width and height of an output, which must open with Pillow and fit the box."""
    if not os.path.exists(path):
        raise SystemExit(f"no output at {path}")
    with Image.open(path) as image:
        image.load()
        width, height = image.size
        fmt = image.format
    if abs(max(width, height) - box) > 1 or min(width, height) > box + 1:
        raise SystemExit(f"{path} is {width}x{height}, which does not fit a {box} px box")
    return {"bytes": os.path.getsize(path), "width": width, "height": height, "format": fmt}


def cases(binary, work, tiff):
    """Per input: its label, box, and (tool, command line for the record, measurement, output path)."""
    out = []
    for key, label, name in [("svg-logo", "SVG logo (gvim 376x376)", "svg_logo_gvim_376x376.svg"),
                             ("svg-illustration", "SVG illustration (2457x908)", "svg_text_dependencies_2457x908.svg")]:
        source = os.path.join(RESOURCES, name)
        stem = os.path.splitext(name)[0]
        imagery_dir = os.path.join(work, f"imagery-{key}")
        imagery = [binary, "thumbnail", source, "--fit", "256x256", "--format", "png", "-o", imagery_dir, "--jobs", "1"]
        vips_out = os.path.join(work, f"vips-{key}.png")
        vips = ["vipsthumbnail", source, "-s", "256", "-o", vips_out]
        rsvg_out = os.path.join(work, f"rsvg-{key}.png")
        rsvg = ["rsvg-convert", "-w", "256", "-h", "256", "--keep-aspect-ratio", "-f", "png", "-o", rsvg_out, source]
        out.append((key, label, source, 256, [
            ("Imagery", imagery, None, os.path.join(imagery_dir, stem + ".png")),
            ("vipsthumbnail", vips, VIPS_ENV, vips_out),
            ("rsvg-convert", rsvg, None, rsvg_out),
        ]))
    key = "tiff-24mp"
    imagery_dir = os.path.join(work, f"imagery-{key}")
    imagery = [binary, "thumbnail", tiff, "--fit", "512x512", "--format", "jpeg", "--quality", "80", "-o", imagery_dir,
               "--jobs", "1"]
    vips_out = os.path.join(work, f"vips-{key}.jpg")
    vips = ["vipsthumbnail", tiff, "-s", "512", "-o", vips_out + "[Q=80]"]
    pillow_out = os.path.join(work, f"pillow-{key}.jpg")
    pillow = ["(in-process)", "Image.open", tiff, "thumbnail((512, 512), LANCZOS)", "save", pillow_out, "quality=80"]
    out.append((key, "TIFF 24 MP LZW (6000x4000)", tiff, 512, [
        ("Imagery", imagery, None, os.path.join(imagery_dir, os.path.splitext(TIFF_NAME)[0] + ".jpg")),
        ("vipsthumbnail", vips, VIPS_ENV, vips_out),
        ("Pillow", pillow, None, pillow_out),
    ]))
    return out


def floors(binary):
    return [("Imagery", [binary, "--help"], None),
            ("vipsthumbnail", ["vipsthumbnail", "--help"], VIPS_ENV),
            ("rsvg-convert", ["rsvg-convert", "--version"], None),
            ("Pillow", [sys.executable, "-c", "from PIL import Image"], None)]


def chart(results, floor_rows, repeat, path):
    groups = {}
    for row in results:
        groups.setdefault(row["label"], []).append(row)
    groups["process start floor (not in Pillow's figure)"] = floor_rows
    font = ImageFont.load_default(size=15)
    small = ImageFont.load_default(size=13)
    bar, gap, left, width = 18, 26, 190, 1000
    height = 60 + sum(len(rows) * bar + gap + 22 for rows in groups.values())
    image = Image.new("RGB", (width, height), "white")
    draw = ImageDraw.Draw(image)
    draw.text((20, 15), f"SVG -> 256 px PNG, 24 MP LZW TIFF -> 512 px JPEG q80, 1 core, median ms of {repeat} runs; "
                        "ratio to the fastest peer", fill="black", font=font)
    y = 55
    for label, rows in groups.items():
        top = max(row["medianMs"] for row in rows)
        scale = (width - left - 170) / top if top > 0 else 0
        draw.text((20, y), label, fill="black", font=font)
        y += 22
        for row in rows:
            value = row["medianMs"]
            draw.rectangle([left, y, left + value * scale, y + bar - 3], fill=PEERS_PALETTE[row["tool"]])
            draw.text((20, y), row["tool"], fill=(60, 60, 60), font=small)
            ratio = f"  ({row['ratioToFastestPeer']:.2f}x)" if row.get("ratioToFastestPeer") else ""
            draw.text((left + value * scale + 6, y), f"{value:.1f} ms{ratio}", fill="black", font=small)
            y += bar
        y += gap
    image.save(path)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--binary", default=os.path.join(ROOT, ".build/release/imagery"),
                        help="the imagery CLI, built with --traits SVG,TIFF (default: .build/release/imagery)")
    parser.add_argument("--repeat", type=int, default=5, help="timed runs per tool and input (default 5)")
    parser.add_argument("--corpus", default=os.path.join(ROOT, "../shared/corpus"),
                        help=f"directory holding {CORPUS_JPEG} (or the JPEG itself)")
    parser.add_argument("--workdir", help="where the TIFF and outputs go, kept (default: a temporary directory)")
    parser.add_argument("--json", help="write the raw results here")
    parser.add_argument("--chart", help="write a PNG bar chart here")
    args = parser.parse_args()
    if args.repeat < 1:
        raise SystemExit("--repeat must be at least 1")
    for tool, package in [("taskset", "util-linux"), ("vipsthumbnail", "libvips-tools"), ("vips", "libvips-tools"),
                          ("rsvg-convert", "librsvg2-bin"), ("tiffinfo", "libtiff-tools")]:
        if shutil.which(tool) is None:
            raise SystemExit(f"needs {tool} (apt-get install {package})")
    binary = os.path.abspath(args.binary)
    if not (os.path.isfile(binary) and os.access(binary, os.X_OK)):
        raise SystemExit(f"no imagery binary at {binary}: swift build -c release --traits SVG,TIFF --product imagery, "
                         "or pass --binary")
    jpeg = args.corpus if os.path.isfile(args.corpus) else os.path.join(args.corpus, CORPUS_JPEG)
    if not os.path.isfile(jpeg):
        raise SystemExit(f"no corpus JPEG at {jpeg} (pass --corpus DIR)")

    if args.workdir:
        os.makedirs(args.workdir, exist_ok=True)
        work, cleanup = os.path.abspath(args.workdir), None
    else:
        cleanup = tempfile.TemporaryDirectory(prefix="bench_svg_tiff-")
        work = cleanup.name
    try:
        tiff = os.path.join(work, TIFF_NAME)
        tiffinfo = make_tiff(jpeg, tiff)
        plan = cases(binary, work, tiff)
        worker = PillowWorker()
        hint = "\n(does the binary have the SVG and TIFF traits? swift build -c release --traits SVG,TIFF --product imagery)"
        measure = {}
        for key, label, source, box, tools in plan:
            for tool, command, env, output in tools:
                if tool == "Pillow":
                    measure[key, tool] = lambda c=command: worker.run(c[2], c[5], 512, 80)
                    measure[key, tool]()
                else:
                    check_once(f"{tool} on {os.path.basename(source)}", command, env, hint if tool == "Imagery" else "")
                    measure[key, tool] = cli(command, env)
                verify(output, box)
        for tool, command, env in floors(binary):
            check_once(f"{tool} start", command, env)

        times = {(key, tool): [] for key, _, _, _, tools in plan for tool, _, _, _ in tools}
        floor_times = {tool: [] for tool, _, _ in floors(binary)}
        for round_ in range(args.repeat):
            for tool, command, env in floors(binary):
                floor_times[tool].append(timed(command, env))
            for key, label, source, box, tools in plan:
                for tool, _, _, _ in tools:
                    times[key, tool].append(measure[key, tool]())
                print(f"round {round_ + 1}/{args.repeat} {label}: " +
                      ", ".join(f"{tool} {times[key, tool][-1] * 1000:.1f} ms" for tool, _, _, _ in tools), file=sys.stderr)
        worker.close()

        results = []
        for key, label, source, box, tools in plan:
            medians = {tool: statistics.median(times[key, tool]) * 1000 for tool, _, _, _ in tools}
            fastest = min(ms for tool, ms in medians.items() if tool != "Imagery")
            for tool, command, env, output in tools:
                results.append({
                    "input": key, "label": label, "source": os.path.relpath(source, ROOT) if source.startswith(ROOT) else source,
                    "box": box, "tool": tool, "command": command, "env": {"VIPS_CONCURRENCY": "1"} if env else {},
                    "timing": "in-process (long-lived worker)" if tool == "Pillow" else "whole process",
                    "runsMs": [round(t * 1000, 2) for t in times[key, tool]], "medianMs": round(medians[tool], 2),
                    "ratioToFastestPeer": round(medians[tool] / fastest, 3), **verify(output, box),
                })
        floor_rows = [{"tool": tool, "command": command, "runsMs": [round(t * 1000, 2) for t in floor_times[tool]],
                       "medianMs": round(statistics.median(floor_times[tool]) * 1000, 2)} for tool, command, _ in floors(binary)]
    finally:
        if cleanup:
            cleanup.cleanup()

    if args.json:
        with open(args.json, "w") as file:
            json.dump({"repeat": args.repeat, "core": "taskset -c 0", "binary": binary, "corpusJpeg": jpeg,
                       "tiffinfo": tiffinfo, "results": results, "processStartFloors": floor_rows}, file, indent=1)
    if args.chart:
        chart(results, floor_rows, args.repeat, args.chart)

    print(f"SVG -> fit 256x256 PNG, 24 MP LZW TIFF -> fit 512x512 JPEG q80; 1 core, median of {args.repeat} runs. "
          "CLIs timed as whole processes (start included), Pillow in one long-lived process.\n")
    print("| Tool | Input | Median ms | Ratio to fastest peer | Bytes | Size |")
    print("|---|---|---|---|---|---|")
    for row in results:
        print(f"| {row['tool']} | {row['label']} | {row['medianMs']:.1f} | {row['ratioToFastestPeer']:.2f}x | "
              f"{row['bytes']} | {row['width']}x{row['height']} |")
    for row in floor_rows:
        note = "fresh-process cost, not in Pillow's figure" if row["tool"] == "Pillow" else "process start floor"
        print(f"| {row['tool']} | {note}: `{shlex.join([os.path.basename(row['command'][0])] + row['command'][1:])}` "
              f"| {row['medianMs']:.1f} | | | |")


if __name__ == "__main__":
    main()
