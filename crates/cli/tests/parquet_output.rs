//! `FORMAT Parquet` output, checked by reading it back through Strata's own
//! `INSERT ... FORMAT Parquet`: binary output has no text reference.

use std::io::Write;
use std::process::{Command, Stdio};

/// Runs `strata local -q sql` with `input` on stdin; returns stdout.
fn strata(sql: &str, input: &[u8]) -> Vec<u8> {
    let mut child = Command::new(env!("CARGO_BIN_EXE_strata"))
        .args(["local", "-q", sql])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("strata runs");
    let mut stdin = child.stdin.take().expect("stdin");
    let input = input.to_vec();
    let writer = std::thread::spawn(move || stdin.write_all(&input));
    let output = child.wait_with_output().expect("strata finishes");
    writer.join().unwrap().expect("input written");
    assert!(
        output.status.success(),
        "`{sql}`: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    output.stdout
}

/// Writes `select` as Parquet, inserts it into a table of `columns`, and
/// returns what `check` prints about that table.
fn round_trip(select: &str, columns: &str, check: &str) -> String {
    let parquet = strata(&format!("{select} FORMAT Parquet"), b"");
    assert!(parquet.starts_with(b"PAR1") && parquet.ends_with(b"PAR1"));
    let read_back = strata(
        &format!(
            "CREATE TABLE t ({columns}) ENGINE = Memory; INSERT INTO t FORMAT Parquet; {check}"
        ),
        &parquet,
    );
    String::from_utf8(read_back).unwrap()
}

#[test]
fn values_of_each_kind_survive_a_round_trip() {
    let text = round_trip(
        "SELECT number, toString(number) || 'a\\tb' AS s, [number, NULL] AS a, \
         toDate('2024-01-01') + number AS d, if(number = 1, NULL, number / 2) AS f, \
         (number, 'x') AS t, toUUID('61626364-6566-6768-696a-6b6c6d6e6f70') AS u, \
         toDateTime('2024-01-01 10:00:00', 'UTC') AS dt FROM numbers(3)",
        "number UInt64, s String, a Array(Nullable(UInt64)), d Date, f Nullable(Float64), \
         t Tuple(UInt64, String), u UUID, dt DateTime('UTC')",
        "SELECT * FROM t ORDER BY number",
    );
    assert_eq!(
        text,
        "0\t0a\\tb\t[0,NULL]\t2024-01-01\t0\t(0,'x')\t61626364-6566-6768-696a-6b6c6d6e6f70\t2024-01-01 10:00:00\n\
         1\t1a\\tb\t[1,NULL]\t2024-01-02\t\\N\t(1,'x')\t61626364-6566-6768-696a-6b6c6d6e6f70\t2024-01-01 10:00:00\n\
         2\t2a\\tb\t[2,NULL]\t2024-01-03\t1\t(2,'x')\t61626364-6566-6768-696a-6b6c6d6e6f70\t2024-01-01 10:00:00\n"
    );
}

/// More rows than one row group holds: row groups written while rows still
/// arrive must keep the offsets the footer records.
#[test]
fn several_row_groups_read_back_whole() {
    let text = round_trip(
        "SELECT number FROM numbers(2500000)",
        "number UInt64",
        "SELECT count(), sum(number), min(number), max(number) FROM t",
    );
    assert_eq!(text, "2500000\t3124998750000\t0\t2499999\n");
}

#[test]
fn an_empty_result_is_a_file_without_rows() {
    let text = round_trip(
        "SELECT number, 'x' AS s FROM numbers(3) WHERE number > 5",
        "number UInt64, s String",
        "SELECT count() FROM t",
    );
    assert_eq!(text, "0\n");
}
