//! Failing I/O: an insert, a merge, a mutation or a spill whose writes or
//! fsyncs fail with EIO fails with ClickHouse's code and the system's
//! message, leaves the table as it was and removes what it had written; a
//! query whose reads fail reports it and the process goes on; the next
//! statement works once the disk does.
//!
//! A dying disk is played by `io_errors/eio_shim.c`, preloaded into the
//! `strata` process: it fails the chosen calls on files whose path holds a
//! given text. It is built with the C compiler Rust links with; where there
//! is none, the tests print why and return.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

use common::{
    CREATE, assert_checked, assert_intact, assert_no_temporary_data, bytes_under, rows, run, strata,
};

/// The shim, compiled once per test binary; `Err` says why it could not be.
fn shim() -> Result<&'static Path, &'static str> {
    static SHIM: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    let built = SHIM.get_or_init(|| {
        let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/io_errors/eio_shim.c");
        let dir = std::env::temp_dir().join(format!("strata-eio-{}", std::process::id()));
        std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
        let library = dir.join("eio_shim.so");
        let out = Command::new("cc")
            .args(["-shared", "-fPIC", "-O1", "-o"])
            .arg(&library)
            .arg(&source)
            .arg("-ldl")
            .output()
            .map_err(|e| format!("no C compiler (cc): {e}"))?;
        if !out.status.success() {
            return Err(format!(
                "cc failed: {}",
                String::from_utf8_lossy(&out.stderr)
            ));
        }
        Ok(library)
    });
    built.as_deref().map_err(String::as_str)
}

/// Which calls fail, on which files.
struct Failing<'a> {
    /// A text in the path of the files whose calls fail.
    path: &'a str,
    /// Any of "read", "write" and "fsync".
    ops: &'a str,
}

/// Runs `strata` with `args` under the shim.
fn run_failing(failing: &Failing, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_strata"))
        .args(args)
        .env("LD_PRELOAD", shim().expect("the shim was built"))
        .env("STRATA_EIO_MATCH", failing.path)
        .env("STRATA_EIO_OPS", failing.ops)
        .output()
        .expect("strata runs")
}

/// Runs `args` under the shim; it must fail with `code` (the exit status is
/// the code modulo 256), naming `inner` and the system's message.
fn assert_fails(failing: &Failing, args: &[&str], code: i32, inner: &str) -> String {
    let out = run_failing(failing, args);
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    assert!(!out.status.success(), "succeeded: {args:?}");
    assert_eq!(out.status.code(), Some(code % 256), "{err}");
    assert!(err.starts_with(&format!("Code: {code}.")), "{err}");
    assert!(err.contains(inner), "{err}");
    assert!(err.contains("Input/output error"), "{err}");
    err
}

/// Runs `sql` on `path` under the shim, which must fail it with `code`.
fn assert_statement_fails(failing: &Failing, path: &Path, sql: &str, code: i32, inner: &str) {
    let args = ["local", "--path", path.to_str().unwrap(), "-q", sql];
    assert_fails(failing, &args, code, inner);
}

/// The shim, or why the test is skipped.
fn shim_or_skip(test: &str) -> bool {
    match shim() {
        Ok(_) => true,
        Err(reason) => {
            eprintln!("skipped {test}: {reason}");
            false
        }
    }
}

/// A table `t` with 1,000 rows in one part.
fn table_of_1000_rows() -> tempfile::TempDir {
    let data = tempfile::tempdir().unwrap();
    strata(
        data.path(),
        &format!("{CREATE}; INSERT INTO t {}", rows(0, 1000)),
    );
    data
}

const COUNT_SUM: &str = "SELECT count(), sum(k) FROM t";

#[test]
fn an_insert_whose_writes_fail_fails_whole_and_the_next_one_works() {
    if !shim_or_skip("an_insert_whose_writes_fail") {
        return;
    }
    let data = table_of_1000_rows();
    let path = data.path();
    let before = bytes_under(path);
    let failing = Failing {
        path: "tmp_insert_all_2_2_0",
        ops: "write",
    };
    let insert = format!("INSERT INTO t {}", rows(1000, 100_000));
    let (code, inner) = (75, "(CANNOT_WRITE_TO_FILE_DESCRIPTOR)");
    assert_statement_fails(&failing, path, &insert, code, inner);

    assert_eq!(strata(path, COUNT_SUM), "1000\t499500");
    assert_intact(path);
    assert_eq!(bytes_under(path), before, "the failed insert left bytes");
    strata(path, &insert);
    assert_eq!(strata(path, COUNT_SUM), "101000\t5100449500");
}

