#!/usr/bin/env python3
"""imagery-server with object storage, in one run on this machine, against an S3 API server
(moto) on loopback: sources read from a bucket beside local and http sources, and a
result-storage hit beside a response-cache hit and an nginx edge hit.

Usage: Benchmarks/scripts/bench_s3.py [--corpus DIR] [--seconds 10] [--rounds 3] [--output bench-out]
       (build first: swift build -c release --product imagery-server;
        needs wrk, nginx, and `pip install "moto[server]"`)

Every process binds 127.0.0.1 and is stopped by its PID. The photos and URLs are
bench_server.py's: six 2-8 MP JPEGs fitted into 400-560 px boxes at JPEG q80.

- cold: every URL distinct, 8 connections, one instance reading the same photos as
  s3://photos/NAME (moto), local:///NAME (its --local-root) and http://ORIGIN/NAME (nginx).
- hits: the 48 hot URLs, fetched once first, then 8 connections, from
  - the response cache (an instance's memory tier);
  - result storage: an instance with --s3-result-storage and no response cache, so every
    request is a bucket lookup and a hit (the bucket was filled by the warm-up);
  - the nginx edge cache (scripts/cluster.sh's config) in front of the response-cache instance;
  - and, for reference, moto alone serving one stored result: what the store itself costs.
The runs alternate in rounds; each figure is the median of its rounds.

What loopback hides: a real store's round trip (a same-region S3 GET's first byte is tens of
milliseconds, against well under one here) and its bandwidth; and moto is a Python server
sharing these two cores, slower per request than a real store's front end.

Writes OUTPUT/s3.json, OUTPUT/s3.md and OUTPUT/s3.png.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import time
import urllib.parse
import urllib.request
from pathlib import Path
from types import SimpleNamespace

from PIL import Image, ImageDraw, ImageFont

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_server as bench  # noqa: E402 - the same photos, wrk script and process handling

ROOT = bench.ROOT
CREDENTIALS = {"AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing", "AWS_DEFAULT_REGION": "us-east-1"}


def s3_client(endpoint):
    import boto3  # moto[server] brings it
    return boto3.client("s3", endpoint_url=endpoint, region_name="us-east-1",
                        aws_access_key_id="testing", aws_secret_access_key="testing")


def wait_for_objects(client, bucket, count, seconds=120):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if client.list_objects_v2(Bucket=bucket).get("KeyCount", 0) >= count:
            return
        time.sleep(0.2)
    raise SystemExit(f"the bucket {bucket} did not reach {count} objects in {seconds} s")


def chart(cold, hits, path):
    font = ImageFont.load_default(size=15)
    small = ImageFont.load_default(size=13)
    image = Image.new("RGB", (1100, 330), "white")
    draw = ImageDraw.Draw(image)
    colours = [(31, 119, 180), (255, 160, 60), (150, 150, 150)]

    def bars(left, title, rows, key, unit, fmt):
        draw.text((left, 10), title, fill="black", font=font)
        top = max(r[key] for r in rows.values()) or 1
        y = 45
        for index, (label, r) in enumerate(rows.items()):
            length = int(330 * r[key] / top)
            draw.text((left, y), label, fill="black", font=small)
            draw.rectangle([left, y + 18, left + length, y + 38], fill=colours[index % len(colours)])
            draw.text((left + length + 6, y + 20), fmt.format(r[key]) + unit, fill="black", font=small)
            y += 60

    bars(10, "Cold: req/s by source (more is better)", cold, "rps", " req/s", "{:,.0f}")
    bars(560, "Hits: median latency at 8 connections (less is better)", hits, "p50_ms", " ms", "{:.2f}")
    draw.text((10, 300), "Measured on one 2-core machine, loopback: a real store adds its round trip to the bucket rows.",
              fill="black", font=small)
    image.save(path)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--corpus", default=str(ROOT.parent / "shared" / "corpus"))
    parser.add_argument("--seconds", type=int, default=10, help="length of each wrk run")
    parser.add_argument("--rounds", type=int, default=3, help="runs per path; the median is reported")
    parser.add_argument("--output", default=str(ROOT / "bench-out"))
    args = parser.parse_args()
    if not shutil.which("moto_server"):
        raise SystemExit('skipped: moto_server is not installed (pip install "moto[server]")')
    binary, work, script = bench.prepare(Path(args.corpus), ("wrk", "nginx"), "imagery-bench-s3-")
    output = Path(args.output)
    output.mkdir(parents=True, exist_ok=True)
    os.environ.update(CREDENTIALS)   # the instances' and boto3's credentials
    origin, origin_port = bench.origin_server(work)
    moto_port = bench.free_port()
    endpoint = f"http://127.0.0.1:{moto_port}"
    moto = bench.Server("moto", ["moto_server", "-H", "127.0.0.1", "-p", str(moto_port)], "", f"{endpoint}/moto-api/")
    photos = work / "photos"

    def instance(name, *flags):
        port = bench.free_port()
        command = [str(binary), "--port", str(port), "--quality", "80", "--local-root", str(photos),
                   "--allow-loopback-sources", "--use-s3", "--s3-endpoint", endpoint, *flags]
        return bench.Server(name, command, "", f"http://127.0.0.1:{port}/health"), port

    sources = instance("sources")
    cached = instance("response cache")
    stored = instance("result storage", "--s3-result-storage", "results/imagery", "--response-cache-bytes", "0")
    front_dir, front_port = work / "front", bench.free_port()
    subprocess.run(["bash", str(ROOT / "scripts" / "cluster.sh"), "render", str(front_dir), str(front_port),
                    str(front_dir / "edge"), f"127.0.0.1:{cached[1]}"], check=True)
    edge = bench.Server("nginx edge", ["nginx", "-p", str(front_dir), "-c", str(front_dir / "nginx.conf")], "",
                        f"http://127.0.0.1:{front_port}/health")
    fit = "/insecure/rs:fit:{w}:{h}/plain/"
    cold_paths = {
        "s3:// (moto on loopback)": fit + "s3://photos/{name}@jpg",
        "local://": fit + "local:///{name}@jpg",
        "http:// (nginx on loopback)": fit + f"http://127.0.0.1:{origin_port}/{{name}}@jpg",
    }
    hot_template = fit + "local:///{name}@jpg"
    hit_paths = {
        "response cache (memory)": cached[1],
        "result storage (bucket)": stored[1],
        "nginx edge cache": front_port,
    }

    started, cold_runs, hit_runs = [], {}, {}
    try:
        for server in (origin, moto):
            server.start()
            started.append(server)
        client = s3_client(endpoint)
        for bucket in ("photos", "results"):
            client.create_bucket(Bucket=bucket)
        for name in bench.PHOTOS:
            client.upload_file(str(photos / name), "photos", name)
        for server, _ in (sources, cached, stored):
            server.start()
            started.append(server)
        edge.start()
        started.append(edge)

        for round_index in range(args.rounds):
            for index, (label, template) in enumerate(cold_paths.items()):
                run = round_index * len(cold_paths) + index
                result = bench.wrk(SimpleNamespace(template=template), f"http://127.0.0.1:{sources[1]}", 8, args.seconds,
                                   False, script, offset=1 + 5_000 * run)
                cold_runs.setdefault(label, []).append(result)
                print(f"cold, round {round_index + 1}, {label}: {result}", flush=True)

        hot = [hot_template.format(name=name, w=size, h=size) for size in bench.HOT_SIZES for name in bench.PHOTOS]
        for port in hit_paths.values():
            for path in hot:
                urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=120).read()
        wait_for_objects(client, "results", len(hot))
        # The store's own GET of one stored result, presigned, for what the bucket row cannot
        # be faster than.
        stored_key = client.list_objects_v2(Bucket="results")["Contents"][0]["Key"]
        presigned = urllib.parse.urlsplit(client.generate_presigned_url(
            "get_object", Params={"Bucket": "results", "Key": stored_key}, ExpiresIn=3600))
        for round_index in range(args.rounds):
            for label, port in hit_paths.items():
                result = bench.wrk(SimpleNamespace(template=hot_template), f"http://127.0.0.1:{port}", 8, args.seconds, True, script)
                hit_runs.setdefault(label, []).append(result)
                print(f"hits, round {round_index + 1}, {label}: {result}", flush=True)
            result = bench.wrk(SimpleNamespace(template=f"{presigned.path}?{presigned.query}"), endpoint, 8, args.seconds, True, script)
            hit_runs.setdefault("moto alone: GET of one stored result", []).append(result)
            print(f"hits, round {round_index + 1}, moto alone: {result}", flush=True)
        bucket_hits = urllib.request.urlopen(f"http://127.0.0.1:{stored[1]}/metrics", timeout=30).read().decode()
        hits_line = next((line for line in bucket_hits.splitlines() if line.startswith('imagery_response_hits_total{tier="bucket"}')), "")
        misses_line = next((line for line in bucket_hits.splitlines() if line.startswith("imagery_response_misses_total")), "")
    finally:
        for server in reversed(started):
            server.stop()
        shutil.rmtree(work, ignore_errors=True)

    cold = {label: bench.median_run(runs) for label, runs in cold_runs.items()}
    hits = {label: bench.median_run(runs) for label, runs in hit_runs.items()}
    machine = f"{os.cpu_count()} cores, {os.uname().sysname} {os.uname().release}"
    (output / "s3.json").write_text(json.dumps({"machine": machine, "seconds": args.seconds, "rounds": args.rounds,
                                                "cold": cold, "hits": hits, "bucket_metrics": [hits_line, misses_line]}, indent=2))
    local = cold["local://"]["rps"]
    memory = hits["response cache (memory)"]["p50_ms"]
    lines = [
        f"imagery-server with object storage on loopback ({machine}; moto, nginx, wrk and the server share the cores; "
        f"medians of {args.rounds} runs of {args.seconds} s, alternating; fit into 400-560 px boxes, JPEG q80)", "",
        "| Cold, 8 connections | req/s | p50 / p99 ms | vs local:// | failed |", "|---|---:|---:|---:|---:|",
    ]
    for label, r in cold.items():
        lines.append(f"| {label} | {r['rps']:.1f} | {r['p50_ms']:.0f} / {r['p99_ms']:.0f} | {r['rps'] / local:.2f}x | {r['failed']} |")
    lines += ["", "| Hit, 8 connections | req/s | p50 / p99 ms | p50 vs the response cache | failed |", "|---|---:|---:|---:|---:|"]
    for label, r in hits.items():
        lines.append(f"| {label} | {r['rps']:,.0f} | {r['p50_ms']:.2f} / {r['p99_ms']:.2f} | {r['p50_ms'] / memory:.1f}x | {r['failed']} |")
    lines += ["", f"The result-storage instance's /metrics after the runs: `{hits_line}`, `{misses_line}`."]
    (output / "s3.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    chart(cold, hits, output / "s3.png")


if __name__ == "__main__":
    sys.exit(main())
