//! MergeTree tables through the engine: what survives a restart, what a
//! crash leaves behind, how much a filtered read touches, and what a query
//! sees while merges replace the parts under it.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use datafusion::arrow::array::{Array, ListArray, StringArray, UInt8Array, UInt64Array};
use futures::StreamExt;
use strata_common::settings::Settings;
use strata_engine::data_path::DataPath;
use strata_engine::{Engine, QueryResult, Session, StatementOutcome};

mod common;
use common::{number, run_query as run};

/// The directory of a table's parts, from the path system.parts shows.
async fn table_dir(session: &mut Session, database: &str, table: &str) -> PathBuf {
    let sql = format!(
        "SELECT path FROM system.parts WHERE database = '{database}' AND table = '{table}' LIMIT 1"
    );
    let (_, batches) = run(session, &sql).await.unwrap();
    let paths = batches[0]
        .column(0)
        .as_any()
        .downcast_ref::<StringArray>()
        .unwrap();
    Path::new(paths.value(0)).parent().unwrap().to_path_buf()
}

async fn open(dir: &Path) -> Arc<Engine> {
    let engine = Engine::open(Settings::server(), DataPath::open(dir).unwrap()).unwrap();
    engine.load_tables().await.unwrap();
    engine
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_part_log_has_every_part_made_and_removed() {
    let dir = tempfile::tempdir().unwrap();
    let engine = open(dir.path()).await;
    let mut session = engine.new_session();
    for sql in [
        "CREATE TABLE t (a UInt64, b UInt64, d Date) ENGINE = MergeTree PARTITION BY d ORDER BY a",
        "INSERT INTO t SELECT number, 0, '2024-01-01' FROM numbers(100)",
        "INSERT INTO t SELECT number, 0, '2024-01-01' FROM numbers(50)",
        "OPTIMIZE TABLE t FINAL",
        "ALTER TABLE t UPDATE b = 1 WHERE a = 5 SETTINGS mutations_sync = 2",
        "ALTER TABLE t DROP PARTITION '2024-01-01'",
    ] {
        run(&mut session, sql).await.unwrap();
    }
    let logged = texts(
        &mut session,
        "SELECT concat_ws('\t', event_type, part_name, toString(rows), \
         arrayStringConcat(merged_from, ','), toString(size_in_bytes > 0), toString(error)) \
         FROM system.part_log WHERE database = 'default' AND table = 't' \
         ORDER BY event_time_microseconds, event_type",
    )
    .await;
    assert_eq!(
        logged,
        [
            "NewPart\t20240101_1_1_0\t100\t\t1\t0",
            "NewPart\t20240101_2_2_0\t50\t\t1\t0",
            "MergeParts\t20240101_1_2_1\t150\t20240101_1_1_0,20240101_2_2_0\t1\t0",
            "RemovePart\t20240101_1_1_0\t100\t\t1\t0",
            "RemovePart\t20240101_2_2_0\t50\t\t1\t0",
            "MutatePart\t20240101_1_2_1_3\t150\t20240101_1_2_1\t1\t0",
            "RemovePart\t20240101_1_2_1\t150\t\t1\t0",
            "RemovePart\t20240101_1_2_1_3\t150\t\t1\t0",
        ]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tables_and_parts_survive_a_restart_and_leftovers_are_removed() {
    let dir = tempfile::tempdir().unwrap();
    let table_dir = {
        let engine = open(dir.path()).await;
        let mut session = engine.new_session();
        for sql in [
            "CREATE DATABASE db",
            "CREATE TABLE db.t (k UInt64, s String DEFAULT 'x') ENGINE = MergeTree PARTITION BY k % 2 ORDER BY k",
            "INSERT INTO db.t SELECT number, toString(number) FROM numbers(1000)",
            "INSERT INTO db.t (k) VALUES (5000)",
            "CREATE TABLE db.m (a UInt8) ENGINE = Memory",
        ] {
            run(&mut session, sql).await.unwrap();
        }
        table_dir(&mut session, "db", "t").await
    };
    // A crash mid-insert leaves a temporary part; one mid-cleanup leaves
    // parts that a finished merge covers.
    std::fs::create_dir(table_dir.join("tmp_insert_0_9_9_0")).unwrap();
    let engine = open(dir.path()).await;
    let mut session = engine.new_session();
    assert_eq!(number(&mut session, "SELECT count() FROM db.t").await, 1001);
    assert_eq!(
        number(&mut session, "SELECT sum(k) FROM db.t WHERE s = 'x'").await,
        5000
    );
    assert!(!table_dir.join("tmp_insert_0_9_9_0").exists());
    let (_, shown) = run(&mut session, "SHOW CREATE TABLE db.t").await.unwrap();
    let text = format!("{:?}", shown[0].column(0));
    assert!(
        text.contains("DEFAULT 'x'") && text.contains("PARTITION BY k % 2"),
        "{text}"
    );
    run(&mut session, "OPTIMIZE TABLE db.t FINAL")
        .await
        .unwrap();
    // Put a merged-away part back, as if the process stopped before removing it.
    let parts: Vec<String> = std::fs::read_dir(&table_dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    assert_eq!(parts.len(), 2, "{parts:?}");
    drop(session);
    drop(engine);
    let merged = parts.iter().find(|p| p.starts_with("0_")).unwrap();
    assert_eq!(merged, "0_1_3_1");
    copy_tree(&table_dir.join(merged), &table_dir.join("0_1_1_0"));
    let engine = open(dir.path()).await;
    let mut session = engine.new_session();
    assert_eq!(number(&mut session, "SELECT count() FROM db.t").await, 1001);
    assert!(!table_dir.join("0_1_1_0").exists(), "covered part removed");
    assert_eq!(
        number(
            &mut session,
            "SELECT count() FROM system.tables WHERE database = 'db'"
        )
        .await,
        2
    );
    run(&mut session, "DROP DATABASE db").await.unwrap();
    drop(session);
    drop(engine);
    assert!(!table_dir.exists());
    let engine = open(dir.path()).await;
    let mut session = engine.new_session();
    assert_eq!(
        number(
            &mut session,
            "SELECT count() FROM system.databases WHERE name = 'db'"
        )
        .await,
        0
    );
}

/// A process killed while DROP TABLE removes the files leaves part of a
/// part behind; the next start finishes the drop instead of loading the
/// table with a broken part.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_drop_cut_short_is_finished_at_the_next_start() {
    let dir = tempfile::tempdir().unwrap();
    let table_dir = {
        let engine = open(dir.path()).await;
        let mut session = engine.new_session();
        for sql in [
            "CREATE TABLE t (k UInt64) ENGINE = MergeTree ORDER BY k",
            "INSERT INTO t SELECT number FROM numbers(100)",
        ] {
            run(&mut session, sql).await.unwrap();
        }
        table_dir(&mut session, "default", "t").await
    };
    // The drop's commit point, then the files going one by one.
    let data_path = DataPath::open(dir.path()).unwrap();
    assert!(data_path.begin_drop("default", "t").unwrap().is_some());
    std::fs::remove_file(table_dir.join("all_1_1_0/k.bin")).unwrap();
    drop(data_path);
    let engine = open(dir.path()).await;
    let mut session = engine.new_session();
    let tables = "SELECT count() FROM system.tables WHERE database = 'default' AND name = 't'";
    assert_eq!(number(&mut session, tables).await, 0);
    assert!(!table_dir.exists(), "the drop's data is gone");
    let dropped = dir.path().join("metadata_dropped");
    assert_eq!(std::fs::read_dir(&dropped).unwrap().count(), 0);
    run(
        &mut session,
        "CREATE TABLE t (k UInt64) ENGINE = MergeTree ORDER BY k",
    )
    .await
    .unwrap();
    assert_eq!(number(&mut session, "SELECT count() FROM t").await, 0);
}

/// Parts a merge replaced stay on disk while a query still reads them. A
/// TRUNCATE then, and a crash before the query ends, must not bring them
/// back at the next start.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_crash_after_truncate_does_not_bring_back_parts_a_reader_held() {
    let dir = tempfile::tempdir().unwrap();
    let engine = open(dir.path()).await;
    let mut session = engine.new_session();
    let reading = parts_under_an_open_scan(&mut session, 3, 1000).await;
    let mut other = engine.new_session();
    run(&mut other, "OPTIMIZE TABLE t FINAL").await.unwrap();
    run(&mut other, "TRUNCATE TABLE t").await.unwrap();
    // The disk as a crash now would leave it, the query still reading.
    let crashed = tempfile::tempdir().unwrap();
    let copy = crashed.path().join("data");
    copy_tree(dir.path(), &copy);
    drop(reading);
    let engine = open(&copy).await;
    let mut session = engine.new_session();
    assert_eq!(number(&mut session, "SELECT count() FROM t").await, 0);
    assert_eq!(
        number(
            &mut session,
            "SELECT count() FROM system.parts WHERE table = 't'"
        )
        .await,
        0
    );
}

/// Table `t` of `parts` parts holding keys 0, 1, ... (`rows` each), left
/// unmerged by its settings, and a scan of it opened and not read yet.
async fn parts_under_an_open_scan(session: &mut Session, parts: u64, rows: u64) -> QueryResult {
    run(
        session,
        "CREATE TABLE t (k UInt64) ENGINE = MergeTree ORDER BY k SETTINGS min_parts_to_merge_at_once = 100",
    )
    .await
    .unwrap();
    for i in 0..parts {
        let sql = format!("INSERT INTO t SELECT number + {i} * {rows} FROM numbers({rows})");
        run(session, &sql).await.unwrap();
    }
    let StatementOutcome::Rows(result) = session
        .execute("SELECT k FROM t SETTINGS max_threads = 1")
        .await
        .unwrap()
    else {
        panic!("a SELECT returns rows");
    };
    result
}

/// Copies the directory `from` as `to`, with everything under it.
fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

/// Runs each `(query, count, rows read)` case: the count() it returns
/// and that the rows it read are in the range.
async fn check_counts_and_reads(
    session: &mut Session,
    cases: &[(&str, u64, std::ops::RangeInclusive<u64>)],
) {
    for (sql, expected, read) in cases {
        let (query, batches) = run(session, sql).await.unwrap();
        let count = batches[0]
            .column(0)
            .as_any()
            .downcast_ref::<UInt64Array>()
            .unwrap()
            .value(0);
        assert_eq!(count, *expected, "{sql}");
        assert!(
            read.contains(&query.rows_read()),
            "{sql} read {}",
            query.rows_read()
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn filters_on_the_key_and_partition_read_only_what_they_need() {
    let engine = Engine::new().unwrap();
    let mut session = engine.new_session();
    for sql in [
        "CREATE TABLE t (a UInt32, b UInt32, d Date) ENGINE = MergeTree PARTITION BY d ORDER BY (a, b) SETTINGS index_granularity = 100",
        "INSERT INTO t SELECT intDiv(number, 1000), number % 1000, toDate('2024-01-01') + intDiv(number, 20000) FROM numbers(100000)",
    ] {
        run(&mut session, sql).await.unwrap();
    }
    let cases = [
        // One value of the first key column: its 1000 rows, at most one granule more.
        ("SELECT count() FROM t WHERE a = 42", 1000, 1000..=1100),
        // Both key columns: the granule holding (42, 500), the one before it
        // (it ends at 500), and the two where `a` changes, whose bounds on `b`
        // the index cannot give.
        (
            "SELECT count() FROM t WHERE a = 42 AND b = 500",
            1,
            100..=400,
        ),
        (
            "SELECT count() FROM t WHERE a >= 10 AND a < 12",
            2000,
            2000..=2100,
        ),
        (
            "SELECT count() FROM t WHERE a IN (3, 70)",
            2000,
            2000..=2200,
        ),
        // A partition filter skips whole parts: two days of five.
        (
            "SELECT count() FROM t WHERE d < '2024-01-03'",
            40000,
            40000..=40000,
        ),
        // The virtual column `_partition_id` picks parts too, and combines
        // with the primary key.
        (
            "SELECT count() FROM t WHERE _partition_id = '20240102'",
            20000,
            20000..=20000,
        ),
        (
            "SELECT count() FROM t WHERE _partition_id = '20240103' AND a = 42",
            1000,
            1000..=1100,
        ),
        (
            "SELECT count() FROM t WHERE _partition_id = '20240101' AND a = 42",
            0,
            0..=0,
        ),
        // The second key column alone: each granule's bounds on `b` leave
        // one granule per value of `a`.
        ("SELECT count() FROM t WHERE b = 7", 100, 10000..=10000),
        // A column outside the key reads everything.
        ("SELECT count() FROM t WHERE a + b = 7", 8, 100000..=100000),
    ];
    check_counts_and_reads(&mut session, &cases).await;
    let (none, _) = run(&mut session, "SELECT count() FROM t WHERE d > '2024-02-01'")
        .await
        .unwrap();
    assert_eq!(none.rows_read(), 0);
}

/// A filter on one column reads that column whole and the others only in
/// the granules where rows pass, as ClickHouse's PREWHERE; the counters say so.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_selective_filter_reads_other_columns_only_where_rows_pass() {
    let engine = Engine::new().unwrap();
    let mut session = engine.new_session();
    for sql in [
        "CREATE TABLE t (k UInt64, s String, payload String) ENGINE = MergeTree ORDER BY k SETTINGS index_granularity = 100",
        // `s` in no order, so its granule bounds skip nothing.
        "INSERT INTO t SELECT number, toString(number * 7919 % 100000), repeat('x', 100) FROM numbers(100000)",
    ] {
        run(&mut session, sql).await.unwrap();
    }
    let (whole_s, _) = run(&mut session, "SELECT s FROM t").await.unwrap();
    let (filtered, batches) = run(&mut session, "SELECT payload FROM t WHERE s = '4242'")
        .await
        .unwrap();
    assert_eq!(batches.iter().map(|b| b.num_rows()).sum::<usize>(), 1);
    assert_eq!(filtered.rows_read(), 100_000);
    // `s` in full plus one granule of `payload`: 100 values of 100 bytes
    // and their 101 offsets.
    let one_granule = 100 * 100 + 101 * 4;
    assert_eq!(filtered.bytes_read(), whole_s.bytes_read() + one_granule);
    let (nothing, _) = run(&mut session, "SELECT payload FROM t WHERE s = '4242x'")
        .await
        .unwrap();
    assert_eq!(nothing.bytes_read(), whole_s.bytes_read());
}

/// Filters on columns outside the key skip granules by each granule's
/// bounds, and filters on a skipping index's expression by the index.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn granule_bounds_and_skipping_indexes_skip_granules() {
    let engine = Engine::new().unwrap();
    let mut session = engine.new_session();
    for sql in [
        "CREATE TABLE t (k UInt64, s String, v UInt64, h String, \
            INDEX thousands intDiv(k, 1000) TYPE set(10) GRANULARITY 1, \
            INDEX digits length(s) TYPE minmax GRANULARITY 4, \
            INDEX hashes h TYPE bloom_filter(0.01) GRANULARITY 1) \
         ENGINE = MergeTree ORDER BY k SETTINGS index_granularity = 100",
        "INSERT INTO t SELECT number, toString(number), number, hex(number * 2654435761 % 1000003) FROM numbers(100000)",
    ] {
        run(&mut session, sql).await.unwrap();
    }
    // hex() writes whole bytes: an even number of digits.
    let hashed = format!("{:X}", 42_000 * 2_654_435_761u64 % 1_000_003);
    let hashed = format!("{}{hashed}", "0".repeat(hashed.len() % 2));
    let by_bloom = format!("SELECT count() FROM t WHERE h = '{hashed}'");
    let cases = [
        // `v` follows the key: its bounds leave the one granule.
        ("SELECT count() FROM t WHERE v = 777", 1, 100..=100),
        // Text in number order: the granules whose first and last strings
        // enclose '4242' (those of 4200, 420, 4240..4249's neighbours).
        ("SELECT count() FROM t WHERE s = '4242'", 1, 100..=1000),
        // The set index: the ten granules of one thousand.
        (
            "SELECT count() FROM t WHERE intDiv(k, 1000) = 42",
            1000,
            1000..=1000,
        ),
        (
            "SELECT count() FROM t WHERE intDiv(k, 1000) IN (1, 99)",
            2000,
            2000..=2000,
        ),
        // The minmax index over groups of four granules: 1..9 and 10..99
        // fit in the first group, 100..999 in the first ten.
        (
            "SELECT count() FROM t WHERE length(s) = 3",
            900,
            1000..=1200,
        ),
        // The Bloom filter: the granule holding the value, and false
        // positives at about 1% of the other 999.
        (by_bloom.as_str(), 1, 100..=3000),
        ("SELECT count() FROM t WHERE h = 'ABCDEF'", 0, 0..=3000),
    ];
    check_counts_and_reads(&mut session, &cases).await;
    // EXPLAIN indexes = 1 shows each step's parts and granules.
    let (_, batches) = run(
        &mut session,
        "EXPLAIN indexes = 1 SELECT count() FROM t WHERE v < 250 AND intDiv(k, 1000) = 0",
    )
    .await
    .unwrap();
    let lines: Vec<String> = batches
        .iter()
        .flat_map(|b| {
            let column = b.column(0).as_any().downcast_ref::<StringArray>().unwrap();
            column
                .iter()
                .map(|l| l.unwrap().trim().to_string())
                .collect::<Vec<_>>()
        })
        .collect();
    let at = |line: &str| {
        lines
            .iter()
            .position(|l| l == line)
            .unwrap_or_else(|| panic!("no {line} in {lines:?}"))
    };
    assert_eq!(
        lines[at("ReadFromMergeTree (default.t)") + 1],
        "Parts: 1 | Granules: 3"
    );
    assert_eq!(lines[at("Granule bounds") + 2], "Granules: 3/1000");
    assert_eq!(
        lines[at("Name: thousands") + 1],
        "Description: set GRANULARITY 1"
    );
    assert_eq!(lines[at("Name: thousands") + 3], "Granules: 3/3");
}

/// Token and n-gram Bloom filters skip the granules whose strings cannot
/// hold what a LIKE, `=`, `hasToken` or `multiSearchAny` needs.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn text_indexes_skip_granules_without_the_tokens_or_ngrams() {
    let engine = Engine::new().unwrap();
    let mut session = engine.new_session();
    for sql in [
        "CREATE TABLE logs (k UInt64, msg String, \
            INDEX tokens msg TYPE tokenbf_v1(512, 3, 0) GRANULARITY 1, \
            INDEX grams lower(msg) TYPE ngrambf_v1(4, 1024, 2, 0) GRANULARITY 1) \
         ENGINE = MergeTree ORDER BY k SETTINGS index_granularity = 100",
        "INSERT INTO logs SELECT number, concat('GET /item?id=', toString(number), \
            if(number % 1000 = 7, ' ERROR timeout', ' ok')) FROM numbers(100000)",
    ] {
        run(&mut session, sql).await.unwrap();
    }
    let cases = [
        // One granule of each thousand rows holds the error; false
        // positives add a few.
        (
            "SELECT count() FROM logs WHERE hasToken(msg, 'ERROR')",
            100,
            10_000..=13_000,
        ),
        // The token between `=` and ` ` is whole: one granule and false
        // positives.
        (
            "SELECT count() FROM logs WHERE msg LIKE '%id=54321 %'",
            1,
            100..=3_000,
        ),
        (
            "SELECT count() FROM logs WHERE msg = 'GET /item?id=777 ok'",
            1,
            100..=3_000,
        ),
        // `%54321%` bounds no token: the token index cannot help, the
        // n-grams of `lower(msg)` can.
        (
            "SELECT count() FROM logs WHERE lower(msg) LIKE '%=54321 %'",
            1,
            100..=3_000,
        ),
        (
            "SELECT count() FROM logs WHERE multiSearchAny(msg, ['id=1234 ', 'id=99999 '])",
            2,
            200..=4_000,
        ),
        // No token of a negation is needed: everything is read.
        (
            "SELECT count() FROM logs WHERE NOT hasToken(msg, 'ERROR')",
            99_900,
            100_000..=100_000,
        ),
    ];
    check_counts_and_reads(&mut session, &cases).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_running_query_keeps_its_snapshot_through_merges_and_truncate() {
    let engine = Engine::new().unwrap();
    let mut session = engine.new_session();
    // Open a scan, then merge and truncate before reading it.
    let mut result = parts_under_an_open_scan(&mut session, 5, 100000).await;
    let mut other = engine.new_session();
    run(&mut other, "OPTIMIZE TABLE t FINAL").await.unwrap();
    assert_eq!(
        number(
            &mut other,
            "SELECT count() FROM system.parts WHERE table = 't'"
        )
        .await,
        1
    );
    let mut sum = 0u64;
    let mut rows = 0usize;
    while let Some(batch) = result.stream.next().await {
        let batch = batch.unwrap();
        let keys = batch
            .column(0)
            .as_any()
            .downcast_ref::<UInt64Array>()
            .unwrap();
        rows += keys.len();
        sum += keys.values().iter().sum::<u64>();
    }
    assert_eq!(rows, 500000);
    assert_eq!(sum, (0..500000u64).sum::<u64>());
    run(&mut other, "TRUNCATE TABLE t").await.unwrap();
    assert_eq!(number(&mut other, "SELECT count() FROM t").await, 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn background_merges_keep_the_data_identical() {
    let engine = Engine::new().unwrap();
    let mut session = engine.new_session();
    run(
        &mut session,
        "CREATE TABLE t (k UInt64, v String) ENGINE = MergeTree ORDER BY k SETTINGS min_parts_to_merge_at_once = 3, max_parts_to_merge_at_once = 3",
    )
    .await
    .unwrap();
    for i in 0..9u64 {
        let sql =
            format!("INSERT INTO t SELECT number * 9 + {i}, toString(number) FROM numbers(1000)");
        run(&mut session, &sql).await.unwrap();
    }
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    loop {
        let parts = number(
            &mut session,
            "SELECT count() FROM system.parts WHERE table = 't'",
        )
        .await;
        if parts < 3 || std::time::Instant::now() > deadline {
            assert!(parts < 3, "background merges left {parts} parts");
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    assert_eq!(number(&mut session, "SELECT count() FROM t").await, 9000);
    assert_eq!(
        number(&mut session, "SELECT sum(k) FROM t").await,
        (0..9000u64).sum::<u64>()
    );
    // Merged parts stay sorted: the first rows come back in key order.
    let (_, batches) = run(
        &mut session,
        "SELECT k FROM t LIMIT 5 SETTINGS max_threads = 1",
    )
    .await
    .unwrap();
    let keys = batches[0]
        .column(0)
        .as_any()
        .downcast_ref::<UInt64Array>()
        .unwrap();
    assert_eq!(keys.values().as_ref(), &[0, 1, 2, 3, 4]);
}

/// OPTIMIZE from several sessions and the background merger at once: a
/// part is read by one merge at a time (two merges of one part would write
/// the same result through one temporary directory), and the table that
/// opens afterwards reads whole.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_merges_never_share_a_part() {
    let dir = tempfile::tempdir().unwrap();
    let rows = 240_000u64;
    {
        let engine = open(dir.path()).await;
        let mut session = engine.new_session();
        run(
            &mut session,
            "CREATE TABLE t (k UInt64, s String) ENGINE = MergeTree ORDER BY k SETTINGS min_parts_to_merge_at_once = 2, max_parts_to_merge_at_once = 3",
        )
        .await
        .unwrap();
        for round in 0..3 {
            for block in 0..8u64 {
                let start = (round * 8 + block) * (rows / 24);
                let sql = format!(
                    "INSERT INTO t SELECT number, toString(number) FROM numbers({start}, {})",
                    rows / 24
                );
                run(&mut session, &sql).await.unwrap();
            }
            let optimizers: Vec<_> = (0..3)
                .map(|_| {
                    let mut optimizer = engine.new_session();
                    tokio::spawn(async move {
                        run(&mut optimizer, "OPTIMIZE TABLE t FINAL").await.unwrap();
                    })
                })
                .collect();
            while optimizers.iter().any(|o| !o.is_finished()) {
                let (_, batches) = run(
                    &mut session,
                    "SELECT source_part_names FROM system.merges WHERE table = 't'",
                )
                .await
                .unwrap();
                let mut held = std::collections::HashSet::new();
                for batch in &batches {
                    let lists = batch
                        .column(0)
                        .as_any()
                        .downcast_ref::<ListArray>()
                        .unwrap();
                    for row in 0..lists.len() {
                        let names = lists.value(row);
                        let names = names.as_any().downcast_ref::<StringArray>().unwrap();
                        for name in names.iter().flatten() {
                            assert!(
                                held.insert(name.to_string()),
                                "{name} is read by two merges"
                            );
                        }
                    }
                }
            }
            for optimizer in optimizers {
                optimizer.await.unwrap();
            }
        }
    }
    let engine = open(dir.path()).await;
    let mut session = engine.new_session();
    assert_eq!(number(&mut session, "SELECT count() FROM t").await, rows);
    assert_eq!(
        number(&mut session, "SELECT uniqExact(k) FROM t").await,
        rows
    );
    assert_eq!(
        number(&mut session, "SELECT sum(toUInt64(s) = k) FROM t").await,
        rows
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failed_insert_leaves_nothing_behind() {
    let engine = Engine::new().unwrap();
    let mut session = engine.new_session();
    run(
        &mut session,
        "CREATE TABLE t (k UInt64) ENGINE = MergeTree ORDER BY k",
    )
    .await
    .unwrap();
    run(&mut session, "INSERT INTO t VALUES (1)").await.unwrap();
    // Blocks of 10,000 rows are written before row 150,000 fails.
    let error = run(
        &mut session,
        "INSERT INTO t SELECT intDiv(number, 150000 - number) FROM numbers(300000) SETTINGS max_insert_block_size = 10000, max_block_size = 1000",
    )
    .await
    .unwrap_err();
    assert_eq!(
        error.code,
        strata_common::ErrorCode::ILLEGAL_DIVISION,
        "{error}"
    );
    assert_eq!(number(&mut session, "SELECT count() FROM t").await, 1);
    assert_eq!(
        number(
            &mut session,
            "SELECT count() FROM system.parts WHERE table = 't'"
        )
        .await,
        1
    );
    // The failed insert's written parts are gone from disk too.
    let dir = table_dir(&mut session, "default", "t").await;
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while std::fs::read_dir(&dir).unwrap().count() > 1 && std::time::Instant::now() < deadline {
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_inserts_and_reads_see_whole_inserts_only() {
    const WRITERS: u64 = 3;
    const INSERTS_PER_WRITER: u64 = 20;
    const ROWS_PER_INSERT: u64 = 500;
    let engine = Engine::new().unwrap();
    let mut session = engine.new_session();
    run(
        &mut session,
        "CREATE TABLE t (k UInt64, w UInt64) ENGINE = MergeTree PARTITION BY w ORDER BY k SETTINGS min_parts_to_merge_at_once = 3",
    )
    .await
    .unwrap();
    let mut writers = Vec::new();
    for writer in 0..WRITERS {
        let mut session = engine.new_session();
        writers.push(tokio::spawn(async move {
            for insert in 0..INSERTS_PER_WRITER {
                let first = (writer * INSERTS_PER_WRITER + insert) * ROWS_PER_INSERT;
                let sql = format!(
                    "INSERT INTO t SELECT number, {writer} FROM numbers({first}, {ROWS_PER_INSERT})"
                );
                run(&mut session, &sql).await.unwrap();
            }
        }));
    }
    // Every read sees a set of whole inserts: the count is a multiple of an
    // insert's rows and the sum matches the rows counted, per writer.
    let mut reads = 0;
    while writers.iter().any(|w| !w.is_finished()) || reads == 0 {
        let (_, batches) = run(
            &mut session,
            "SELECT w, count(), sum(k % 500) FROM t GROUP BY w",
        )
        .await
        .unwrap();
        for batch in &batches {
            let columns: Vec<&UInt64Array> = (0..3)
                .map(|i| {
                    batch
                        .column(i)
                        .as_any()
                        .downcast_ref::<UInt64Array>()
                        .unwrap()
                })
                .collect();
            for row in 0..batch.num_rows() {
                let count = columns[1].value(row);
                assert_eq!(count % ROWS_PER_INSERT, 0, "a partial insert was visible");
                let inserts = count / ROWS_PER_INSERT;
                assert_eq!(columns[2].value(row), inserts * (0..500u64).sum::<u64>());
            }
        }
        reads += 1;
    }
    for writer in writers {
        writer.await.unwrap();
    }
    let total = WRITERS * INSERTS_PER_WRITER * ROWS_PER_INSERT;
    assert_eq!(number(&mut session, "SELECT count() FROM t").await, total);
    assert_eq!(
        number(&mut session, "SELECT sum(k) FROM t").await,
        (0..total).sum::<u64>()
    );
    assert_eq!(
        number(&mut session, "SELECT uniqExact(k) FROM t").await,
        total
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_renamed_table_keeps_its_data_and_name_across_restarts() {
    let dir = tempfile::tempdir().unwrap();
    let before = {
        let engine = open(dir.path()).await;
        let mut session = engine.new_session();
        for sql in [
            "CREATE DATABASE other",
            "CREATE TABLE t (k UInt64) ENGINE = MergeTree ORDER BY k",
            "INSERT INTO t SELECT number FROM numbers(1000)",
            "RENAME TABLE t TO other.renamed",
            "CREATE TABLE t (x String) ENGINE = Memory",
        ] {
            run(&mut session, sql).await.unwrap();
        }
        table_dir(&mut session, "other", "renamed").await
    };
    let engine = open(dir.path()).await;
    let mut session = engine.new_session();
    assert_eq!(
        number(&mut session, "SELECT sum(k) FROM other.renamed").await,
        (0..1000u64).sum::<u64>()
    );
    assert_eq!(table_dir(&mut session, "other", "renamed").await, before);
    let (_, shown) = run(&mut session, "SHOW CREATE TABLE other.renamed")
        .await
        .unwrap();
    let text = format!("{:?}", shown[0].column(0));
    assert!(text.contains("CREATE TABLE other.renamed"), "{text}");
    assert_eq!(number(&mut session, "SELECT count() FROM t").await, 0);
}

/// A table detached until restart comes back at the next start; one
/// detached PERMANENTLY stays out until ATTACH, with its parts.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn detached_tables_come_back_at_restart_unless_detached_permanently() {
    let dir = tempfile::tempdir().unwrap();
    {
        let engine = open(dir.path()).await;
        let mut session = engine.new_session();
        for sql in [
            "CREATE TABLE until_restart (k UInt64) ENGINE = MergeTree ORDER BY k",
            "INSERT INTO until_restart SELECT number FROM numbers(100)",
            "CREATE TABLE for_good (k UInt64) ENGINE = MergeTree ORDER BY k",
            "INSERT INTO for_good SELECT number FROM numbers(10)",
            "DETACH TABLE until_restart",
            "DETACH TABLE for_good PERMANENTLY",
        ] {
            run(&mut session, sql).await.unwrap();
        }
    }
    let engine = open(dir.path()).await;
    let mut session = engine.new_session();
    assert_eq!(
        number(&mut session, "SELECT count() FROM until_restart").await,
        100
    );
    let listed = "SELECT count() FROM system.tables WHERE name = 'for_good'";
    assert_eq!(number(&mut session, listed).await, 0);
    let taken = run(
        &mut session,
        "CREATE TABLE for_good (x UInt8) ENGINE = Memory",
    )
    .await;
    assert!(taken.unwrap_err().to_string().contains("(detached)"));
    run(&mut session, "ATTACH TABLE for_good").await.unwrap();
    assert_eq!(
        number(&mut session, "SELECT sum(k) FROM for_good").await,
        45
    );
    drop(session);
    drop(engine);
    let engine = open(dir.path()).await;
    let mut session = engine.new_session();
    assert_eq!(
        number(&mut session, "SELECT count() FROM for_good").await,
        10
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn alters_survive_restarts_and_an_interrupted_rename_is_finished() {
    let dir = tempfile::tempdir().unwrap();
    let table_path = {
        let engine = open(dir.path()).await;
        let mut session = engine.new_session();
        for sql in [
            "CREATE TABLE t (k UInt64, s String, gone UInt8) ENGINE = MergeTree ORDER BY k",
            "INSERT INTO t SELECT number, toString(number), 1 FROM numbers(1000)",
            "ALTER TABLE t DROP COLUMN gone",
            "ALTER TABLE t ADD COLUMN c UInt32 DEFAULT 7 AFTER k",
            "ALTER TABLE t RENAME COLUMN s TO str",
            // Memory tables carry their rows over, with an added column's DEFAULT.
            "CREATE TABLE m (a Int32, b String) ENGINE = Memory",
            "INSERT INTO m VALUES (1, 'one'), (2, 'two')",
            "ALTER TABLE m ADD COLUMN c UInt8 DEFAULT 3, RENAME COLUMN b TO bb, DROP COLUMN a",
        ] {
            run(&mut session, sql).await.unwrap();
        }
        assert_eq!(
            number(&mut session, "SELECT sum(c) FROM m WHERE bb = 'two'").await,
            3
        );
        table_dir(&mut session, "default", "t").await
    };
    // A rename interrupted after its definition was stored: the parts still
    // hold the old name and the table's directory records the rename.
    let only_part = |dir: &Path| {
        std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .find(|p| p.is_dir())
            .unwrap()
    };
    let before_rename = only_part(&table_path);
    let saved = dir.path().join("saved_part");
    copy_tree(&before_rename, &saved);
    {
        let engine = open(dir.path()).await;
        let mut session = engine.new_session();
        assert_eq!(
            number(&mut session, "SELECT sum(toUInt64(str)) + sum(c) FROM t").await,
            (0..1000u64).sum::<u64>() + 7000
        );
        run(&mut session, "ALTER TABLE t RENAME COLUMN str TO text")
            .await
            .unwrap();
    }
    let renamed = only_part(&table_path);
    let columns = std::fs::read_to_string(renamed.join("columns.txt")).unwrap();
    assert!(
        columns.contains("text\t") && !columns.contains("str\t"),
        "{columns}"
    );
    std::fs::remove_dir_all(&renamed).unwrap();
    copy_tree(&saved, &before_rename);
    std::fs::write(table_path.join("column_rename.txt"), "str\ttext").unwrap();
    let engine = open(dir.path()).await;
    let mut session = engine.new_session();
    assert_eq!(
        number(&mut session, "SELECT sum(toUInt64(text)) FROM t").await,
        (0..1000u64).sum::<u64>()
    );
    assert!(!table_path.join("column_rename.txt").exists());
    assert!(!before_rename.exists(), "the old part was rewritten");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn system_merges_shows_a_running_merge_and_forgets_it_after() {
    let engine = Engine::new().unwrap();
    let mut session = engine.new_session();
    run(
        &mut session,
        "CREATE TABLE t (k UInt64, s String) ENGINE = MergeTree ORDER BY k",
    )
    .await
    .unwrap();
    for i in 0..3u64 {
        let sql = format!(
            "INSERT INTO t SELECT number, toString(number) FROM numbers({}, 1000000)",
            i * 1_000_000
        );
        run(&mut session, &sql).await.unwrap();
    }
    let mut merger = engine.new_session();
    let optimize = tokio::spawn(async move {
        run(&mut merger, "OPTIMIZE TABLE t FINAL").await.unwrap();
    });
    let mut seen = None;
    while !optimize.is_finished() {
        let (_, batches) = run(
            &mut session,
            "SELECT num_parts, total_size_bytes_compressed > 0, rows_read <= 3000000, is_mutation FROM system.merges WHERE table = 't'",
        )
        .await
        .unwrap();
        if let Some(batch) = batches.iter().find(|b| b.num_rows() > 0) {
            seen = Some(
                (0..4)
                    .map(|i| {
                        datafusion::arrow::util::display::array_value_to_string(batch.column(i), 0)
                            .unwrap()
                    })
                    .collect::<Vec<_>>(),
            );
        }
    }
    optimize.await.unwrap();
    assert_eq!(
        seen.expect("the merge was seen running"),
        ["3", "1", "1", "0"]
    );
    assert_eq!(
        number(&mut session, "SELECT count() FROM system.merges").await,
        0
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_merge_over_the_memory_budget_fails_and_keeps_its_parts() {
    let dir = tempfile::tempdir().unwrap();
    let mut settings = Settings::server();
    settings.set("max_server_memory_usage", "40000000").unwrap();
    let engine = Engine::open(settings, DataPath::open(dir.path()).unwrap()).unwrap();
    engine.load_tables().await.unwrap();
    let mut session = engine.new_session();
    run(
        &mut session,
        "CREATE TABLE t (k UInt64, s String) ENGINE = MergeTree ORDER BY k SETTINGS min_parts_to_merge_at_once = 100",
    )
    .await
    .unwrap();
    for i in 0..4u64 {
        let sql = format!(
            "INSERT INTO t SELECT number, repeat('x', 20) FROM numbers({}, 300000)",
            i * 300_000
        );
        run(&mut session, &sql).await.unwrap();
    }
    // Four parts of 300,000 rows hold about 40 MB once read back: over the budget.
    let error = run(&mut session, "OPTIMIZE TABLE t FINAL")
        .await
        .unwrap_err();
    assert_eq!(
        error.code,
        strata_common::ErrorCode::MEMORY_LIMIT_EXCEEDED,
        "{error}"
    );
    assert_eq!(
        number(
            &mut session,
            "SELECT count() FROM system.parts WHERE table = 't'"
        )
        .await,
        4
    );
    assert_eq!(
        number(&mut session, "SELECT count() FROM t").await,
        1_200_000
    );
    assert_eq!(
        number(&mut session, "SELECT count() FROM system.merges").await,
        0
    );
    // Two parts fit.
    run(&mut session, "TRUNCATE TABLE t").await.unwrap();
    for i in 0..2u64 {
        let sql = format!(
            "INSERT INTO t SELECT number, 'y' FROM numbers({}, 100000)",
            i * 100_000
        );
        run(&mut session, &sql).await.unwrap();
    }
    run(&mut session, "OPTIMIZE TABLE t FINAL").await.unwrap();
    assert_eq!(
        number(
            &mut session,
            "SELECT count() FROM system.parts WHERE table = 't'"
        )
        .await,
        1
    );
}

/// The names of a table's part directories, sorted.
fn part_dirs(table_dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(table_dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|name| name.starts_with("all_"))
        .collect();
    names.sort();
    names
}

/// Every row of a query's first string column.
async fn texts(session: &mut Session, sql: &str) -> Vec<String> {
    let (_, batches) = run(session, sql).await.unwrap();
    batches
        .iter()
        .flat_map(|b| {
            let column = b.column(0).as_any().downcast_ref::<StringArray>().unwrap();
            (0..column.len())
                .map(|i| column.value(i).to_string())
                .collect::<Vec<_>>()
        })
        .collect()
}

/// `CHECK TABLE t`'s single result.
async fn check_table(session: &mut Session) -> u8 {
    let sql = "CHECK TABLE t SETTINGS check_query_single_value_result = 1";
    let (_, batches) = run(session, sql).await.unwrap();
    batches[0]
        .column(0)
        .as_any()
        .downcast_ref::<UInt8Array>()
        .unwrap()
        .value(0)
}

/// A table of three parts, one per insert of 1000 rows; its directory.
async fn three_parts(dir: &Path, settings: &str) -> PathBuf {
    let engine = open(dir).await;
    let mut session = engine.new_session();
    let create =
        format!("CREATE TABLE t (k UInt64, s String) ENGINE = MergeTree ORDER BY k {settings}");
    run(&mut session, &create).await.unwrap();
    for i in 0..3 {
        let sql = format!(
            "INSERT INTO t SELECT number, toString(number) FROM numbers({}, 1000)",
            i * 1000
        );
        run(&mut session, &sql).await.unwrap();
    }
    table_dir(&mut session, "default", "t").await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_broken_part_is_detached_at_load_and_the_rest_of_the_table_loads() {
    let dir = tempfile::tempdir().unwrap();
    let table_dir = three_parts(dir.path(), "").await;
    let parts = part_dirs(&table_dir);
    assert_eq!(parts, ["all_1_1_0", "all_2_2_0", "all_3_3_0"]);
    // One part torn (a file shorter than listed), one with a flipped byte
    // in a file read whole at load.
    let data = table_dir.join("all_1_1_0/s.bin");
    let bytes = std::fs::read(&data).unwrap();
    std::fs::write(&data, &bytes[..bytes.len() / 2]).unwrap();
    let count = table_dir.join("all_3_3_0/count.txt");
    std::fs::write(&count, "1001").unwrap();

    let engine = open(dir.path()).await;
    let mut session = engine.new_session();
    assert_eq!(number(&mut session, "SELECT count() FROM t").await, 1000);
    assert_eq!(number(&mut session, "SELECT min(k) FROM t").await, 1000);
    assert_eq!(
        texts(
            &mut session,
            "SELECT name || ' ' || reason || ' ' || partition_id FROM system.detached_parts WHERE table = 't' ORDER BY name"
        )
        .await,
        ["broken_all_1_1_0 broken all", "broken_all_3_3_0 broken all"]
    );
    assert!(table_dir.join("detached/broken_all_1_1_0/s.bin").exists());
    assert_eq!(check_table(&mut session).await, 1);
    // A broken part keeps its prefix: ATTACH PART takes only plain names,
    // and removing detached data needs allow_drop_detached.
    let error = run(&mut session, "ALTER TABLE t ATTACH PART 'broken_all_1_1_0'")
        .await
        .unwrap_err();
    assert_eq!(error.code.name, "BAD_DATA_PART_NAME", "{error}");
    let error = run(
        &mut session,
        "ALTER TABLE t DROP DETACHED PART 'broken_all_1_1_0'",
    )
    .await
    .unwrap_err();
    assert_eq!(error.code.name, "SUPPORT_IS_DISABLED", "{error}");
    run(&mut session, "SET allow_drop_detached = 1")
        .await
        .unwrap();
    run(
        &mut session,
        "ALTER TABLE t DROP DETACHED PART 'broken_all_1_1_0'",
    )
    .await
    .unwrap();
    assert!(!table_dir.join("detached/broken_all_1_1_0").exists());
    assert_eq!(
        number(&mut session, "SELECT count() FROM system.detached_parts").await,
        1
    );
    // New inserts take block numbers past the broken parts'.
    run(&mut session, "INSERT INTO t VALUES (7, 'x')")
        .await
        .unwrap();
    assert_eq!(part_dirs(&table_dir), ["all_2_2_0", "all_4_4_0"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn too_many_broken_parts_refuse_the_table_and_move_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let table_dir = three_parts(dir.path(), "SETTINGS max_suspicious_broken_parts = 1").await;
    for part in ["all_1_1_0", "all_2_2_0"] {
        std::fs::remove_file(table_dir.join(part).join("count.txt")).unwrap();
    }
    let engine = Engine::open(Settings::server(), DataPath::open(dir.path()).unwrap()).unwrap();
    let error = engine.load_tables().await.unwrap_err();
    assert_eq!(error.code.name, "TOO_MANY_UNEXPECTED_DATA_PARTS", "{error}");
    assert!(
        error.message.contains("max_suspicious_broken_parts (1)"),
        "{error}"
    );
    assert_eq!(part_dirs(&table_dir).len(), 3);
    assert!(!table_dir.join("detached").exists());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_flipped_bit_fails_the_read_naming_the_file_and_check_table_finds_the_part() {
    let dir = tempfile::tempdir().unwrap();
    let table_dir = three_parts(dir.path(), "").await;
    let data = table_dir.join("all_2_2_0/s.bin");
    let mut bytes = std::fs::read(&data).unwrap();
    let middle = bytes.len() / 2;
    bytes[middle] ^= 0x10;
    std::fs::write(&data, &bytes).unwrap();

    // Sizes still match, so the part loads; its block checksum fails the read.
    let engine = open(dir.path()).await;
    let mut session = engine.new_session();
    assert_eq!(number(&mut session, "SELECT count() FROM t").await, 3000);
    let error = run(&mut session, "SELECT sum(length(s)) FROM t")
        .await
        .unwrap_err();
    assert_eq!(error.code.name, "CHECKSUM_DOESNT_MATCH", "{error}");
    assert!(error.message.contains("all_2_2_0/s.bin"), "{error}");
    assert!(error.message.contains("at offset 0"), "{error}");
    assert_eq!(check_table(&mut session).await, 0);
    let (_, batches) = run(&mut session, "CHECK TABLE t").await.unwrap();
    assert_eq!(
        texts(&mut session, "CHECK TABLE t").await,
        ["all_1_1_0", "all_2_2_0", "all_3_3_0"]
    );
    let passed = batches[0]
        .column(1)
        .as_any()
        .downcast_ref::<UInt8Array>()
        .unwrap();
    assert_eq!(passed.values().to_vec(), [1, 0, 1]);

    // Taken out, the table reads again; put back, the read fails again.
    run(&mut session, "ALTER TABLE t DETACH PART 'all_2_2_0'")
        .await
        .unwrap();
    // Digits of 0..999 and of 2000..2999.
    assert_eq!(
        number(&mut session, "SELECT sum(length(s)) FROM t").await,
        2890 + 4000
    );
    let error = run(&mut session, "ALTER TABLE t ATTACH PART 'all_2_2_0'")
        .await
        .unwrap_err();
    assert_eq!(error.code.name, "CHECKSUM_DOESNT_MATCH", "{error}");
    assert!(table_dir.join("detached/all_2_2_0").exists());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn detach_and_attach_move_parts_and_partitions_out_and_back() {
    let dir = tempfile::tempdir().unwrap();
    let table_dir = three_parts(dir.path(), "").await;
    let engine = open(dir.path()).await;
    let mut session = engine.new_session();
    run(&mut session, "ALTER TABLE t DETACH PART 'all_1_1_0'")
        .await
        .unwrap();
    assert_eq!(number(&mut session, "SELECT count() FROM t").await, 2000);
    assert_eq!(
        texts(
            &mut session,
            "SELECT name || '/' || reason FROM system.detached_parts"
        )
        .await,
        ["all_1_1_0/"]
    );
    let error = run(&mut session, "ALTER TABLE t DETACH PART 'all_1_1_0'")
        .await
        .unwrap_err();
    assert_eq!(error.code.name, "NO_SUCH_DATA_PART", "{error}");
    // Back under a new block number, after the parts already there.
    run(&mut session, "ALTER TABLE t ATTACH PART 'all_1_1_0'")
        .await
        .unwrap();
    assert_eq!(number(&mut session, "SELECT count() FROM t").await, 3000);
    assert_eq!(
        number(&mut session, "SELECT sum(k) FROM t").await,
        4_498_500
    );
    assert_eq!(
        part_dirs(&table_dir),
        ["all_2_2_0", "all_3_3_0", "all_4_4_0"]
    );
    run(&mut session, "ALTER TABLE t DETACH PARTITION tuple()")
        .await
        .unwrap();
    assert_eq!(number(&mut session, "SELECT count() FROM t").await, 0);
    drop(session);
    drop(engine);
    // Detached parts stay out across a restart, then come back together.
    let engine = open(dir.path()).await;
    let mut session = engine.new_session();
    assert_eq!(number(&mut session, "SELECT count() FROM t").await, 0);
    run(&mut session, "ALTER TABLE t ATTACH PARTITION ID 'all'")
        .await
        .unwrap();
    assert_eq!(number(&mut session, "SELECT count() FROM t").await, 3000);
    assert_eq!(
        number(&mut session, "SELECT count() FROM system.detached_parts").await,
        0
    );
}

/// A policy of the data path's disk then a local object disk, moving by
/// free space: `move_factor = 1` wants the whole first volume free, so
/// every part there moves; the second volume's `prefer_not_to_merge`
/// keeps its parts out of background merges.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn move_factor_moves_parts_and_prefer_not_to_merge_keeps_them_apart() {
    use strata_storage::disk::{
        DiskConfig, DiskType, PolicyConfig, StorageConfiguration, VolumeConfig,
    };
    let dir = tempfile::tempdir().unwrap();
    let volume = |name: &str, disk: &str, prefer_not_to_merge| VolumeConfig {
        name: name.to_string(),
        disks: vec![disk.to_string()],
        max_data_part_size_bytes: 0,
        prefer_not_to_merge,
    };
    let policy = |name: &str, move_factor| PolicyConfig {
        name: name.to_string(),
        volumes: vec![
            volume("main", "default", false),
            volume("archive", "cold", true),
        ],
        move_factor,
    };
    let storage = StorageConfiguration {
        disks: vec![DiskConfig {
            name: "cold".to_string(),
            kind: DiskType::Local {
                path: PathBuf::from("cold"),
            },
        }],
        policies: vec![policy("moving", 1.0), policy("staying", 0.0)],
    };
    let data_path = DataPath::open(dir.path()).unwrap();
    let engine = Engine::open_with_storage(Settings::server(), data_path, &storage).unwrap();
    engine.load_tables().await.unwrap();
    let mut session = engine.new_session();
    for (table, policy) in [("m", "moving"), ("s", "staying")] {
        let create = format!(
            "CREATE TABLE {table} (x UInt64) ENGINE = MergeTree ORDER BY x SETTINGS storage_policy = '{policy}', min_parts_to_merge_at_once = 2"
        );
        run(&mut session, &create).await.unwrap();
        let stop = format!("SYSTEM STOP MERGES {table}");
        run(&mut session, &stop).await.unwrap();
        for i in 0..4 {
            let insert =
                format!("INSERT INTO {table} SELECT number + {i} * 1000 FROM numbers(1000)");
            run(&mut session, &insert).await.unwrap();
        }
    }
    let on = |table: &str, disk: &str| {
        format!(
            "SELECT count() FROM system.parts WHERE table = '{table}' AND active AND disk_name = '{disk}'"
        )
    };
    for _ in 0..200 {
        if number(&mut session, &on("m", "default")).await == 0 {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    assert_eq!(number(&mut session, &on("m", "default")).await, 0);
    assert_eq!(number(&mut session, &on("m", "cold")).await, 4);
    let (_, rows) = run(&mut session, "SELECT toUInt64(sum(x)) FROM m")
        .await
        .unwrap();
    let sum = rows[0]
        .column(0)
        .as_any()
        .downcast_ref::<UInt64Array>()
        .unwrap()
        .value(0);
    assert_eq!(sum, (0..4000u64).sum::<u64>());
    // Merges started again pick among the parts at once, but not those of
    // the archive volume; the other table's parts merge.
    run(&mut session, "SYSTEM START MERGES").await.unwrap();
    let active = |table: &str| {
        format!("SELECT count() FROM system.parts WHERE table = '{table}' AND active")
    };
    for _ in 0..200 {
        if number(&mut session, &active("s")).await < 4 {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    assert!(number(&mut session, &active("s")).await < 4);
    assert_eq!(number(&mut session, &on("m", "cold")).await, 4);
    // move_factor = 0 never moves.
    assert_eq!(number(&mut session, &on("s", "cold")).await, 0);
}
