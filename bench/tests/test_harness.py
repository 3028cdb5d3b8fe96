"""Tests of the benchmark harness's own logic; they run in CI (scripts/test.sh),
the benchmarks themselves do not."""
import sys
import tempfile
import unittest
from pathlib import Path

BENCH = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(BENCH))

from harness import check, engines, machine, measure, stats, workload  # noqa: E402


def write(directory, name, text):
    path = Path(directory) / name
    path.write_text(text)
    return path


class WorkloadFiles(unittest.TestCase):
    def test_every_shipped_workload_loads_and_checks_its_answers(self):
        loaded = workload.load_all(BENCH / "workloads")
        self.assertGreaterEqual(len(loaded), 9)
        names = [w.name for w in loaded]
        self.assertEqual(len(names), len(set(names)))
        for w in loaded:
            self.assertTrue(w.expected or w.check, w.name)
            for engine in workload.ENGINES:
                self.assertIn("{n}", w.sql[engine], (w.name, engine))

    def test_incomplete_workloads_are_refused(self):
        with tempfile.TemporaryDirectory() as d:
            no_duckdb = write(d, "a.toml", 'name = "a"\nexpected = "1"\n[scales]\nsmall = 1\nfull = 2\n'
                              '[sql]\nstrata = "x"\nchdb = "x"\n')
            with self.assertRaisesRegex(ValueError, "no SQL for \\['duckdb'\\]"):
                workload.load(no_duckdb)
            unchecked = write(d, "b.toml", 'name = "b"\n[scales]\nsmall = 1\nfull = 2\n'
                              '[sql]\nstrata = "x"\nchdb = "x"\nduckdb = "x"\n')
            with self.assertRaisesRegex(ValueError, "needs 'expected' or 'check'"):
                workload.load(unchecked)
            typo = write(d, "c.toml", 'name = "c"\nexpect = "1"\n')
            with self.assertRaisesRegex(ValueError, "unknown keys \\['expect'\\]"):
                workload.load(typo)

    def test_sizes(self):
        self.assertEqual(workload.parse_size("2GiB"), 2 << 30)
        self.assertEqual(workload.parse_size("500MB"), 500_000_000)
        self.assertEqual(workload.parse_size("1e9"), 10**9)
        self.assertEqual(workload.parse_size(4096), 4096)
        with self.assertRaises(ValueError):
            workload.parse_size("2 parsecs")


class Answers(unittest.TestCase):
    def make(self, expected=None, rule=None):
        return workload.Workload(name="w", description="", scales={}, sql={}, expected=expected, check=rule)

    def test_expected_value_is_arithmetic_on_the_scale(self):
        w = self.make(expected="{n} * ({n} - 1) // 2")
        self.assertIsNone(check.check_expected(w, 10, "45\n"))
        self.assertIn("expected '45'", check.check_expected(w, 10, "44\n"))

    def test_rule_over_rows(self):
        w = self.make(rule="len(rows) == 2 and all(r[1] == n // 2 for r in rows)")
        self.assertIsNone(check.check_expected(w, 10, "7\t5\n3\t5\n"))
        self.assertIsNotNone(check.check_expected(w, 10, "7\t5\n3\t4\n"))
        self.assertIsNotNone(check.check_expected(w, 10, "7\t5\n"))

    def test_engines_compared_within_tolerance_on_chosen_columns(self):
        self.assertIsNone(check.compare("1\t100\n", "9\t104\n", [1], 0.05))
        self.assertIn("tolerance", check.compare("1\t100\n", "9\t120\n", [1], 0.05))
        self.assertIn("column 1", check.compare("1\t100\n", "9\t100\n", [], 0.0))
        self.assertIn("rows", check.compare("1\n2\n", "1\n", [], 0.0))
        self.assertIsNone(check.compare("a\t1.0\n", "a\t1\n", [], 0.0))
        self.assertIn("'a' against 'b'", check.compare("a\n", "b\n", [], 0.5))


class Statistics(unittest.TestCase):
    def test_summary_and_ratio(self):
        s = stats.summarize([3.0, 1.0, 2.0, None, 10.0, 4.0])
        self.assertEqual((s["min"], s["median"], s["max"], s["count"]), (1.0, 3.0, 10.0, 5))
        self.assertIsNone(stats.summarize([None]))
        self.assertEqual(stats.ratio(6.0, 2.0), 3.0)
        self.assertIsNone(stats.ratio(1.0, None))