#[test]
fn an_insert_whose_fsync_fails_is_not_committed() {
    if !shim_or_skip("an_insert_whose_fsync_fails") {
        return;
    }
    let data = table_of_1000_rows();
    let path = data.path();
    let failing = Failing {
        path: "tmp_insert_all_2_2_0",
        ops: "fsync",
    };
    let insert = format!("INSERT INTO t {}", rows(1000, 1000));
    assert_statement_fails(&failing, path, &insert, 204, "(CANNOT_FSYNC)");

    assert_eq!(strata(path, COUNT_SUM), "1000\t499500");
    assert_intact(path);
    strata(path, &insert);
    assert_eq!(strata(path, COUNT_SUM), "2000\t1999000");
}

#[test]
fn a_merge_whose_writes_fail_keeps_its_parts_and_runs_later() {
    if !shim_or_skip("a_merge_whose_writes_fail") {
        return;
    }
    let data = tempfile::tempdir().unwrap();
    let path = data.path();
    let inserts: Vec<String> = (0..4)
        .map(|i| format!("INSERT INTO t {}", rows(i * 10_000, 10_000)))
        .collect();
    strata(path, &format!("{CREATE}; {}", inserts.join("; ")));
    let parts = "SELECT count() FROM system.parts WHERE table = 't' AND active";
    let check = "SELECT count(), sum(k), sum(length(s)) FROM t";
    let expected = strata(path, check);
    // The merged part of blocks 1 to 4.
    let failing = Failing {
        path: "tmp_insert_all_1_4_1",
        ops: "write",
    };
    let optimize = "OPTIMIZE TABLE t FINAL";
    let (code, inner) = (75, "(CANNOT_WRITE_TO_FILE_DESCRIPTOR)");
    assert_statement_fails(&failing, path, optimize, code, inner);

    assert_eq!(strata(path, parts), "4");
    assert_eq!(strata(path, check), expected);
    assert_intact(path);
    strata(path, optimize);
    assert_eq!(strata(path, parts), "1");
    assert_eq!(strata(path, check), expected);
    assert_intact(path);
}

#[test]
fn a_mutation_whose_writes_fail_is_unfinished_and_finishes_later() {
    if !shim_or_skip("a_mutation_whose_writes_fail") {
        return;
    }
    let data = table_of_1000_rows();
    let path = data.path();
    // The part the update writes: its changed column `s`.
    let failing = Failing {
        path: "tmp_update_",
        ops: "write",
    };
    // The failure is kept in memory, as in ClickHouse, so it is read in the
    // same process; a synchronous mutation that fails on a part is
    // UNFINISHED, with the part's error inside.
    let args = [
        "local",
        "--ignore-error",
        "--path",
        path.to_str().unwrap(),
        "-q",
        "ALTER TABLE t UPDATE s = concat(s, 'x') WHERE 1 SETTINGS mutations_sync = 2; \
         SELECT is_done, latest_failed_part, \
         latest_fail_reason LIKE '%Input/output error%' FROM system.mutations",
    ];
    let out = run_failing(&failing, &args);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.starts_with("Code: 341."), "{err}");
    assert!(err.contains("(CANNOT_WRITE_TO_FILE_DESCRIPTOR)"), "{err}");
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).trim(),
        "0\tall_1_1_0\t1"
    );
    // Read before another process starts: each one resumes the pending
    // mutation in the background.
    assert_no_temporary_data(path);
    let updated = "SELECT count(), countIf(endsWith(s, 'x')) FROM t";
    assert_eq!(strata(path, updated), "1000\t0");
    assert_checked(path);

    // OPTIMIZE FINAL runs pending mutations before it merges.
    let done = strata(path, &format!("OPTIMIZE TABLE t FINAL; {updated}"));
    assert_eq!(done, "1000\t1000");
    assert_intact(path);
}

#[test]
fn a_spill_whose_writes_fail_fails_the_query_and_frees_its_files() {
    if !shim_or_skip("a_spill_whose_writes_fail") {
        return;
    }
    let data = tempfile::tempdir().unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let tmp_path = format!("--tmp_path={}", tmp.path().display());
    let spilling = "SELECT count() FROM (SELECT number % 1000000 AS k, count() \
         FROM numbers_mt(2000000) GROUP BY k) \
         SETTINGS max_bytes_before_external_group_by = 1000000, temporary_data_warm_ratio = 0";
    let args = [
        "local",
        "--path",
        data.path().to_str().unwrap(),
        &tmp_path,
        "-q",
        spilling,
    ];
    let failing = Failing {
        path: tmp.path().to_str().unwrap(),
        ops: "write",
    };
    assert_fails(&failing, &args, 75, "(CANNOT_WRITE_TO_FILE_DESCRIPTOR)");
    assert_eq!(bytes_under(tmp.path()), 0);

    let out = run(&args);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "1000000");
    assert_eq!(bytes_under(tmp.path()), 0);
}

