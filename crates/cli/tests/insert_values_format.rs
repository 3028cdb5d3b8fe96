//! `INSERT ... FORMAT Values` in `strata local`: data inline after the
//! statement, or on stdin, inserts as `INSERT ... VALUES` does.

use std::io::Write;
use std::process::{Command, Stdio};

/// Runs `sql` with `input` on stdin; it must succeed. Returns stdout.
fn strata(sql: &str, input: &[u8]) -> String {
    let mut child = Command::new(env!("CARGO_BIN_EXE_strata"))
        .args(["local", "-q", sql])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("strata runs");
    child.stdin.take().expect("stdin").write_all(input).unwrap();
    let output = child.wait_with_output().expect("strata finishes");
    assert!(
        output.status.success(),
        "{sql}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).unwrap()
}

#[test]
fn inline_values_after_format_values() {
    let sql = "CREATE TABLE t (s String) ENGINE = Memory; \
               INSERT INTO t FORMAT Values ('v'); SELECT s FROM t";
    assert_eq!(strata(sql, b""), "v\n");
}

#[test]
fn values_from_stdin() {
    let sql = "CREATE TABLE t (s String) ENGINE = Memory; \
               INSERT INTO t FORMAT Values; SELECT s FROM t ORDER BY s";
    assert_eq!(strata(sql, b"('x'), ('y')"), "x\ny\n");
}
