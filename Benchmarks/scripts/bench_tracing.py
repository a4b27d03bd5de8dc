#!/usr/bin/env python3
"""imagery-server with OpenTelemetry traces on (100% sampling, a collector on loopback) against
off, in one run on this machine, with wrk.

Usage: Benchmarks/scripts/bench_tracing.py --binary PATH [--corpus DIR] [--seconds 15] [--repeats 3] [--discarding] [--output bench-out]
       (build first: swift build -c release --product imagery-server --traits AllFormats,OpenTelemetry;
        needs wrk, nginx, and `pip install opentelemetry-proto`)

The setting is bench_server.py's: 6 photos from a loopback nginx origin, a fit into a box of
400-560 px, JPEG quality 80.

- cold: every URL distinct, 8 connections, so every request downloads, decodes, resizes and
  encodes (the spans of every stage are made and sent);
- hot: 48 URLs fetched once first, then 64 connections: every answer comes from the response
  cache (the request's span and the memory tier's).

Off and on alternate, `--repeats` times each, on one server process per run; the medians are
compared. With tracing on, the server sends OTLP/HTTP protobuf to a collector in this script's
process family (Python's opentelemetry-proto decoding every export, as a real collector would
parse it), on the same cores. With --discarding, a third mode sends to a receiver that reads
each export and answers without decoding it: the server's own cost, without the collector's.
Every process binds 127.0.0.1 and is stopped by its PID.

Writes OUTPUT/tracing.json, OUTPUT/tracing.md and OUTPUT/tracing.png (a chart); --replot JSON
draws the chart of an earlier run's tracing.json again.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import urllib.request
from pathlib import Path
from statistics import median

sys.path.insert(0, str(Path(__file__).resolve().parent))
from PIL import Image, ImageDraw, ImageFont  # noqa: E402

from bench_server import HOT_SIZES, PHOTOS, ROOT, Server, free_port, origin_server, prepare, wrk  # noqa: E402

COLLECTOR = r"""
import http.server, sys, threading
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest, ExportTraceServiceResponse
count = 0
lock = threading.Lock()
DISCARD = sys.argv[2] == "discard"
class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def do_POST(self):
        global count
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        if DISCARD:
            spans = 0
        else:
            request = ExportTraceServiceRequest.FromString(body)
            spans = sum(len(s.spans) for r in request.resource_spans for s in r.scope_spans)
        with lock:
            count += spans
        data = ExportTraceServiceResponse().SerializeToString()
        self.send_response(200)
        self.send_header("Content-Type", "application/x-protobuf")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)
    def do_GET(self):
        data = str(count).encode()
        self.send_response(200)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)
    def log_message(self, *arguments):
        pass