#[test]
fn a_query_whose_reads_fail_reports_it_and_the_process_goes_on() {
    if !shim_or_skip("a_query_whose_reads_fail") {
        return;
    }
    let data = table_of_1000_rows();
    let path = data.path();
    let lengths = "SELECT sum(length(s)) FROM t";
    let expected = strata(path, lengths);
    let failing = Failing {
        path: "all_1_1_0/s.bin",
        ops: "read",
    };
    let args = [
        "local",
        "--ignore-error",
        "--path",
        path.to_str().unwrap(),
        "-q",
        "SELECT sum(length(s)) FROM t; SELECT sum(k) FROM t",
    ];
    let out = run_failing(&failing, &args);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.starts_with("Code: 74."), "{err}");
    assert!(err.contains("s.bin: Input/output error"), "{err}");
    assert!(err.contains("(CANNOT_READ_FROM_FILE_DESCRIPTOR)"), "{err}");
    // No row of the failed query, then the next query's answer: `k` reads
    // another file.
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "499500");

    assert_eq!(strata(path, lengths), expected);
    assert_intact(path);
}

#[test]
fn a_part_unreadable_at_start_is_detached_whole_and_attaches_back() {
    if !shim_or_skip("a_part_unreadable_at_start") {
        return;
    }
    let data = table_of_1000_rows();
    let path = data.path();
    let expected = strata(path, "SELECT count(), sum(k), sum(length(s)) FROM t");
    let failing = Failing {
        path: "all_1_1_0/count.txt",
        ops: "read",
    };
    // As in ClickHouse, a part that fails to load is detached as broken
    // and the table loads without it, rather than not at all.
    let out = run_failing(
        &failing,
        &["local", "--path", path.to_str().unwrap(), "-q", COUNT_SUM],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "0\t0");
    assert!(String::from_utf8_lossy(&out.stderr).contains("Input/output error"));

    // Its files are kept whole, so it attaches back once the disk reads
    // and the directory is renamed, as in ClickHouse.
    let detached = "SELECT name, reason, path FROM system.detached_parts";
    let listed = strata(path, detached);
    let fields: Vec<&str> = listed.split('\t').collect();
    assert_eq!(fields[..2], ["broken_all_1_1_0", "broken"], "{listed}");
    let broken = Path::new(fields[2]);
    std::fs::rename(broken, broken.with_file_name("all_1_1_0")).unwrap();
    strata(path, "ALTER TABLE t ATTACH PART 'all_1_1_0'");
    assert_eq!(
        strata(path, "SELECT count(), sum(k), sum(length(s)) FROM t"),
        expected
    );
    assert_intact(path);
}

/// A `strata server` under the shim, stopped when dropped.
struct Server {
    process: std::process::Child,
    port: u16,
}

impl Server {
    fn start(failing: &Failing, path: &Path) -> Server {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .expect("a free port")
            .port();
        let process = Command::new(env!("CARGO_BIN_EXE_strata"))
            .args(["server", "--path", path.to_str().unwrap()])
            .args(["--http-port", &port.to_string()])
            .env("LD_PRELOAD", shim().expect("the shim was built"))
            .env("STRATA_EIO_MATCH", failing.path)
            .env("STRATA_EIO_OPS", failing.ops)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("strata server starts");
        let server = Server { process, port };
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
        while server.post("/ping", "").is_err() {
            assert!(
                std::time::Instant::now() < deadline,
                "the server did not start"
            );
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
        server
    }

    /// The status line and body of an HTTP request with `body`.
    fn post(&self, target: &str, body: &str) -> std::io::Result<(String, String)> {
        use std::io::{Read, Write};
        let mut stream = std::net::TcpStream::connect(("127.0.0.1", self.port))?;
        write!(
            stream,
            "POST {target} HTTP/1.0\r\nContent-Length: {}\r\n\r\n{body}",
            body.len()
        )?;
        let mut response = String::new();
        stream.read_to_string(&mut response)?;
        let (head, body) = response.split_once("\r\n\r\n").unwrap_or((&response, ""));
        let status = head.lines().next().unwrap_or_default().to_string();
        Ok((status, body.to_string()))
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.process.kill();
        let _ = self.process.wait();
    }
}

#[test]
fn a_server_query_whose_reads_fail_gets_the_error_and_the_server_goes_on() {
    if !shim_or_skip("a_server_query_whose_reads_fail") {
        return;
    }
    let data = table_of_1000_rows();
    let failing = Failing {
        path: "all_1_1_0/s.bin",
        ops: "read",
    };
    let server = Server::start(&failing, data.path());
    let (status, body) = server.post("/", "SELECT sum(length(s)) FROM t").unwrap();
    assert!(status.contains(" 500 "), "{status}");
    assert!(body.starts_with("Code: 74."), "{body}");
    assert!(body.contains("Input/output error"), "{body}");

    let (status, body) = server.post("/", "SELECT sum(k) FROM t").unwrap();
    assert!(status.contains(" 200 "), "{status}: {body}");
    assert_eq!(body, "499500\n");
    drop(server);
    assert_intact(data.path());
}
