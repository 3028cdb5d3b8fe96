//! `file()` as `strata local` users meet it: paths relative to the current
//! directory, the format from the extension, the structure inferred,
//! compressed files, globs, and ClickHouse's errors, and a server's
//! `user_files_path` that a path cannot leave.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Output};

fn strata_in(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_strata"))
        .current_dir(dir)
        .args(args)
        .output()
        .expect("strata runs")
}

fn query(dir: &Path, sql: &str) -> String {
    let out = strata_in(dir, &["local", "-q", sql]);
    assert!(
        out.status.success(),
        "{sql}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn error(dir: &Path, args: &[&str]) -> String {
    let out = strata_in(dir, args);
    assert!(!out.status.success(), "{args:?} succeeded");
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// A directory of the same two rows in several formats and compressions.
fn files() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let csv = b"a,b\n1,x\n2,y\n";
    std::fs::write(dir.path().join("d.csv"), csv).unwrap();
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(csv).unwrap();
    std::fs::write(dir.path().join("d.csv.gz"), gz.finish().unwrap()).unwrap();
    std::fs::write(
        dir.path().join("d.jsonl"),
        "{\"a\":1,\"b\":\"x\"}\n{\"a\":2,\"b\":\"y\"}\n",
    )
    .unwrap();
    std::fs::create_dir(dir.path().join("sub")).unwrap();
    std::fs::write(dir.path().join("sub/e.tsv"), "3\tz\n").unwrap();
    dir
}

#[test]
fn reads_a_file_in_the_format_its_name_gives_with_the_columns_it_holds() {
    let dir = files();
    let path = dir.path();
    assert_eq!(
        query(path, "SELECT * FROM file('d.csv') ORDER BY a"),
        "1\tx\n2\ty\n"
    );
    assert_eq!(
        query(path, "DESCRIBE file('d.csv') FORMAT TSV"),
        "a\tNullable(Int64)\t\t\t\t\t\nb\tNullable(String)\t\t\t\t\t\n"
    );
    assert_eq!(
        query(path, "SELECT b FROM file('d.jsonl') WHERE a = 2"),
        "y\n"
    );
    assert_eq!(
        query(path, "SELECT sum(a), max(b) FROM file('d.csv.gz')"),
        "3\ty\n"
    );
    let absolute = path.join("d.csv");
    let sql = format!("SELECT count() FROM file('{}')", absolute.display());
    assert_eq!(query(Path::new("/"), &sql), "2\n");
}

#[test]
fn a_given_format_and_structure_win_over_the_name_and_the_data() {
    let dir = files();
    let path = dir.path();
    assert_eq!(
        query(
            path,
            "SELECT n + 1, s FROM file('sub/e.tsv', TSV, 'n UInt8, s String')"
        ),
        "4\tz\n"
    );
    assert_eq!(
        query(
            path,
            "SELECT toTypeName(a), a FROM file('d.csv', CSVWithNames, 'a UInt16, b String') LIMIT 1"
        ),
        "UInt16\t1\n"
    );
    assert_eq!(
        query(
            path,
            "SELECT count() FROM file('d.csv', auto, auto, 'none')"
        ),
        "2\n"
    );
}

#[test]
fn globs_read_every_file_they_match() {
    let dir = files();
    let path = dir.path();
    assert_eq!(
        query(path, "SELECT count(), sum(a) FROM file('d.csv*')"),
        "4\t6\n"
    );
    assert_eq!(
        query(
            path,
            "SELECT count() FROM file('d.{csv,jsonl}', auto, 'a Int64, b String')"
        ),
        "4\n"
    );
    assert_eq!(
        query(
            path,
            "SELECT count() FROM file('**/*.tsv', TSV, 'n UInt8, s String')"
        ),
        "1\n"
    );
    assert_eq!(
        query(path, "SELECT count() FROM file('none*.csv', CSV, 'a Int8')"),
        "0\n"
    );
}

#[test]
fn a_query_that_names_path_file_size_or_time_sees_them() {
    let dir = files();
    let path = dir.path();
    let full = path.join("d.csv").display().to_string();
    assert_eq!(
        query(
            path,
            "SELECT _file, count() FROM file('d.*') GROUP BY _file ORDER BY _file"
        ),
        "d.csv\t2\nd.csv.gz\t2\nd.jsonl\t2\n"
    );
    assert_eq!(
        query(
            path,
            "SELECT _path, _size, _time > '2000-01-01' FROM file('d.csv') LIMIT 1"
        ),
        format!("{full}\t12\t1\n")
    );
    assert_eq!(
        query(
            path,
            "SELECT toTypeName(_path), toTypeName(_file), toTypeName(_size), toTypeName(_time) FROM file('d.csv') LIMIT 1"
        ),
        "LowCardinality(String)\tLowCardinality(String)\tNullable(UInt64)\tNullable(DateTime)\n"
    );
    // `*` keeps to the data's columns, and a WHERE on them picks rows.
    assert_eq!(
        query(path, "SELECT *, _file FROM file('**/*.tsv') AS f"),
        "3\tz\te.tsv\n"
    );
    assert_eq!(
        query(
            path,
            "SELECT sum(a) FROM file('d.csv*') WHERE _file LIKE '%.gz'"
        ),
        "3\n"
    );
    // A filter on the virtual columns alone skips the files it rejects:
    // the broken one is never parsed.
    std::fs::write(path.join("x1.csv"), "a,b\n1,x\n").unwrap();
    std::fs::write(path.join("x2.csv"), "a,b\nnot a number,y\n").unwrap();
    let pick = |condition: &str| {
        format!(
            "SELECT sum(a) FROM file('x*.csv', CSVWithNames, 'a Int64, b String') WHERE {condition}"
        )
    };
    assert_eq!(query(path, &pick("_file = 'x1.csv'")), "1\n");
    assert_eq!(query(path, &pick("_file LIKE '%1.csv' AND a > 0")), "1\n");
    let broken = error(path, &["local", "-q", &pick("a > 0")]);
    assert!(broken.contains("(CANNOT_PARSE"), "{broken}");
    // Not named, not shown.
    let unknown = error(path, &["local", "-q", "SELECT _path FROM numbers(1)"]);
    assert!(unknown.contains("(UNKNOWN_IDENTIFIER)"), "{unknown}");
}

#[test]
fn missing_files_and_unknown_formats_fail_as_in_clickhouse() {
    let dir = files();
    let path = dir.path();
    let missing = error(
        path,
        &[
            "local",
            "-q",
            "SELECT * FROM file('nope.csv', CSV, 'a Int8')",
        ],
    );
    assert!(missing.contains("(FILE_DOESNT_EXIST)"), "{missing}");
    let no_files = error(path, &["local", "-q", "SELECT * FROM file('none*.csv')"]);
    assert!(
        no_files.contains("(CANNOT_EXTRACT_TABLE_STRUCTURE)"),
        "{no_files}"
    );
    std::fs::write(path.join("d.xyz"), "1\n").unwrap();
    let unknown = error(path, &["local", "-q", "SELECT * FROM file('d.xyz')"]);
    assert!(
        unknown.contains("(CANNOT_EXTRACT_TABLE_STRUCTURE)"),
        "{unknown}"
    );
    let bad_gzip = error(
        path,
        &[
            "local",
            "-q",
            "SELECT * FROM file('d.csv', CSV, 'a String', 'gzip')",
        ],
    );
    assert!(bad_gzip.starts_with("Code: "), "{bad_gzip}");
}

#[test]
fn user_files_path_confines_file_to_one_directory() {
    let dir = files();
    let path = dir.path();
    let confined = format!("--user_files_path={}", path.join("sub").display());
    let sql = "SELECT count() FROM file('e.tsv', TSV, 'n UInt8, s String')";
    let out = strata_in(Path::new("/"), &["local", &confined, "-q", sql]);
    assert_eq!(String::from_utf8_lossy(&out.stdout), "1\n");
    std::os::unix::fs::symlink(path.join("d.csv"), path.join("sub/link.csv")).unwrap();
    for escape in ["../d.csv", "/etc/passwd", "link.csv", "*.csv"] {
        let sql = format!("SELECT * FROM file('{escape}', CSV, 'a String')");
        let refused = error(path, &["local", &confined, "-q", &sql]);
        assert!(refused.contains("(DATABASE_ACCESS_DENIED)"), "{refused}");
    }
}

#[test]
fn insert_into_function_file_writes_what_file_reads_back() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path();
    query(
        path,
        "INSERT INTO FUNCTION file('o.csv', CSVWithNames, 'a UInt8, b String') VALUES (1, 'x')",
    );
    // Appended rows leave the header out; values cast as CAST does.
    query(
        path,
        "INSERT INTO FUNCTION file('o.csv', CSVWithNames, 'a UInt8, b String') SELECT 2, 'y'",
    );
    assert_eq!(
        std::fs::read_to_string(path.join("o.csv")).unwrap(),
        "\"a\",\"b\"\n1,\"x\"\n2,\"y\"\n"
    );
    query(
        path,
        "INSERT INTO FUNCTION file('o.parquet') SELECT number AS n FROM numbers(3)",
    );
    assert_eq!(query(path, "SELECT sum(n) FROM file('o.parquet')"), "3\n");
    let appended = error(
        path,
        &[
            "local",
            "-q",
            "INSERT INTO FUNCTION file('o.parquet') SELECT 1 AS n",
        ],
    );
    assert!(appended.contains("(CANNOT_APPEND_TO_FILE)"), "{appended}");
    query(
        path,
        "INSERT INTO FUNCTION file('o.parquet') SELECT 7 AS n SETTINGS engine_file_truncate_on_insert = 1",
    );
    assert_eq!(query(path, "SELECT n FROM file('o.parquet')"), "7\n");
    query(
        path,
        "INSERT INTO FUNCTION file('o.tsv.gz') SELECT number, 'z' FROM numbers(2)",
    );
    assert_eq!(
        query(path, "SELECT * FROM file('o.tsv.gz')"),
        "0\tz\n1\tz\n"
    );
    let mismatch = error(
        path,
        &[
            "local",
            "-q",
            "INSERT INTO FUNCTION file('m.csv', CSV, 'a UInt8, b UInt8') SELECT 3",
        ],
    );
    assert!(
        mismatch.contains("(NUMBER_OF_COLUMNS_DOESNT_MATCH)"),
        "{mismatch}"
    );
}

