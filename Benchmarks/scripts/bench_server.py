#!/usr/bin/env python3
"""imagery-server beside thumbor and nginx's image_filter, in one run on this machine, with wrk.

Usage: Benchmarks/scripts/bench_server.py [--corpus DIR] [--seconds 20] [--output bench-out] [--format avif]
       (build first: swift build -c release --product imagery-server;
        needs wrk, nginx with libnginx-mod-http-image-filter, and `pip install thumbor`)

--format avif: AVIF output at quality 80 and encoder speed 9 for both imagery-server (built
with --traits AllFormats) and thumbor (with `pip install pillow-avif-plugin`, `AVIF_SPEED = 9`),
cold and hot runs as below; nginx's image_filter writes no AVIF and is left out. Writes
OUTPUT/server-avif.*.

Every server and the origin bind 127.0.0.1 only; each is started here and stopped by its PID.
The setting is imgproxy's own benchmark's: the same photos from a loopback origin (nginx),
a fit into a box near 512 px, JPEG quality 80.

- cold: every URL distinct (each photo at 161 x 161 box sizes, 400-560 px), so no cache
  anywhere can answer; 8 and 16 connections.
- hot: 48 URLs (6 photos x 8 sizes), fetched once first, then 64 connections. thumbor and
  image_filter run without a result cache, as configured by default, so their "hot" is
  work again; Imagery answers from its encoded-response cache.
- for each: requests/s, p50/p99 latency (wrk --latency), failed requests, and the server's
  peak RSS (VmHWM, summed over its processes) after the cold runs.
- quality: PSNR of each server's 512 px fit of each photo against a full decode resized with
  Pillow's Lanczos (the output's own size), averaged.

Writes OUTPUT/server.json, OUTPUT/server.md and OUTPUT/server.png (a chart).
"""
import argparse
import importlib
import io
import json
import math
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

ROOT = Path(__file__).resolve().parents[2]
PHOTOS = [  # 2-8 MP JPEGs of ../shared/corpus: baseline, progressive, grey, ICC
    "jpeg_med_base_dune_1680x1050.jpg",
    "jpeg_med_base_storm_1920x1280.jpg",
    "jpeg_med_gray_pier_2560x1600.jpg",
    "jpeg_med_prog_icc_cups_2560x1600.jpg",
    "jpeg_med_base444_icc_path_2560x1600.jpg",
    "jpeg_large_base420_picos_3264x2448.jpg",
]
SIZES = range(400, 561)
HOT_SIZES = [400, 420, 440, 460, 480, 500, 520, 540]


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for(url, seconds=60):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(url, timeout=2):
                return
        except Exception:  # noqa: BLE001 - not up yet
            time.sleep(0.2)
    raise SystemExit(f"not up after {seconds} s: {url}")


def children(pid):
    """pid and its descendants (thumbor's forks, nginx's workers)."""
    found, frontier = [pid], [pid]
    while frontier:
        parent = frontier.pop()
        try:
            kids = Path(f"/proc/{parent}/task/{parent}/children").read_text().split()
        except OSError:
            continue
        for kid in map(int, kids):
            found.append(kid)
            frontier.append(kid)
    return found


def peak_rss_mb(pid):
    total = 0
    for p in children(pid):
        try:
            status = Path(f"/proc/{p}/status").read_text()
        except OSError:
            continue
        match = re.search(r"VmHWM:\s+(\d+) kB", status)
        total += int(match.group(1)) if match else 0
    return total / 1024


