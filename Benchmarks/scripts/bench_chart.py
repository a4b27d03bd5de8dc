#!/usr/bin/env python3
"""Draws `imagery-bench` results (results.json) as a bar chart PNG: ms/image per group and tool,
with each bar's ratio to the codec floor. Usage: bench_chart.py results.json chart.png"""
import json
import sys

from PIL import Image, ImageDraw, ImageFont

TOOLS = [
    ("floorMs", "codec floor (libjpeg-turbo / libpng)", (150, 150, 150)),
    ("imageryMs", "Imagery, in-process", (31, 119, 180)),
    ("imageryBatch1Ms", "Imagery CLI, 1 job", (122, 178, 222)),
    ("vipsMs", "vipsthumbnail", (214, 39, 40)),
    ("pillowMs", "Pillow draft + thumbnail", (255, 160, 60)),
]


def ascii(text):
    """Pillow's built-in font has no ×, ≤, ≥ or dashes."""
    for a, b in (("×", "x"), ("≤", "<="), ("≥", ">="), ("—", "-"), ("–", "-")):
        text = text.replace(a, b)
    return text


def main():
    results = json.load(open(sys.argv[1]))
    groups = [g for g in results["groups"] if g.get("floorMs") not in (None, "nan")]
    font = ImageFont.load_default(size=15)
    small = ImageFont.load_default(size=13)
    bar, gap, left, width = 16, 26, 250, 1000
    height = 60 + len(groups) * (len(TOOLS) * bar + gap + 22)
    image = Image.new("RGB", (width, height), "white")
    draw = ImageDraw.Draw(image)
    draw.text((20, 15), f"Thumbnail to a {results['size']} px box, ms/image (median of {results['repetitions']} runs); ratio to the codec floor",
              fill="black", font=font)
    y = 55
    for group in groups:
        values = [group.get(key) for key, _, _ in TOOLS]
        values = [v if isinstance(v, (int, float)) else None for v in values]
        top = max(v for v in values if v is not None)
        scale = (width - left - 140) / top
        draw.text((20, y), ascii(f"{group['title']}, target {group['target']}"), fill="black", font=font)
        y += 22
        floor = group["floorMs"]
        for (key, label, colour), value in zip(TOOLS, values):
            if value is None:
                y += bar
                continue
            draw.rectangle([left, y, left + value * scale, y + bar - 3], fill=colour)
            draw.text((20, y), label, fill=(60, 60, 60), font=small)
            draw.text((left + value * scale + 6, y), f"{value:.1f} ms  ({value / floor:.2f}x)", fill="black", font=small)
            y += bar
        y += gap
    image.save(sys.argv[2])


if __name__ == "__main__":
    main()
