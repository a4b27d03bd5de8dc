#!/usr/bin/env python3
"""imagery-server making large outputs at once: many concurrent requests that each enlarge a
4 MP photo to the 8192-pixel side limit with a blur and ask for PNG. Reports the server's peak
memory, how many requests got their image (200) and how many a clear 503, and how long the
batch took.

Usage: Benchmarks/scripts/bench_large_outputs.py [--baseline PATH] [--requests 32] [--rounds 3] [--shared] [--output bench-out]
       (build first: swift build -c release --product imagery-server; needs nginx)

The photo is the test bundle's jpeg_exif6_aqua_2560x1600.jpg (4.1 MP, EXIF orientation 6, so
5120 x 8192 once enlarged), served by a loopback nginx; a query string makes every request's
source distinct and the blur's sigma runs 91-96, so nothing is shared between requests:
  /unsafe/bl:9x/rs:fit:8192:8192:1/plain/{origin}/photo.jpg%3Fn%3D{i}@png
With --shared, every request reads the same source (one decode feeds them all) and the blur's
sigma runs 61-92, so each asks for its own variant of one popular image:
  /unsafe/bl:{61+i}/rs:fit:8192:8192:1/plain/{origin}/photo.jpg%3Fr%3D{round}@png
All requests are sent at once, each on its own connection, and each waits up to --timeout
seconds. --baseline names another imagery-server binary, measured the same way in the same run,
the rounds alternating. Every process binds 127.0.0.1 only, and is stopped by its PID.
"""
import argparse
import json
import re
import shutil
import signal
import statistics
import subprocess
import tempfile
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

from bench_server import free_port, wait_for   # the same helpers as the server benchmark

ROOT = Path(__file__).resolve().parents[2]
PHOTO = ROOT / "Tests" / "ImageryCodecsTests" / "Resources" / "jpeg_exif6_aqua_2560x1600.jpg"


def peak_rss_mb(pid):
    status = Path(f"/proc/{pid}/status").read_text()
    return int(re.search(r"VmHWM:\s+(\d+) kB", status).group(1)) / 1024


def fetch(url, timeout, results, index):
    started = time.monotonic()
    try:
        with urllib.request.urlopen(url, timeout=timeout) as response:
            body = response.read()
            results[index] = (response.status, len(body), time.monotonic() - started)
    except urllib.error.HTTPError as error:
        error.read()
        results[index] = (error.code, 0, time.monotonic() - started)
    except Exception:  # noqa: BLE001 - a timeout or a reset is recorded as no answer
        results[index] = (0, 0, time.monotonic() - started)