class Server:
    def __init__(self, name, command, template, health, cwd=None):
        self.name, self.command, self.template, self.health, self.cwd = name, command, template, health, cwd
        self.process = None

    def start(self):
        self.process = subprocess.Popen(self.command, cwd=self.cwd, stdout=subprocess.DEVNULL,
                                        stderr=subprocess.DEVNULL, start_new_session=True)
        wait_for(self.health)

    def stop(self):
        """SIGTERM to the top process, then to any of its descendants still there (thumbor's
        forks outlive their parent), all by PID; SIGKILL after 20 s."""
        if not self.process or self.process.poll() is not None:
            return
        family = children(self.process.pid)
        for sig in (signal.SIGTERM, signal.SIGKILL):
            for pid in family:
                try:
                    os.kill(pid, sig)
                except ProcessLookupError:
                    pass
            try:
                self.process.wait(timeout=20)
                deadline = time.monotonic() + 20
                while any(Path(f"/proc/{pid}").exists() and pid != self.process.pid for pid in family[1:]) and time.monotonic() < deadline:
                    time.sleep(0.1)
                return
            except subprocess.TimeoutExpired:
                continue

    def path(self, name, width, height):
        return self.template.format(name=name, w=width, h=height)


LUA = r"""
-- Paths from a template; cold: a counter walks distinct (photo, width, height), each thread on
-- its own residues, each run from its own offset (so a later run repeats no URL of an earlier
-- one); hot: a fixed list.
local template = os.getenv("BENCH_TEMPLATE")
local names = {}
for name in string.gmatch(os.getenv("BENCH_NAMES"), "[^,]+") do names[#names + 1] = name end
local hot = os.getenv("BENCH_HOT") == "1"
local offset = tonumber(os.getenv("BENCH_OFFSET") or "0")
local hot_sizes = {400, 420, 440, 460, 480, 500, 520, 540}
local threads = 0
function setup(thread) thread:set("id", threads); threads = threads + 1 end
local counter = 0
function init(args) counter = 0 end
function request()
  local index = offset + id + 2 * counter
  counter = counter + 1
  local name, w, h
  if hot then
    name = names[index % #names + 1]
    w = hot_sizes[math.floor(index / #names) % #hot_sizes + 1]
    h = w
  else
    name = names[index % #names + 1]
    w = 400 + math.floor(index / #names) % 161
    h = 400 + math.floor(index / (#names * 161)) % 161
  end
  local path = template:gsub("{name}", name):gsub("{w}", tostring(w)):gsub("{h}", tostring(h))
  return wrk.format("GET", path)
end
"""


def wrk(server, base, connections, seconds, hot, script, offset=0):
    env = dict(os.environ, BENCH_TEMPLATE=server.template, BENCH_NAMES=",".join(PHOTOS), BENCH_HOT="1" if hot else "0",
               BENCH_OFFSET=str(offset))
    result = subprocess.run(
        ["wrk", "-t2", f"-c{connections}", f"-d{seconds}s", "--timeout", "30s", "--latency", "-s", script, base],
        env=env, capture_output=True, text=True, timeout=seconds + 120,
    )
    out = result.stdout

    def duration_ms(label):
        match = re.search(rf"^\s+{label}\s+([\d.]+)(us|ms|s)\s*$", out, re.M)
        if not match:
            return None
        value, unit = float(match.group(1)), match.group(2)
        return value / 1000 if unit == "us" else value * 1000 if unit == "s" else value

    requests = int(re.search(r"(\d+) requests in", out).group(1))
    non2xx = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    errors = re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", out)
    failed = (int(non2xx.group(1)) if non2xx else 0) + (sum(map(int, errors.groups())) if errors else 0)
    return {
        "rps": float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1)),
        "p50_ms": duration_ms("50%"), "p99_ms": duration_ms("99%"),
        "requests": requests, "failed": failed,
    }


