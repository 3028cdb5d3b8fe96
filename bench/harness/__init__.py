"""The benchmark harness behind bench/run.py: workloads as data, engines as
command lines, one fresh process per measured query, and reports as ratios."""
