#!/usr/bin/env python3
"""Loads imagery-server's demo page in headless Chromium and reports every image on it; or, with
--scripts, opens documents and reports whether any script in them ran.

Usage: scripts/check-demo-page.py http://127.0.0.1:PORT/ [screenshot.png]
       scripts/check-demo-page.py --scripts URL [URL ...]

With --scripts, each URL is opened as the page itself (an SVG's scripts run only there, not in
an <img>), and it prints {"pages": [{"url": ..., "root": "svg", "ran": [...]}], "starts": N}:
the root element's name, and which markers the document's scripts set on it (a script sets
data-ran, an event handler data-onload; see the SVG tests). It exits 0 once every page has been
read, whatever ran: the test judges.

Prints one JSON object: {"images": N, "loaded": N, "pending": N, "broken": [src, ...],
"statuses": {src: status}, "title": "...", "starts": N} (pending: still loading when the wait
ended; statuses: what the server answers each broken one with when asked again; starts: the
attempts it took to start the browser), and exits 0 when the page has images
and all of them loaded (naturalWidth > 0), 1 when any did not, 2 when the browser could not be
started in four attempts, each with a fresh profile (the output says why each failed). Only the
given loopback URL is visited; the page's own images are served by the same server.
"""
import json
import os
import sys
import shutil
import tempfile
import time
from urllib.error import HTTPError
from urllib.parse import urljoin, urlparse
from urllib.request import Request, urlopen

from selenium import webdriver
from selenium.common.exceptions import TimeoutException, WebDriverException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.support.ui import WebDriverWait

# Every <img> has either finished (complete) or failed; naturalWidth is 0 for a failed one.
COLLECT = """
const images = Array.from(document.images);
return {
  title: document.title,
  total: images.length,
  pending: images.filter(i => !i.complete).length,
  broken: images.filter(i => i.complete && i.naturalWidth === 0).map(i => i.getAttribute('src')),
  loaded: images.filter(i => i.complete && i.naturalWidth > 0).length,
};
"""


# How long a page may take after its HTML (the --scripts pages).
IMAGE_WAIT = 200

# The demo page's images: the wait goes on while they keep arriving, and ends when none has
# finished for STALL seconds (a server that stopped answering), or after IMAGE_WAIT_MAX in all.
# A loaded machine (the test suite runs beside it) slows every image, not only the last ones.
STALL = 120
IMAGE_WAIT_MAX = 420

# Resolves when the next image still loading finishes, loaded or failed; at once when none is.
# A script runs to its end before any load or error event is dispatched, so none is missed.
NEXT_IMAGE = """
const done = arguments[arguments.length - 1];
const loading = Array.from(document.images).filter(i => !i.complete);
if (loading.length === 0) { done(0); return; }
Promise.race(loading.map(i => new Promise(finished => {
  i.addEventListener('load', finished, {once: true});
  i.addEventListener('error', finished, {once: true});
}))).then(() => done(loading.length - 1));
"""


def status_of(url, path):
    """The status the server answers a broken image's path with, asked again outside the browser,
    so a failure says whether the server refused it or the browser could not use it."""
    try:
        with urlopen(Request(urljoin(url, path), headers={"Accept": "image/webp,image/png,image/jpeg"}), timeout=60) as reply:
            return reply.status
    except HTTPError as error:
        return error.code
    except Exception as error:  # noqa: BLE001 - reported, not raised
        return type(error).__name__


def start(flags):
    """Starts Chromium through chromedriver, trying a failed start again up to three times, each
    with a fresh profile (a profile a crashed start left behind can make the next one fail).
    Returns the driver, the attempts it took, why each failed attempt failed (the error and the
    last lines of chromedriver's log) and its profile; the driver is None when all four failed."""
    failures = []
    for attempt in (1, 2, 3, 4):
        profile = tempfile.mkdtemp(prefix="chromium-profile-")
        options = webdriver.ChromeOptions()
        options.binary_location = "/usr/bin/chromium"
        options.page_load_strategy = "eager"
        for flag in flags + (f"--user-data-dir={profile}",):
            options.add_argument(flag)
        with tempfile.NamedTemporaryFile(prefix="chromedriver-", suffix=".log", delete=False) as log:
            log_path = log.name
        try:
            service = Service("/usr/bin/chromedriver", log_output=log_path)
            return webdriver.Chrome(options=options, service=service), attempt, failures, profile
        except Exception as error:  # noqa: BLE001 - any failure to start is reported, not raised
            first_line = (str(error).strip().splitlines() or [type(error).__name__])[0]
            with open(log_path, encoding="utf-8", errors="replace") as log:
                tail = [line.strip() for line in log.read().splitlines()[-3:]]
            failures.append({"attempt": attempt, "error": first_line, "chromedriver_log": tail})
            shutil.rmtree(profile, ignore_errors=True)
        finally:
            os.unlink(log_path)
    return None, 4, failures, None