#[test]
fn into_outfile_writes_the_result_where_the_clause_says() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path();
    assert_eq!(
        query(path, "SELECT 1 AS a, 'x' AS b INTO OUTFILE 'out.csv'"),
        ""
    );
    assert_eq!(
        std::fs::read_to_string(path.join("out.csv")).unwrap(),
        "1,\"x\"\n"
    );
    let exists = error(path, &["local", "-q", "SELECT 2 INTO OUTFILE 'out.csv'"]);
    assert!(exists.contains("(FILE_ALREADY_EXISTS)"), "{exists}");
    query(path, "SELECT 3 INTO OUTFILE 'out.csv' APPEND");
    assert_eq!(
        query(
            path,
            "SELECT 4 INTO OUTFILE 'out.tsv' AND STDOUT TRUNCATE FORMAT CSV"
        ),
        "4\n"
    );
    assert_eq!(
        std::fs::read_to_string(path.join("out.csv")).unwrap(),
        "1,\"x\"\n3\n"
    );
    query(
        path,
        "SELECT 5 INTO OUTFILE 'out.gz' COMPRESSION 'gzip' FORMAT TSV",
    );
    assert_eq!(
        query(path, "SELECT * FROM file('out.gz', TSV, 'a UInt8', 'gzip')"),
        "5\n"
    );
}

