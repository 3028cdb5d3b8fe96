//! The `s3()` table function and `INSERT INTO FUNCTION s3(...)` against a
//! real S3-compatible server: formats and compression told by the key,
//! globs, what an insert does with a key that exists, ClickHouse's errors,
//! and the requests and bytes each read costs, from `system.events`.

use std::path::Path;
use std::process::{Command, Output};

// Shared with the engine's tests, which use the parts this one does not.
#[allow(dead_code)]
#[path = "../../engine/tests/common/s3_server.rs"]
mod s3_server;
use s3_server::{ACCESS_KEY, BUCKET, S3Server, SECRET_KEY};

fn strata(sql: &str) -> Output {
    strata_at(None, sql)
}

/// `strata local` over the data path `path`, or a temporary one.
fn strata_at(path: Option<&Path>, sql: &str) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_strata"));
    command.arg("local");
    if let Some(path) = path {
        command.arg("--path").arg(path);
    }
    command.args(["-q", sql]).output().expect("strata runs")
}

fn query(sql: &str) -> String {
    succeeded(sql, strata(sql))
}

fn error(sql: &str) -> String {
    failed(sql, strata(sql))
}

fn succeeded(sql: &str, out: Output) -> String {
    assert!(
        out.status.success(),
        "{sql}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn failed(sql: &str, out: Output) -> String {
    assert!(!out.status.success(), "{sql} succeeded");
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// `s3('<url of key>', key, secret<rest>)`.
fn s3(server: &S3Server, key: &str, rest: &str) -> String {
    format!(
        "s3('{}', '{ACCESS_KEY}', '{SECRET_KEY}'{rest})",
        server.url(key)
    )
}

#[test]
fn objects_written_in_a_format_read_back_by_their_keys() {
    let Some(server) = S3Server::start() else {
        return;
    };
    for key in [
        "t/d.csv",
        "t/d.tsv.gz",
        "t/d.parquet",
        "t/d.jsonl",
        "t/d.jsonl.zst",
    ] {
        let source = s3(&server, key, "");
        query(&format!(
            "INSERT INTO FUNCTION {source} SELECT number AS n, toString(number * 10) AS s FROM numbers(5)"
        ));
        assert_eq!(
            query(&format!("SELECT * FROM {source} ORDER BY 1")),
            "0\t0\n1\t10\n2\t20\n3\t30\n4\t40\n",
            "{key}"
        );
    }
    // With a structure given, each object is read in the format its key
    // names.
    assert_eq!(
        query(&format!(
            "SELECT count(), sum(n) FROM {}",
            s3(&server, "t/d.*", ", auto, 'n UInt64, s String'")
        )),
        "25\t50\n"
    );
}

#[test]
fn globs_list_the_bucket_from_the_directory_before_the_wildcard() {
    let Some(server) = S3Server::start() else {
        return;
    };
    for (key, n) in [("g/a/1.csv", 1), ("g/a/2.csv", 2), ("g/b/3.csv", 3)] {
        query(&format!(
            "INSERT INTO FUNCTION {} SELECT {n} AS n",
            s3(&server, key, "")
        ));
    }
    let sum = |pattern: &str| query(&format!("SELECT sum(c1) FROM {}", s3(&server, pattern, "")));
    assert_eq!(sum("g/a/*.csv"), "3\n");
    assert_eq!(sum("g/*/?.csv"), "6\n");
    assert_eq!(sum("g/**/*.csv"), "6\n");
    assert_eq!(sum("g/{a/1,b/3}.csv"), "4\n");
    // Braces name keys, which must exist.
    let missing = error(&format!(
        "SELECT * FROM {}",
        s3(&server, "g/a/{1..3}.csv", "")
    ));
    assert!(missing.contains("(S3_ERROR)"), "{missing}");
    // `*` stays within one level: nothing matches, so nothing tells the
    // structure.
    let unknown = error(&format!("SELECT * FROM {}", s3(&server, "g/*.csv", "")));
    assert!(
        unknown.contains("(CANNOT_EXTRACT_TABLE_STRUCTURE)"),
        "{unknown}"
    );
    let unknown = error(&format!(
        "SELECT * FROM {}",
        s3(&server, "g/none/*.csv", "")
    ));
    assert!(
        unknown.contains("(CANNOT_EXTRACT_TABLE_STRUCTURE)"),
        "{unknown}"
    );
    assert_eq!(
        query(&format!(
            "SELECT count() FROM {}",
            s3(&server, "g/none/*.csv", ", CSV, 'n UInt8'")
        )),
        "0\n"
    );
}

#[test]
fn a_query_that_names_path_file_or_size_sees_them() {
    let Some(server) = S3Server::start() else {
        return;
    };
    for (key, n) in [("v/1.csv", 1), ("v/2.csv", 22)] {
        query(&format!(
            "INSERT INTO FUNCTION {} SELECT {n} AS n",
            s3(&server, key, "")
        ));
    }
    // `_path` is the bucket and the key, as in ClickHouse; `_size` the
    // object's bytes, from the listing or (a key without wildcards) a HEAD.
    let facts = |pattern: &str| {
        query(&format!(
            "SELECT _path, _file, _size, _time > '2000-01-01', c1 FROM {} ORDER BY c1",
            s3(&server, pattern, "")
        ))
    };
    let both = format!("{BUCKET}/v/1.csv\t1.csv\t2\t1\t1\n{BUCKET}/v/2.csv\t2.csv\t3\t1\t22\n");
    assert_eq!(facts("v/*.csv"), both);
    assert_eq!(facts("v/{1,2}.csv"), both);
    assert_eq!(
        query(&format!(
            "SELECT * FROM {} WHERE _file = '2.csv'",
            s3(&server, "v/*", "")
        )),
        "22\n"
    );
    // A key named without wildcards that does not exist fails as a read.
    let missing = error(&format!(
        "SELECT _path, c1 FROM {}",
        s3(&server, "v/{1,3}.csv", ", CSV, 'c1 UInt8'")
    ));
    assert!(missing.contains("(S3_ERROR)"), "{missing}");
}

#[test]
fn a_filter_skips_the_row_groups_whose_statistics_rule_it_out() {
    let Some(server) = S3Server::start() else {
        return;
    };
    // Row groups of a million rows: [0, 1e6), [1e6, 2e6), [2e6, 2.1e6).
    let source = s3(&server, "g/n.parquet", "");
    query(&format!(
        "INSERT INTO FUNCTION {source} SELECT number AS n FROM numbers(2100000)"
    ));
    let gets = |filter: &str| {
        query(&format!(
            "SELECT count(), sum(n) FROM {source} WHERE {filter}; \
             SELECT value FROM system.events WHERE event = 'S3GetObject'"
        ))
    };
    // The footer (once, for inference and the read), then one GET of each
    // row group read.
    assert_eq!(gets("n >= 2050000"), "50000\t103749975000\n2\n");
    assert_eq!(gets("n = 1500000 OR n < 2"), "3\t1500001\n3\n");
    assert_eq!(gets("n > 3000000"), "0\t0\n1\n");
    // A filter statistics cannot judge reads every row group, as does any
    // filter with pruning turned off.
    assert_eq!(gets("n % 1000000 = 5"), "3\t3000015\n4\n");
    let unpruned = "n >= 2050000 SETTINGS input_format_parquet_filter_push_down = 0";
    assert_eq!(gets(unpruned), "50000\t103749975000\n4\n");
    // Smaller row groups, where the writer is told so.
    let small = s3(&server, "g/small.parquet", "");
    query(&format!(
        "SET output_format_parquet_row_group_size = 1000; \
         INSERT INTO FUNCTION {small} SELECT number AS n FROM numbers(2500)"
    ));
    assert_eq!(
        query(&format!(
            "SELECT count() FROM {small} WHERE n < 10; \
             SELECT value FROM system.events WHERE event = 'S3GetObject'"
        )),
        "10\n2\n"
    );
    // Objects found by listing need no HEAD: the listing gave their sizes.
    // Each takes its footer and its first row group.
    let listed = query(&format!(
        "SELECT count() FROM {} WHERE n < 5; \
         SELECT event, value FROM system.events \
         WHERE event IN ('S3GetObject', 'S3HeadObject', 'S3ListObjects') ORDER BY event",
        s3(&server, "g/*.parquet", "")
    ));
    assert_eq!(listed, "10\nS3GetObject\t4\nS3ListObjects\t1\n");
}

#[test]
fn an_insert_into_a_key_that_exists_is_refused_replaced_or_numbered() {
    let Some(server) = S3Server::start() else {
        return;
    };
    let target = s3(&server, "e/d.csv.gz", "");
    query(&format!("INSERT INTO FUNCTION {target} SELECT 1"));
    let refused = error(&format!("INSERT INTO FUNCTION {target} SELECT 2"));
    assert!(
        refused.contains(&format!(
            "Code: 36. DB::Exception: Object in bucket {BUCKET} with key e/d.csv.gz already exists"
        )),
        "{refused}"
    );
    query(&format!(
        "INSERT INTO FUNCTION {target} SELECT 3 SETTINGS s3_truncate_on_insert = 1"
    ));
    for n in [4, 5] {
        query(&format!(
            "INSERT INTO FUNCTION {target} SELECT {n} SETTINGS s3_create_new_file_on_insert = 1"
        ));
    }
    assert_eq!(
        query(&format!(
            "SELECT groupArray(c1) FROM (SELECT c1 FROM {} ORDER BY c1)",
            s3(&server, "e/d*.csv.gz", "")
        )),
        "[3,4,5]\n"
    );
    assert_eq!(
        query(&format!(
            "SELECT c1 FROM {}",
            s3(&server, "e/d.2.csv.gz", "")
        )),
        "5\n"
    );
    let glob = error(&format!(
        "INSERT INTO FUNCTION {} SELECT 1",
        s3(&server, "e/*.csv", "")
    ));
    assert!(glob.contains("(DATABASE_ACCESS_DENIED)"), "{glob}");
}

#[test]
fn bad_keys_credentials_and_arguments_get_clickhouses_errors() {
    let Some(server) = S3Server::start() else {
        return;
    };
    let missing = error(&format!("SELECT * FROM {}", s3(&server, "x/none.csv", "")));
    assert!(
        missing.contains("Code: 499.") && missing.contains("(S3_ERROR)"),
        "{missing}"
    );
    let url = server.url("x/none.csv");
    let unsigned = error(&format!(
        "SELECT * FROM s3('{url}', NOSIGN, CSV, 'a UInt8')"
    ));
    assert!(
        unsigned.contains("(S3_ERROR)") && unsigned.contains("403"),
        "{unsigned}"
    );
    let wrong = error(&format!(
        "SELECT * FROM s3('{url}', 'strata', 'wrong', CSV, 'a UInt8')"
    ));
    assert!(wrong.contains("(S3_ERROR)"), "{wrong}");
    let many = error(&format!(
        "SELECT * FROM s3('{url}', 'k', 's', 't', 'CSV', 'a UInt8', 'gzip', 'extra')"
    ));
    assert!(
        many.contains("(NUMBER_OF_ARGUMENTS_DOESNT_MATCH)"),
        "{many}"
    );
}

#[test]
fn every_request_and_byte_of_a_read_is_counted() {
    let Some(server) = S3Server::start() else {
        return;
    };
    for key in ["c/1.tsv", "c/2.tsv"] {
        query(&format!(
            "INSERT INTO FUNCTION {} SELECT number FROM numbers(1000)",
            s3(&server, key, "")
        ));
    }
    let object_bytes: u64 = server
        .objects_under("c")
        .iter()
        .map(|path| std::fs::metadata(path).unwrap().len())
        .sum();
    let events = |source: &str| {
        query(&format!(
            "SELECT count() FROM {source}; \
             SELECT event, value FROM system.events \
             WHERE event IN ('S3GetObject', 'S3ListObjects', 'ReadBufferFromS3Bytes') ORDER BY event"
        ))
    };
    // One GET for a key whose structure is given.
    assert_eq!(
        events(&s3(&server, "c/1.tsv", ", TSV, 'n UInt64'")),
        format!(
            "1000\nReadBufferFromS3Bytes\t{}\nS3GetObject\t1\n",
            object_bytes / 2
        )
    );
    // A glob lists once, then one GET an object.
    assert_eq!(
        events(&s3(&server, "c/*.tsv", ", TSV, 'n UInt64'")),
        format!("2000\nReadBufferFromS3Bytes\t{object_bytes}\nS3GetObject\t2\nS3ListObjects\t1\n")
    );
}

#[test]
fn a_parquet_object_is_read_by_its_footer_and_the_columns_a_query_needs() {
    let Some(server) = S3Server::start() else {
        return;
    };
    let source = s3(&server, "p/w.parquet", "");
    query(&format!(
        "INSERT INTO FUNCTION {source} \
         SELECT number AS n, hex(SHA256(toString(number))) AS h FROM numbers(100000)"
    ));
    let object_bytes = std::fs::metadata(&server.objects_under("p")[0])
        .unwrap()
        .len();
    let out = query(&format!(
        "SELECT sum(n), count() FROM {source}; \
         SELECT event, value FROM system.events \
         WHERE event IN ('S3GetObject', 'S3HeadObject', 'ReadBufferFromS3Bytes') ORDER BY event"
    ));
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines[0], "4999950000\t100000");
    // Inference takes the size (HEAD) and the footer (GET), which the
    // read reuses to fetch the one row group's `n` chunk alone.
    assert_eq!(lines[2..], ["S3GetObject\t2", "S3HeadObject\t1"]);
    let read: u64 = lines[1]
        .strip_prefix("ReadBufferFromS3Bytes\t")
        .unwrap()
        .parse()
        .unwrap();
    assert!(
        read < object_bytes / 4,
        "{read} bytes read of a {object_bytes}-byte object"
    );
    // `count()` needs no column: the footers' row counts answer it.
    let count = query(&format!(
        "SELECT count() FROM {source}; \
         SELECT event, value FROM system.events \
         WHERE event IN ('S3GetObject', 'S3HeadObject') ORDER BY event"
    ));
    assert_eq!(count, "100000\nS3GetObject\t1\nS3HeadObject\t1\n");
    // Every column, and the virtual ones, still come back.
    let hash = query("SELECT hex(SHA256('7'))");
    assert_eq!(
        query(&format!("SELECT n, h, _file FROM {source} WHERE n = 7")),
        format!("7\t{}\tw.parquet\n", hash.trim_end())
    );
}

#[test]
fn an_s3_table_reads_its_objects_and_writes_a_new_one_per_insert() {
    let Some(server) = S3Server::start() else {
        return;
    };
    let data = tempfile::tempdir().unwrap();
    let ok = |sql: &str| succeeded(sql, strata_at(Some(data.path()), sql));
    let refused = |sql: &str| failed(sql, strata_at(Some(data.path()), sql));
    let url = server.url("e/rows.csv");
    ok(&format!(
        "CREATE TABLE one (n UInt32, s String) ENGINE = S3('{url}', '{ACCESS_KEY}', '{SECRET_KEY}', 'CSV'); \
         CREATE TABLE every (n UInt32, s String) ENGINE = S3('{}', '{ACCESS_KEY}', '{SECRET_KEY}', CSV)",
        server.url("e/*.csv")
    ));
    ok("INSERT INTO one VALUES (1, 'a'), (2, 'b')");
    assert_eq!(ok("SELECT * FROM one ORDER BY n"), "1\ta\n2\tb\n");
    // A second insert writes a numbered key, or replaces the object.
    assert!(refused("INSERT INTO one VALUES (3, 'c')").contains("(BAD_ARGUMENTS)"));
    ok("INSERT INTO one SETTINGS s3_create_new_file_on_insert = 1 VALUES (3, 'c')");
    assert_eq!(ok("SELECT sum(n), count() FROM every"), "6\t3\n");
    assert!(
        refused("INSERT INTO every VALUES (4, 'd')").contains("(DATABASE_ACCESS_DENIED)"),
        "a pattern of keys is read-only"
    );
    // The secret key is hidden wherever the definition is shown.
    let shown = ok("SHOW CREATE TABLE one");
    assert!(
        !shown.contains(SECRET_KEY) && shown.contains("[HIDDEN]"),
        "{shown}"
    );
    let listed = ok("SELECT engine, engine_full FROM system.tables WHERE name = 'one'");
    assert!(
        listed.starts_with("S3\t") && !listed.contains(SECRET_KEY),
        "{listed}"
    );
    // TRUNCATE removes the table's object; DROP leaves the bucket alone.
    ok("TRUNCATE TABLE one");
    assert_eq!(ok("SELECT n FROM every"), "3\n");
    ok("DROP TABLE one; DROP TABLE every");
    assert_eq!(server.objects_under("e").len(), 1);
}
