//! GROUP BY methods against each other: every query is run with a narrow key
//! (Strata's dense method), with the same key widened to Int64 (the packed
//! fixed-width method), as a string (the general hash method) and through
//! DataFusion's hash aggregation as the reference, at 1, 2 and 8 threads,
//! over inputs chosen for their edges: empty, one row, one key, keys at the
//! type limits, NULL keys, sparse and dense key sets, skew.

use futures::StreamExt;
use strata_engine::{Engine, Session, StatementOutcome};

async fn lines(session: &mut Session, sql: &str) -> Vec<String> {
    let mut result = match session.execute(sql).await {
        Ok(StatementOutcome::Rows(result)) => result,
        Ok(StatementOutcome::Done(_)) => panic!("{sql}: no rows"),
        Err(e) => panic!("{sql}: {e}"),
    };
    let mut batches = Vec::new();
    while let Some(batch) = result.stream.next().await {
        batches.push(batch.unwrap_or_else(|e| panic!("{sql}: {e}")));
    }
    let text = datafusion::arrow::util::pretty::pretty_format_batches(&batches)
        .unwrap()
        .to_string();
    // Rows only, without the header and borders.
    text.lines()
        .skip(3)
        .filter(|l| l.starts_with('|'))
        .map(|l| l.split('|').map(str::trim).collect::<Vec<_>>().join("|"))
        .collect()
}

async fn plan(session: &mut Session, sql: &str) -> String {
    lines(session, &format!("EXPLAIN PIPELINE {sql}"))
        .await
        .join("\n")
}

const AGGREGATES: &str = "count() AS c, count(v) AS cv, sum(v) AS s, min(v) AS lo, max(v) AS hi, avg(v) AS mean, uniqExact(v) AS ue, uniq(v) AS u";

/// (key expression, value expression, source) triples.
const CASES: &[(&str, &str, &str)] = &[
    (
        "number % 7",
        "intHash32(number) % 1000",
        "numbers_mt(200000)",
    ),
    ("number % 10000", "number", "numbers_mt(300000)"),
    (
        "toInt16(intHash32(number))",
        "toInt64(number) - 150000",
        "numbers_mt(300000)",
    ),
    (
        "toInt8(intHash32(number))",
        "intHash32(number)",
        "numbers_mt(100000)",
    ),
    (
        "toUInt16(65535 - number % 2)",
        "number",
        "numbers_mt(50000)",
    ),
    (
        "toInt16(-32768 + number % 2)",
        "number",
        "numbers_mt(50000)",
    ),
    (
        "toUInt16((number % 100) * 600)",
        "number % 13",
        "numbers_mt(100000)",
    ),
    ("toUInt8(7)", "number", "numbers_mt(100000)"),
    ("number % 2 = 0", "number", "numbers_mt(10000)"),
    (
        "if(number % 3 = 0, NULL, toInt8(number))",
        "number",
        "numbers_mt(30000)",
    ),
    (
        "if(number % 5 = 0, NULL, toUInt8(number))",
        "if(number % 7 = 0, NULL, number)",
        "numbers_mt(30000)",
    ),
    (
        "toUInt16(if(intHash32(number) % 3 = 0, 1, number))",
        "number",
        "numbers_mt(100000)",
    ),
    ("number % 10", "number", "numbers_mt(1)"),
    ("number % 10", "number", "numbers_mt(0)"),
    (
        "number % 10",
        "number",
        "(SELECT number FROM numbers_mt(1000) WHERE number > 5000)",
    ),
];

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn every_method_agrees_with_datafusion_at_every_thread_count() {
    let engine = Engine::new().unwrap();
    let mut session = engine.new_session();
    for (key, value, source) in CASES {
        for threads in [1, 2, 8] {
            // The outer query prints keys of both methods the same way.
            let query = |key: String, rows: &str| {
                format!(
                    "SELECT toInt64(k) AS key, c, cv, s, lo, hi, mean, ue, u, n FROM (SELECT {key} AS k, {AGGREGATES}, {rows} AS n FROM (SELECT number, {value} AS v FROM {source}) GROUP BY k) ORDER BY key SETTINGS max_threads = {threads}"
                )
            };
            let dense = query(key.to_string(), "count()");
            let fixed = query(format!("toInt64({key})"), "count()");
            let hash = query(format!("toString(toInt64({key}))"), "count()");
            // argMax has no groups accumulator, so this one stays DataFusion's.
            let reference = query(format!("toInt64({key})"), "count() + argMax(0, 0)");
            let expected = lines(&mut session, &reference).await;
            assert_uses(&mut session, &dense, "method=dense").await;
            // A constant key is sorted input, which DataFusion streams.
            if !plan(&mut session, &fixed)
                .await
                .contains("ordering_mode=Sorted")
            {
                // key64, or keys128 when a NULL flag makes it 65 bits.
                assert_uses(&mut session, &fixed, "method=key").await;
                assert_uses(&mut session, &hash, "method=hash").await;
            }
            for sql in [&dense, &fixed, &hash] {
                assert_eq!(lines(&mut session, sql).await, expected, "{sql}");
            }
            assert_uses(&mut session, &reference, "AggregateExec: mode=").await;
        }
    }
}