#[test]
fn a_file_table_keeps_its_rows_across_restarts_and_drop_leaves_a_named_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path();
    let data = path.join("data");
    let data = data.to_str().unwrap();
    let local = |sql: &str| {
        let out = strata_in(path, &["local", "--path", data, "-q", sql]);
        assert!(
            out.status.success(),
            "{sql}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    local(
        "CREATE TABLE own (a UInt8, b String) ENGINE = File(CSVWithNames); \
         CREATE TABLE named (a UInt8) ENGINE = File(TSV, 'named.tsv'); \
         INSERT INTO own VALUES (1, 'x'); INSERT INTO named VALUES (7)",
    );
    local("INSERT INTO own VALUES (2, 'y')");
    assert_eq!(local("SELECT * FROM own ORDER BY a"), "1\tx\n2\ty\n");
    assert_eq!(
        std::fs::read_to_string(path.join("named.tsv")).unwrap(),
        "7\n"
    );
    // The header is written by the first insert only.
    let csv: Vec<_> = walk(Path::new(data))
        .into_iter()
        .filter(|p| p.ends_with("data.CSVWithNames"))
        .collect();
    assert_eq!(csv.len(), 1);
    assert_eq!(
        std::fs::read_to_string(&csv[0]).unwrap(),
        "\"a\",\"b\"\n1,\"x\"\n2,\"y\"\n"
    );
    local("DROP TABLE own; DROP TABLE named");
    assert!(!csv[0].exists(), "the table's own file goes with it");
    assert!(
        path.join("named.tsv").exists(),
        "a file the table named stays"
    );
}

/// Every file under `dir`.
fn walk(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        match path.is_dir() {
            true => files.extend(walk(&path)),
            false => files.push(path),
        }
    }
    files
}
