"""Runs a benchmark's commands pinned to core 0, so each tool gets one core and the same one."""
import subprocess
import time


def pinned(command):
    return ["taskset", "-c", "0"] + command


def timed(command, env=None):
    """Wall seconds of one pinned run of `command`, its output discarded; a failure raises."""
    started = time.perf_counter()
    subprocess.run(pinned(command), check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    return time.perf_counter() - started
