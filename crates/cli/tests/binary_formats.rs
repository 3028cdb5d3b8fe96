//! ClickHouse's binary client formats (RowBinary and its header variants,
//! Arrow, ArrowStream) end to end: a result written by `FORMAT X` is read
//! back by `INSERT ... FORMAT X` from stdin and must come out unchanged.
//! Byte-for-byte comparisons with ClickHouse are the formats crate's tests.

use std::io::Write;
use std::process::{Command, Output, Stdio};

/// Runs `strata local` with `args` and `input` on stdin.
fn run(args: &[&str], input: &[u8]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_strata"))
        .arg("local")
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("strata runs");
    let mut stdin = child.stdin.take().expect("stdin");
    let input = input.to_vec();
    let writer = std::thread::spawn(move || stdin.write_all(&input));
    let output = child.wait_with_output().expect("strata finishes");
    // A failing insert may stop reading before all input is written.
    let _ = writer.join().unwrap();
    output
}

/// Runs `sql`, which must succeed; returns stdout.
fn strata(sql: &str, input: &[u8]) -> Vec<u8> {
    let output = run(&["-q", sql], input);
    assert!(
        output.status.success(),
        "`{sql}`: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    output.stdout
}

const COLUMNS: &str = "n UInt64, s Nullable(String), a Array(Nullable(Int32)), d Date, \
    d32 Date32, dt DateTime('UTC'), dt64 DateTime64(3, 'UTC'), dec Decimal(18, 4), \
    u UUID, f FixedString(3), lc LowCardinality(String), b Bool, x Float64";

const ROWS: &str = "(1, NULL, [1, NULL], '2024-01-02', '1900-01-02', '2024-01-02 03:04:05', \
    '2024-01-02 03:04:05.123', -12.3456, '61626364-6566-6768-696a-6b6c6d6e6f70', 'ab', 'lc', \
    true, 1.5), (2, 'é\\tx', [], '1970-01-01', '2200-01-01', '1970-01-01 00:00:00', \
    '1970-01-01 00:00:00', 0, '00000000-0000-0000-0000-000000000000', 'xyz', '', false, -2)";

/// The rows of a table of [`COLUMNS`] holding [`ROWS`], as TSV.
fn table_text(data: &[u8], insert: &str) -> String {
    let text = strata(
        &format!(
            "CREATE TABLE t ({COLUMNS}) ENGINE = Memory; {insert}; SELECT * FROM t ORDER BY n"
        ),
        data,
    );
    String::from_utf8(text).unwrap()
}

#[test]
fn every_binary_format_reads_back_what_it_writes() {
    let expected = table_text(b"", &format!("INSERT INTO t VALUES {ROWS}"));
    assert_eq!(expected.lines().count(), 2, "{expected}");
    for format in [
        "RowBinary",
        "RowBinaryWithNames",
        "RowBinaryWithNamesAndTypes",
        "Arrow",
        "ArrowStream",
    ] {
        let data = strata(
            &format!(
                "CREATE TABLE t ({COLUMNS}) ENGINE = Memory; INSERT INTO t VALUES {ROWS}; \
                 SELECT * FROM t ORDER BY n FORMAT {format}"
            ),
            b"",
        );
        let read_back = table_text(&data, &format!("INSERT INTO t FORMAT {format}"));
        assert_eq!(read_back, expected, "{format}");
    }
}

/// A query's result, not a table's, through each format into a table with
/// a column the data lacks (its DEFAULT fills it) and columns in another
/// order (header formats match them by name).
#[test]
fn header_formats_match_columns_by_name() {
    for format in ["RowBinaryWithNamesAndTypes", "Arrow", "ArrowStream"] {
        let data = strata(
            &format!("SELECT number AS k, toString(number) AS s FROM numbers(3) FORMAT {format}"),
            b"",
        );
        let text = strata(
            &format!(
                "CREATE TABLE t (s String, extra UInt8 DEFAULT 7, k UInt64) ENGINE = Memory; \
                 INSERT INTO t FORMAT {format}; SELECT * FROM t ORDER BY k"
            ),
            &data,
        );
        assert_eq!(
            String::from_utf8(text).unwrap(),
            "0\t7\t0\n1\t7\t1\n2\t7\t2\n",
            "{format}"
        );
    }
}

#[test]
fn results_of_many_blocks_read_back_whole() {
    for format in ["RowBinary", "ArrowStream"] {
        let data = strata(
            &format!(
                "SELECT number AS n, toString(number) AS s FROM numbers(200000) FORMAT {format}"
            ),
            b"",
        );
        let text = strata(
            &format!(
                "CREATE TABLE t (n UInt64, s String) ENGINE = Memory; \
                 INSERT INTO t FORMAT {format}; \
                 SELECT count(), sum(n), sum(toUInt64(s)) FROM t"
            ),
            &data,
        );
        assert_eq!(
            String::from_utf8(text).unwrap(),
            "200000\t19999900000\t19999900000\n",
            "{format}"
        );
    }
}

const ARROW_SHORT_VALIDITY: &[u8] =
    include_bytes!("../../../fuzz/corpus/input_format/regression-arrow-ipc-short-null-bitmap");

const PARQUET_NONE_TYPE: &[u8] =
    include_bytes!("../../../fuzz/corpus/input_format/regression-parquet-arrow-schema-type-none");

/// Malformed data fails the insert with ClickHouse's code, and the table
/// keeps exactly the rows it had.
#[test]
fn malformed_data_fails_and_leaves_the_table_unchanged() {
    let cases: [(&str, &[u8], &str); 7] = [
        // The second string claims 5 bytes and holds 2.
        (
            "RowBinary",
            b"\x01\x00\x00\x00\x00\x00\x00\x00\x01a\x02\x00\x00\x00\x00\x00\x00\x00\x05ab",
            "Code: 33.",
        ),
        // A string longer than format_binary_max_string_size.
        (
            "RowBinary",
            b"\x01\x00\x00\x00\x00\x00\x00\x00\xff\xff\xff\xff\x0f",
            "Code: 131.",
        ),
        (
            "RowBinaryWithNamesAndTypes",
            b"\x01\x01n\x06String\x01a",
            "Code: 117.",
        ),
        (
            "ArrowStream",
            b"\xff\xff\xff\xff\x40\x00\x00\x00garbage",
            "Code: 33.",
        ),
        // A block of no columns and 2^22 - 1 rows: nothing in the data
        // bounds them, and every column would be filled with defaults.
        ("Native", b"\x00\xff\xff\xff\x01", "Code: 117."),
        // A validity bitmap shorter than its column, which arrow-ipc
        // panics on (found by the input_format fuzz target, whose input
        // is a format byte and an options byte before the data).
        ("Arrow", &ARROW_SHORT_VALIDITY[2..], "Code: 117."),
        // An embedded Arrow schema with a field of type NONE.
        ("Parquet", &PARQUET_NONE_TYPE[2..], "Code: 117."),
    ];
    for (format, data, code) in cases {
        let output = run(
            &[
                "--ignore-error",
                "-q",
                &format!(
                    "CREATE TABLE t (n UInt64, s String) ENGINE = Memory; \
                     INSERT INTO t VALUES (7, 'kept'); \
                     INSERT INTO t FORMAT {format}; \
                     SELECT * FROM t"
                ),
            ],
            data,
        );
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.contains(code), "{format}: {stderr}");
        assert_eq!(
            String::from_utf8_lossy(&output.stdout),
            "7\tkept\n",
            "{format}"
        );
    }
}
