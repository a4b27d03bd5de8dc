#!/usr/bin/env python3
"""Small requests beside large ones under the memory budget: the latency of 300 px thumbnails
of a 2 MP JPEG on an idle imagery-server, then while 8 requests that each make a 42 MP image
run, thumbnails asked for as long as any of them is in flight. Reports p50 and p95 of each phase
and their ratio, the large requests' statuses and the server's peak memory.

Usage: Benchmarks/scripts/bench_small_beside_large.py [--thumbnails 150] [--large 8] [--server-arg ARG ...]
       (build first: swift build -c release --product imagery-server; needs nginx and Pillow)

The 2 MP photo is the test bundle's jpeg_exif6_aqua_2560x1600.jpg scaled by Pillow to
1792 x 1120; the large requests enlarge the 4.1 MP original to 5120 x 8192 and ask for PNG:
  /unsafe/rs:fit:300:300/plain/{origin}/small.jpg%3Fn%3D{i}
  /unsafe/rs:fit:8192:8192:1/plain/{origin}/large.jpg%3Fn%3D{i}@png
Every URL is distinct, so every thumbnail is a download, a decode and an encode. Thumbnails are
asked one at a time, as a page's would be by one client; the large requests all at once, each
on its own connection. Every process binds 127.0.0.1 only, and is stopped by its PID.
"""
import argparse
import json
import shutil
import signal
import statistics
import subprocess
import tempfile
import threading
import time
from pathlib import Path

from bench_large_outputs import PHOTO, fetch, peak_rss_mb, photo_origin
from bench_server import free_port, wait_for

ROOT = Path(__file__).resolve().parents[2]


def percentile(values, fraction):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(fraction * (len(ordered) - 1))))]


def thumbnails(base, origin, count, offset, until=None):
    """Latencies in ms of up to `count` thumbnails asked one after another (while `until()`)."""
    latencies, statuses = [], []
    for i in range(count):
        if until is not None and not until():
            break
        result = [None]
        fetch(f"{base}/unsafe/rs:fit:300:300/plain/{origin}/small.jpg%3Fn%3D{offset + i}", 60, result, 0)
        statuses.append(result[0][0])
        latencies.append(result[0][2] * 1000)
    return latencies, statuses


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--thumbnails", type=int, default=150, help="thumbnails asked on the idle server")
    parser.add_argument("--large", type=int, default=8)
    parser.add_argument("--server-arg", action="append", default=[], help="an extra argument for the server (repeatable)")
    parser.add_argument("--output", default=str(ROOT / "bench-out"))
    args = parser.parse_args()
    from PIL import Image
    binary = ROOT / ".build" / "release" / "imagery-server"
    if not binary.exists():
        raise SystemExit("build first: swift build -c release --product imagery-server")

    work = Path(tempfile.mkdtemp(prefix="imagery-small-beside-large-"))
    work.chmod(0o755)
    (work / "photos").mkdir()
    shutil.copy(PHOTO, work / "photos" / "large.jpg")
    Image.open(PHOTO).resize((1792, 1120), Image.LANCZOS).save(work / "photos" / "small.jpg", quality=90)
    origin_process, origin_port = photo_origin(work)
    port = free_port()
    server = subprocess.Popen([str(binary), "--host", "127.0.0.1", "--port", str(port), "--allow-loopback-sources",
                               "--request-timeout", "300", *args.server_arg],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        origin = f"http://127.0.0.1:{origin_port}"
        base = f"http://127.0.0.1:{port}"
        wait_for(origin + "/small.jpg")
        wait_for(base + "/health")
        thumbnails(base, origin, 10, 10_000)   # warm the process: its first requests pay for its start
        idle, idle_statuses = thumbnails(base, origin, args.thumbnails, 0)

        results = [None] * args.large
        threads = [threading.Thread(target=fetch, args=(f"{base}/unsafe/rs:fit:8192:8192:1/plain/{origin}/large.jpg%3Fn%3D{i}@png", 300, results, i))
                   for i in range(args.large)]
        for thread in threads:
            thread.start()
        time.sleep(0.5)   # a benchmark, not a test: let the large requests reach the server first
        # For as long as any large request is in flight, however many that takes.
        beside, beside_statuses = thumbnails(base, origin, 1_000_000, 1_000, until=lambda: any(t.is_alive() for t in threads))
        for thread in threads:
            thread.join()
        peak = peak_rss_mb(server.pid)
    finally:
        for process in (server, origin_process):
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(timeout=60)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        shutil.rmtree(work, ignore_errors=True)

    large_statuses = [r[0] for r in results]
    row = {
        "idle_p50_ms": statistics.median(idle), "idle_p95_ms": percentile(idle, 0.95), "idle_count": len(idle),
        "beside_p50_ms": statistics.median(beside), "beside_p95_ms": percentile(beside, 0.95), "beside_count": len(beside),
        "thumbnail_statuses": sorted(set(idle_statuses + beside_statuses)),
        "large_200": large_statuses.count(200), "large_503": large_statuses.count(503),
        "large_other": sorted(s for s in large_statuses if s not in (200, 503)),
        "large_slowest_s": max(r[2] for r in results), "peak_rss_mb": peak, "server_args": args.server_arg,
    }
    row["p95_ratio"] = row["beside_p95_ms"] / row["idle_p95_ms"]
    output = Path(args.output)
    output.mkdir(parents=True, exist_ok=True)
    (output / "small-beside-large.json").write_text(json.dumps(row, indent=2))
    lines = [f"300 px thumbnails of a 2 MP JPEG, one at a time: idle, then beside {args.large} requests each making 5120 x 8192 (PNG).", "",
             "| Phase | thumbnails | p50 ms | p95 ms |", "|---|---:|---:|---:|",
             f"| idle | {row['idle_count']} | {row['idle_p50_ms']:.1f} | {row['idle_p95_ms']:.1f} |",
             f"| beside {args.large} large | {row['beside_count']} | {row['beside_p50_ms']:.1f} | {row['beside_p95_ms']:.1f} |", "",
             f"p95 ratio {row['p95_ratio']:.2f}x; large: {row['large_200']} x 200, {row['large_503']} x 503"
             + (f", other {row['large_other']}" if row["large_other"] else "")
             + f", slowest {row['large_slowest_s']:.1f} s; thumbnails' statuses {row['thumbnail_statuses']}; peak RSS {peak:.0f} MB"]
    (output / "small-beside-large.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
