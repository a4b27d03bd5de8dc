#!/usr/bin/env python3
"""imagery-server's hot path (a response-cache hit) beside nginx serving the same bytes as a
static file, in one run on this machine, each server pinned to core 0 and wrk to core 1.

Usage: Benchmarks/scripts/bench_hot_path.py [--baseline PATH] [--binary PATH] [--seconds 10] [--rounds 3] [--output bench-out]
       (build first: swift build -c release --product imagery-server; needs wrk, nginx and taskset)

--baseline names another imagery-server binary (an earlier commit's release build) to measure
in the same run, so a change is measured before and after side by side.

The image is the test bundle's rocket.jpg fitted into 320 x 320 by the server itself: about
14 KB of JPEG. Each server answers GET of one path, 64 connections, with keep-alive; the rounds
alternate the servers, and the table gives each one's median. Every process binds 127.0.0.1
only, and is stopped by its PID.
"""
import argparse
import json
import os
import shutil
import signal
import socket
import statistics
import subprocess
import tempfile
import time
import urllib.request
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

from bench_server import free_port   # the same helper as the server benchmark

ROOT = Path(__file__).resolve().parents[2]
SOURCE = ROOT / "Tests/ImageryCodecsTests/Resources/jpeg_small_base_rocket_640x427.jpg"
PATH = "/unsafe/rs:fit:320:320/plain/local:///rocket.jpg"




def wait_for(url, seconds=60):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(url, timeout=2) as response:
                return response.read()
        except Exception:  # noqa: BLE001 - not up yet
            time.sleep(0.2)
    raise SystemExit(f"not up after {seconds} s: {url}")


class Process:
    def __init__(self, name, command, url):
        self.name, self.command, self.url = name, command, url
        self.process = None

    def start(self):
        self.process = subprocess.Popen(["taskset", "-c", "0"] + self.command, stdout=subprocess.DEVNULL,
                                        stderr=subprocess.DEVNULL, start_new_session=True)
        return wait_for(self.url)

    def stop(self):
        if self.process and self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


def wrk(url, seconds):
    result = subprocess.run(
        ["taskset", "-c", "1", "wrk", "-t1", "-c64", f"-d{seconds}s", "--latency", url],
        capture_output=True, text=True, timeout=seconds + 60,
    )
    out = result.stdout
    rps = float(out.split("Requests/sec:")[1].split()[0])
    p99 = None
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[0] == "99%":
            value = parts[1]
            p99 = float(value[:-2]) / 1000 if value.endswith("us") else float(value[:-2]) if value.endswith("ms") else float(value[:-1]) * 1000
    failed = 0
    if "Non-2xx" in out:
        failed = int(out.split("Non-2xx or 3xx responses:")[1].split()[0])
    return {"rps": rps, "p99_ms": p99, "failed": failed}


