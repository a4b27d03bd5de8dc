#!/usr/bin/env python3
"""imagery-server under issue 46's remaining loads, each at every --max-memory budget given, a
fresh server process per load and budget: its peak memory (VmHWM) against the budget, its idle
memory right after start, and how many requests got their image (200), a 503, a 4xx, or no
answer at all. /health is asked every 250 ms throughout, and its latency reported.

Usage: Benchmarks/scripts/bench_memory_loads.py [--binary PATH] [--budgets 512MiB,384MiB] [--only LOAD] [--timeout 120]
       (build first: swift build -c release --traits AllFormats --product imagery-server; needs nginx, Pillow and numpy)

The sources are made here with Pillow and numpy and served by a loopback nginx ({origin}); a
query string (percent-encoded, part of the source) makes a source distinct where one should be.
The loads (--only picks one, by name):

- gif: 32 variants of one 100-frame 800 x 600 animated GIF (48 MP in all, under the 50 MP
  source limit), sent at once; every 200 is checked to be a GIF of 100 frames:
    /unsafe/rs:fit:{200+8i}:{200+8i}/plain/{origin}/anim.gif@gif
- bombs: 16 SVG and 16 TIFF bombs at once, 4 of each kind, each source distinct (n = 0-31):
    /unsafe/rs:fit:300:300/plain/{origin}/{bomb}%3Fn%3D{n}@png   (and /unsafe/plain/… for the
  whole 200,000-pixel SVG canvas); the server must still answer /health afterwards.
- info: 64 /info requests at once for distinct copies of a 50 MP JPEG (8660 x 5773, q85),
  half plain, half with ThumbHash and BlurHash (--info-placeholders all or none for either):
    /info/unsafe/plain/{origin}/big.jpg%3Fn%3D{i}
    /info/unsafe/th:1/bh:4:3/plain/{origin}/big.jpg%3Fn%3D{i}
- slow: 512 connections opened at once, each asking a distinct 300 px thumbnail of a 2 MP JPEG
  and reading the answer at 1 KB a second (recv(1024) once a second, a 4 KB receive buffer,
  at most 60 s per client); a response is complete when its Content-Length is read:
    /unsafe/rs:fit:300:300/plain/{origin}/small.jpg%3Fn%3D{i}
  (--slow-side and --slow-format ask larger answers. A whole answer that fits the kernel's
  socket buffers leaves the server at once; their machine-wide peak, from /proc/net/sockstat, is
  in the notes.)

Every process binds 127.0.0.1 only, runs in its own session and is stopped by its PID. Each
server's log goes to --logs/{load}-{budget}.log.
"""
import argparse
import collections
import io
import json
import os
import shutil
import signal
import socket
import statistics
import subprocess
import tempfile
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

import numpy as np
from PIL import Image

from bench_large_outputs import PHOTO, peak_rss_mb, photo_origin   # VmHWM; the loopback nginx
from bench_server import free_port, wait_for

ROOT = Path(__file__).resolve().parents[2]
LOADS = ["gif", "bombs", "info", "slow"]


# --- sources ----------------------------------------------------------------------------------

