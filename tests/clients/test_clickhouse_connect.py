"""clickhouse-connect, ClickHouse's official Python client, against `strata server`.

Each test talks to one server started on a free loopback port from the
binary cargo built (STRATA_BIN, else target/debug/strata under
CARGO_TARGET_DIR). These tests only grow.
"""

import datetime
import threading
import time
import unittest

import clickhouse_connect
from clickhouse_connect.driver.exceptions import DatabaseError

from strata_server import ServerTestCase


class ClickHouseConnectTest(ServerTestCase):

    def client(self, **kwargs):
        return clickhouse_connect.get_client(host="127.0.0.1", port=self.server.port, **kwargs)

    def test_command_and_query(self):
        client = self.client()
        self.assertEqual(client.command("SELECT 1"), 1)
        self.assertEqual(client.server_tz, datetime.timezone.utc)
        result = client.query("SELECT number, toString(number) AS s, toDate(number) AS d "
                              "FROM numbers(3)")
        self.assertEqual(result.column_names, ("number", "s", "d"))
        self.assertEqual(result.result_rows[2], (2, "2", datetime.date(1970, 1, 3)))
        empty = client.query("SELECT number FROM numbers(0)")
        self.assertEqual(empty.result_rows, [])

    def test_insert_native_and_read_back(self):
        client = self.client()
        client.command("CREATE TABLE typed (a UInt64, s String, d Date, f Float64, "
                       "n Nullable(Int32), arr Array(Int64)) ENGINE = MergeTree ORDER BY a")
        rows = [[i, f"s{i}", datetime.date(2024, 1, 1) + datetime.timedelta(days=i), i / 2,
                 None if i % 3 == 0 else -i, list(range(i % 4))] for i in range(10_000)]
        client.insert("typed", rows, column_names=["a", "s", "d", "f", "n", "arr"])
        self.assertEqual(client.command("SELECT count() FROM typed"), 10_000)
        back = client.query("SELECT * FROM typed ORDER BY a").result_rows
        self.assertEqual([list(r) for r in back[:4]], [
            [0, "s0", datetime.date(2024, 1, 1), 0.0, None, []],
            [1, "s1", datetime.date(2024, 1, 2), 0.5, -1, [0]],
            [2, "s2", datetime.date(2024, 1, 3), 1.0, -2, [0, 1]],
            [3, "s3", datetime.date(2024, 1, 4), 1.5, None, [0, 1, 2]],
        ])
        self.assertEqual(len(back), 10_000)

    def test_enums_travel_as_numbers(self):
        # Native sends an enum as its numbers under its type's name, both ways.
        client = self.client()
        client.command("CREATE TABLE moods (k UInt8, m Enum8('sad' = -1, 'ok' = 5), "
                       "n Nullable(Enum16('big' = 1000, 'small' = 2))) ENGINE = MergeTree ORDER BY k")
        client.insert("moods", [[1, "ok", None], [2, "sad", "big"], [3, "ok", "small"]],
                      column_names=["k", "m", "n"])
        back = client.query("SELECT m, n FROM moods ORDER BY m, k").result_rows
        self.assertEqual([list(r) for r in back], [["sad", "big"], ["ok", None], ["ok", "small"]])
        self.assertEqual(client.query("SELECT toTypeName(m) FROM moods LIMIT 1").result_rows,
                         [("Enum8('sad' = -1, 'ok' = 5)",)])

    def test_maps_and_tuples_travel_both_ways(self):
        client = self.client()
        client.command("CREATE TABLE nested_kinds (k UInt8, m Map(String, UInt64), "
                       "t Tuple(a UInt8, b String), n Map(String, Array(Nullable(Int32)))) "
                       "ENGINE = MergeTree ORDER BY k")
        client.insert("nested_kinds", [[1, {"a": 1, "b": 2}, (3, "x"), {"q": [1, None]}],
                                       [2, {}, (4, "y"), {}]],
                      column_names=["k", "m", "t", "n"])
        back = client.query("SELECT m, t, n, m['b'], t.b FROM nested_kinds ORDER BY k").result_rows
        self.assertEqual([list(r) for r in back], [
            [{"a": 1, "b": 2}, {"a": 3, "b": "x"}, {"q": [1, None]}, 2, "x"],
            [{}, {"a": 4, "b": "y"}, {}, 0, "y"],
        ])

    def test_query_log_has_each_querys_profile_events(self):
        client = self.client()
        client.command("CREATE TABLE logged (k UInt64) ENGINE = MergeTree ORDER BY k "
                       "SETTINGS index_granularity = 100")
        client.command("INSERT INTO logged SELECT number FROM numbers(1000)")
        client.query("SELECT k FROM logged WHERE k = 5", settings={"query_id": "logged-lookup"})
        events = client.query("SELECT ProfileEvents FROM system.query_log "
                              "WHERE query_id = 'logged-lookup' AND type = 'QueryFinish'").result_rows
        self.assertEqual(events[0][0]["SelectedMarks"], 1)
        self.assertEqual(events[0][0]["SelectedRows"], 100)

    def test_addresses_travel_as_bytes(self):
        import ipaddress
        client = self.client()
        client.command("CREATE TABLE hosts (k UInt8, v4 IPv4, v6 Nullable(IPv6)) ENGINE = MergeTree ORDER BY k")
        client.insert("hosts", [[1, ipaddress.IPv4Address("10.0.0.1"), ipaddress.IPv6Address("2001:db8::1")],
                                [2, ipaddress.IPv4Address("8.8.8.8"), None]],
                      column_names=["k", "v4", "v6"])
        back = client.query("SELECT v4, v6, toString(v4) FROM hosts ORDER BY k").result_rows
        self.assertEqual([list(r) for r in back], [
            [ipaddress.IPv4Address("10.0.0.1"), ipaddress.IPv6Address("2001:db8::1"), "10.0.0.1"],
            [ipaddress.IPv4Address("8.8.8.8"), None, "8.8.8.8"],
        ])

    def test_insert_compressed(self):
        for compress in ("lz4", "zstd", "gzip"):
            client = self.client(compress=compress)
            table = f"compressed_{compress}"
            client.command(f"CREATE TABLE {table} (a UInt32, s String) ENGINE = MergeTree ORDER BY a")
            client.insert(table, [[i, "x" * (i % 7)] for i in range(5_000)], column_names=["a", "s"])
            self.assertEqual(client.command(f"SELECT sum(a) FROM {table}"), sum(range(5_000)))
            self.assertEqual(client.query(f"SELECT count() FROM {table}").result_rows, [(5_000,)])

    def test_insert_df_of_many_blocks(self):
        # More rows than one block: the client sends each block as its own
        # LZ4 frame, and every frame must arrive (262,144 rows did once).
        import pandas
        rows = 700_000
        frame = pandas.DataFrame({"k": range(rows), "v": [str(n) for n in range(rows)]})
        for compress in ("lz4", "zstd", "gzip", False):
            client = self.client(compress=compress)
            table = f"blocks_{compress or 'none'}"
            client.command(f"CREATE TABLE {table} (k UInt64, v String) ENGINE = MergeTree ORDER BY k")
            client.insert_df(table, frame)
            self.assertEqual(client.command(f"SELECT count(), sum(k) FROM {table}"),
                             [str(rows), str(rows * (rows - 1) // 2)])

    def test_query_df(self):
        client = self.client()
        frame = client.query_df("SELECT number AS n, number * 2 AS m FROM numbers(5)")
        self.assertEqual(list(frame.columns), ["n", "m"])
        self.assertEqual(list(frame["m"]), [0, 2, 4, 6, 8])

    def test_parameters(self):
        client = self.client()
        result = client.query("SELECT {x:UInt8} + 1, {s:String}", parameters={"x": 41, "s": "it's"})
        self.assertEqual(result.result_rows, [(42, "it's")])
        # Client-side binding (%(name)s) as DB-API users write it.
        result = client.query("SELECT %(v)s", parameters={"v": "quoted ' value"})
        self.assertEqual(result.result_rows, [("quoted ' value",)])

    def test_errors_keep_their_codes(self):
        client = self.client()
        with self.assertRaises(DatabaseError) as caught:
            client.query("SELECT * FROM no_such_table")
        self.assertIn("Code: 60", str(caught.exception))
        with self.assertRaises(DatabaseError) as caught:
            client.command("SELEC 1")
        self.assertIn("Code: 62", str(caught.exception))
        with self.assertRaises(Exception) as caught:
            client.query("SELECT number, throwIf(number = 200000) FROM numbers(300000)",
                         settings={"max_block_size": 1000})
        self.assertIn("395", str(caught.exception))
        self.assertEqual(client.command("SELECT 'still serving'"), "still serving")
        # The server's log, stderr's records, is also system.text_log.
        with self.assertRaises(DatabaseError):
            client.command("SELEC 2", settings={"query_id": "logged-error"})
        logged = client.query("SELECT level, logger_name, message FROM system.text_log "
                              "WHERE message LIKE '%logged-error%'").result_rows
        self.assertEqual(len(logged), 1)
        self.assertEqual(logged[0][:2], ("Error", "executeQuery"))
        self.assertIn("Code: 62", logged[0][2])

    def test_an_error_mid_stream_is_raised(self):
        from clickhouse_connect.driver.exceptions import StreamFailureError
        client = self.client()
        with self.assertRaises(StreamFailureError) as caught:
            client.query("SELECT number, throwIf(number = 100) FROM numbers(200)",
                         settings={"max_block_size": 1, "wait_end_of_query": 0}).result_set
        self.assertIn("395", str(caught.exception))
        self.assertEqual(client.command("SELECT 1"), 1)

    def test_sessions(self):
        client = self.client(session_id="strata-session-test")
        client.command("SET max_threads = 3")
        self.assertEqual(client.command("SELECT getSetting('max_threads')"), 3)
        other = self.client()
        # Another session keeps the default (auto: the machine's thread count).
        changed = "SELECT changed FROM system.settings WHERE name = 'max_threads'"
        self.assertEqual(client.command(changed), 1)
        self.assertEqual(other.command(changed), 0)

    def test_settings_and_readonly(self):
        client = self.client(settings={"send_logs_level": "none", "max_block_size": 1000})
        self.assertEqual(client.command("SELECT getSetting('max_block_size')"), 1000)
        with self.assertRaises(DatabaseError) as caught:
            client.command("SELECT 1", settings={"no_such_setting": 1})
        self.assertIn("115", str(caught.exception))

    def test_concurrent_clients(self):
        errors = []

        def work(worker):
            try:
                client = self.client()
                for i in range(20):
                    value = client.command(f"SELECT {worker} * 1000 + {i}")
                    if value != worker * 1000 + i:
                        errors.append((worker, i, value))
            except Exception as e:  # noqa: BLE001 -- reported below
                errors.append((worker, repr(e)))

        threads = [threading.Thread(target=work, args=(w,)) for w in range(16)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        self.assertEqual(errors, [])

    def test_query_arrow_and_insert_arrow(self):
        client = self.client()
        table = client.query_arrow("SELECT number AS n, toString(number) AS s FROM numbers(1000)")
        self.assertEqual(table.num_rows, 1000)
        self.assertEqual(table.column("s")[999].as_py(), "999")
        client.command("CREATE TABLE from_arrow (n UInt64, s String) ENGINE = MergeTree ORDER BY n")
        client.insert_arrow("from_arrow", table)
        self.assertEqual(client.command("SELECT sum(n), count(DISTINCT s) FROM from_arrow"),
                         ["499500", "1000"])

    def test_external_data(self):
        from clickhouse_connect.driver.external import ExternalData
        client = self.client()
        data = ExternalData(data=b"1\tann\n2\tbob\n", structure=["id UInt32", "name String"],
                            file_name="people")
        result = client.query("SELECT name FROM people WHERE id = 2", external_data=data)
        self.assertEqual(result.result_rows, [("bob",)])

    def test_summary_and_progress_are_counted(self):
        client = self.client()
        client.command("CREATE TABLE counted (k UInt64) ENGINE = MergeTree ORDER BY k")
        summary = client.command("INSERT INTO counted SELECT number FROM numbers(50000)")
        self.assertEqual(int(summary.summary["written_rows"]), 50000)
        result = client.query("SELECT count() FROM counted WHERE k < 10",
                              settings={"send_progress_in_http_headers": 1})
        self.assertEqual(result.result_rows, [(10,)])
        self.assertEqual(int(result.summary["total_rows_to_read"]), 8192)
        self.assertEqual(int(result.summary["read_rows"]), 8192)

    def test_streaming_and_raw_insert(self):
        client = self.client()
        total = 0
        with client.query_row_block_stream("SELECT number FROM numbers(200000)",
                                           settings={"max_block_size": 10000}) as stream:
            for block in stream:
                total += sum(row[0] for row in block)
        self.assertEqual(total, sum(range(200000)))
        client.command("CREATE TABLE raw (a UInt8, s String) ENGINE = Memory")
        client.raw_insert("raw", ["a", "s"], insert_block=b"1,one\n2,two\n", fmt="CSV")
        self.assertEqual(client.query("SELECT * FROM raw ORDER BY a").result_rows,
                         [(1, "one"), (2, "two")])


if __name__ == "__main__":
    unittest.main()
