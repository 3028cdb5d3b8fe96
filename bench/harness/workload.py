"""Workloads are data (one TOML file each in bench/workloads/); this module
loads them, checks that they are complete, and expands them into cases."""
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

ENGINES = ("strata", "chdb", "duckdb")
SIZE_UNITS = {"": 1, "b": 1, "kib": 1 << 10, "mib": 1 << 20, "gib": 1 << 30, "tib": 1 << 40,
              "kb": 10**3, "mb": 10**6, "gb": 10**9, "tb": 10**12}


@dataclass
class Workload:
    name: str
    description: str
    scales: dict          # scale name -> N, or a list of N for a size sweep
    sql: dict             # engine -> SQL template with {n}
    expected: str | None  # exact TSV output, a template with {n} arithmetic
    check: str | None     # a Python expression over `rows` and `n` that must be true
    compare_columns: list = field(default_factory=list)  # columns compared across engines
    tolerance: float = 0.0  # relative tolerance of that comparison (approximate functions)
    memory_limits: list = field(default_factory=list)   # limits swept by --memory-limit sweep

    def sizes(self, scale):
        value = self.scales[scale]
        return list(value) if isinstance(value, list) else [value]


def parse_size(text):
    """'2GiB', '500MB', '1e9', 1073741824 -> bytes."""
    if isinstance(text, int):
        return text
    match = re.fullmatch(r"\s*([0-9.e+]+)\s*([a-zA-Z]*)\s*", str(text))
    if not match or match.group(2).lower() not in SIZE_UNITS:
        raise ValueError(f"not a size: {text!r}")
    return int(float(match.group(1)) * SIZE_UNITS[match.group(2).lower()])


def load(path):
    path = Path(path)
    data = tomllib.loads(path.read_text())
    known = {"name", "description", "scales", "sql", "expected", "check", "compare", "memory_limits"}
    unknown = set(data) - known
    if unknown:
        raise ValueError(f"{path.name}: unknown keys {sorted(unknown)}")
    for key in ("name", "scales", "sql"):
        if key not in data:
            raise ValueError(f"{path.name}: missing '{key}'")
    missing = [e for e in ENGINES if e not in data["sql"]]
    if missing:
        raise ValueError(f"{path.name}: no SQL for {missing}")
    if "expected" not in data and "check" not in data:
        raise ValueError(f"{path.name}: needs 'expected' or 'check' so wrong answers are caught")
    for scale in ("small", "full"):
        if scale not in data["scales"]:
            raise ValueError(f"{path.name}: missing scale '{scale}'")
    compare = data.get("compare", {})
    limits = [parse_size(x) for x in data.get("memory_limits", [])]
    return Workload(name=data["name"], description=data.get("description", ""), scales=data["scales"],
                    sql=data["sql"], expected=data.get("expected"), check=data.get("check"),
                    compare_columns=compare.get("columns", []), tolerance=compare.get("tolerance", 0.0),
                    memory_limits=limits)


def load_all(directory):
    return [load(p) for p in sorted(Path(directory).glob("*.toml"))]
