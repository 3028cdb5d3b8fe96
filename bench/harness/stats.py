"""Summary statistics of repeated runs."""
import statistics


def summarize(values):
    values = [v for v in values if v is not None]
    if not values:
        return None
    return {"min": min(values), "median": statistics.median(values), "max": max(values),
            "stdev": statistics.stdev(values) if len(values) > 1 else 0.0, "count": len(values)}


def ratio(value, baseline):
    """How many times `value` is `baseline` (above 1: slower or bigger than the baseline)."""
    if value is None or not baseline:
        return None
    return value / baseline
