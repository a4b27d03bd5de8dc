#!/usr/bin/env bash
# Makes Tests/ImageryTests/Resources/placeholder-vectors.json: reference test vectors for
# ThumbHash and BlurHash, computed by running the reference implementations themselves
# (run once; the output is committed, the references are not).
#
#     scripts/make-placeholder-vectors.sh /path/to/thumbhash /path/to/blurhash [OUT.json]
#
# /path/to/thumbhash is a checkout of evanw/thumbhash: its js/thumbhash.js is imported by node
# (v18 or later) and rgbaToThumbHash, thumbHashToRGBA, thumbHashToAverageRGBA and
# thumbHashToApproximateAspectRatio are called. /path/to/blurhash is a checkout of
# woltapp/blurhash: its C/encode.c and C/decode.c are compiled in place with gcc (-O2, no fast
# math) and blurHashForPixels and decode are called. Nothing of either project is copied here:
# the glue below only calls their public functions. The commits named in the JSON come from
# `git rev-parse HEAD` in each checkout (or THUMBHASH_COMMIT / BLURHASH_COMMIT when set).
#
# Inputs (stored in the JSON, so tests never resize anything): the rocket (sRGB PNG) box-resized
# to 32x21 and the EXIF-6 aqua photo upright and box-resized to 18x32, both with Pillow; a 24x24
# gradient with alpha; an 8x8 solid colour; an 8x8 fully transparent image. Needs python3 with
# Pillow, node and gcc. Sends no network traffic.
set -euo pipefail

