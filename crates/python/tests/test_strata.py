"""`import strata`: queries, formats, DataFrames in and out, errors, sessions,
spilling under a memory limit, and Ctrl-C. Run with the module that
scripts/python-dev.sh installs into .venv-clients."""

import os
import signal
import subprocess
import sys
import tempfile
import textwrap
import time
import unittest

import pandas as pd
import pyarrow as pa

import strata

try:
    import polars
except ImportError:  # scripts/setup.sh --tests installs it
    polars = None


class QueryTest(unittest.TestCase):
    def test_output_formats(self):
        self.assertEqual(strata.query("SELECT 1 AS x, 'a' AS s", "CSV"), b'1,"a"\n')
        self.assertEqual(strata.query("SELECT 1 AS x", "TabSeparatedWithNames"), b"x\n1\n")
        self.assertEqual(strata.query("SELECT number AS n FROM numbers(2)", "JSONEachRow"),
                         b'{"n":0}\n{"n":1}\n')
        self.assertTrue(strata.query("SELECT 1", "Parquet").startswith(b"PAR1"))
        # FORMAT in the statement wins, as in clickhouse-local.
        self.assertEqual(strata.query("SELECT 2 FORMAT CSV", "JSONEachRow"), b"2\n")

    def test_unknown_format(self):
        with self.assertRaises(strata.Error) as raised:
            strata.query("SELECT 1", "NoSuchFormat")
        self.assertEqual(raised.exception.name, "UNKNOWN_FORMAT")

    def test_arrow_keeps_types(self):
        result = strata.sql("SELECT number, toString(number) AS s, toDate('2024-01-02') AS d, "
                            "[number, 1] AS a, if(number = 1, NULL, number) AS n FROM numbers(3)")
        table = result.arrow()
        self.assertEqual(table.schema.field("number").type, pa.uint64())
        self.assertEqual(table.schema.field("s").type, pa.string())
        self.assertEqual(table.schema.field("d").type, pa.date32())
        self.assertEqual(table.schema.field("a").type.value_type, pa.uint64())
        self.assertEqual(table.column("n").to_pylist(), [0, None, 2])
        self.assertEqual(result.fetchall()[1][:2], (1, "1"))
        self.assertEqual(len(result), 3)
        self.assertEqual(result.summary["result_rows"], 3)
        self.assertEqual(result.summary["read_rows"], 3)

    def test_dataframes_out(self):
        frame = strata.sql("SELECT number AS n, number * 2 AS m FROM numbers(4)").df()
        self.assertEqual(list(frame.columns), ["n", "m"])
        self.assertEqual(frame["m"].tolist(), [0, 2, 4, 6])
        self.assertEqual(strata.query("SELECT 3 AS x", "DataFrame")["x"].tolist(), [3])
        self.assertEqual(strata.query("SELECT 3 AS x", "ArrowTable").num_rows, 1)

    @unittest.skipIf(polars is None, "polars is not installed (scripts/setup.sh --tests installs it)")
    def test_polars_out(self):
        frame = strata.sql("SELECT number AS n FROM numbers(3)").pl()
        self.assertIsInstance(frame, polars.DataFrame)
        self.assertEqual(frame["n"].to_list(), [0, 1, 2])

    def test_empty_result_and_statements_without_rows(self):
        self.assertEqual(strata.sql("SELECT 1 WHERE 0").arrow().num_rows, 0)
        self.assertEqual(strata.sql("SET max_threads = 2").arrow().num_rows, 0)

    def test_several_statements(self):
        with strata.Session() as session:
            out = session.query("CREATE TABLE t (a UInt8) ENGINE = Memory; "
                                "INSERT INTO t VALUES (1), (2); SELECT sum(a) FROM t", "CSV")
            self.assertEqual(out, b"3\n")
            # The Arrow result is the last result set's.
            self.assertEqual(session.sql("SELECT 1; SELECT 2 AS b").columns, ["b"])


