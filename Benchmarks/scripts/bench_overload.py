#!/usr/bin/env python3
"""imagery-server under overload: 512 connections, every URL a distinct large source, while a
prober asks /health and /metrics as an orchestrator would. Reports how fast the checks are
answered, the server's peak memory, and how the load was shed.

Usage: Benchmarks/scripts/bench_overload.py [--binary PATH] [--baseline PATH] [--seconds 30] [--rounds 3]
       [--server-arg=--max-memory --server-arg=384MiB] [--output bench-out]
       (build first: swift build -c release --product imagery-server; needs wrk and nginx)

The sources are the two large photos of Benchmarks/Corpus (12 and 11 MP), served by a loopback
nginx; a query string makes every request's source distinct, so no download, decode or
response is shared. Each asks a box of 800-1600 px. --baseline names another imagery-server
binary, measured the same way in the same run. Every process binds 127.0.0.1 only, and is
stopped by its PID.
"""
import argparse
import json
import re
import shutil
import signal
import socket
import statistics
import subprocess
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

from bench_server import free_port, wait_for   # the same helpers as the server benchmark

ROOT = Path(__file__).resolve().parents[2]
PHOTOS = ["jpeg_large_base_sunset_4272x2848.jpg", "jpeg_large_prog_bridge_4352x2448.jpg"]

LUA = r"""
local origin = os.getenv("BENCH_ORIGIN")
local threads = 0
function setup(thread) thread:set("id", threads); threads = threads + 1 end
local counter = 0
function request()
  counter = counter + 1
  local n = id * 100000000 + counter
  local name = (n % 2 == 0) and "jpeg_large_base_sunset_4272x2848.jpg" or "jpeg_large_prog_bridge_4352x2448.jpg"
  local side = 800 + (n % 801)
  return wrk.format("GET", "/unsafe/rs:fit:" .. side .. ":" .. side .. "/plain/" .. origin .. "/" .. name .. "%3Fn%3D" .. n)
end
"""






def peak_rss_mb(pid):
    status = Path(f"/proc/{pid}/status").read_text()
    return int(re.search(r"VmHWM:\s+(\d+) kB", status).group(1)) / 1024


def probe(url, stop, results):
    """GETs `url` every 250 ms until `stop` is set, recording each answer's time (a failed or
    timed-out check counts as its timeout, 10 s)."""
    while not stop.is_set():
        started = time.monotonic()
        try:
            with urllib.request.urlopen(url, timeout=10) as response:
                response.read()
                ok = response.status == 200
        except Exception:  # noqa: BLE001 - a failed check is recorded as such
            ok = False
        elapsed = (time.monotonic() - started) * 1000
        results.append(elapsed if ok else 10_000)
        stop.wait(0.25)