# What a document's scripts left on its root element, once it has loaded.
MARKERS = """
const root = document.documentElement;
return {
  href: location.href,
  complete: document.readyState === 'complete',
  root: root ? root.localName : null,
  ran: root ? ['data-ran', 'data-onload'].filter(name => root.hasAttribute(name)) : [],
};
"""


def browser_failed(error):
    """One JSON line whatever went wrong, so the test reports it instead of an empty output."""
    return json.dumps({"error": "the browser failed", "detail": str(error).splitlines()[0] if str(error) else type(error).__name__})


def opened(driver, url):
    """Opens url as the page and reads MARKERS once it has loaded (IMAGE_WAIT at most). The
    previous page is left first, so a slow answer is never read as the page before it; href
    says which document was read."""
    driver.get("about:blank")
    try:
        driver.get(url)
    except TimeoutException:
        pass
    try:
        WebDriverWait(driver, IMAGE_WAIT).until(
            lambda d: (lambda state: state["href"] == url and state["complete"])(d.execute_script(MARKERS)))
    except TimeoutException:
        pass
    state = driver.execute_script(MARKERS)
    return {"url": url, "href": state["href"], "root": state["root"], "ran": state["ran"], "complete": state["complete"]}


def demo_page(driver, url):
    """Opens the demo page and reads COLLECT once its images have loaded or the wait ran out."""
    # A page-load timeout stops the page, and Chromium then marks every image still loading
    # as failed: on a loaded machine that reported slow images as broken. So get() returns at
    # DOMContentLoaded ("eager"), and the wait covers the images themselves, giving up
    # (reporting them as pending, not broken) once they stop arriving.
    try:
        driver.get(url)
    except TimeoutException:
        pass
    deadline = time.monotonic() + IMAGE_WAIT_MAX
    while time.monotonic() < deadline and driver.execute_script(COLLECT)["pending"] > 0:
        driver.set_script_timeout(max(1, min(STALL, deadline - time.monotonic())))
        try:
            driver.execute_async_script(NEXT_IMAGE)
        except TimeoutException:
            break
    state = driver.execute_script(COLLECT)
    if len(sys.argv) > 2:
        height = driver.execute_script("return document.documentElement.scrollHeight")
        driver.set_window_size(1100, min(height + 40, 4000))
        driver.save_screenshot(sys.argv[2])
    return state


def main() -> int:
    scripts = sys.argv[1] == "--scripts"
    urls = sys.argv[2:] if scripts else sys.argv[1:2]
    for url in urls:
        host = urlparse(url).hostname
        if host not in ("127.0.0.1", "localhost", "::1"):
            print(json.dumps({"error": f"refusing a non-loopback URL: {host}"}))
            return 2
    url = urls[0]
    flags = ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
             "--no-first-run", "--disable-background-networking", "--disable-extensions",
             "--disable-component-update", "--disable-sync", "--disable-default-apps")
    driver, starts, failures, profile = start(flags)
    if driver is None:
        print(json.dumps({"error": "could not start chromium", "attempts": failures}))
        return 2
    try:
        driver.set_page_load_timeout(60)
        if scripts:
            pages = [opened(driver, each) for each in urls]
        else:
            state = demo_page(driver, url)
    except WebDriverException as error:
        print(browser_failed(error))
        return 3
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)
    if scripts:
        print(json.dumps({"pages": pages, "starts": starts}))
        return 0
    statuses = {path: status_of(url, path) for path in state["broken"]}
    print(json.dumps({"title": state["title"], "images": state["total"], "loaded": state["loaded"],
                      "pending": state["pending"], "broken": state["broken"], "statuses": statuses,
                      "starts": starts}))
    return 0 if state["total"] and state["loaded"] == state["total"] else 1


if __name__ == "__main__":
    sys.exit(main())