class PythonTablesTest(unittest.TestCase):
    def test_pandas_by_name(self):
        people = pd.DataFrame({"name": ["ann", "bob", None], "age": [31, 42, 25]})
        self.assertEqual(strata.query("SELECT count(name), sum(age) FROM people", "CSV"), b"2,98\n")
        described = strata.query("DESCRIBE TABLE people", "TSV").decode()
        self.assertIn("name\tNullable(String)", described)
        self.assertIn("age\tInt64", described)

    def test_arrow_table_and_batch_by_name(self):
        pairs = pa.table({"k": pa.array([1, 2, 2], pa.int32()),
                          "v": pa.array(["a", "b", "c"], pa.large_string())})
        batch = pairs.to_batches()[0]
        self.assertEqual(strata.query("SELECT k, groupArray(v) FROM pairs GROUP BY k ORDER BY k",
                                      "TSV"), b"1\t['a']\n2\t['b','c']\n")
        self.assertEqual(strata.query("SELECT count() FROM batch", "TSV"), b"3\n")

    @unittest.skipIf(polars is None, "polars is not installed (scripts/setup.sh --tests installs it)")
    def test_polars_by_name(self):
        frame = polars.DataFrame({"x": [1, 2, 3], "s": ["p", "q", "r"]})
        self.assertEqual(strata.query("SELECT sum(x), max(s) FROM frame", "CSV"), b'6,"r"\n')

    def test_join_with_a_table_and_a_table_wins(self):
        with strata.Session() as session:
            session.query("CREATE TABLE dim (k Int64, label String) ENGINE = Memory")
            session.query("INSERT INTO dim VALUES (1, 'one'), (2, 'two')")
            facts = pd.DataFrame({"k": [1, 2, 2]})
            out = session.query("SELECT label, count() FROM facts JOIN dim USING (k) "
                                "GROUP BY label ORDER BY label", "CSV")
            self.assertEqual(out, b'"one",1\n"two",2\n')
            dim = pd.DataFrame({"other": [1]})  # a table named dim exists: it is read
            self.assertEqual(session.query("SELECT count() FROM dim", "CSV"), b"2\n")
            del dim
            # Gone after the query: the name does not linger as a table.
            self.assertEqual(session.query("EXISTS TABLE facts", "CSV"), b"0\n")

    def test_register(self):
        with strata.Session() as session:
            session.register("items", pd.DataFrame({"n": [5, 6]}))
            self.assertEqual(session.query("SELECT sum(n) FROM items", "CSV"), b"11\n")
            session.unregister("items")
            with self.assertRaises(strata.Error) as raised:
                session.query("SELECT * FROM items")
            self.assertEqual(raised.exception.code, 60)


class ErrorTest(unittest.TestCase):
    def test_codes_and_names(self):
        with self.assertRaises(strata.Error) as raised:
            strata.query("SELEC 1")
        self.assertEqual((raised.exception.code, raised.exception.name), (62, "SYNTAX_ERROR"))
        self.assertIn("Code: 62. DB::Exception:", str(raised.exception))
        with self.assertRaises(strata.Error) as raised:
            strata.query("SELECT * FROM no_such_table")
        self.assertEqual((raised.exception.code, raised.exception.name), (60, "UNKNOWN_TABLE"))
        # The session goes on after an error.
        self.assertEqual(strata.query("SELECT 1", "CSV"), b"1\n")

    def test_error_is_an_exception(self):
        self.assertTrue(issubclass(strata.Error, Exception))


class SessionTest(unittest.TestCase):
    def test_tables_persist_across_sessions(self):
        with tempfile.TemporaryDirectory() as path:
            with strata.Session(path) as session:
                session.query("CREATE TABLE t (a UInt64) ENGINE = MergeTree ORDER BY a")
                session.query("INSERT INTO t SELECT number FROM numbers(1000)")
            with strata.Session(path) as session:
                self.assertEqual(session.query("SELECT count(), sum(a) FROM t", "CSV"),
                                 b"1000,499500\n")

    def test_one_owner_per_path(self):
        with tempfile.TemporaryDirectory() as path:
            with strata.Session(path):
                with self.assertRaises(strata.Error) as raised:
                    strata.Session(path)
                self.assertEqual(raised.exception.name, "CANNOT_OPEN_FILE")
                self.assertIn(path, str(raised.exception))

    def test_settings(self):
        with strata.Session(settings={"max_threads": 3, "max_server_memory_usage": 2 << 30}) as s:
            self.assertEqual(s.query("SELECT value FROM system.settings WHERE name = 'max_threads'",
                                     "CSV"), b'"3"\n')
            self.assertEqual(s.query("SELECT value FROM system.server_settings "
                                     "WHERE name = 'max_server_memory_usage'", "CSV"),
                             f'"{2 << 30}"\n'.encode())

    def test_query_larger_than_its_memory_limit_spills(self):
        limit = 64 << 20
        with strata.Session(settings={"max_memory_usage": limit}) as session:
            result = session.sql("SELECT k, count() AS c FROM (SELECT number % 4000000 AS k "
                                 "FROM numbers(8000000)) GROUP BY k ORDER BY c DESC, k LIMIT 2")
            self.assertEqual(result.fetchall(), [(0, 2), (1, 2)])
            self.assertGreater(result.summary["spilled_bytes"], 0)
            self.assertLessEqual(result.summary["peak_memory_usage"], limit)


class InterruptTest(unittest.TestCase):
    def test_ctrl_c_cancels_the_query(self):
        script = textwrap.dedent("""
            import sys, time, strata
            session = strata.Session()
            print("ready", flush=True)
            started = time.time()
            try:
                session.query("SELECT count() FROM numbers_mt(1e13) WHERE sipHash64(number) = 0")
            except KeyboardInterrupt:
                print("interrupted", round(time.time() - started), flush=True)
            print(session.query("SELECT count() FROM system.processes WHERE query LIKE '%numbers_mt%' "
                                "AND query NOT LIKE '%system.processes%'", "CSV").decode().strip())
        """)
        child = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
        self.addCleanup(child.kill)
        self.assertEqual(child.stdout.readline().strip(), "ready")
        time.sleep(1.0)
        child.send_signal(signal.SIGINT)
        out, _ = child.communicate(timeout=60)
        lines = out.split("\n")
        self.assertTrue(lines[0].startswith("interrupted"), out)
        self.assertEqual(lines[1], "0", out)


if __name__ == "__main__":
    unittest.main()