def chart(rows, path):
    font = ImageFont.load_default(size=15)
    small = ImageFont.load_default(size=13)
    left, width, bar = 300, 520, 26
    image = Image.new("RGB", (left + width + 120, 60 + len(rows) * (bar + 10)), "white")
    draw = ImageDraw.Draw(image)
    draw.text((10, 10), "A cached 14 KB JPEG at 64 connections, server on 1 core (req/s, more is better)", fill="black", font=font)
    top = max(row["rps"] for row in rows)
    y = 45
    colours = [(120, 120, 120), (31, 119, 180), (160, 200, 230)]
    for index, row in enumerate(rows):
        draw.text((10, y + 5), row["name"], fill="black", font=small)
        length = int(width * row["rps"] / top)
        draw.rectangle([left, y, left + length, y + bar - 4], fill=colours[index % len(colours)])
        draw.text((left + length + 6, y + 5), f"{row['rps']:,.0f}", fill="black", font=small)
        y += bar + 10
    image.save(path)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--baseline", help="another imagery-server binary to measure beside this one")
    parser.add_argument("--binary", help="this commit's imagery-server, if not .build/release's (a build with traits)")
    parser.add_argument("--seconds", type=int, default=10)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--output", default=str(ROOT / "bench-out"))
    args = parser.parse_args()
    for tool in ("wrk", "taskset", "nginx"):
        if not shutil.which(tool) and not Path(f"/usr/sbin/{tool}").exists():
            raise SystemExit(f"skipped: {tool} is not installed")
    binary = Path(args.binary) if args.binary else ROOT / ".build" / "release" / "imagery-server"
    if not binary.exists():
        raise SystemExit("build first: swift build -c release --product imagery-server")
    if os.cpu_count() < 2:
        raise SystemExit("skipped: pinning the server and wrk apart needs two cores")

    work = Path(tempfile.mkdtemp(prefix="imagery-hot-path-"))
    work.chmod(0o755)   # nginx's workers run as nobody
    (work / "root").mkdir()
    shutil.copy(SOURCE, work / "root" / "rocket.jpg")
    (work / "nginx").mkdir()
    (work / "static").mkdir()

    servers = []
    def imagery(name, path):
        port = free_port()
        return Process(name, [str(path), "--host", "127.0.0.1", "--port", str(port), "--local-root", str(work / "root")],
                       f"http://127.0.0.1:{port}{PATH}")
    servers.append(imagery("imagery-server (this commit)", binary))
    if args.baseline:
        servers.append(imagery("imagery-server (baseline)", Path(args.baseline)))

    # The bytes nginx serves are the ones the server makes, fetched once.
    probe = servers[0]
    body = probe.start()
    probe.stop()
    (work / "static" / "rocket-320.jpg").write_bytes(body)
    port = free_port()
    (work / "nginx.conf").write_text(f"""
        pid {work}/nginx/nginx.pid; error_log {work}/nginx/error.log warn; daemon off;
        worker_processes 1;
        events {{ worker_connections 1024; }}
        http {{ access_log off; sendfile on; tcp_nopush on; keepalive_requests 100000;
          client_body_temp_path {work}/nginx/body; proxy_temp_path {work}/nginx/proxy;
          fastcgi_temp_path {work}/nginx/fcgi; uwsgi_temp_path {work}/nginx/uwsgi; scgi_temp_path {work}/nginx/scgi;
          types {{ image/jpeg jpg; }}
          server {{ listen 127.0.0.1:{port}; root {work}/static;
            add_header Cache-Control "public, max-age=31536000, immutable"; etag on; }} }}
    """)
    static = Process("nginx, static file", ["nginx", "-c", str(work / "nginx.conf"), "-p", str(work / "nginx")],
                     f"http://127.0.0.1:{port}/rocket-320.jpg")
    everyone = [static] + servers

    samples = {p.name: [] for p in everyone}
    try:
        for round_index in range(args.rounds):
            for process in everyone:
                process.start()
                wrk(process.url, 2)   # warm: the first request fills the cache, connections open
                result = wrk(process.url, args.seconds)
                process.stop()
                samples[process.name].append(result)
                print(f"round {round_index + 1}: {process.name}: {result['rps']:,.0f} req/s, p99 {result['p99_ms']} ms", flush=True)
    finally:
        for process in everyone:
            process.stop()
        shutil.rmtree(work, ignore_errors=True)

    nginx_rps = statistics.median(s["rps"] for s in samples[static.name])
    rows = []
    for process in everyone:
        runs = samples[process.name]
        rps = statistics.median(s["rps"] for s in runs)
        rows.append({"name": process.name, "rps": rps, "p99_ms": statistics.median(s["p99_ms"] for s in runs),
                     "ratio": rps / nginx_rps, "runs": [s["rps"] for s in runs], "failed": sum(s["failed"] for s in runs)})
    output = Path(args.output)
    output.mkdir(parents=True, exist_ok=True)
    (output / "hot-path.json").write_text(json.dumps({"bytes": len(body), "rows": rows}, indent=2))
    lines = [f"One cached {len(body):,}-byte JPEG, 64 connections, {args.rounds} alternating rounds of {args.seconds} s, medians; "
             "server on core 0, wrk on core 1.", "",
             "| Server | req/s | p99 ms | vs nginx static | rounds (req/s) | failed |", "|---|---:|---:|---:|---|---:|"]
    for row in rows:
        lines.append(f"| {row['name']} | {row['rps']:,.0f} | {row['p99_ms']:.2f} | {row['ratio']:.2f}× | "
                     + ", ".join(f"{r:,.0f}" for r in row["runs"]) + f" | {row['failed']} |")
    (output / "hot-path.md").write_text("\n".join(lines) + "\n")
    chart(rows, output / "hot-path.png")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
