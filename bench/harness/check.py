"""Is an answer right? Against the workload's expectation, and against the
other engines, with a relative tolerance for approximate functions."""


def parse_rows(text):
    return [line.split("\t") for line in text.strip().splitlines()] if text.strip() else []


def number(cell):
    try:
        return float(cell)
    except ValueError:
        return None


def evaluate(template, n):
    """Expected values are templates over the scale, e.g. '{n} * ({n} - 1) // 2'."""
    return str(eval(template.format(n=n), {"__builtins__": {}}, {}))


def check_expected(workload, n, output):
    """None when the output is right, else a description of what is wrong."""
    rows = parse_rows(output)
    if workload.expected is not None:
        want = evaluate(workload.expected, n)
        if output.strip() != want:
            return f"got {output.strip()[:200]!r}, expected {want!r}"
    if workload.check is not None:
        typed = [[number(c) if number(c) is not None else c for c in row] for row in rows]
        # Names go in globals: a generator expression in the rule cannot see locals.
        env = {"__builtins__": {}, "rows": typed, "n": n, "abs": abs, "all": all, "any": any, "len": len}
        if not eval(workload.check, env):
            return f"check failed: {workload.check} (first rows: {rows[:3]})"
    return None


def compare(reference, other, columns, tolerance):
    """Compares two engines' outputs row by row on the given columns (all when
    empty). None when they agree, else the first difference."""
    a, b = parse_rows(reference), parse_rows(other)
    if len(a) != len(b):
        return f"{len(a)} rows against {len(b)}"
    for i, (ra, rb) in enumerate(zip(a, b)):
        if len(ra) != len(rb):
            return f"row {i + 1}: {len(ra)} columns against {len(rb)}"
        for c in columns or range(len(ra)):
            x, y = ra[c], rb[c]
            if x == y:
                continue
            fx, fy = number(x), number(y)
            if fx is None or fy is None:
                return f"row {i + 1}, column {c + 1}: {x!r} against {y!r}"
            scale = max(abs(fx), abs(fy), 1e-300)
            if abs(fx - fy) / scale > tolerance:
                return f"row {i + 1}, column {c + 1}: {x} against {y} (tolerance {tolerance:.0%})"
    return None