class Measurement(unittest.TestCase):
    def child(self, code):
        return measure.run_process([sys.executable, "-c", code], timeout=60)

    def test_peak_rss_is_the_childs_own(self):
        size = 256 << 20
        # bytearray(n) is zero-filled, so every page is touched and resident.
        big = self.child(f"import sys; b = bytearray({size}); sys.stderr.write('0.5\\n')")
        small = self.child("pass")
        self.assertIsNone(big.error)
        self.assertGreaterEqual(big.peak_rss, size)
        self.assertLess(big.peak_rss, size + (100 << 20))
        self.assertLess(small.peak_rss, 100 << 20)
        self.assertEqual(big.query_seconds, 0.5)
        self.assertGreater(big.wall_seconds, 0)

    def test_failures_and_timeouts_are_reported(self):
        failed = self.child("import sys; sys.stderr.write('Code: 241. boom\\n'); sys.exit(241)")
        self.assertIn("exit 241", failed.error)
        self.assertIn("Code: 241", failed.error)
        slow = measure.run_process([sys.executable, "-c", "import time; time.sleep(30)"], timeout=1)
        self.assertIn("timed out", slow.error)

    def test_output_larger_than_a_pipe_does_not_block(self):
        run = self.child("print('x' * 1_000_000)")
        self.assertIsNone(run.error)
        self.assertEqual(len(run.output.strip()), 1_000_000)


class Engines(unittest.TestCase):
    def test_memory_limit_reaches_every_engine(self):
        strata = engines.command("strata", "SELECT 1", 1 << 30, "/bin/strata")
        self.assertIn(f"--max_memory_usage={1 << 30}", strata)
        self.assertEqual(strata[-2:], ["-q", "SELECT 1"])
        self.assertNotIn("--max_memory_usage=0", engines.command("strata", "SELECT 1", 0, "/bin/strata"))
        for name in ("chdb", "duckdb"):
            argv = engines.command(name, "SELECT 1", 123, "/bin/strata", python="py")
            self.assertEqual(argv[0], "py")
            self.assertEqual(argv[-2:], ["SELECT 1", "123"])
        with self.assertRaises(ValueError):
            engines.command("sqlite", "SELECT 1", 0, "/bin/strata")


class CgroupLimit(unittest.TestCase):
    def fixture(self, proc, files):
        d = Path(tempfile.mkdtemp())
        write(d, "cgroup", proc)
        for rel, text in files.items():
            (d / "fs" / rel).parent.mkdir(parents=True, exist_ok=True)
            (d / "fs" / rel).write_text(text)
        return machine.cgroup_memory_limit(d / "cgroup", d / "fs")

    def test_v2_limit_and_max(self):
        self.assertEqual(self.fixture("0::/a/b\n", {"a/b/memory.max": "1073741824\n"}), 1 << 30)
        self.assertIsNone(self.fixture("0::/a/b\n", {"a/b/memory.max": "max\n"}))

    def test_v1_limit_and_unlimited(self):
        proc = "4:memory:/job/42\n1:cpu:/\n"
        self.assertEqual(self.fixture(proc, {"memory/job/42/memory.limit_in_bytes": "2147483648\n"}), 2 << 30)
        self.assertIsNone(self.fixture(proc, {"memory/job/42/memory.limit_in_bytes": "9223372036854771712\n"}))

    def test_missing_files_mean_unknown(self):
        self.assertIsNone(self.fixture("0::/\n", {}))


if __name__ == "__main__":
    unittest.main()


class MutationBenchmark(unittest.TestCase):
    def test_statements_target_distinct_rows_and_events_subtract(self):
        import mutations
        listed = mutations.statements(70_000_000)
        self.assertEqual(len(listed), 8)
        self.assertEqual(len({sql for _, sql, _ in listed}), 8)
        before = mutations.parse_events("ReadBufferFromFileDescriptorReadBytes\t10\n")
        after = mutations.parse_events("ReadBufferFromFileDescriptorReadBytes\t30\nMutationTotalParts\t2\n")
        change = mutations.delta(before, after)
        self.assertEqual(change["ReadBufferFromFileDescriptorReadBytes"], 20)
        self.assertEqual(change["MutationTotalParts"], 2)
        self.assertEqual(change["WriteBufferFromFileDescriptorWriteBytes"], 0)


class TpchBenchmark(unittest.TestCase):
    def test_all_queries_load_and_scale_q11(self):
        import tpch
        sf1, sf10 = tpch.queries(1, set()), tpch.queries(10, {11})
        self.assertEqual(sorted(sf1), list(range(1, 23)))
        self.assertIn("* 0.0001000000", sf1[11])
        self.assertEqual(list(sf10), [11])
        self.assertIn("* 0.0000100000", sf10[11])

    def test_answers_compare_by_value_and_shown_digits(self):
        import tpch
        self.assertIsNone(tpch.difference("A\t1.5\n", "A\t1.50\n"))
        self.assertIsNone(tpch.difference("1995\t0.0344\n", "1995\t0.03443589040665483\n"))
        self.assertIsNone(tpch.difference("25.522005853257337\n", "25.52200585325734\n"))
        self.assertIn("column 2", tpch.difference("A\t1.5\n", "A\t1.6\n"))
        self.assertIn("column 1", tpch.difference("A\t1\n", "B\t1\n"))
        self.assertIn("0.0347", tpch.difference("0.0347\n", "0.03443589\n"))
        self.assertEqual(tpch.difference("1\n2\n", "1\n"), "2 rows against 1")
        self.assertTrue(tpch.ordered_apart("1\t5.0\n2\t5.0\n", "2\t5\n1\t5\n"))
        self.assertFalse(tpch.ordered_apart("1\t5\n2\t5\n", "2\t5\n3\t5\n"))
