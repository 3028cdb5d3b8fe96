"""A description of the machine a run was measured on, including the memory
the benchmark process may really use (its cgroup limit), not just RAM."""
import os
import platform
from pathlib import Path

UNLIMITED_V1 = 1 << 62  # cgroup v1 reports "no limit" as a huge page-rounded number


def cgroup_memory_limit(proc_cgroup="/proc/self/cgroup", root="/sys/fs/cgroup"):
    """The memory limit of this process's cgroup in bytes, or None when unlimited
    or unknown. Reads v2 memory.max, or v1 memory.limit_in_bytes."""
    try:
        lines = Path(proc_cgroup).read_text().splitlines()
    except OSError:
        return None
    for line in lines:
        hierarchy, controllers, path = line.split(":", 2)
        path = path.lstrip("/")
        if hierarchy == "0" and controllers == "":
            for base in (Path(root), Path(root) / "unified"):
                limit = _read_limit(base / path / "memory.max")
                if limit is not None:
                    return limit
        elif "memory" in controllers.split(","):
            for candidate in (Path(root) / "memory" / path, Path(root) / "memory"):
                limit = _read_limit(candidate / "memory.limit_in_bytes")
                if limit is not None:
                    return limit
    return None


def _read_limit(file):
    try:
        text = file.read_text().strip()
    except OSError:
        return None
    if text == "max":
        return None
    value = int(text)
    return None if value >= UNLIMITED_V1 else value


def describe():
    cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "?")
    mem = next((int(l.split()[1]) * 1024 for l in open("/proc/meminfo") if l.startswith("MemTotal")), 0)
    return {"cpu": cpu, "cores": os.cpu_count(), "memory_bytes": mem,
            "cgroup_memory_limit": cgroup_memory_limit(), "platform": platform.platform(),
            "python": platform.python_version()}
