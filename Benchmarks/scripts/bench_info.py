#!/usr/bin/env python3
"""imagery-server's /info with ThumbHash and BlurHash beside a 300 px thumbnail of the same source.

Usage: Benchmarks/scripts/bench_info.py [--corpus DIR] [--rounds 10] [--output bench-out]
       (build first: swift build -c release --product imagery-server; needs nginx for the origin)

Both requests are cold: every URL names a source no cache has seen (the photo with its own
query string, which the origin ignores), so each one downloads and decodes. They alternate on
one connection, so the machine's drift falls on both alike:
- info:  /info/unsafe/th:1/bh:4:3/plain/{source}   (a 100 px draft, both hashes)
- thumb: /unsafe/rs:fit:300:300/q:80/plain/{source}@jpg
Reports the median and p90 latency of each and their ratio; writes OUTPUT/info.json and
OUTPUT/info.md. The server and the origin bind 127.0.0.1, are started here and stopped by PID.
"""
import argparse
import http.client
import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_server  # noqa: E402 - the sibling script's server helpers

ROOT = bench_server.ROOT


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--corpus", default=str(ROOT.parent / "shared" / "corpus"))
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--output", default=str(ROOT / "bench-out"))
    args = parser.parse_args()
    binary, work, _ = bench_server.prepare(Path(args.corpus), ["nginx"], "imagery-bench-info-")
    origin, origin_port = bench_server.origin_server(work)
    port = bench_server.free_port()
    server = bench_server.Server(
        "imagery-server", [str(binary), "--host", "127.0.0.1", "--port", str(port), "--allow-loopback-sources"],
        "", f"http://127.0.0.1:{port}/health")
    timings = {"info": [], "thumb": []}
    try:
        origin.start()
        server.start()
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        total = args.rounds * len(bench_server.PHOTOS)
        done = 0
        for round_ in range(args.rounds):
            for index, photo in enumerate(bench_server.PHOTOS):
                for kind in (["info", "thumb"] if (round_ + index) % 2 == 0 else ["thumb", "info"]):
                    source = f"http://127.0.0.1:{origin_port}/{photo}%3F{kind}{round_}"
                    path = (f"/info/unsafe/th:1/bh:4:3/plain/{source}" if kind == "info"
                            else f"/unsafe/rs:fit:300:300/q:80/plain/{source}@jpg")
                    started = time.perf_counter()
                    connection.request("GET", path)
                    response = connection.getresponse()
                    body = response.read()
                    elapsed = (time.perf_counter() - started) * 1000
                    if response.status != 200:
                        raise SystemExit(f"{path}: {response.status} {body[:200]!r}")
                    timings[kind].append(elapsed)
                done += 1
                print(f"\r{done}/{total} sources", end="", file=sys.stderr, flush=True)
        print(file=sys.stderr)
    finally:
        server.stop()
        origin.stop()
    result = {}
    for kind, values in timings.items():
        values.sort()
        result[kind] = {"median_ms": statistics.median(values), "p90_ms": values[int(len(values) * 0.9) - 1], "n": len(values)}
    result["ratio_median"] = result["info"]["median_ms"] / result["thumb"]["median_ms"]
    output = Path(args.output)
    output.mkdir(parents=True, exist_ok=True)
    (output / "info.json").write_text(json.dumps(result, indent=2))
    table = ("| request | median | p90 |\n|---|---:|---:|\n"
             f"| `/info` th:1/bh:4:3 | {result['info']['median_ms']:.1f} ms | {result['info']['p90_ms']:.1f} ms |\n"
             f"| 300 px JPEG thumbnail | {result['thumb']['median_ms']:.1f} ms | {result['thumb']['p90_ms']:.1f} ms |\n"
             f"| ratio (info / thumbnail) | {result['ratio_median']:.2f}x | |\n")
    (output / "info.md").write_text(table)
    print(table)


if __name__ == "__main__":
    main()