async fn assert_uses(session: &mut Session, sql: &str, operator: &str) {
    let explained = plan(session, sql).await;
    assert!(explained.contains(operator), "{sql}\n{explained}");
}

/// Several keys, wide keys and string keys take the packed or the hash
/// method, whichever the types allow.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn packed_and_hash_methods_handle_wide_and_composite_keys() {
    let engine = Engine::new().unwrap();
    let mut session = engine.new_session();
    for (keys, names, method) in [
        ("toString(number % 1000) AS a", "a", "hash"),
        (
            "number % 7 AS a, toString(intHash32(number) % 50) AS b",
            "a, b",
            "hash",
        ),
        (
            "if(number % 4 = 0, NULL, number % 300) AS a, number % 2 = 0 AS b",
            "a, b",
            "keys64",
        ),
        (
            "toUInt8(number % 7) AS a, toInt16(number % 301) - 150 AS b, if(number % 5 = 0, NULL, toInt32(intHash32(number) % 1000) - 500) AS c",
            "a, b, c",
            "keys128",
        ),
        (
            "toDate('2020-01-01') + toInt32(number % 400) AS a, toInt8(number % 3) - 1 AS b",
            "a, b",
            "keys64",
        ),
        ("toInt32(intHash32(number)) AS a", "a", "key32"),
        // More groups than a table holds before it splits into buckets.
        ("intHash64(number) AS a", "a", "key64"),
        (
            "number * 1000 AS a, toInt64(number) - 5 AS b",
            "a, b",
            "keys128",
        ),
    ] {
        for threads in [1, 2, 8] {
            let query = |rows: &str| {
                format!(
                    "SELECT {keys}, {rows} AS n, uniq(number) AS u, uniqExact(number % 100) AS e, sum(number) AS s FROM numbers_mt(200000) GROUP BY {names} ORDER BY {names} SETTINGS max_threads = {threads}"
                )
            };
            let hash = query("count()");
            // argMax has no groups accumulator, so this one stays DataFusion's.
            let reference = query("count() + argMax(0, 0)");
            assert_uses(&mut session, &hash, &format!("method={method},")).await;
            assert_uses(&mut session, &reference, "AggregateExec: mode=").await;
            assert_eq!(
                lines(&mut session, &hash).await,
                lines(&mut session, &reference).await,
                "{hash}"
            );
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unsupported_shapes_and_the_off_setting_fall_back_to_hash_aggregation() {
    let engine = Engine::new().unwrap();
    let mut session = engine.new_session();
    for sql in [
        // String keys without a native state: the hash method gains
        // nothing over DataFusion's; sorted input, which DataFusion streams;
        // an aggregate without a groups accumulator.
        "SELECT toString(number % 10) AS a, count() FROM numbers(100) GROUP BY a",
        "SELECT number AS k, count() FROM numbers(100) GROUP BY k",
        "SELECT number % 10 AS k, groupArray(number) FROM numbers(100) GROUP BY k",
        // The setting that turns Strata's operators off, for comparisons.
        "SELECT number % 10 AS k, count() FROM numbers_mt(100) GROUP BY k SETTINGS strata_group_by_operators = 0",
    ] {
        let explained = plan(&mut session, sql).await;
        assert!(
            !explained.contains("StrataAggregateExec"),
            "{sql}\n{explained}"
        );
        assert!(explained.contains("AggregateExec"), "{sql}\n{explained}");
    }
}

/// A thread's table splits into buckets once large, and the merge of split
/// tables gives every key once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn large_tables_split_into_buckets_and_merge_exactly() {
    let engine = Engine::new().unwrap();
    let mut session = engine.new_session();
    let sql = "SELECT count() AS groups, sum(c) AS rows, max(c) AS most FROM (SELECT intHash64(number % 150000) AS k, count() AS c FROM numbers_mt(600000) GROUP BY k) SETTINGS max_threads = 2";
    assert_eq!(lines(&mut session, sql).await, ["|150000|600000|4|"]);
    let analyzed = lines(&mut session, &format!("EXPLAIN ANALYZE {sql}"))
        .await
        .join("\n");
    assert!(
        analyzed.contains("method=key64") && analyzed.contains("two_level_tables=2"),
        "{analyzed}"
    );
}

/// Tables whose keys barely repeat flush their groups to hash partitions;
/// the partitions' merge agrees with DataFusion's aggregation for every
/// aggregate, with keys that never repeat, keys that start repeating (the
/// table stops flushing), NULL keys, composite keys, at 1 and 2 threads,
/// and when the flushed groups spill.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn flushed_partitions_merge_exactly() {
    let engine = Engine::new().unwrap();
    let mut session = engine.new_session();
    // (keys, GROUP BY, the printed key, source)
    let cases = [
        (
            "intHash64(number) AS k",
            "k",
            "toInt64(k)",
            "numbers_mt(200000)",
        ),
        (
            "number % 90001 AS k",
            "k",
            "toInt64(k)",
            "numbers_mt(300000)",
        ),
        (
            "if(number % 11 = 0, NULL, number * 3) AS k",
            "k",
            "toInt64(k)",
            "numbers_mt(200000)",
        ),
        (
            "intHash32(number) AS k, toUInt8(number % 3) AS k2",
            "k, k2",
            "toInt64(k) * 3 + k2",
            "numbers_mt(200000)",
        ),
    ];
    for (keys, group_by, printed, source) in cases {
        // Past 65,536 groups a thread flushes; with 8 threads none would.
        for threads in [1, 2] {
            for spill in ["", ", max_bytes_before_external_group_by = 400000"] {
                let query = |rows: &str| {
                    format!(
                        "SELECT {printed} AS key, c, cv, s, lo, hi, mean, ue, u, n FROM (SELECT {keys}, {AGGREGATES}, {rows} AS n FROM (SELECT number, if(number % 7 = 0, NULL, number % 1000) AS v FROM {source}) GROUP BY {group_by}) ORDER BY key SETTINGS max_threads = {threads}{spill}"
                    )
                };
                let fixed = query("count()");
                let reference = query("count() + argMax(0, 0)");
                assert_uses(&mut session, &fixed, "method=key").await;
                let expected = lines(&mut session, &reference).await;
                assert_eq!(lines(&mut session, &fixed).await, expected, "{fixed}");
            }
        }
    }
    let unique = "SELECT count() AS groups, sum(c) AS rows FROM (SELECT intHash64(number) AS k, count() AS c FROM numbers_mt(300000) GROUP BY k) SETTINGS max_threads = 2";
    let analyzed = lines(&mut session, &format!("EXPLAIN ANALYZE {unique}"))
        .await
        .join("\n");
    let flushed = analyzed
        .split("flushed_groups=")
        .nth(1)
        .and_then(|rest| rest.split(|c: char| c == ',' || c == ']').next())
        .unwrap_or_else(|| panic!("{analyzed}"));
    // The tables flush while they are built and once more for the merge.
    assert_ne!(flushed, "0", "unique keys are flushed:\n{analyzed}");
}
