"""One query in one fresh process, measured by the OS: wall time around the
process, and its peak resident set from wait4 (the child's own, not ours)."""
import os
import subprocess
import tempfile
import time
from dataclasses import dataclass


@dataclass
class Run:
    wall_seconds: float
    query_seconds: float | None  # what the engine measured around the query alone
    peak_rss: int                # bytes
    output: str
    error: str | None            # None when the process exited 0


def run_process(argv, timeout=3600):
    # Output goes to files rather than pipes: a child blocked on a full pipe
    # would be timed waiting for us.
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        proc = subprocess.Popen(argv, stdout=out, stderr=err)
        deadline = start + timeout
        timed_out = False
        while True:
            pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                break
            if time.perf_counter() > deadline:
                timed_out = True
                proc.kill()
                _, status, usage = os.wait4(proc.pid, 0)
                break
            time.sleep(0.002)
        wall = time.perf_counter() - start
        code = os.waitstatus_to_exitcode(status)
        proc.returncode = code  # reaped by wait4; keeps Popen from waiting again
        out.seek(0)
        err.seek(0)
        stdout = out.read().decode(errors="replace")
        stderr = err.read().decode(errors="replace")
    query_seconds = None
    lines = stderr.strip().splitlines()
    if lines:
        try:
            query_seconds = float(lines[-1])
        except ValueError:
            pass
    error = None
    if timed_out:
        error = f"timed out after {timeout} s"
    elif code != 0:
        error = f"exit {code}: " + (stderr.strip()[-400:] or "no message")
    # ru_maxrss is in KiB on Linux.
    return Run(wall, query_seconds, usage.ru_maxrss * 1024, stdout, error)