def make_gif(path, frames=100, width=800, height=600):
    """Every frame its own: a drifting pattern of 32 colours, a noisy corner."""
    yy, xx = np.mgrid[0:height, 0:width]
    rng = np.random.default_rng(46)
    palette = [v for i in range(256) for v in (i, i * 7 % 256, 255 - i)]
    images = []
    for f in range(frames):
        wave = (np.sin((xx - 9 * f) / 37.0) * np.cos((yy + 5 * f) / 29.0) * 6).astype(int)
        index = ((xx + 6 * f) // 10 + yy // 8 + wave) % 32 * 8
        index[:120, :160] += rng.integers(0, 4, (120, 160))
        image = Image.fromarray(index.astype(np.uint8), "P")
        image.putpalette(palette)
        images.append(image)
    images[0].save(path, "GIF", save_all=True, append_images=images[1:], duration=40, loop=0, optimize=False)


def make_big_jpeg(path, width=8660, height=5773):
    """50 MP of gradients under noise, quality 85."""
    rng = np.random.default_rng(46)
    x = np.linspace(0, 255, width, dtype=np.float32)[None, :]
    y = np.linspace(0, 255, height, dtype=np.float32)[:, None]
    noise = rng.integers(-40, 40, (height, width), dtype=np.int16)
    pixels = np.empty((height, width, 3), np.uint8)
    pixels[..., 0] = np.clip(x + noise, 0, 255)
    pixels[..., 1] = np.clip(y - noise, 0, 255)
    pixels[..., 2] = np.clip((x + y) / 2 + noise // 2, 0, 255)
    Image.fromarray(pixels).save(path, quality=85)


def le16(v):
    return v.to_bytes(2, "little")


def le32(v):
    return v.to_bytes(4, "little")


def tiff_header(width, height):
    """One RGB directory claiming width x height, its one strip at offset 0: the file is the
    header alone (as TIFFBuilder.header in ImageryTestSupport)."""
    entries = [(256, 4, width), (257, 4, height), (258, 3, 8), (259, 3, 1), (262, 3, 2),
               (273, 4, 0), (277, 3, 3), (278, 4, height), (279, 4, min(width * height * 3, 0xFFFFFFFF))]
    out = b"II*\0" + le32(8) + le16(len(entries))
    for tag, kind, value in entries:
        out += le16(tag) + le16(kind) + le32(1) + (le16(value) + b"\0\0" if kind == 3 else le32(value))
    return out + le32(0)


def tiff_pages(count):
    """`count` chained directories of a 2 x 2 RGB image (as TIFFBuilder.pages)."""
    pixels = bytes([200, 100, 50] * 4)
    out = bytearray(b"II*\0" + le32(8))
    size = 2 + 10 * 12 + 4
    for page in range(count):
        data = len(out) + size
        following = 0 if page == count - 1 else data + len(pixels)
        entries = [(256, 3, 2), (257, 3, 2), (258, 3, 8), (259, 3, 1), (262, 3, 2), (273, 4, data),
                   (277, 3, 3), (278, 3, 2), (279, 4, len(pixels)), (284, 3, 1)]
        out += le16(len(entries))
        for tag, kind, value in entries:
            out += le16(tag) + le16(kind) + le32(1) + (le16(value) + b"\0\0" if kind == 3 else le32(value))
        out += le32(following) + pixels
    return bytes(out)


def svg_canvas(side):
    return f'<svg xmlns="http://www.w3.org/2000/svg" width="{side}" height="{side}"><rect width="{side}" height="{side}" fill="blue"/></svg>'.encode()


def svg_nested_use(levels=10, fan_out=10):
    nested = '<g id="u0"><rect width="1" height="1"/></g>'
    for level in range(1, levels + 1):
        nested += f'<g id="u{level}">' + f'<use href="#u{level - 1}"/>' * fan_out + "</g>"
    return f'<svg xmlns="http://www.w3.org/2000/svg" width="100" height="100"><defs>{nested}</defs><use href="#u{levels}"/></svg>'.encode()


def svg_entities(levels=9):
    declarations = '<!ENTITY l0 "lol">' + "".join(
        f'<!ENTITY l{level} "' + f"&l{level - 1};" * 10 + '">' for level in range(1, levels + 1))
    return f'<?xml version="1.0"?><!DOCTYPE svg [{declarations}]><svg xmlns="http://www.w3.org/2000/svg"><text>&l{levels};</text></svg>'.encode()


def bomb_files(photos):
    """Writes the bombs into `photos`: [(file, URL options)], 4 requests of each (no options:
    the source drawn whole)."""
    (photos / "svg_canvas_200000.svg").write_bytes(svg_canvas(200_000))
    (photos / "svg_nested_use_10e10.svg").write_bytes(svg_nested_use())
    (photos / "svg_entities_10e9.svg").write_bytes(svg_entities())
    (photos / "tiff_claims_60000x60000.tif").write_bytes(tiff_header(60_000, 60_000))
    (photos / "tiff_claims_7000x7000_in_122_bytes.tif").write_bytes(tiff_header(7_000, 7_000))
    (photos / "tiff_10000_pages.tif").write_bytes(tiff_pages(10_000))
    # 147 MB of one colour, deflated to about 230 KB: 49 MP, under the 50 MP source limit.
    Image.new("RGB", (7000, 7000), (200, 100, 50)).save(photos / "tiff_deflate_7000x7000.tif", compression="tiff_adobe_deflate")
    return [("svg_canvas_200000.svg", "rs:fit:300:300"), ("svg_canvas_200000.svg", ""),
            ("svg_nested_use_10e10.svg", "rs:fit:300:300"), ("svg_entities_10e9.svg", "rs:fit:300:300"),
            ("tiff_claims_60000x60000.tif", "rs:fit:300:300"), ("tiff_claims_7000x7000_in_122_bytes.tif", "rs:fit:300:300"),
            ("tiff_10000_pages.tif", "rs:fit:300:300"), ("tiff_deflate_7000x7000.tif", "rs:fit:300:300")]


# --- clients ----------------------------------------------------------------------------------

def get(url, timeout):
    """(status, body, seconds); status 0 for no answer (a timeout, a reset)."""
    started = time.monotonic()
    try:
        with urllib.request.urlopen(url, timeout=timeout) as response:
            return response.status, response.read(), time.monotonic() - started
    except urllib.error.HTTPError as error:
        return error.code, error.read(), time.monotonic() - started
    except Exception as error:  # noqa: BLE001 - recorded as no answer
        return 0, repr(error).encode(), time.monotonic() - started


def burst(urls, timeout):
    """Every URL at once, each on its own connection: [(status, body, seconds)]."""
    results = [None] * len(urls)

    def one(i):
        results[i] = get(urls[i], timeout)
    threads = [threading.Thread(target=one, args=(i,)) for i in range(len(urls))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return results


def tcp_buffers_mb():
    """The kernel's memory in TCP buffers, machine-wide (/proc/net/sockstat): a response the
    server has handed to a slow client's socket is there, not in the server's RSS."""
    for line in Path("/proc/net/sockstat").read_text().splitlines():
        if line.startswith("TCP:"):
            fields = line.split()
            return int(fields[fields.index("mem") + 1]) * os.sysconf("SC_PAGE_SIZE") / 1e6
    return 0.0


class HealthProbe:
    """GETs /health every 250 ms on its own thread; its latencies in ms (a failure counts 10 s).
    Also samples the kernel's TCP buffers every 250 ms, their peak above the start."""

    def __init__(self, base):
        self.base, self.times, self.failures, self.stop = base, [], 0, threading.Event()
        self.tcp_start = self.tcp_peak = tcp_buffers_mb()
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    def run(self):
        while not self.stop.is_set():
            status, _, seconds = get(self.base + "/health", 10)
            self.times.append(seconds * 1000 if status == 200 else 10_000)
            self.failures += status != 200
            self.tcp_peak = max(self.tcp_peak, tcp_buffers_mb())
            self.stop.wait(0.25)

    def finish(self):
        self.stop.set()
        self.thread.join()
        return self


def slow_read(port, path, results, index, bound=60.0, rate=1024):
    """GET `path` on a raw socket with a 4 KB receive buffer, then recv(`rate`) once a second
    until the body is whole, the server closes, or `bound` seconds pass."""
    started = time.monotonic()
    data, status, length, outcome = b"", 0, None, "incomplete"
    try:
        with socket.socket() as s:
            s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
            s.settimeout(bound)
            s.connect(("127.0.0.1", port))
            s.sendall(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".encode())
            while time.monotonic() - started < bound:
                s.settimeout(max(0.1, bound - (time.monotonic() - started)))
                chunk = s.recv(rate)
                if not chunk:
                    outcome = "closed early" if length is None or len(data) < length else outcome
                    break
                data += chunk
                if status == 0 and b"\r\n\r\n" in data:
                    head, _, _ = data.partition(b"\r\n\r\n")
                    status = int(head.split(b" ", 2)[1])
                    for line in head.split(b"\r\n")[1:]:
                        if line.lower().startswith(b"content-length:"):
                            length = len(head) + 4 + int(line.split(b":")[1])
                if length is not None and len(data) >= length:
                    outcome = "complete"
                    break
                time.sleep(max(0.0, 1.0 - (time.monotonic() - started) % 1.0))
    except socket.timeout:
        outcome = "timed out"
    except OSError as error:
        outcome = f"error {error.errno}"
    body = data.partition(b"\r\n\r\n")[2]
    results[index] = (status, body, time.monotonic() - started, outcome, len(data))


# --- loads ------------------------------------------------------------------------------------

def load_gif(base, origin, args, port):
    urls = [f"{base}/unsafe/rs:fit:{200 + 8 * i}:{200 + 8 * i}/plain/{origin}/anim.gif@gif" for i in range(32)]
    results = burst(urls, args.timeout)
    frames = collections.Counter()
    for status, body, _ in results:
        if status == 200:
            try:
                image = Image.open(io.BytesIO(body))
                frames[f"{image.format} {image.n_frames} frames"] += 1
            except Exception as error:  # noqa: BLE001
                frames[f"unreadable: {error}"] += 1
    return results, "200s: " + ", ".join(f"{n} {k}" for k, n in frames.items())


def load_bombs(base, origin, args, port, kinds):
    urls, names = [], []
    for n in range(32):
        name, options = kinds[n % len(kinds)]
        prefix = f"/unsafe/{options}/plain/" if options else "/unsafe/plain/"
        urls.append(f"{base}{prefix}{origin}/{name}%3Fn%3D{n}@png")
        names.append(name + ("" if options else " (whole)"))
    results = burst(urls, args.timeout)
    alive = get(base + "/health", 10)[0]
    per_kind, what, slowest = collections.defaultdict(collections.Counter), {}, collections.Counter()
    for name, (status, body, seconds) in zip(names, results):
        per_kind[name][status] += 1
        slowest[name] = max(slowest[name], seconds)
        if status == 200:   # what was drawn
            what.setdefault(name, "x".join(map(str, Image.open(io.BytesIO(body)).size)))
        else:
            what.setdefault(name, body[:120].decode("utf-8", "replace").strip())
    detail = "; ".join(f"{name}: " + ", ".join(f"{n}x{s}" for s, n in sorted(c.items()))
                       + f" ({what[name]}; slowest {slowest[name]:.1f} s)" for name, c in per_kind.items())
    return results, f"/health after: {alive}; {detail}"


def load_info(base, origin, args, port):
    every = {"half": 2, "all": 1, "none": 0}[args.info_placeholders]
    urls = [f"{base}/info/unsafe/{'th:1/bh:4:3/' if every and i % every == every - 1 else ''}plain/{origin}/big.jpg%3Fn%3D{i}"
            for i in range(64)]
    results = burst(urls, args.timeout)
    shapes = collections.Counter()
    for status, body, _ in results:
        if status == 200:
            answer = json.loads(body)
            shapes[f"{answer.get('width')}x{answer.get('height')}" + (" +th/bh" if "thumb_hash" in answer else "")] += 1
    return results, "200s: " + ", ".join(f"{n} {k}" for k, n in shapes.items())


def load_slow(base, origin, args, port):
    side, fmt = args.slow_side, args.slow_format
    paths = [f"/unsafe/rs:fit:{side}:{side}/plain/{origin}/small.jpg%3Fn%3D{i}" + (f"@{fmt}" if fmt else "") for i in range(args.slow_clients)]
    results = [None] * len(paths)
    threads = [threading.Thread(target=slow_read, args=(port, p, results, i)) for i, p in enumerate(paths)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    outcomes = collections.Counter(r[3] for r in results)
    sizes = [len(r[1]) for r in results if r[0] == 200 and r[3] == "complete"]
    return ([(r[0] if r[3] == "complete" or r[0] != 200 else -200, r[1], r[2]) for r in results],
            "reads: " + ", ".join(f"{n} {k}" for k, n in outcomes.items())
            + (f"; complete 200 bodies {min(sizes)}-{max(sizes)} bytes" if sizes else ""))


# --- one server -------------------------------------------------------------------------------

def budget_mb(text):
    units = {"KiB": 1024, "MiB": 1024 ** 2, "GiB": 1024 ** 3}
    for suffix, factor in units.items():
        if text.endswith(suffix):
            return float(text[:-len(suffix)]) * factor / 1e6
    return float(text) / 1e6


def run(load, budget, binary, origin, args, kinds):
    port = free_port()
    log_path = Path(args.logs) / f"{load}-{budget}.log"
    log = open(log_path, "wb")
    server = subprocess.Popen([str(binary), "--host", "127.0.0.1", "--port", str(port), "--allow-loopback-sources",
                               "--max-memory", budget, *args.server_arg],
                              stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    base = f"http://127.0.0.1:{port}"
    try:
        wait_for(base + "/health")
        idle = peak_rss_mb(server.pid)
        probe = HealthProbe(base)
        started = time.monotonic()
        body = {"gif": load_gif, "info": load_info, "slow": load_slow}.get(load)
        results, note = body(base, origin, args, port) if body else load_bombs(base, origin, args, port, kinds)
        elapsed = time.monotonic() - started
        probe.finish()
        crashed = server.poll()
        peak = peak_rss_mb(server.pid) if crashed is None else float("nan")
    finally:
        if server.poll() is None:
            os.killpg(server.pid, signal.SIGTERM)
            try:
                server.wait(timeout=60)
            except subprocess.TimeoutExpired:
                os.killpg(server.pid, signal.SIGKILL)
                server.wait()
        log.close()
    statuses = collections.Counter(r[0] for r in results)
    samples = {}
    for status, text, _ in results:
        if status not in (200, -200) and status not in samples:
            samples[status] = text[:300].decode("utf-8", "replace")
    health = probe.times
    return {"load": load, "budget": budget, "budget_mb": budget_mb(budget), "peak_rss_mb": peak, "idle_rss_mb": idle,
            "statuses": dict(statuses), "seconds": elapsed, "slowest_s": max(r[2] for r in results),
            "health_median_ms": statistics.median(health) if health else None, "health_max_ms": max(health, default=None),
            "health_checks": len(health), "health_failures": probe.failures, "crashed": crashed,
            "tcp_buffers_peak_mb": probe.tcp_peak - probe.tcp_start, "note": note, "samples": samples, "log": str(log_path)}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--binary", default=str(ROOT / ".build" / "release" / "imagery-server"))
    parser.add_argument("--budgets", default="512MiB,384MiB", help="--max-memory values, comma-separated")
    parser.add_argument("--only", action="append", choices=LOADS, help="run this load only (repeatable)")
    parser.add_argument("--timeout", type=int, default=120, help="seconds each request may take")
    parser.add_argument("--info-placeholders", choices=["half", "all", "none"], default="half",
                        help="which /info requests ask th:1/bh:4:3 (a draft decode)")
    parser.add_argument("--slow-clients", type=int, default=512)
    parser.add_argument("--slow-side", type=int, default=300)
    parser.add_argument("--slow-format", default="", help="an output format for the slow load (png …)")
    parser.add_argument("--server-arg", action="append", default=[], help="an extra argument for every server (repeatable)")
    parser.add_argument("--logs", default="/tmp/imagery-memory-loads", help="where each server's log goes")
    parser.add_argument("--output", default=str(ROOT / "bench-out"))
    args = parser.parse_args()
    if not shutil.which("nginx") and not Path("/usr/sbin/nginx").exists():
        raise SystemExit("skipped: nginx is not installed")
    binary = Path(args.binary)
    if not binary.exists():
        raise SystemExit("build first: swift build -c release --traits AllFormats --product imagery-server")
    Path(args.logs).mkdir(parents=True, exist_ok=True)
    loads = args.only or LOADS

    work = Path(tempfile.mkdtemp(prefix="imagery-memory-loads-"))
    work.chmod(0o755)
    photos = work / "photos"
    photos.mkdir()
    started = time.monotonic()
    kinds = bomb_files(photos) if "bombs" in loads else []
    if "gif" in loads:
        make_gif(photos / "anim.gif")
        print(f"anim.gif: 100 frames of 800 x 600, {(photos / 'anim.gif').stat().st_size / 1e6:.1f} MB", flush=True)
    if "info" in loads:
        make_big_jpeg(photos / "big.jpg")
        print(f"big.jpg: 8660 x 5773, {(photos / 'big.jpg').stat().st_size / 1e6:.1f} MB", flush=True)
    if "slow" in loads:
        Image.open(PHOTO).resize((1792, 1120), Image.LANCZOS).save(photos / "small.jpg", quality=90)
    for path in photos.iterdir():
        path.chmod(0o644)
    print(f"sources made in {time.monotonic() - started:.0f} s", flush=True)
    origin_process, origin_port = photo_origin(work)
    origin = f"http://127.0.0.1:{origin_port}"
    rows = []
    try:
        wait_for(origin + "/" + next(photos.iterdir()).name)
        for load in loads:
            for budget in args.budgets.split(","):
                print(f"{load} at {budget} …", flush=True)
                row = run(load, budget, binary, origin, args, kinds)
                rows.append(row)
                print(json.dumps(row), flush=True)
    finally:
        origin_process.send_signal(signal.SIGTERM)
        origin_process.wait(timeout=20)
        shutil.rmtree(work, ignore_errors=True)

    names = {"gif": "32 variants of a 100-frame GIF", "bombs": "16 SVG + 16 TIFF bombs",
             "info": f"64 /info of 50 MP JPEGs, th/bh: {args.info_placeholders}", "slow": f"{args.slow_clients} slow readers, {args.slow_side} px {args.slow_format or 'jpeg'}"}
    lines = ["| Load | Budget | peak RSS MB | idle RSS MB | 200 | 503 | 4xx | no answer | other | s | /health median / max ms |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        s = r["statuses"]
        four = sum(n for k, n in s.items() if 400 <= k < 500)
        other = {("200 cut short" if k == -200 else k): n for k, n in s.items() if k not in (200, 503, 0) and not 400 <= k < 500}
        peak = r["peak_rss_mb"]
        flag = " (over)" if peak > r["budget_mb"] else ""
        lines.append(f"| {names[r['load']]} | {r['budget']} ({r['budget_mb']:.0f} MB) | **{peak:.0f}**{flag} | {r['idle_rss_mb']:.0f} | "
                     f"{s.get(200, 0)} | {s.get(503, 0)} | {four} | {s.get(0, 0)} | {', '.join(f'{n}x{k}' for k, n in other.items()) or 0} | "
                     f"{r['seconds']:.1f} | {r['health_median_ms'] or 0:.1f} / {r['health_max_ms'] or 0:.0f} |")
    notes = [f"- {names[r['load']]} at {r['budget']}: {r['note']}; kernel TCP buffers +{r['tcp_buffers_peak_mb']:.0f} MB at most" + (f"; CRASHED (exit {r['crashed']})" if r["crashed"] is not None else "")
             for r in rows]
    output = Path(args.output)
    output.mkdir(parents=True, exist_ok=True)
    (output / "memory-loads.json").write_text(json.dumps(rows, indent=2))
    (output / "memory-loads.md").write_text("\n".join(lines + [""] + notes) + "\n")
    print("\n".join(lines + [""] + notes))


if __name__ == "__main__":
    main()