def run(name, binary, origin_port, script, seconds, extra=()):
    port = free_port()
    server = subprocess.Popen([str(binary), "--host", "127.0.0.1", "--port", str(port), "--allow-loopback-sources", *extra],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        base = f"http://127.0.0.1:{port}"
        wait_for(base + "/health")
        stop = threading.Event()
        health, metrics = [], []
        probers = [threading.Thread(target=probe, args=(base + "/health", stop, health)),
                   threading.Thread(target=probe, args=(base + "/metrics", stop, metrics))]
        for thread in probers:
            thread.start()
        result = subprocess.run(
            ["wrk", "-t2", "-c512", f"-d{seconds}s", "--timeout", "30s", "-s", str(script), base],
            env={"BENCH_ORIGIN": f"http://127.0.0.1:{origin_port}", "PATH": "/usr/bin:/bin"},
            capture_output=True, text=True, timeout=seconds + 120,
        )
        stop.set()
        for thread in probers:
            thread.join()
        out = result.stdout
        total = int(re.search(r"(\d+) requests in", out).group(1))
        non2xx = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
        refused = int(non2xx.group(1)) if non2xx else 0
        peak = peak_rss_mb(server.pid)
    finally:
        server.send_signal(signal.SIGTERM)
        try:
            server.wait(timeout=60)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()

    def summary(times):
        ordered = sorted(times)
        return {"checks": len(times), "median_ms": statistics.median(times), "max_ms": ordered[-1],
                "p99_ms": ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))],
                "over_100_ms": sum(1 for t in times if t > 100)}

    return {"name": name, "ok": total - refused, "shed": refused, "peak_rss_mb": peak,
            "health": summary(health), "metrics": summary(metrics)}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", default=str(ROOT / ".build" / "release" / "imagery-server"))
    parser.add_argument("--baseline", help="another imagery-server binary to measure beside this one")
    parser.add_argument("--server-arg", action="append", default=[], help="an extra argument for every server (repeatable)")
    parser.add_argument("--seconds", type=int, default=30)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--output", default=str(ROOT / "bench-out"))
    args = parser.parse_args()
    for tool in ("wrk", "nginx"):
        if not shutil.which(tool) and not Path(f"/usr/sbin/{tool}").exists():
            raise SystemExit(f"skipped: {tool} is not installed")
    binary = Path(args.binary)
    if not binary.exists():
        raise SystemExit("build first: swift build -c release --product imagery-server")

    work = Path(tempfile.mkdtemp(prefix="imagery-overload-"))
    work.chmod(0o755)
    (work / "photos").mkdir()
    for name in PHOTOS:
        shutil.copy(ROOT / "Benchmarks" / "Corpus" / name, work / "photos" / name)
    (work / "nginx").mkdir()
    script = work / "paths.lua"
    script.write_text(LUA)
    origin_port = free_port()
    (work / "origin.conf").write_text(f"""
        pid {work}/nginx/origin.pid; error_log {work}/nginx/origin.log warn; daemon off;
        worker_processes 1;
        events {{ worker_connections 4096; }}
        http {{ access_log off; sendfile on; keepalive_requests 100000;
          client_body_temp_path {work}/nginx/body; proxy_temp_path {work}/nginx/proxy;
          fastcgi_temp_path {work}/nginx/fcgi; uwsgi_temp_path {work}/nginx/uwsgi; scgi_temp_path {work}/nginx/scgi;
          server {{ listen 127.0.0.1:{origin_port}; root {work}/photos; }} }}
    """)
    origin = subprocess.Popen(["nginx", "-c", str(work / "origin.conf"), "-p", str(work / "nginx")],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    rows = []
    try:
        wait_for(f"http://127.0.0.1:{origin_port}/{PHOTOS[0]}")
        targets = [("imagery-server (this commit)", binary)]
        if args.baseline:
            targets.append(("imagery-server (baseline)", Path(args.baseline)))
        runs = {name: [] for name, _ in targets}
        for round_index in range(args.rounds):   # alternating, so drift hits every server alike
            # Each server goes first in every other round, so neither always meets the machine
            # as the run before it left it.
            for name, path in (targets if round_index % 2 == 0 else targets[::-1]):
                row = run(name, path, origin_port, script, args.seconds, args.server_arg)
                runs[name].append(row)
                print(f"round {round_index + 1}: " + json.dumps(row), flush=True)
        for name, _ in targets:
            rounds = runs[name]
            def median(key, part=None):
                return statistics.median(r[part][key] if part else r[key] for r in rounds)
            rows.append({
                "name": name, "ok": median("ok"), "shed": median("shed"), "peak_rss_mb": median("peak_rss_mb"),
                "peak_rss_runs": [r["peak_rss_mb"] for r in rounds],
                "health": {"median_ms": median("median_ms", "health"), "p99_ms": median("p99_ms", "health"),
                           "max_ms": max(r["health"]["max_ms"] for r in rounds),
                           "over_100_ms": sum(r["health"]["over_100_ms"] for r in rounds), "checks": sum(r["health"]["checks"] for r in rounds)},
                "metrics": {"median_ms": median("median_ms", "metrics"), "p99_ms": median("p99_ms", "metrics"),
                            "max_ms": max(r["metrics"]["max_ms"] for r in rounds),
                            "over_100_ms": sum(r["metrics"]["over_100_ms"] for r in rounds), "checks": sum(r["metrics"]["checks"] for r in rounds)},
            })
    finally:
        origin.send_signal(signal.SIGTERM)
        origin.wait(timeout=20)
        shutil.rmtree(work, ignore_errors=True)

    output = Path(args.output)
    output.mkdir(parents=True, exist_ok=True)
    (output / "overload.json").write_text(json.dumps(rows, indent=2))
    lines = [f"512 connections for {args.seconds} s, every URL a distinct 11-12 MP source; /health and /metrics asked every 250 ms meanwhile; "
             f"{args.rounds} alternating rounds: medians of the rounds, the largest maximum, the checks over 100 ms summed.", "",
             "| Server | 200 | 503 (shed) | /health median / p99 / max ms | over 100 ms | /metrics median / p99 / max ms | over 100 ms | peak RSS MB (rounds) |",
             "|---|---:|---:|---|---:|---|---:|---:|"]
    for row in rows:
        h, m = row["health"], row["metrics"]
        lines.append(f"| {row['name']} | {row['ok']:,.0f} | {row['shed']:,.0f} | {h['median_ms']:.1f} / {h['p99_ms']:.1f} / {h['max_ms']:.1f} | "
                     f"{h['over_100_ms']} of {h['checks']} | {m['median_ms']:.1f} / {m['p99_ms']:.1f} / {m['max_ms']:.1f} | "
                     f"{m['over_100_ms']} of {m['checks']} | {row['peak_rss_mb']:.0f} (" + ", ".join(f"{v:.0f}" for v in row["peak_rss_runs"]) + ") |")
    (output / "overload.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
