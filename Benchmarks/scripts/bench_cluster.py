#!/usr/bin/env python3
"""imagery-server behind nginx (deploy/nginx/imagery.conf) against direct access, in one run.

Usage: Benchmarks/scripts/bench_cluster.py [--corpus DIR] [--seconds 10] [--rounds 3] [--output bench-out]
       (build first: swift build -c release --product imagery-server; needs wrk and nginx)

Every process binds 127.0.0.1 and is stopped by its PID. The origin is nginx serving the same
six photos as bench_server.py; URLs fit them into 400-560 px boxes at JPEG q80.

Measured, each as requests/s and p50/p99 latency (wrk --latency):
- direct: one instance, no nginx;
- nginx, edge cache off: the shipped config (rendered by scripts/cluster.sh) in front of the
  same instance: the proxy's overhead;
- nginx, edge cache on: cold runs fill the edge; hot runs are edge hits;
- nginx, 2 instances, edge cache off: on a 2-core machine a second instance adds no CPU.
"cold" runs use URLs no earlier run used (8 connections); "hot" runs 48 URLs fetched once
first (64 connections). Every process runs throughout; the runs alternate between the paths
in rounds, and each figure is the median of its rounds. wrk shares the two cores.

Then a model, labelled as one: what N machines would give (cold throughput per core times
cores), and the hit ratio of the instances' response caches against the number of instances,
with URLs hashed (each instance caches its share) and spread round robin (each caches the
same hot set), under a Zipf popularity and Che's approximation of LRU.

Writes OUTPUT/cluster.json, OUTPUT/cluster.md and OUTPUT/cluster.png.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import urllib.request
from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw, ImageFont

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_server as bench  # noqa: E402 - the same origin, wrk script and process handling

ROOT = bench.ROOT
# The model's workload: a photo app with 100,000 photos in 10 sizes, requests Zipf(0.8)
# distributed over the million URLs; each instance keeps 800 responses (32 MiB of ~40 KB
# JPEGs, the server's default response cache).
MODEL_URLS, MODEL_ALPHA, MODEL_CACHE = 1_000_000, 0.8, 800


def lru_hit_ratio(popularity, capacity):
    """Che's approximation: the characteristic time T solves sum(1 - exp(-p T)) = capacity."""
    if capacity >= len(popularity):
        return 1.0
    low, high = 1.0, 1e15
    for _ in range(100):
        t = (low * high) ** 0.5
        if np.sum(-np.expm1(-popularity * t)) > capacity:
            high = t
        else:
            low = t
    return float(np.sum(popularity * -np.expm1(-popularity * low)))


def hit_ratio_model(instances):
    ranks = np.arange(1, MODEL_URLS + 1, dtype=np.float64)
    popularity = ranks ** -MODEL_ALPHA
    popularity /= popularity.sum()
    rows = []
    for n in instances:
        rows.append({
            "instances": n,
            # Hashed: the instances partition the URLs, so together they hold n x 800 of them.
            "hashed": lru_hit_ratio(popularity, n * MODEL_CACHE),
            # Round robin: every instance sees every URL and keeps the same 800.
            "round_robin": lru_hit_ratio(popularity, MODEL_CACHE),
        })
    return rows