server = http.server.ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), Handler)
server.serve_forever()
"""


def chart(summary, path):
    """Cold and hot req/s of each mode, as a share of off's, with the figures."""
    font, small = ImageFont.load_default(size=15), ImageFont.load_default(size=13)
    modes = list(summary)
    colours = [(31, 119, 180), (255, 160, 60), (122, 178, 222)]
    left, width, bar, gap = 150, 560, 20, 24
    rows = [("cold req/s", "cold_rps"), ("hot req/s", "hot_rps")]
    image = Image.new("RGB", (left + width + 170, 60 + len(rows) * (len(modes) * bar + gap) + 24 * len(modes)), "white")
    draw = ImageDraw.Draw(image)
    draw.text((10, 10), "imagery-server, OpenTelemetry traces off and on (share of off's req/s; more is better)", fill="black", font=font)
    y = 45
    for label, key in rows:
        draw.text((10, y + 4), label, fill="black", font=small)
        for index, mode in enumerate(modes):
            share = summary[mode][key] / summary["off"][key]
            length = int(width * min(share, 1.2) / 1.2)
            draw.rectangle([left, y, left + length, y + bar - 4], fill=colours[index % len(colours)])
            draw.text((left + length + 6, y + 2), f"{summary[mode][key]:,.1f} ({share:.2f}x)", fill="black", font=small)
            y += bar
        y += gap
    for index, mode in enumerate(modes):
        draw.rectangle([10, y + 4, 24, y + 16], fill=colours[index % len(colours)])
        draw.text((32, y + 2), f"traces {mode}", fill="black", font=small)
        y += 24
    image.save(path)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", help="imagery-server built with --traits OpenTelemetry")
    parser.add_argument("--replot", help="an earlier run's tracing.json: draw its chart again, and run nothing")
    parser.add_argument("--corpus", default=str(ROOT.parent / "shared" / "corpus"))
    parser.add_argument("--seconds", type=int, default=15)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--discarding", action="store_true", help="also run against a receiver that does not decode")
    parser.add_argument("--output", default=str(ROOT / "bench-out"))
    args = parser.parse_args()
    output = Path(args.output)
    if args.replot:
        output.mkdir(parents=True, exist_ok=True)
        chart(json.loads(Path(args.replot).read_text())["summary"], output / "tracing.png")
        return
    if not args.binary:
        raise SystemExit("--binary: an imagery-server built with --traits OpenTelemetry")
    binary, work, script = prepare(Path(args.corpus), ("wrk", "nginx"), "imagery-bench-tracing-", binary=args.binary)
    binary = str(binary.resolve())
    output.mkdir(parents=True, exist_ok=True)
    origin_process, origin_port = origin_server(work)
    port = free_port()
    collectors = {"on": ("parse", free_port())}
    if args.discarding:
        collectors["on, discarding"] = ("discard", free_port())
    receivers = [Server(f"collector ({how})", [sys.executable, "-c", COLLECTOR, str(cport), how], "", f"http://127.0.0.1:{cport}/")
                 for how, cport in collectors.values()]
    template = f"/insecure/rs:fit:{{w}}:{{h}}/plain/http://127.0.0.1:{origin_port}/{{name}}@jpg"
    base = f"http://127.0.0.1:{port}"
    modes = ["off"] + list(collectors)
    runs = {mode: [] for mode in modes}
    origin_process.start()
    for receiver in receivers:
        receiver.start()
    try:
        for repeat in range(args.repeats):
            for mode in modes:
                command = [binary, "--port", str(port), "--allow-loopback-sources", "--quality", "80"]
                collector_port = collectors.get(mode, ("", 0))[1]
                if mode != "off":
                    command += ["--open-telemetry-enable", "--otel-exporter-otlp-protocol", "http/protobuf",
                                "--otel-exporter-otlp-endpoint", f"http://127.0.0.1:{collector_port}", "--otel-bsp-schedule-delay", "1000"]
                server = Server(f"tracing {mode}", command, template, f"{base}/health")
                before = int(urllib.request.urlopen(f"http://127.0.0.1:{collector_port}/").read()) if collector_port else 0
                server.start()
                try:
                    index = len(runs[mode]) * len(modes) + modes.index(mode)
                    cold = wrk(server, base, 8, args.seconds, False, script, offset=1 + 60_000 * index)
                    for size in HOT_SIZES:
                        for name in PHOTOS:
                            urllib.request.urlopen(base + server.path(name, size, size), timeout=120).read()
                    hot = wrk(server, base, 64, max(10, args.seconds // 2), True, script)
                finally:
                    server.stop()   # SIGTERM: the exporter flushes before the process ends
                spans = int(urllib.request.urlopen(f"http://127.0.0.1:{collector_port}/").read()) - before if collector_port else 0
                runs[mode].append({"cold": cold, "hot": hot, "spans": spans})
                print(f"== {mode} #{repeat + 1}: cold {cold['rps']:.1f} req/s, hot {hot['rps']:,.0f} req/s, "
                      f"{spans} spans received, failed {cold['failed'] + hot['failed']}", flush=True)
    finally:
        for receiver in receivers:
            receiver.stop()
        origin_process.stop()
        shutil.rmtree(work, ignore_errors=True)

    summary = {}
    for mode, results in runs.items():
        summary[mode] = {
            "cold_rps": median(r["cold"]["rps"] for r in results), "hot_rps": median(r["hot"]["rps"] for r in results),
            "cold_p50_ms": median(r["cold"]["p50_ms"] for r in results), "hot_p50_ms": median(r["hot"]["p50_ms"] for r in results),
            "spans": sum(r["spans"] for r in results), "failed": sum(r["cold"]["failed"] + r["hot"]["failed"] for r in results),
        }
    machine = f"{os.cpu_count()} cores, {os.uname().sysname} {os.uname().release}"
    (output / "tracing.json").write_text(json.dumps({"machine": machine, "seconds": args.seconds, "runs": runs, "summary": summary}, indent=2))
    lines = [
        f"imagery-server with traces off and on ({machine}; wrk and the collector on the same cores; {args.repeats} runs each, alternating; "
        f"medians; cold {args.seconds} s at 8 connections, hot at 64)", "",
        "| Traces | cold req/s | cold p50 ms | hot req/s | hot p50 ms | spans received | failed |",
        "|---|---|---|---|---|---|---|",
    ]
    for mode in modes:
        s = summary[mode]
        lines.append(f"| {mode} | {s['cold_rps']:.1f} | {s['cold_p50_ms']:.0f} | {s['hot_rps']:,.0f} | {s['hot_p50_ms']:.1f} | {s['spans']:,} | {s['failed']} |")
    lines.append("")
    for mode in modes[1:]:
        cold_ratio = summary[mode]["cold_rps"] / summary["off"]["cold_rps"]
        hot_ratio = summary[mode]["hot_rps"] / summary["off"]["hot_rps"]
        lines.append(f"{mode} against off: cold {cold_ratio:.3f}x the requests per second ({(1 - cold_ratio) * 100:.1f}% slower), "
                     f"hot {hot_ratio:.3f}x ({(1 - hot_ratio) * 100:.1f}% slower).")
    (output / "tracing.md").write_text("\n".join(lines) + "\n")
    chart(summary, output / "tracing.png")
    print("\n".join(lines))


if __name__ == "__main__":
    sys.exit(main())
