//! End-to-end tests of the `strata` binary: how `strata local` takes SQL,
//! reports errors and exits, as a user or a script sees it.

use std::io::Write;
use std::process::{Command, Output, Stdio};
use std::time::Duration;

fn strata(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_strata"))
        .args(args)
        .output()
        .expect("strata runs")
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).to_string()
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).to_string()
}

#[test]
fn runs_several_statements_and_prints_tab_separated_when_piped() {
    let out = strata(&[
        "local",
        "-q",
        "SELECT 1; SELECT number, 'x' FROM numbers(2)",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(stdout(&out), "1\n0\tx\n1\tx\n");
}

#[test]
fn errors_have_clickhouse_shape_and_set_the_exit_code() {
    let out = strata(&["local", "-q", "SELECT 1; SELEC 2; SELECT 3"]);
    assert_eq!(out.status.code(), Some(62));
    assert_eq!(stdout(&out), "1\n");
    let err = stderr(&out);
    assert!(
        err.starts_with("Code: 62. DB::Exception: Syntax error"),
        "{err}"
    );
    assert!(err.trim_end().ends_with("(SYNTAX_ERROR)"), "{err}");
}

#[test]
fn ignore_error_goes_on_after_a_failed_statement() {
    let out = strata(&[
        "local",
        "--ignore-error",
        "-q",
        "SELECT 1; SELECT * FROM missing; SELECT 3",
    ]);
    assert!(out.status.success());
    assert_eq!(stdout(&out), "1\n3\n");
    assert!(stderr(&out).contains("(UNKNOWN_TABLE)"));
}

#[test]
fn reads_queries_from_stdin_and_files() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_strata"))
        .args(["local"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("spawn");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(b"SELECT 40 + 2;\nSELECT 'done'")
        .expect("write");
    let out = child.wait_with_output().expect("wait");
    assert_eq!(stdout(&out), "42\ndone\n");

    let dir = std::env::temp_dir().join(format!("strata-cli-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let file = dir.join("q.sql");
    std::fs::write(
        &file,
        "SELECT count() FROM numbers(10);\n-- a comment\nSELECT 7;\n",
    )
    .expect("write file");
    let out = strata(&[
        "local",
        "--queries-file",
        file.to_str().expect("utf-8 path"),
    ]);
    assert_eq!(stdout(&out), "10\n7\n");
    let out = strata(&[
        "local",
        "--queries-file",
        dir.join("missing.sql").to_str().expect("path"),
    ]);
    assert!(stderr(&out).contains("(FILE_DOESNT_EXIST)"));
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn format_flag_and_settings_flags() {
    let out = strata(&[
        "local",
        "--format",
        "CSVWithNames",
        "--max_block_size=3",
        "-q",
        "SELECT getSetting('max_block_size') AS b",
    ]);
    assert_eq!(stdout(&out), "\"b\"\n3\n");
    let out = strata(&["local", "--no_such_setting=1", "-q", "SELECT 1"]);
    assert!(!out.status.success());
    let out = strata(&["local", "--format", "Nope", "-q", "SELECT 1"]);
    assert!(stderr(&out).contains("(UNKNOWN_FORMAT)"));
}

#[test]
fn summary_reports_counted_rows_and_bytes() {
    let out = strata(&[
        "local",
        "--print-profile-events",
        "-q",
        "SELECT sum(number) FROM numbers(1000)",
    ]);
    assert_eq!(stdout(&out), "499500\n");
    let err = stderr(&out);
    assert!(err.contains("1 row in set. Elapsed: "), "{err}");
    assert!(
        err.contains("Processed 1.00 thousand rows, 8.00 KB"),
        "{err}"
    );
    assert!(err.contains("Peak memory usage: "), "{err}");
}

#[test]
fn max_execution_time_stops_an_endless_query() {
    let out = strata(&[
        "local",
        "-q",
        "SELECT count() FROM system.numbers SETTINGS max_execution_time = 0.3; SELECT 1",
    ]);
    assert_eq!(out.status.code(), Some(159));
    assert!(
        stderr(&out).contains("(TIMEOUT_EXCEEDED)"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn memory_limit_fails_the_query_and_the_next_one_runs() {
    let out = strata(&[
        "local",
        "--ignore-error",
        "-q",
        "SELECT number % 100000 AS k, groupArray(number) FROM numbers(1000000) GROUP BY k SETTINGS max_memory_usage = 1000000; SELECT 'next'",
    ]);
    let err = stderr(&out);
    assert!(
        err.contains("Code: 241. DB::Exception:") && err.contains("(MEMORY_LIMIT_EXCEEDED)"),
        "{err}"
    );
    assert_eq!(stdout(&out), "next\n");
}

#[test]
fn interrupt_cancels_the_running_query() {
    let child = Command::new(env!("CARGO_BIN_EXE_strata"))
        .args(["local", "-q", "SELECT count() FROM system.numbers"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    std::thread::sleep(Duration::from_millis(1500));
    let status = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .expect("kill");
    assert!(status.success());
    let out = child.wait_with_output().expect("wait");
    let err = stderr(&out);
    assert!(err.contains("(QUERY_WAS_CANCELLED)"), "{err}");
    assert_eq!(out.status.code(), Some((394 % 256) as i32));
}

#[test]
fn explain_shows_plans_and_measured_operators() {
    let out = strata(&[
        "local",
        "-q",
        "EXPLAIN PIPELINE SELECT sum(number) FROM numbers_mt(100)",
    ]);
    let text = stdout(&out);
    assert!(
        text.contains("NumbersExec") && text.contains("AggregateExec"),
        "{text}"
    );
    let out = strata(&[
        "local",
        "-q",
        "EXPLAIN ANALYZE SELECT sum(number) FROM numbers_mt(100)",
    ]);
    let text = stdout(&out);
    assert!(text.contains("output_rows=100"), "{text}");
    let out = strata(&["local", "-q", "EXPLAIN SELECT 1 + 1"]);
    assert!(out.status.success(), "{}", stderr(&out));
}

/// A memory cgroup made for one test and removed afterwards.
struct TestCgroup {
    dir: std::path::PathBuf,
}

impl TestCgroup {
    /// Creates a child of this process's own memory cgroup (v1 or v2) with
    /// `limit` bytes; Err says why that is not possible here.
    fn create(limit: u64) -> Result<TestCgroup, String> {
        let own = std::fs::read_to_string("/proc/self/cgroup").map_err(|e| e.to_string())?;
        let name = format!("strata-test-{}", std::process::id());
        for line in own.lines() {
            let fields: Vec<&str> = line.splitn(3, ':').collect();
            let [hierarchy, controllers, path] = fields[..] else {
                continue;
            };
            let (base, limit_file) = if controllers.split(',').any(|c| c == "memory") {
                ("/sys/fs/cgroup/memory", "memory.limit_in_bytes")
            } else if hierarchy == "0" && controllers.is_empty() {
                ("/sys/fs/cgroup", "memory.max")
            } else {
                continue;
            };
            let dir = std::path::Path::new(base)
                .join(path.trim_start_matches('/'))
                .join(&name);
            if std::fs::create_dir(&dir).is_err() {
                continue;
            }
            let group = TestCgroup { dir };
            if std::fs::write(group.dir.join(limit_file), limit.to_string()).is_ok() {
                return Ok(group);
            }
        }
        Err("no writable memory cgroup (needs root and a memory controller delegated to this cgroup)".into())
    }
}

impl Drop for TestCgroup {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir(&self.dir);
    }
}

#[test]
fn reports_the_budget_of_the_cgroup_it_runs_in() {
    let group = match TestCgroup::create(1 << 30) {
        Ok(group) => group,
        Err(reason) => {
            eprintln!("skipped reports_the_budget_of_the_cgroup_it_runs_in: {reason}");
            return;
        }
    };
    let query =
        "SELECT value, source FROM system.server_settings WHERE name = 'max_server_memory_usage'";
    let script = format!(
        "echo $$ > '{}/cgroup.procs' && exec '{}' local -q \"{query}\"",
        group.dir.display(),
        env!("CARGO_BIN_EXE_strata")
    );
    let out = Command::new("sh")
        .arg("-c")
        .arg(script)
        .output()
        .expect("sh runs");
    let text = stdout(&out);
    assert!(out.status.success(), "{}", stderr(&out));
    let (value, source) = text.trim().split_once('\t').expect("two columns");
    // 0.9 x 1 GiB: the cgroup's limit, not the machine's RAM.
    assert_eq!(value, (((1u64 << 30) as f64 * 0.9) as u64).to_string());
    assert!(source.contains("cgroup limit 1.00 GiB"), "{source}");
}

/// Kills `strata local` at several moments during inserts and merges into a
/// MergeTree table; every restart finds whole parts only (an insert block
/// is there entirely or not at all), no rows doubled by a half-finished
/// merge, and no temporary directories.
#[test]
fn a_killed_insert_or_merge_leaves_only_whole_parts() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().to_str().unwrap();
    let create = strata(&[
        "local",
        "--path",
        path,
        "-q",
        "CREATE TABLE t (k UInt64, s String) ENGINE = MergeTree ORDER BY k SETTINGS min_parts_to_merge_at_once = 2",
    ]);
    assert!(create.status.success(), "{}", stderr(&create));
    let block = 50_000u64;
    for delay_ms in [50u64, 150, 300, 600] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_strata"))
            .args([
                "local",
                "--path",
                path,
                "--max_insert_block_size",
                &block.to_string(),
                "-q",
                "INSERT INTO t SELECT number, toString(number) FROM numbers(2000000); OPTIMIZE TABLE t FINAL",
            ])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(Duration::from_millis(delay_ms));
        child.kill().unwrap();
        child.wait().unwrap();
        let check = strata(&[
            "local",
            "--path",
            path,
            "-q",
            "SELECT count(), uniqExact(k) = count(), (SELECT sum(rows) FROM system.parts WHERE table = 't') FROM t",
        ]);
        assert!(
            check.status.success(),
            "after {delay_ms} ms: {}",
            stderr(&check)
        );
        let text = stdout(&check);
        let mut fields = text.split_whitespace();
        let rows: u64 = fields.next().unwrap().parse().unwrap();
        let distinct = fields.next().unwrap();
        let in_parts: u64 = fields.next().map_or(0, |f| f.parse().unwrap_or(0));
        // Every part reads whole (a torn one would fail the count or its
        // checksums), no row is doubled by a merge, and the parts' row
        // counts add up.
        assert!(rows <= 2_000_000, "after {delay_ms} ms: {rows} rows");
        assert!(
            rows == 0 || distinct == "1",
            "after {delay_ms} ms: duplicates"
        );
        assert_eq!(in_parts, rows, "after {delay_ms} ms");
        // The only table's data is in store/<prefix>/<uuid>/.
        let leftovers: Vec<String> = std::fs::read_dir(dir.path().join("store"))
            .unwrap()
            .flat_map(|prefix| std::fs::read_dir(prefix.unwrap().path()).unwrap())
            .flat_map(|table| std::fs::read_dir(table.unwrap().path()).unwrap())
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .filter(|name| name.starts_with("tmp_"))
            .collect();
        assert!(leftovers.is_empty(), "{leftovers:?}");
        let _ = strata(&["local", "--path", path, "-q", "TRUNCATE TABLE t"]);
    }
}

/// Runs `strata local` with `input` on stdin.
fn strata_with_input(args: &[&str], input: &[u8]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_strata"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("strata runs");
    let mut stdin = child.stdin.take().expect("stdin");
    let input = input.to_vec();
    let writer = std::thread::spawn(move || {
        // The process may stop reading early after an error.
        let _ = stdin.write_all(&input);
    });
    let output = child.wait_with_output().expect("strata finishes");
    writer.join().unwrap();
    output
}

#[test]
fn insert_format_reads_stdin_and_a_bad_row_names_its_place() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().to_str().unwrap();
    let with_input =
        |sql: &str, input: &[u8]| strata_with_input(&["local", "--path", path, "-q", sql], input);
    let create = with_input(
        "CREATE TABLE t (id UInt64, name String, d Date) ENGINE = MergeTree ORDER BY id",
        b"",
    );
    assert!(create.status.success(), "{}", stderr(&create));
    let mut csv = String::new();
    for i in 0..100_000 {
        csv.push_str(&format!("{i},\"name {i}\",2024-01-{:02}\n", i % 28 + 1));
    }
    let insert = with_input("INSERT INTO t FORMAT CSV", csv.as_bytes());
    assert!(insert.status.success(), "{}", stderr(&insert));
    // A bad value in row 3 of the next insert: code 27, the row and the
    // column named, and none of its rows kept.
    let bad = with_input(
        "INSERT INTO t FORMAT CSV",
        b"200000,a,2024-01-01\n200001,b,2024-01-02\n200002,c,2024-02-30\n",
    );
    assert_eq!(bad.status.code(), Some(27), "{}", stderr(&bad));
    let message = stderr(&bad);
    assert!(
        message.contains("(at row 3)") && message.contains("Column 2, name: d, type: Date"),
        "{message}"
    );
    let check = with_input(
        "SELECT count(), sum(id), (SELECT count() FROM t WHERE name = 'name 77'), max(d) FROM t",
        b"",
    );
    assert!(check.status.success(), "{}", stderr(&check));
    assert_eq!(stdout(&check), "100000\t4999950000\t1\t2024-01-28\n");
    // Empty input inserts nothing.
    let empty = with_input("INSERT INTO t FORMAT TSV; SELECT count() FROM t", b"");
    assert!(empty.status.success(), "{}", stderr(&empty));
    assert_eq!(stdout(&empty), "100000\n");
    let values = with_input(
        "INSERT INTO t FORMAT Values; SELECT name FROM t WHERE id = 500000",
        b"(500000, 'from stdin', '2024-05-01')",
    );
    assert!(values.status.success(), "{}", stderr(&values));
    assert_eq!(stdout(&values), "from stdin\n");
}

/// Kills `strata local` at several moments during an ALTER that rewrites
/// every part (RENAME COLUMN, then DROP COLUMN); each restart finds the
/// table as before or as after, with no value lost under either name.
#[test]
fn a_killed_alter_leaves_the_table_as_before_or_after() {
    let rows = 1_500_000u64;
    let expected_sum = (0..rows).sum::<u64>();
    for delay_ms in [10u64, 30, 60, 100, 160, 250, 400] {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().to_str().unwrap();
        let setup = strata(&[
            "local",
            "--path",
            path,
            "--max_insert_block_size",
            "100000",
            "-q",
            &format!(
                "CREATE TABLE t (k UInt64, s String, extra UInt8) ENGINE = MergeTree ORDER BY k SETTINGS min_parts_to_merge_at_once = 100;
                 INSERT INTO t SELECT number, toString(number), 1 FROM numbers({rows})"
            ),
        ]);
        assert!(setup.status.success(), "{}", stderr(&setup));
        let mut child = Command::new(env!("CARGO_BIN_EXE_strata"))
            .args([
                "local",
                "--path",
                path,
                "-q",
                "ALTER TABLE t RENAME COLUMN s TO text; ALTER TABLE t DROP COLUMN extra",
            ])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(Duration::from_millis(delay_ms));
        let _ = child.kill();
        child.wait().unwrap();
        let columns = strata(&[
            "local",
            "--path",
            path,
            "-q",
            "SELECT name FROM system.columns WHERE table = 't' ORDER BY position",
        ]);
        assert!(
            columns.status.success(),
            "after {delay_ms} ms: {}",
            stderr(&columns)
        );
        let names: Vec<String> = stdout(&columns).lines().map(str::to_string).collect();
        let string_column = if names.contains(&"text".to_string()) {
            "text"
        } else {
            "s"
        };
        let mut sql = format!("SELECT count(), sum(k), sum(toUInt64({string_column}))");
        if names.contains(&"extra".to_string()) {
            sql.push_str(", sum(extra)");
        }
        sql.push_str(" FROM t");
        let check = strata(&["local", "--path", path, "-q", &sql]);
        assert!(
            check.status.success(),
            "after {delay_ms} ms ({names:?}): {}",
            stderr(&check)
        );
        let mut expected = format!("{rows}\t{expected_sum}\t{expected_sum}");
        if names.contains(&"extra".to_string()) {
            expected.push_str(&format!("\t{rows}"));
        }
        assert_eq!(
            stdout(&check).trim(),
            expected,
            "after {delay_ms} ms ({names:?})"
        );
    }
}

#[test]
fn a_second_process_on_a_data_path_is_refused_and_the_table_keeps_the_first_insert() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().to_str().unwrap();
    let create = strata(&[
        "local",
        "--path",
        path,
        "-q",
        "CREATE TABLE t (a UInt64) ENGINE = MergeTree ORDER BY a",
    ]);
    assert!(create.status.success(), "{}", stderr(&create));
    // The first process holds the path while it waits for its insert's rows.
    let mut first = Command::new(env!("CARGO_BIN_EXE_strata"))
        .args(["local", "--path", path, "-q", "INSERT INTO t FORMAT CSV"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let holder = format!("PID: {}", first.id());
    let status = dir.path().join("status");
    let mut waited = Duration::ZERO;
    while !std::fs::read_to_string(&status).is_ok_and(|text| text.contains(&holder)) {
        assert!(
            waited < Duration::from_secs(60),
            "the first process never took the path"
        );
        std::thread::sleep(Duration::from_millis(20));
        waited += Duration::from_millis(20);
    }
    let second = strata(&[
        "local",
        "--path",
        path,
        "-q",
        "INSERT INTO t SELECT number FROM numbers(3000000)",
    ]);
    assert_eq!(second.status.code(), Some(76), "{}", stderr(&second));
    let err = stderr(&second);
    assert!(err.contains("Cannot lock file"), "{err}");
    assert!(err.contains(path), "{err}");
    assert!(err.contains(&holder), "{err}");
    assert!(err.trim_end().ends_with("(CANNOT_OPEN_FILE)"), "{err}");

    let mut stdin = first.stdin.take().unwrap();
    stdin.write_all(b"1\n2\n3\n").unwrap();
    drop(stdin);
    let first = first.wait_with_output().unwrap();
    assert!(first.status.success(), "{}", stderr(&first));
    let check = strata(&[
        "local",
        "--path",
        path,
        "-q",
        "SELECT count(), sum(a) FROM t",
    ]);
    assert!(check.status.success(), "{}", stderr(&check));
    assert_eq!(stdout(&check), "3\t6\n");
}

#[test]
fn views_load_after_their_tables_and_survive_a_dropped_table() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().to_str().unwrap();
    let run = |sql: &str| strata(&["local", "--path", path, "-q", sql]);
    let created = run(
        "CREATE DATABASE d; CREATE TABLE d.src (a UInt8) ENGINE = MergeTree ORDER BY a; \
         CREATE TABLE d.dst (a UInt8) ENGINE = MergeTree ORDER BY a; \
         CREATE VIEW default.v AS SELECT a * 2 AS b FROM d.src; \
         CREATE VIEW default.w AS SELECT b FROM default.v; \
         CREATE MATERIALIZED VIEW default.m TO d.dst AS SELECT a + 1 AS a FROM d.src; \
         INSERT INTO d.src VALUES (1), (2)",
    );
    assert!(created.status.success(), "{}", stderr(&created));
    // `default` loads before `d`: the views wait for the tables they read.
    let read = run("SELECT b FROM w ORDER BY b; SELECT a FROM m ORDER BY a");
    assert_eq!(stdout(&read), "2\n4\n2\n3\n", "{}", stderr(&read));
    let dropped = run("DROP TABLE d.src; DROP TABLE d.dst");
    assert!(dropped.status.success(), "{}", stderr(&dropped));
    // Every view still loads; reading one names what is missing.
    let after = run("SELECT name FROM system.tables WHERE database = 'default' ORDER BY name");
    assert_eq!(stdout(&after), "m\nv\nw\n", "{}", stderr(&after));
    let missing = run("SELECT * FROM v");
    assert!(
        stderr(&missing).contains("Code: 60."),
        "{}",
        stderr(&missing)
    );
}

#[test]
fn benchmark_runs_point_lookups_from_concurrent_clients_and_reports() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("data");
    let path = path.to_str().unwrap();
    let out = strata(&[
        "local",
        "--path",
        path,
        "-q",
        "CREATE TABLE kv (k UInt64, v String) ENGINE = MergeTree ORDER BY k; INSERT INTO kv SELECT number, toString(number) FROM numbers(100000)",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let json = dir.path().join("report.json");
    let out = strata(&[
        "benchmark",
        "--path",
        path,
        "--query",
        "SELECT v FROM kv WHERE k = {key}",
        "--keys",
        "100000",
        "--distribution",
        "pareto",
        "--concurrency",
        "4",
        "--iterations",
        "200",
        "--json",
        json.to_str().unwrap(),
        "--use_uncompressed_cache=1",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let report = stdout(&out);
    assert!(report.contains("total: queries 200, QPS "), "{report}");
    assert!(report.contains("p99.9 "), "{report}");
    let json = std::fs::read_to_string(json).unwrap();
    assert!(json.contains("\"queries\":200"), "{json}");

    let out = strata(&[
        "benchmark",
        "--path",
        path,
        "--query",
        "SELEC 1",
        "--iterations",
        "5",
    ]);
    assert_eq!(out.status.code(), Some(62), "{}", stderr(&out));
    assert!(stderr(&out).contains("SYNTAX_ERROR"), "{}", stderr(&out));
    let out = strata(&[
        "benchmark",
        "--path",
        path,
        "--query",
        "SELECT 1",
        "--no_such_setting=1",
    ]);
    assert!(!out.status.success());
}

/// A column whose type changes keeps its codec, as in ClickHouse, even one
/// the new type would refuse; the table still loads and reads after a
/// restart, its new values only compressed.
#[test]
fn a_codec_the_new_type_would_refuse_still_loads() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().to_str().unwrap();
    let run = |sql: &str| {
        let output = strata(&["local", "--path", path, "-q", sql]);
        assert!(output.status.success(), "{sql}: {}", stderr(&output));
        stdout(&output)
    };
    run(
        "CREATE TABLE t (k UInt8, x UInt64 CODEC(Delta, ZSTD)) ENGINE = MergeTree ORDER BY k; \
         INSERT INTO t VALUES (1, 2); ALTER TABLE t MODIFY COLUMN x String; \
         INSERT INTO t VALUES (2, 'abc')",
    );
    assert_eq!(
        run(
            "SELECT k, x FROM t ORDER BY k FORMAT CSV; OPTIMIZE TABLE t FINAL; \
             SELECT compression_codec FROM system.columns WHERE table = 't' AND name = 'x'"
        ),
        "1,\"2\"\n2,\"abc\"\nCODEC(Delta(8), ZSTD(1))\n"
    );
    assert_eq!(run("SELECT count(), max(x) FROM t"), "2\tabc\n");
}