def median_run(results):
    """The run with the median req/s of `results` (wrk() dicts), with the failures of all of
    them and every run's req/s beside it."""
    ordered = sorted(results, key=lambda r: r["rps"])
    middle = dict(ordered[len(ordered) // 2])
    middle["failed"] = sum(r["failed"] for r in results)
    middle["all_rps"] = [r["rps"] for r in results]
    return middle


def psnr(a, b):
    a, b = a.convert("RGB"), b.convert("RGB")
    if a.size != b.size:
        return None
    diff = sum((x - y) ** 2 for x, y in zip(a.tobytes(), b.tobytes()))
    mse = diff / (a.size[0] * a.size[1] * 3)
    return 99.0 if mse == 0 else 10 * math.log10(255 ** 2 / mse)


def quality(server, base, corpus):
    scores = []
    for name in PHOTOS:
        with urllib.request.urlopen(base + server.path(name, 512, 512), timeout=60) as response:
            output = Image.open(io.BytesIO(response.read()))
            output.load()
        reference = Image.open(corpus / name).convert("RGB").resize(output.size, Image.LANCZOS)
        scores.append(psnr(output, reference))
    valid = [s for s in scores if s is not None]
    return sum(valid) / len(valid) if valid else None


def chart(results, path, title="imagery-server beside thumbor and nginx image_filter: cold req/s (more is better)"):
    font = ImageFont.load_default(size=15)
    small = ImageFont.load_default(size=13)
    rows = [("cold, 8 conns (req/s)", "cold8"), ("cold, 16 conns (req/s)", "cold16")]
    names = list(results)
    colours = [(31, 119, 180), (122, 178, 222), (255, 160, 60), (214, 39, 40)]
    left, width, bar, gap = 210, 620, 18, 22
    height = 70 + len(rows) * (len(names) * bar + gap) + 40 + len(names) * 20
    image = Image.new("RGB", (left + width + 150, height), "white")
    draw = ImageDraw.Draw(image)
    draw.text((10, 10), title, fill="black", font=font)
    top = max(results[n][key]["rps"] for n in names for _, key in rows)
    y = 45
    for label, key in rows:
        draw.text((10, y + 4), label, fill="black", font=small)
        for index, name in enumerate(names):
            value = results[name][key]["rps"]
            length = int(width * value / top)
            draw.rectangle([left, y, left + length, y + bar - 3], fill=colours[index % len(colours)])
            draw.text((left + length + 6, y + 1), f"{value:.0f}", fill="black", font=small)
            y += bar
        y += gap
    for index, name in enumerate(names):
        draw.rectangle([10, y + 4, 24, y + 16], fill=colours[index % len(colours)])
        hot = results[name]["hot"]["rps"]
        draw.text((32, y + 2), f"{name}   (hot: {hot:,.0f} req/s, peak RSS {results[name]['peak_rss_mb']:.0f} MB)", fill="black", font=small)
        y += 20
    image.save(path)


def prepare(corpus, tools, prefix, binary=None):
    """Checks what a run needs, and makes its work directory with the photos and the wrk
    script. Returns (imagery-server binary, work directory, script path); `binary` is the one
    given, else the release build's."""
    missing = [p for p in PHOTOS if not (corpus / p).exists()]
    if missing:
        raise SystemExit(f"skipped: the corpus at {corpus} lacks {missing[0]} (it is in ../shared/corpus)")
    for tool in tools:
        if not shutil.which(tool) and not Path(f"/usr/sbin/{tool}").exists():
            raise SystemExit(f"skipped: {tool} is not installed")
    binary = Path(binary) if binary else ROOT / ".build" / "release" / "imagery-server"
    if not binary.exists():
        raise SystemExit("build first: swift build -c release --product imagery-server")
    work = Path(tempfile.mkdtemp(prefix=prefix))
    work.chmod(0o755)   # nginx's workers run as nobody
    (work / "photos").mkdir()
    for name in PHOTOS:
        shutil.copy(corpus / name, work / "photos" / name)
    (work / "nginx").mkdir()
    script = work / "paths.lua"
    script.write_text(LUA)
    return binary, work, script


def origin_server(work):
    """The origin: nginx serving the photos on 127.0.0.1. Returns (Server, port)."""
    port = free_port()
    (work / "origin.conf").write_text(f"""
        pid {work}/nginx/origin.pid; error_log {work}/nginx/origin.log warn; daemon off;
        worker_processes 1;
        events {{ worker_connections 1024; }}
        http {{ access_log off; sendfile on; keepalive_requests 100000;
          client_body_temp_path {work}/nginx/body; proxy_temp_path {work}/nginx/proxy;
          fastcgi_temp_path {work}/nginx/fcgi; uwsgi_temp_path {work}/nginx/uwsgi; scgi_temp_path {work}/nginx/scgi;
          server {{ listen 127.0.0.1:{port}; root {work}/photos; }} }}
    """)
    server = Server("origin", ["nginx", "-c", str(work / "origin.conf"), "-p", str(work / "nginx")], "",
                    f"http://127.0.0.1:{port}/{PHOTOS[0]}")
    return server, port


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--corpus", default=str(ROOT.parent / "shared" / "corpus"))
    parser.add_argument("--seconds", type=int, default=20)
    parser.add_argument("--output", default=str(ROOT / "bench-out"))
    parser.add_argument("--only", default="", help="comma-separated server names to run")
    parser.add_argument("--format", choices=["jpeg", "avif"], default="jpeg")
    args = parser.parse_args()
    avif = args.format == "avif"
    if avif:
        importlib.import_module("pillow_avif")   # lets Pillow read the AVIF responses; thumbor loads it itself
    corpus = Path(args.corpus)
    binary, work, script = prepare(corpus, ("wrk", "nginx", "thumbor"), "imagery-bench-server-")
    output = Path(args.output)
    output.mkdir(parents=True, exist_ok=True)
    origin_process, origin_port = origin_server(work)
    filter_port = free_port()
    nginx_module = "/usr/lib/nginx/modules/ngx_http_image_filter_module.so"
    common = f"pid {work}/nginx/%s.pid; error_log {work}/nginx/%s.log warn; daemon off;"
    (work / "filter.conf").write_text(f"""
        load_module {nginx_module};
        {common % ('filter', 'filter')}
        worker_processes 2;
        events {{ worker_connections 1024; }}
        http {{ access_log off; keepalive_requests 100000;
          client_body_temp_path {work}/nginx/fbody; proxy_temp_path {work}/nginx/fproxy;
          fastcgi_temp_path {work}/nginx/ffcgi; uwsgi_temp_path {work}/nginx/fuwsgi; scgi_temp_path {work}/nginx/fscgi;
          upstream origin {{ server 127.0.0.1:{origin_port}; keepalive 32; }}
          server {{ listen 127.0.0.1:{filter_port};
            location = /health {{ return 200 "ok"; }}
            location ~ ^/(?<w>\\d+)x(?<h>\\d+)/(?<name>.+)$ {{
              proxy_http_version 1.1; proxy_set_header Connection "";
              proxy_pass http://origin/$name;
              image_filter resize $w $h; image_filter_jpeg_quality 80; image_filter_buffer 64M; }} }} }}
    """)
    thumbor_port, imagery_port = free_port(), free_port()
    (work / "thumbor.conf").write_text(
        "ALLOW_UNSAFE_URL = True\nSTORAGE = 'thumbor.storages.no_storage'\nQUALITY = 80\n"
        "HTTP_LOADER_MAX_CLIENTS = 64\nMAX_WIDTH = 0\nMAX_HEIGHT = 0\nAVIF_SPEED = 9\n"
    )
    extension, thumbor_filters = ("avif", "quality(80):format(avif)") if avif else ("jpg", "quality(80)")
    cores = os.cpu_count() or 2
    origin = f"127.0.0.1:{origin_port}"
    servers = [
        Server("imagery-server (draft 1x, the default)", [str(binary), "--port", str(imagery_port), "--allow-loopback-sources", "--quality", "80"],
               f"/insecure/rs:fit:{{w}}:{{h}}/plain/http://{origin}/{{name}}@{extension}", f"http://127.0.0.1:{imagery_port}/health"),
        Server("imagery-server, draft 2x", [str(binary), "--port", str(imagery_port), "--allow-loopback-sources", "--quality", "80", "--draft-headroom", "2"],
               f"/insecure/rs:fit:{{w}}:{{h}}/plain/http://{origin}/{{name}}@jpg", f"http://127.0.0.1:{imagery_port}/health"),
        Server(f"thumbor ({cores} processes)", ["thumbor", "-i", "127.0.0.1", "-p", str(thumbor_port), "-c", str(work / "thumbor.conf"), "--processes", str(cores)],
               f"/unsafe/fit-in/{{w}}x{{h}}/filters:{thumbor_filters}/{origin}/{{name}}", f"http://127.0.0.1:{thumbor_port}/healthcheck"),
        Server("nginx image_filter", ["nginx", "-c", str(work / "filter.conf"), "-p", str(work / "nginx")],
               "/{w}x{h}/{name}", f"http://127.0.0.1:{filter_port}/health"),
    ]
    ports = {servers[0].name: imagery_port, servers[1].name: imagery_port, servers[2].name: thumbor_port, servers[3].name: filter_port}
    only = [s for s in args.only.split(",") if s]
    if avif:   # image_filter writes no AVIF; one imagery-server variant is enough
        servers = [s for s in servers if "image_filter" not in s.name and "draft 2x" not in s.name]
    results = {}
    origin_process.start()
    try:
        for server in servers:
            if only and not any(o in server.name for o in only):
                continue
            base = f"http://127.0.0.1:{ports[server.name]}"
            print(f"== {server.name}", flush=True)
            server.start()
            try:
                entry = {"quality_psnr_db": quality(server, base, corpus)}
                for run, connections in enumerate((8, 16)):
                    entry[f"cold{connections}"] = wrk(server, base, connections, args.seconds, False, script, offset=1 + 60_000 * run)
                    print(f"   cold, {connections} connections: {entry[f'cold{connections}']}", flush=True)
                entry["peak_rss_mb"] = peak_rss_mb(server.process.pid)
                for size in HOT_SIZES:   # the working set, once
                    for name in PHOTOS:
                        urllib.request.urlopen(base + server.path(name, size, size), timeout=120).read()
                entry["hot"] = wrk(server, base, 64, max(10, args.seconds // 2), True, script)
                print(f"   hot, 64 connections: {entry['hot']}", flush=True)
                print(f"   peak RSS after the cold runs: {entry['peak_rss_mb']:.0f} MB; PSNR {entry['quality_psnr_db']:.2f} dB", flush=True)
                results[server.name] = entry
            finally:
                server.stop()
    finally:
        origin_process.stop()
        shutil.rmtree(work, ignore_errors=True)

    machine = f"{os.cpu_count()} cores, {os.uname().sysname} {os.uname().release}"
    report = {"machine": machine, "seconds": args.seconds, "photos": PHOTOS, "results": results}
    stem = "server-avif" if avif else "server"
    (output / f"{stem}.json").write_text(json.dumps(report, indent=2))
    written = "AVIF q80, speed 9" if avif else "JPEG q80"
    lines = [
        f"imagery-server beside thumbor{'' if avif else ' and nginx image_filter'} ({machine}; wrk on the same cores; "
        f"{args.seconds} s cold runs; fit into 400-560 px boxes, {written})", "",
        "| Server | cold req/s, 8 conns | p50 / p99 ms | cold req/s, 16 conns | p50 / p99 ms | hot req/s, 64 conns | p50 / p99 ms | peak RSS (MB) | PSNR (dB) | failed |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for name, r in results.items():
        c8, c16, hot = r["cold8"], r["cold16"], r["hot"]
        failed = c8["failed"] + c16["failed"] + hot["failed"]
        lines.append(
            f"| {name} | {c8['rps']:.0f} | {c8['p50_ms']:.0f} / {c8['p99_ms']:.0f} | {c16['rps']:.0f} | {c16['p50_ms']:.0f} / {c16['p99_ms']:.0f} "
            f"| {hot['rps']:,.0f} | {hot['p50_ms']:.1f} / {hot['p99_ms']:.1f} | {r['peak_rss_mb']:.0f} | {r['quality_psnr_db']:.2f} | {failed} |"
        )
    (output / f"{stem}.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    if results:
        chart(results, output / f"{stem}.png", *(["imagery-server beside thumbor, AVIF output: cold req/s (more is better)"] if avif else []))


if __name__ == "__main__":
    sys.exit(main())