if [ $# -lt 2 ] || [ $# -gt 3 ]; then
    echo "usage: $0 /path/to/thumbhash /path/to/blurhash [OUT.json]" >&2
    exit 2
fi
THUMBHASH=$(cd "$1" && pwd)
BLURHASH=$(cd "$2" && pwd)
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/.." && pwd)
OUT=${3:-$ROOT/Tests/ImageryTests/Resources/placeholder-vectors.json}
RESOURCES=$ROOT/Tests/ImageryCodecsTests/Resources

for f in "$THUMBHASH/js/thumbhash.js" "$BLURHASH/C/encode.c" "$BLURHASH/C/decode.c" \
         "$BLURHASH/C/encode.h" "$BLURHASH/C/decode.h"; do
    [ -f "$f" ] || { echo "missing $f" >&2; exit 1; }
done
commit_of() { git -C "$1" rev-parse HEAD 2>/dev/null || { echo "cannot tell the commit of $1: set $2" >&2; exit 1; }; }
THUMBHASH_COMMIT=${THUMBHASH_COMMIT:-$(commit_of "$THUMBHASH" THUMBHASH_COMMIT)}
BLURHASH_COMMIT=${BLURHASH_COMMIT:-$(commit_of "$BLURHASH" BLURHASH_COMMIT)}

WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

# 1. Inputs: straight-alpha RGBA, row-major, written as WORK/<name>.rgba and listed in inputs.tsv.
python3 - "$RESOURCES" "$WORK" <<'PY'
import os, sys
from PIL import Image, ImageOps
res, work = sys.argv[1], sys.argv[2]

def photo(file, size):
    im = ImageOps.exif_transpose(Image.open(os.path.join(res, file))).convert("RGBA")
    return im.resize(size, Image.Resampling.BOX).tobytes()

def synthetic(w, h, f):
    return bytes(v for y in range(h) for x in range(w) for v in f(x, y))

clamp = lambda v: max(0, min(255, v))
inputs = [
    ("rocket", 32, 21, photo("reference_rocket_lcms_srgb_160x107.png", (32, 21))),
    ("aqua_portrait", 18, 32, photo("jpeg_exif6_aqua_2560x1600.jpg", (18, 32))),
    ("gradient_alpha", 24, 24, synthetic(24, 24, lambda x, y: (clamp(x * 10), clamp(y * 10), 128, clamp(255 - x * 10)))),
    ("solid", 8, 8, synthetic(8, 8, lambda x, y: (200, 40, 90, 255))),
    ("transparent", 8, 8, synthetic(8, 8, lambda x, y: (0, 0, 0, 0))),
]
with open(os.path.join(work, "inputs.tsv"), "w") as tsv:
    for name, w, h, rgba in inputs:
        assert len(rgba) == w * h * 4
        with open(os.path.join(work, name + ".rgba"), "wb") as f:
            f.write(rgba)
        tsv.write(f"{name}\t{w}\t{h}\n")
PY

# 2. BlurHash: glue around the reference C encoder and decoder, compiled from the checkout.
cat > "$WORK/blurhash_glue.c" <<'C'
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "encode.h"
#include "decode.h"

/* blurhash_glue encode W H CX CY IN.rgba      -> prints the hash (RGB only: alpha is dropped)
   blurhash_glue decode HASH W H PUNCH OUT.rgba -> writes decode(HASH, W, H, PUNCH, 4) */
int main(int argc, char **argv) {
    if (argc == 7 && strcmp(argv[1], "encode") == 0) {
        int w = atoi(argv[2]), h = atoi(argv[3]), cx = atoi(argv[4]), cy = atoi(argv[5]);
        uint8_t *rgba = malloc((size_t)w * h * 4), *rgb = malloc((size_t)w * h * 3);
        FILE *f = fopen(argv[6], "rb");
        if (!f || fread(rgba, 1, (size_t)w * h * 4, f) != (size_t)w * h * 4) return 1;
        fclose(f);
        for (int i = 0; i < w * h; i++) memcpy(rgb + 3 * i, rgba + 4 * i, 3);
        const char *hash = blurHashForPixels(cx, cy, w, h, rgb, (size_t)w * 3);
        if (!hash) return 1;
        printf("%s\n", hash);
        return 0;
    }
    if (argc == 7 && strcmp(argv[1], "decode") == 0) {
        int w = atoi(argv[3]), h = atoi(argv[4]), punch = atoi(argv[5]);
        uint8_t *pixels = decode(argv[2], w, h, punch, 4);
        if (!pixels) return 1;
        FILE *f = fopen(argv[6], "wb");
        if (!f || fwrite(pixels, 1, (size_t)w * h * 4, f) != (size_t)w * h * 4) return 1;
        fclose(f);
        freePixelArray(pixels);
        return 0;
    }
    fprintf(stderr, "usage: encode W H CX CY IN.rgba | decode HASH W H PUNCH OUT.rgba\n");
    return 2;
}
C
gcc -std=gnu11 -O2 -ffp-contract=off -I"$BLURHASH/C" -o "$WORK/blurhash_glue" \
    "$WORK/blurhash_glue.c" "$BLURHASH/C/encode.c" "$BLURHASH/C/decode.c" -lm

: > "$WORK/blurhash.tsv"
while IFS=$'\t' read -r name w h; do
    for pair in "4 3" "1 1" "9 9" "3 4"; do
        set -- $pair
        hash=$("$WORK/blurhash_glue" encode "$w" "$h" "$1" "$2" "$WORK/$name.rgba")
        out="$WORK/blurhash-$name-$1x$2.rgba"
        "$WORK/blurhash_glue" decode "$hash" 32 32 1 "$out"
        printf '%s\t%s\t%s\t%s\t%s\n' "$name" "$1" "$2" "$hash" "$out" >> "$WORK/blurhash.tsv"
    done
done < "$WORK/inputs.tsv"

# 3. ThumbHash: the reference ES module, imported from the checkout.
cat > "$WORK/thumbhash_glue.mjs" <<'JS'
import { readFileSync, writeFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
const [moduleFile, work] = process.argv.slice(2);
const { rgbaToThumbHash, thumbHashToRGBA, thumbHashToAverageRGBA, thumbHashToApproximateAspectRatio } =
    await import(pathToFileURL(moduleFile).href);
const results = [];
for (const line of readFileSync(`${work}/inputs.tsv`, "utf8").split("\n").filter(Boolean)) {
    const [name, w, h] = line.split("\t");
    const rgba = new Uint8Array(readFileSync(`${work}/${name}.rgba`));
    const hash = rgbaToThumbHash(Number(w), Number(h), rgba);
    const decoded = thumbHashToRGBA(hash);
    const avg = thumbHashToAverageRGBA(hash);
    results.push({
        input: name,
        hash: Buffer.from(hash).toString("hex"),
        decoded: { width: decoded.w, height: decoded.h, rgba: Buffer.from(decoded.rgba).toString("base64") },
        average: [avg.r, avg.g, avg.b, avg.a],
        aspectRatio: thumbHashToApproximateAspectRatio(hash),
    });
}
writeFileSync(`${work}/thumbhash.json`, JSON.stringify(results));
JS
node "$WORK/thumbhash_glue.mjs" "$THUMBHASH/js/thumbhash.js" "$WORK"

# 4. The JSON: one entry a line.
mkdir -p "$(dirname "$OUT")"
python3 - "$WORK" "$OUT" "$THUMBHASH_COMMIT" "$BLURHASH_COMMIT" <<'PY'
import base64, json, os, sys
work, out, th_commit, bh_commit = sys.argv[1:5]
b64 = lambda path: base64.b64encode(open(path, "rb").read()).decode()
inputs = []
for line in open(os.path.join(work, "inputs.tsv")).read().splitlines():
    name, w, h = line.split("\t")
    inputs.append({"name": name, "width": int(w), "height": int(h), "rgba": b64(os.path.join(work, name + ".rgba"))})
thumbhash = json.load(open(os.path.join(work, "thumbhash.json")))
blurhash = []
for line in open(os.path.join(work, "blurhash.tsv")).read().splitlines():
    name, cx, cy, hash, path = line.split("\t")
    blurhash.append({"input": name, "componentsX": int(cx), "componentsY": int(cy), "hash": hash,
                     "decoded": {"width": 32, "height": 32, "punch": 1, "rgba": b64(path)}})
source = (f"computed with evanw/thumbhash {th_commit} js/thumbhash.js and woltapp/blurhash {bh_commit} C/, "
          "by scripts/make-placeholder-vectors.sh")
item = lambda v: json.dumps(v, separators=(", ", ": "))
with open(out, "w") as f:
    f.write("{\n  \"source\": " + json.dumps(source) + ",\n")
    for i, (key, rows) in enumerate([("inputs", inputs), ("thumbhash", thumbhash), ("blurhash", blurhash)]):
        f.write(f"  \"{key}\": [\n" + ",\n".join("    " + item(r) for r in rows) + "\n  ]" + (",\n" if i < 2 else "\n"))
    f.write("}\n")
json.load(open(out))
PY
echo "wrote $OUT"