def chart(measured, model, path):
    font = ImageFont.load_default(size=15)
    small = ImageFont.load_default(size=13)
    image = Image.new("RGB", (1180, 430), "white")
    draw = ImageDraw.Draw(image)
    draw.text((10, 10), "Measured on one 2-core machine: req/s (more is better)", fill="black", font=font)
    colours = [(31, 119, 180), (122, 178, 222), (255, 160, 60), (150, 150, 150)]
    names = list(measured)
    y = 45
    for label, key in (("cold, 8 connections", "cold"), ("hot, 64 connections", "hot")):
        top = max(measured[n][key]["rps"] for n in names)
        draw.text((10, y), label, fill="black", font=small)
        y += 20
        for index, name in enumerate(names):
            value = measured[name][key]["rps"]
            length = int(300 * value / top)
            draw.rectangle([10, y, 10 + length, y + 15], fill=colours[index % len(colours)])
            draw.text((16 + length, y), f"{value:,.0f}", fill="black", font=small)
            y += 19
        y += 14
    for index, name in enumerate(names):
        draw.rectangle([10, y + 3, 22, y + 15], fill=colours[index % len(colours)])
        draw.text((28, y), name, fill="black", font=small)
        y += 18

    # The model: hit ratio against instances.
    left, top, width, height = 560, 60, 560, 300
    draw.text((left - 20, 10), f"Model (not measured): response-cache hit ratio, Zipf({MODEL_ALPHA}) over", fill="black", font=font)
    draw.text((left - 20, 28), f"{MODEL_URLS:,} URLs, {MODEL_CACHE} responses per instance", fill="black", font=font)
    draw.line([left, top, left, top + height, left + width, top + height], fill="black")
    counts = [row["instances"] for row in model]
    for fraction in (0, 0.25, 0.5, 0.75, 1.0):
        y = top + height - int(height * fraction)
        draw.line([left - 4, y, left + width, y], fill=(225, 225, 225))
        draw.text((left - 40, y - 7), f"{fraction:.0%}", fill="black", font=small)

    def x_of(n):
        return left + int(width * (n - counts[0]) / (counts[-1] - counts[0]))

    for n in counts:
        draw.text((x_of(n) - 5, top + height + 6), str(n), fill="black", font=small)
    draw.text((left + width // 2 - 40, top + height + 24), "instances", fill="black", font=small)
    for key, colour, label in (("hashed", (31, 119, 180), "hashed by URL (consistent hashing)"),
                               ("round_robin", (214, 39, 40), "round robin")):
        points = [(x_of(row["instances"]), top + height - int(height * row[key])) for row in model]
        draw.line(points, fill=colour, width=3)
        last = points[-1]
        draw.text((last[0] - 230, last[1] - 20), label, fill=colour, font=small)
    image.save(path)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--corpus", default=str(ROOT.parent / "shared" / "corpus"))
    parser.add_argument("--seconds", type=int, default=10, help="length of each wrk run")
    parser.add_argument("--rounds", type=int, default=3, help="runs per path and kind; the median is reported")
    parser.add_argument("--output", default=str(ROOT / "bench-out"))
    args = parser.parse_args()
    binary, work, script = bench.prepare(Path(args.corpus), ("wrk", "nginx"), "imagery-bench-cluster-")
    output = Path(args.output)
    output.mkdir(parents=True, exist_ok=True)
    origin, origin_port = bench.origin_server(work)
    template = f"/insecure/rs:fit:{{w}}:{{h}}/plain/http://127.0.0.1:{origin_port}/{{name}}@jpg"

    def instance(name):
        port = bench.free_port()
        server = bench.Server(name, [str(binary), "--port", str(port), "--allow-loopback-sources", "--quality", "80"],
                              template, f"http://127.0.0.1:{port}/health")
        return server, port

    def front(name, upstreams, edge):
        directory, port = work / name, bench.free_port()
        subprocess.run(["bash", str(ROOT / "scripts" / "cluster.sh"), "render", str(directory), str(port),
                        str(directory / "edge") if edge else "off", *[f"127.0.0.1:{p}" for p in upstreams]], check=True)
        server = bench.Server(name, ["nginx", "-p", str(directory), "-c", str(directory / "nginx.conf")], template,
                              f"http://127.0.0.1:{port}/health")
        return server, port

    started, runs = [], {}
    try:
        origin.start()
        started.append(origin)
        first, first_port = instance("instance 1")
        second, second_port = instance("instance 2")
        fronts = [
            front("edge-off-1", [first_port], False),
            front("edge-on-1", [first_port], True),
            front("edge-off-2", [first_port, second_port], False),
        ]
        for server in [first, second] + [f for f, _ in fronts]:
            server.start()
            started.append(server)
        paths = [("direct, 1 instance", first_port)] + list(zip(
            ["nginx, edge cache off, 1 instance", "nginx, edge cache on, 1 instance", "nginx, edge cache off, 2 instances"],
            [port for _, port in fronts]))
        # Rounds that alternate the paths, so drift on the machine (and a fresh process being
        # faster than one that has served for minutes) lands on every path alike; medians.
        # Each cold run starts from its own offset: no URL is requested twice.
        for round_index in range(args.rounds):
            for index, (label, port) in enumerate(paths):
                run = round_index * len(paths) + index
                result = bench.wrk(first, f"http://127.0.0.1:{port}", 8, args.seconds, False, script, offset=1 + 5_000 * run)
                runs.setdefault(label, {"cold": [], "hot": []})["cold"].append(result)
                print(f"cold, round {round_index + 1}, {label}: {result}", flush=True)
        for label, port in paths:   # the hot working set, once through each path
            for size in bench.HOT_SIZES:
                for name in bench.PHOTOS:
                    urllib.request.urlopen(f"http://127.0.0.1:{port}" + first.path(name, size, size), timeout=120).read()
        for round_index in range(args.rounds):
            for label, port in paths:
                result = bench.wrk(first, f"http://127.0.0.1:{port}", 64, args.seconds, True, script)
                runs[label]["hot"].append(result)
                print(f"hot, round {round_index + 1}, {label}: {result}", flush=True)
    finally:
        for server in reversed(started):
            server.stop()
        shutil.rmtree(work, ignore_errors=True)

    results = {label: {kind: bench.median_run(entries[kind]) for kind in ("cold", "hot")} for label, entries in runs.items()}

    cores = os.cpu_count() or 2
    per_core = results["direct, 1 instance"]["cold"]["rps"] / cores
    model = hit_ratio_model([1, 2, 4, 8, 16])
    machine = f"{cores} cores, {os.uname().sysname} {os.uname().release}"
    report = {"machine": machine, "seconds": args.seconds, "rounds": args.rounds, "results": results, "model": {
        "cold_rps_per_core": per_core, "zipf_alpha": MODEL_ALPHA, "urls": MODEL_URLS,
        "responses_per_instance": MODEL_CACHE, "hit_ratio": model}}
    (output / "cluster.json").write_text(json.dumps(report, indent=2))
    direct = results["direct, 1 instance"]
    lines = [
        f"imagery-server behind nginx against direct access ({machine}; wrk on the same cores; "
        f"medians of {args.rounds} runs of {args.seconds} s per path, alternating; fit into 400-560 px boxes, JPEG q80)", "",
        "| Path | cold req/s, 8 conns | p50 / p99 ms | vs direct | hot req/s, 64 conns | p50 / p99 ms | vs direct | failed |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for name, r in results.items():
        cold, hot = r["cold"], r["hot"]
        lines.append(
            f"| {name} | {cold['rps']:.0f} | {cold['p50_ms']:.0f} / {cold['p99_ms']:.0f} | {cold['rps'] / direct['cold']['rps']:.2f}x "
            f"| {hot['rps']:,.0f} | {hot['p50_ms']:.1f} / {hot['p99_ms']:.1f} | {hot['rps'] / direct['hot']['rps']:.2f}x "
            f"| {cold['failed'] + hot['failed']} |"
        )
    lines += [
        "", f"Model, not measured: cold capacity = machines x cores x {per_core:.0f} req/s per core "
        f"(this run's direct cold rate / {cores} cores), with nginx on its own machines.", "",
        "| Machines (2 cores) | 1 | 2 | 4 | 8 | 16 |", "|---|---:|---:|---:|---:|---:|",
        "| cold req/s | " + " | ".join(f"{n * 2 * per_core:,.0f}" for n in (1, 2, 4, 8, 16)) + " |", "",
        f"Model, not measured: response-cache hit ratio, Zipf({MODEL_ALPHA}) over {MODEL_URLS:,} URLs, "
        f"{MODEL_CACHE} responses per instance (Che's approximation of LRU).", "",
        "| Instances | " + " | ".join(str(row["instances"]) for row in model) + " |",
        "|---|" + "---:|" * len(model),
        "| hashed by URL | " + " | ".join(f"{row['hashed']:.0%}" for row in model) + " |",
        "| round robin | " + " | ".join(f"{row['round_robin']:.0%}" for row in model) + " |",
    ]
    (output / "cluster.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    chart(results, model, output / "cluster.png")


if __name__ == "__main__":
    sys.exit(main())