def photo_origin(work):
    """nginx on 127.0.0.1 serving `work/photos`, its state in `work/nginx`: (process, port)."""
    (work / "nginx").mkdir()
    origin_port = free_port()
    (work / "origin.conf").write_text(f"""
        pid {work}/nginx/origin.pid; error_log {work}/nginx/origin.log warn; daemon off;
        worker_processes 1;
        events {{ worker_connections 1024; }}
        http {{ access_log off; sendfile on;
          client_body_temp_path {work}/nginx/body; proxy_temp_path {work}/nginx/proxy;
          fastcgi_temp_path {work}/nginx/fcgi; uwsgi_temp_path {work}/nginx/uwsgi; scgi_temp_path {work}/nginx/scgi;
          server {{ listen 127.0.0.1:{origin_port}; root {work}/photos; }} }}
    """)
    process = subprocess.Popen(["nginx", "-c", str(work / "origin.conf"), "-p", str(work / "nginx")],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    return process, origin_port


def run(name, binary, origin_port, requests, timeout, round_index, extra, shared=False):
    port = free_port()
    server = subprocess.Popen([str(binary), "--host", "127.0.0.1", "--port", str(port), "--allow-loopback-sources", *extra],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        base = f"http://127.0.0.1:{port}"
        wait_for(base + "/health")
        idle = peak_rss_mb(server.pid)
        origin = f"http://127.0.0.1:{origin_port}"
        results = [None] * requests
        threads = []
        for i in range(requests):
            # Distinct per round too, so a later round's sources are never an earlier one's.
            if shared:
                url = f"{base}/unsafe/bl:{61 + i % 32}/rs:fit:8192:8192:1/plain/{origin}/photo.jpg%3Fr%3D{round_index}@png"
            else:
                url = f"{base}/unsafe/bl:{91 + i % 6}/rs:fit:8192:8192:1/plain/{origin}/photo.jpg%3Fr%3D{round_index}%26n%3D{i}@png"
            threads.append(threading.Thread(target=fetch, args=(url, timeout, results, i)))
        started = time.monotonic()
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        elapsed = time.monotonic() - started
        peak = peak_rss_mb(server.pid)
    finally:
        server.send_signal(signal.SIGTERM)
        try:
            server.wait(timeout=60)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
    statuses = [r[0] for r in results]
    ok_times = [r[2] for r in results if r[0] == 200]
    return {"name": name, "ok": statuses.count(200), "unavailable": statuses.count(503),
            "other": len(statuses) - statuses.count(200) - statuses.count(503),
            "other_statuses": sorted(set(s for s in statuses if s not in (200, 503))),
            "peak_rss_mb": peak, "idle_rss_mb": idle, "batch_s": elapsed,
            "slowest_200_s": max(ok_times) if ok_times else 0, "png_mb": max((r[1] for r in results), default=0) / 1e6}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--baseline", help="another imagery-server binary to measure beside this one")
    parser.add_argument("--requests", type=int, default=32)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--timeout", type=int, default=600, help="seconds each request may take")
    parser.add_argument("--server-arg", action="append", default=[], help="an extra argument for both servers (repeatable)")
    parser.add_argument("--shared", action="store_true", help="one source for every request, each its own blur: variants of one image")
    parser.add_argument("--output", default=str(ROOT / "bench-out"))
    args = parser.parse_args()
    if not shutil.which("nginx") and not Path("/usr/sbin/nginx").exists():
        raise SystemExit("skipped: nginx is not installed")
    binary = ROOT / ".build" / "release" / "imagery-server"
    if not binary.exists():
        raise SystemExit("build first: swift build -c release --product imagery-server")

    work = Path(tempfile.mkdtemp(prefix="imagery-large-outputs-"))
    work.chmod(0o755)
    (work / "photos").mkdir()
    shutil.copy(PHOTO, work / "photos" / "photo.jpg")
    origin, origin_port = photo_origin(work)
    rows = []
    try:
        wait_for(f"http://127.0.0.1:{origin_port}/photo.jpg")
        targets = [("imagery-server (this commit)", binary)]
        if args.baseline:
            targets.append(("imagery-server (baseline)", Path(args.baseline)))
        runs = {name: [] for name, _ in targets}
        for round_index in range(args.rounds):   # alternating, so drift hits every server alike
            # Each server goes first in every other round, so neither always meets the machine
            # as the run before it left it.
            for name, path in (targets if round_index % 2 == 0 else targets[::-1]):
                row = run(name, path, origin_port, args.requests, args.timeout, round_index, args.server_arg, args.shared)
                runs[name].append(row)
                print(f"round {round_index + 1}: " + json.dumps(row), flush=True)
        for name, _ in targets:
            rounds = runs[name]
            rows.append({
                "name": name,
                **{key: statistics.median(r[key] for r in rounds) for key in ("ok", "unavailable", "other", "peak_rss_mb", "idle_rss_mb", "batch_s", "slowest_200_s")},
                "peak_rss_runs": [r["peak_rss_mb"] for r in rounds],
                "other_statuses": sorted(set(s for r in rounds for s in r["other_statuses"])),
            })
    finally:
        origin.send_signal(signal.SIGTERM)
        origin.wait(timeout=20)
        shutil.rmtree(work, ignore_errors=True)

    output = Path(args.output)
    output.mkdir(parents=True, exist_ok=True)
    stem = "large-outputs-shared" if args.shared else "large-outputs"
    (output / f"{stem}.json").write_text(json.dumps(rows, indent=2))
    what = ("one 4.1 MP JPEG, each request its own blur (sigma 61-92)" if args.shared
            else "a distinct 4.1 MP JPEG, with a blur (sigma 91-96)")
    lines = [f"{args.requests} requests at once, each enlarging {what} to 5120 x 8192, PNG out; "
             f"{args.rounds} alternating rounds: medians of the rounds.", "",
             "| Server | 200 | 503 | other | peak RSS MB (rounds) | idle RSS MB | batch s | slowest 200 s |",
             "|---|---:|---:|---:|---:|---:|---:|---:|"]
    for row in rows:
        other = f"{row['other']:.0f}" + (f" ({', '.join(map(str, row['other_statuses']))})" if row["other_statuses"] else "")
        lines.append(f"| {row['name']} | {row['ok']:.0f} | {row['unavailable']:.0f} | {other} | {row['peak_rss_mb']:.0f} ("
                     + ", ".join(f"{v:.0f}" for v in row["peak_rss_runs"]) + f") | {row['idle_rss_mb']:.0f} | {row['batch_s']:.1f} | {row['slowest_200_s']:.1f} |")
    (output / f"{stem}.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
