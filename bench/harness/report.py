"""What a run shows: a terminal table of medians with ratios to Strata, a JSON
file of every run, and PNG plots where a picture is clearer."""
import json
from pathlib import Path


def human_bytes(n):
    if n is None:
        return "-"
    for unit in ("B", "KiB", "MiB", "GiB"):
        if n < 1024 or unit == "GiB":
            return f"{n:.1f} {unit}" if unit != "B" else f"{n} B"
        n /= 1024


def human_count(n):
    exponent = len(str(n)) - 1
    return f"1e{exponent}" if n == 10**exponent else str(n)


def seconds(value):
    return "-" if value is None else f"{value:.3f}"


def times(value):
    return "-" if value is None else f"{value:.2f}x"


HEADER = (f"{'workload':<26} {'N':>6} {'mem limit':>10} {'engine':<7} {'query s':>8} {'min':>7} {'max':>7} "
          f"{'process s':>9} {'peak RSS':>10} {'time/strata':>11} {'RSS/strata':>10}  status")


def row(result):
    q = result["query_seconds"] or {}
    w = result["wall_seconds"] or {}
    return (f"{result['workload']:<26} {human_count(result['n']):>6} "
            f"{human_bytes(result['memory_limit']) if result['memory_limit'] else 'none':>10} "
            f"{result['engine']:<7} {seconds(q.get('median')):>8} {seconds(q.get('min')):>7} {seconds(q.get('max')):>7} "
            f"{seconds(w.get('median')):>9} {human_bytes(result['peak_rss']):>10} "
            f"{times(result['time_ratio']):>11} {times(result['rss_ratio']):>10}  {result['status']}")


def markdown_table(results, machine, versions, date):
    lines = [f"Measured {date} on {machine['cpu']}, {machine['cores']} cores, "
             f"{human_bytes(machine['memory_bytes'])} RAM; "
             + ", ".join(f"{k} {v}" for k, v in versions.items()) + ".", "",
             "| workload | N | engine | median query s | peak RSS | time / Strata | status |",
             "|---|---|---|---|---|---|---|"]
    for r in results:
        q = (r["query_seconds"] or {}).get("median")
        lines.append(f"| {r['workload']} | {human_count(r['n'])} | {r['engine']} | {seconds(q)} | "
                     f"{human_bytes(r['peak_rss'])} | {times(r['time_ratio'])} | {r['status']} |")
    return "\n".join(lines)


def write_json(path, report):
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(report, indent=2))


def plot(results, directory):
    """One PNG per workload swept over memory limits or data sizes; returns the paths."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    written = []
    by_workload = {}
    for r in results:
        by_workload.setdefault(r["workload"], []).append(r)
    for name, rows in by_workload.items():
        for axis, label, other in (("memory_limit", "memory limit (bytes)", "n"), ("n", "N (rows)", "memory_limit")):
            values = {r[axis] for r in rows if r[axis]}
            if len(values) < 2:
                continue
            fig, ax = plt.subplots(figsize=(7, 4.5))
            for engine in sorted({r["engine"] for r in rows}):
                points = sorted((r[axis], (r["query_seconds"] or {}).get("median"), r["status"])
                                for r in rows if r["engine"] == engine and r[axis])
                ok = [(x, y) for x, y, s in points if s == "ok" and y is not None]
                failed = [x for x, y, s in points if s != "ok"]
                line = ax.plot([p[0] for p in ok], [p[1] for p in ok], marker="o", label=engine)[0]
                if failed:
                    top = max([p[1] for p in ok], default=1.0)
                    ax.scatter(failed, [top * 1.1] * len(failed), marker="x", color=line.get_color(),
                               label=f"{engine}: failed")
            ax.set_xscale("log")
            ticks = sorted(values)
            ax.set_xticks(ticks, [human_bytes(v) if axis == "memory_limit" else human_count(v) for v in ticks])
            ax.minorticks_off()
            if axis == "n":
                ax.set_yscale("log")
            ax.set_xlabel(label)
            ax.set_ylabel("median query seconds")
            ax.set_title(f"{name}: time against {'memory limit' if axis == 'memory_limit' else 'data size'}")
            ax.grid(True, which="both", alpha=0.3)
            ax.legend()
            path = Path(directory) / f"{name}-{'memory' if axis == 'memory_limit' else 'size'}.png"
            path.parent.mkdir(parents=True, exist_ok=True)
            fig.tight_layout()
            fig.savefig(path, dpi=110)
            plt.close(fig)
            written.append(path)
    return written
