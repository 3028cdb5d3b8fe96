//! Operators that spill: under a memory limit far below what they would hold
//! they return what they return without one, move data down the tiers (and
//! say so in the query log), and leave no temporary files behind, whether the
//! query ends, fails or is stopped early.

mod common;

use std::path::Path;
use std::sync::Arc;

use strata_common::settings::Settings;
use strata_common::{ErrorCode, StrataError};
use strata_engine::{Engine, QueryContext, Session};

/// Runs one statement; its rows as tab-separated lines, and its context.
async fn rows(
    session: &mut Session,
    sql: &str,
) -> Result<(Vec<String>, Arc<QueryContext>), StrataError> {
    let (query, batches) = common::run_query(session, sql).await?;
    let mut lines = Vec::new();
    for batch in &batches {
        for row in 0..batch.num_rows() {
            let cells: Vec<String> = batch
                .columns()
                .iter()
                .map(|c| datafusion::arrow::util::display::array_value_to_string(c, row).unwrap())
                .collect();
            lines.push(cells.join("\t"));
        }
    }
    Ok((lines, query))
}

fn engine_with_tmp(tmp: &Path) -> Arc<Engine> {
    let mut settings = Settings::server();
    settings.set("tmp_path", tmp.to_str().unwrap()).unwrap();
    Engine::with_server_settings(settings).unwrap()
}

/// The directory is empty, at once or within seconds: a failed or stopped
/// query's workers are aborted as its stream is dropped, and drop their
/// stores at their next await.
fn assert_no_files(tmp: &Path) {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    loop {
        let left: Vec<_> = std::fs::read_dir(tmp)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        if left.is_empty() {
            return;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "temporary data left behind: {left:?}"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

/// Inputs of every shape the join must survive: random keys with partial
/// overlap, heavy skew, all-equal keys, string keys, two-column keys, and
/// NULLs (equal to each other in set operations).
const SIDES: &[(&str, &str, &str, &str)] = &[
    (
        "random",
        "SELECT intHash64(number) % 2000000 AS k FROM numbers(150000)",
        "SELECT intHash64(number * 3 + 1) % 2000000 AS k FROM numbers(100000)",
        "k",
    ),
    (
        "skewed",
        "SELECT if(number % 3 = 0, 42, intHash64(number)) AS k FROM numbers(150000)",
        "SELECT if(number % 2 = 0, 42, intHash64(number * 3)) AS k FROM numbers(100000)",
        "k",
    ),
    (
        "all equal",
        "SELECT 7 AS k FROM numbers(100000)",
        "SELECT 7 AS k FROM numbers(80000)",
        "k",
    ),
    (
        "strings",
        "SELECT toString(intHash64(number) % 500000) AS k FROM numbers(100000)",
        "SELECT toString(intHash64(number * 3 + 1) % 500000) AS k FROM numbers(100000)",
        "k",
    ),
    (
        "two columns",
        "SELECT number % 100000 AS a, number % 7 AS b FROM numbers(100000)",
        "SELECT number % 90000 AS a, number % 5 AS b FROM numbers(100000)",
        "a * 10 + b",
    ),
    (
        "nulls",
        "SELECT if(number % 5 = 0, NULL, intHash64(number) % 300000) AS k FROM numbers(100000)",
        "SELECT if(number % 7 = 0, NULL, intHash64(number + 3) % 300000) AS k FROM numbers(100000)",
        "k",
    ),
];

fn checksum_query(
    (left, right, columns): (&str, &str, &str),
    operation: &str,
    settings: &str,
) -> String {
    format!(
        "SELECT count(), sum(sipHash64({columns})) FROM ({left} {operation} {right}) SETTINGS {settings}"
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn set_operations_under_a_small_limit_equal_unlimited_and_datafusion() {
    let tmp = tempfile::tempdir().unwrap();
    let engine = engine_with_tmp(tmp.path());
    let mut session = engine.new_session();
    for (round, &(shape, left, right, columns)) in SIDES.iter().enumerate() {
        let sides = (left, right, columns);
        for operation in [
            "INTERSECT",
            "EXCEPT",
            "INTERSECT DISTINCT",
            "EXCEPT DISTINCT",
        ] {
            // DISTINCT adds a GROUP BY below the join, which spills on its
            // own (its test is below): those are checked unlimited only.
            let distinct = operation.ends_with("DISTINCT");
            // The reference runs DataFusion's hash join, which keeps every
            // probe row with a match. Under DISTINCT that is the answer once
            // the right side is deduplicated (a hash join walks a chain per
            // repeated key). Under ALL, a row's copies are numbered on each
            // side, so copy n meets copy n: the multiset answer, min(l, r)
            // or max(l - r, 0) copies.
            let (reference_left, reference_right) = if distinct {
                (
                    left.to_string(),
                    format!("SELECT DISTINCT * FROM ({right})"),
                )
            } else {
                let numbered = |side: &str| {
                    format!(
                        "SELECT *, row_number() OVER (PARTITION BY {columns}) AS copy FROM ({side})"
                    )
                };
                (numbered(left), numbered(right))
            };
            let reference = rows(
                &mut session,
                &checksum_query(
                    (&reference_left, &reference_right, columns),
                    operation,
                    "strata_group_by_operators = 0",
                ),
            )
            .await
            .unwrap()
            .0;
            let unlimited = rows(
                &mut session,
                &checksum_query(sides, operation, "max_threads = 2"),
            )
            .await
            .unwrap()
            .0;
            assert_eq!(unlimited, reference, "{shape} {operation}, unlimited");
            if distinct {
                continue;
            }
            // Each shape runs under two of the limits, in turn, to keep the
            // test short while every limit meets every operation.
            let limits = [
                "max_memory_usage = 2000000",
                "max_memory_usage = 2000000, temporary_data_warm_ratio = 0, temporary_data_compression = 'none'",
                "max_memory_usage = 2000000, temporary_data_compression = 'zstd', max_threads = 1",
                "max_bytes_before_external_join = 200000",
            ];
            for settings in [limits[round % 4], limits[(round + 1) % 4]] {
                let (limited, query) =
                    rows(&mut session, &checksum_query(sides, operation, settings))
                        .await
                        .unwrap_or_else(|e| panic!("{shape} {operation} with {settings}: {e}"));
                assert_eq!(limited, reference, "{shape} {operation} with {settings}");
                // All-equal keys hold one entry; everything else must spill.
                if shape != "all equal" {
                    assert!(
                        query.spill.figures().bytes_spilled > 0,
                        "{shape} {operation} with {settings} did not spill"
                    );
                }
                assert_no_files(tmp.path());
            }
        }
    }
}

/// GROUP BY inputs of every shape: (name, keys, source of k and v). The keys
/// pick each table kind that can spill: one packed integer, two packed
/// columns, strings (the general hash table).
const GROUPINGS: &[(&str, &str, &str)] = &[
    (
        "random",
        "k",
        "SELECT intHash64(number) % 120000 AS k, number AS v FROM numbers(200000)",
    ),
    (
        "skewed",
        "k",
        "SELECT if(number % 3 = 0, 42, intHash64(number)) AS k, number AS v FROM numbers(200000)",
    ),
    (
        "all equal",
        "k",
        "SELECT 7 AS k, number AS v FROM numbers(100000)",
    ),
    (
        "strings",
        "k",
        "SELECT toString(intHash64(number) % 100000) AS k, number AS v FROM numbers(200000)",
    ),
    (
        "two columns",
        "k, b",
        "SELECT number % 70000 AS k, number % 3 AS b, number AS v FROM numbers(200000)",
    ),
    (
        "nulls",
        "k",
        "SELECT if(number % 5 = 0, NULL, intHash64(number) % 150000) AS k, number AS v FROM numbers(200000)",
    ),
];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn group_by_under_a_small_limit_equals_unlimited_and_datafusion() {
    let tmp = tempfile::tempdir().unwrap();
    let engine = engine_with_tmp(tmp.path());
    let mut session = engine.new_session();
    for (round, &(shape, keys, source)) in GROUPINGS.iter().enumerate() {
        // One string per group row, so a checksum catches any wrong cell.
        let row = keys
            .split(", ")
            .chain(["c", "s", "lo", "hi", "u"])
            .map(|column| format!("ifNull(toString({column}), 'N'), '|'"))
            .collect::<Vec<_>>()
            .join(", ");
        let query = |settings: &str| {
            format!(
                "SELECT count(), sum(sipHash64(concat({row}))) FROM (SELECT {keys}, count() AS c, sum(v) AS s, min(v) AS lo, max(v) AS hi, uniq(v) AS u FROM ({source}) GROUP BY {keys}) SETTINGS {settings}"
            )
        };
        let reference = rows(&mut session, &query("strata_group_by_operators = 0"))
            .await
            .unwrap()
            .0;
        let limits = [
            "max_memory_usage = 3000000",
            "max_memory_usage = 3000000, temporary_data_warm_ratio = 0, temporary_data_compression = 'none'",
            "max_memory_usage = 3000000, temporary_data_compression = 'zstd', max_threads = 1",
            "max_bytes_before_external_group_by = 300000, max_threads = 3",
        ];
        for settings in [limits[round % 4], limits[(round + 1) % 4]] {
            let (limited, context) = rows(&mut session, &query(settings))
                .await
                .unwrap_or_else(|e| panic!("{shape} with {settings}: {e}"));
            assert_eq!(limited, reference, "{shape} with {settings}");
            if shape != "all equal" {
                assert!(
                    context.spill.figures().bytes_spilled > 0,
                    "{shape} with {settings} did not spill"
                );
            }
            assert_no_files(tmp.path());
        }
    }
}

/// A GROUP BY over rows whose count the planner cannot know (a join's)
/// starts with a guessed partition count; partitions that outgrow their
/// share of the threshold when merged are split again by the next bits of
/// the hash, and the answer is the same.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn group_by_partitions_too_large_to_merge_are_split_again() {
    let tmp = tempfile::tempdir().unwrap();
    let engine = engine_with_tmp(tmp.path());
    let mut session = engine.new_session();
    for key in [
        "intHash64(a.number)",
        "toString(intHash64(a.number) % 100000000)",
    ] {
        let query = format!(
            "SELECT count(), sum(c), sum(m), sum(sipHash64(k)) FROM (SELECT {key} AS k, count() AS c, max(b.number) AS m \
             FROM numbers_mt(1500000) AS a JOIN numbers_mt(1500000) AS b ON a.number = b.number GROUP BY k)"
        );
        let reference = rows(&mut session, &query).await.unwrap().0;
        let limited = format!("{query} SETTINGS max_bytes_before_external_group_by = 200000");
        let (result, context) = rows(&mut session, &limited).await.unwrap();
        assert_eq!(result, reference, "{key}");
        assert!(context.spill.figures().bytes_spilled > 0, "{key}");
        assert_no_files(tmp.path());
        let (plan, _) = rows(&mut session, &format!("EXPLAIN ANALYZE {limited}"))
            .await
            .unwrap();
        let resplit = plan
            .iter()
            .find_map(|line| {
                let (_, rest) = line.split_once("StrataAggregateExec")?;
                let (_, count) = rest.split_once("resplit_partitions=")?;
                count
                    .split(|c: char| !c.is_ascii_digit())
                    .next()?
                    .parse::<u64>()
                    .ok()
            })
            .unwrap_or_else(|| panic!("{key}: {plan:#?}"));
        assert!(resplit > 0, "{key}: {plan:#?}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn string_keys_with_plain_aggregates_spill_when_they_will_not_fit() {
    let tmp = tempfile::tempdir().unwrap();
    let engine = engine_with_tmp(tmp.path());
    let mut session = engine.new_session();
    // DataFusion's aggregation serves these while they fit; past the
    // threshold its final stage cannot spill, so Strata's hash method runs.
    let query = |settings: &str| {
        format!(
            "SELECT count(), sum(sipHash64(concat(k, '|', toString(c), '|', toString(s)))) FROM (SELECT toString(intHash64(number) % 150000) AS k, count() AS c, sum(number) AS s FROM numbers_mt(300000) GROUP BY k) SETTINGS {settings}"
        )
    };
    let (reference, unlimited) = rows(&mut session, &query("max_threads = 2")).await.unwrap();
    assert_eq!(unlimited.spill.figures().bytes_spilled, 0);
    for settings in [
        "max_threads = 2, max_memory_usage = 4000000",
        "max_threads = 3, max_bytes_before_external_group_by = 500000",
    ] {
        let (limited, context) = rows(&mut session, &query(settings))
            .await
            .unwrap_or_else(|e| panic!("{settings}: {e}"));
        assert_eq!(limited, reference, "{settings}");
        assert!(context.spill.figures().bytes_spilled > 0, "{settings}");
        assert_no_files(tmp.path());
    }
}

/// Join inputs of every shape: (name, left rows with `v`, right rows with
/// `w`, the ON condition). Skewed and all-equal keys are kept few enough
/// that the joins' outputs stay small; the all-equal build side is over the
/// join's threshold, cannot be split, and is joined in memory.
const JOIN_SIDES: &[(&str, &str, &str, &str)] = &[
    (
        "random",
        "SELECT intHash64(number) % 400000 AS k, number AS v FROM numbers(150000)",
        "SELECT intHash64(number * 3 + 1) % 400000 AS k, number AS w FROM numbers(100000)",
        "l.k = r.k",
    ),
    (
        "skewed",
        "SELECT if(number % 100 = 0, 42, intHash64(number) % 300000) AS k, number AS v FROM numbers(150000)",
        "SELECT if(number % 200 = 0, 42, intHash64(number * 3) % 300000) AS k, number AS w FROM numbers(100000)",
        "l.k = r.k",
    ),
    (
        "all equal",
        "SELECT if(number % 1000 = 0, 7, number + 100) AS k, number AS v FROM numbers(100000)",
        "SELECT 7 AS k, number AS w FROM numbers(40000)",
        "l.k = r.k",
    ),
    (
        "strings",
        "SELECT toString(intHash64(number) % 300000) AS k, number AS v FROM numbers(100000)",
        "SELECT toString(intHash64(number * 3 + 1) % 300000) AS k, number AS w FROM numbers(100000)",
        "l.k = r.k",
    ),
    (
        "two columns",
        "SELECT number % 100000 AS a, number % 7 AS b, number AS v FROM numbers(100000)",
        "SELECT number % 90000 AS a, number % 5 AS b, number AS w FROM numbers(100000)",
        "l.a = r.a AND l.b = r.b",
    ),
    (
        "nulls",
        "SELECT if(number % 5 = 0, NULL, intHash64(number) % 300000) AS k, number AS v FROM numbers(100000)",
        "SELECT if(number % 7 = 0, NULL, intHash64(number + 3) % 300000) AS k, number AS w FROM numbers(100000)",
        "l.k = r.k",
    ),
];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn joins_of_every_type_under_a_small_limit_equal_unlimited() {
    let tmp = tempfile::tempdir().unwrap();
    let engine = engine_with_tmp(tmp.path());
    let mut session = engine.new_session();
    let limits = [
        "max_memory_usage = 3000000",
        "max_memory_usage = 3000000, temporary_data_warm_ratio = 0, temporary_data_compression = 'none'",
        "max_memory_usage = 3000000, temporary_data_compression = 'zstd', max_threads = 1",
        "max_bytes_before_external_join = 300000",
    ];
    for (round, &(shape, left, right, on)) in JOIN_SIDES.iter().enumerate() {
        let checksum = "count(), count(l.v), count(r.w), sum(l.v), sum(r.w), sum(l.v * r.w)";
        let mut queries: Vec<String> = ["JOIN", "LEFT JOIN", "RIGHT JOIN", "FULL JOIN"]
            .iter()
            .map(|join| {
                format!("SELECT {checksum} FROM ({left}) AS l {join} ({right}) AS r ON {on}")
            })
            .collect();
        // A condition beside the keys, and semi and anti joins that carry one.
        queries.push(format!(
            "SELECT {checksum} FROM ({left}) AS l LEFT JOIN ({right}) AS r ON {on} AND l.v % 3 != r.w % 3"
        ));
        // A row limit pushed into the join: the count of a limited inner
        // join is the limit when the join has that many rows.
        queries.push(format!(
            "SELECT count() FROM (SELECT l.v FROM ({left}) AS l JOIN ({right}) AS r ON {on} LIMIT 1000)"
        ));
        for exists in ["EXISTS", "NOT EXISTS"] {
            queries.push(format!(
                "SELECT count(), sum(l.v) FROM ({left}) AS l WHERE {exists} (SELECT 1 FROM ({right}) AS r WHERE {on} AND r.w > l.v)"
            ));
        }
        for (number, query) in queries.iter().enumerate() {
            // Unlimited, the join holds its build side whole and runs
            // DataFusion's hash join over it once. (DataFusion's own plan is
            // no reference here: it leaves the keys of a decorrelated EXISTS
            // in different types, UInt32 against UInt64, and fails to
            // compare them once its table is not a dense array.)
            let reference = rows(&mut session, query).await.unwrap().0;
            let settings = limits[(round + number) % limits.len()];
            let (limited, context) = rows(&mut session, &format!("{query} SETTINGS {settings}"))
                .await
                .unwrap_or_else(|e| panic!("{shape}: {query} with {settings}: {e}"));
            assert_eq!(limited, reference, "{shape}: {query} with {settings}");
            assert!(
                context.spill.figures().bytes_spilled > 0,
                "{shape}: {query} with {settings} did not spill"
            );
            assert_no_files(tmp.path());
        }
    }
}

/// A build side past 64 MiB of join memory is joined one partition at a
/// time even with memory to spare, its partitions kept in memory; under a
/// threshold it passes later, the largest of them move to the store.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_large_build_side_is_joined_by_partition_with_and_without_pressure() {
    let tmp = tempfile::tempdir().unwrap();
    let engine = engine_with_tmp(tmp.path());
    let mut session = engine.new_session();
    let side = |column: &str, rows: u64| {
        format!("SELECT intHash64(number) % 6000000 AS k, number AS {column} FROM numbers({rows})")
    };
    let (left, right) = (side("v", 4_000_000), side("w", 3_000_000));
    for join in ["JOIN", "LEFT JOIN", "FULL JOIN"] {
        let query = format!(
            "SELECT count(), count(l.v), count(r.w), sum(l.v), sum(r.w) FROM ({left}) AS l {join} ({right}) AS r ON l.k = r.k"
        );
        let reference = rows(
            &mut session,
            &format!("{query} SETTINGS strata_group_by_operators = 0"),
        )
        .await
        .unwrap()
        .0;
        let (unlimited, context) = rows(&mut session, &query).await.unwrap();
        assert_eq!(unlimited, reference, "{join}");
        assert_eq!(context.spill.figures().bytes_spilled, 0, "{join}");
        let (pressed, context) = rows(
            &mut session,
            &format!("{query} SETTINGS max_bytes_before_external_join = 200000000"),
        )
        .await
        .unwrap();
        assert_eq!(pressed, reference, "{join} past the threshold");
        assert!(context.spill.figures().bytes_spilled > 0, "{join}");
        assert_no_files(tmp.path());
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn in_subqueries_spill_and_keep_null_semantics_and_not_in_keeps_its_answer() {
    let tmp = tempfile::tempdir().unwrap();
    let engine = engine_with_tmp(tmp.path());
    let mut session = engine.new_session();
    let (_, left, right, _) = SIDES[5];
    for operation in ["IN", "NOT IN"] {
        // `NOT IN` keeps DataFusion's NULL-aware join, which needs the whole
        // build side in one place to see its NULLs; it is checked for its
        // answer, and only `IN` must spill.
        let right = right.replace("AS k", "AS r");
        let right_filtered = format!("SELECT r FROM ({right}) WHERE r IS NOT NULL");
        let query = |settings: &str| {
            format!(
                "SELECT count(), sum(sipHash64(k)) FROM ({left}) WHERE k {operation} ({right_filtered}) SETTINGS {settings}"
            )
        };
        let reference = rows(&mut session, &query("strata_group_by_operators = 0"))
            .await
            .unwrap()
            .0;
        let (limited, context) = rows(
            &mut session,
            &query("max_bytes_before_external_join = 200000"),
        )
        .await
        .unwrap();
        assert_eq!(limited, reference, "{operation}");
        if operation == "IN" {
            assert!(
                context.spill.figures().bytes_spilled > 0,
                "IN did not spill"
            );
        }
    }
    assert_no_files(tmp.path());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn temporary_files_go_after_an_error_and_after_an_early_stop() {
    let tmp = tempfile::tempdir().unwrap();
    let engine = engine_with_tmp(tmp.path());
    let mut session = engine.new_session();
    let big = "SELECT intHash64(number) AS k FROM numbers(2000000)";
    let error = rows(
        &mut session,
        &format!(
            "SELECT count() FROM ({big} EXCEPT {big}) SETTINGS max_memory_usage = 8000000, temporary_data_warm_ratio = 0, max_temporary_data_on_disk_size_for_query = 1000000"
        ),
    )
    .await
    .unwrap_err();
    assert_eq!(error.code, ErrorCode::TOO_MANY_ROWS_OR_BYTES, "{error}");
    assert_no_files(tmp.path());

    // The same for a GROUP BY whose spilled states pass the disk limit.
    let error = rows(
        &mut session,
        "SELECT count() FROM (SELECT intHash64(number) AS k, count() FROM numbers(2000000) GROUP BY k) SETTINGS max_memory_usage = 8000000, temporary_data_warm_ratio = 0, max_temporary_data_on_disk_size_for_query = 1000000",
    )
    .await
    .unwrap_err();
    assert_eq!(error.code, ErrorCode::TOO_MANY_ROWS_OR_BYTES, "{error}");
    assert_no_files(tmp.path());

    // A LIMIT stops reading once it has its rows; the join's stores go with
    // its dropped streams.
    let (limited, _) = rows(
        &mut session,
        &format!(
            "SELECT k FROM ({big} INTERSECT {big}) LIMIT 3 SETTINGS max_memory_usage = 8000000, temporary_data_warm_ratio = 0"
        ),
    )
    .await
    .unwrap();
    assert_eq!(limited.len(), 3);
    assert_no_files(tmp.path());

    // The session goes on.
    let (count, _) = rows(
        &mut session,
        &format!("SELECT count() FROM ({big} INTERSECT {big})"),
    )
    .await
    .unwrap();
    assert_eq!(count, vec!["2000000"]);

    // A limit far below one block of keys still finishes: the operators
    // above the join may find the account a little over its limit from the
    // join's rounding, and must not fail for asking nothing more.
    let small = "SELECT intHash64(number) AS k FROM numbers(300000)";
    let (count, context) = rows(
        &mut session,
        &format!(
            "SELECT count() FROM ({small} INTERSECT {small}) SETTINGS max_memory_usage = 500000"
        ),
    )
    .await
    .unwrap();
    assert_eq!(count, vec!["300000"]);
    assert!(context.spill.figures().bytes_spilled > 0);
    assert_no_files(tmp.path());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn order_by_spills_runs_to_temporary_files_and_keeps_its_order() {
    let tmp = tempfile::tempdir().unwrap();
    let engine = engine_with_tmp(tmp.path());
    let mut session = engine.new_session();
    let sorted = "SELECT intHash64(number) AS h FROM numbers(400000) ORDER BY h";
    let (unlimited, _) = rows(&mut session, sorted).await.unwrap();
    // Blocks small enough that a sort's batch and its sorted copy leave room
    // under the limit.
    for settings in [
        "max_memory_usage = 4000000, max_block_size = 8192",
        "max_memory_usage = 4000000, max_block_size = 8192, temporary_data_compression = 'none'",
        "max_memory_usage = 4000000, max_block_size = 8192, temporary_data_compression = 'zstd'",
    ] {
        let (limited, context) = rows(&mut session, &format!("{sorted} SETTINGS {settings}"))
            .await
            .unwrap_or_else(|e| panic!("{settings}: {e}"));
        assert!(
            limited == unlimited,
            "ORDER BY with {settings} changed the rows"
        );
        let figures = context.spill.figures();
        assert!(
            figures.disk_bytes_written > 0,
            "{settings}: no runs written"
        );
        assert_eq!(
            figures.disk_bytes_read, figures.disk_bytes_written,
            "{settings}"
        );
        assert_no_files(tmp.path());
    }

    // A sort of several partitions that will not fit sorts in one stream,
    // whose merges cannot starve each other; one that fits stays parallel.
    let parallel = "SELECT intHash64(number) AS h FROM numbers_mt(1000000) ORDER BY h";
    let tight = "max_threads = 3, max_memory_usage = 4000000, max_block_size = 8192";
    let merges = |plan: &[String]| plan.iter().any(|l| l.contains("SortPreservingMergeExec"));
    let (plan, _) = rows(
        &mut session,
        &format!("EXPLAIN PIPELINE {parallel} SETTINGS {tight}"),
    )
    .await
    .unwrap();
    assert!(!merges(&plan), "{plan:?}");
    let (plan, _) = rows(
        &mut session,
        &format!("EXPLAIN PIPELINE {parallel} SETTINGS max_threads = 3"),
    )
    .await
    .unwrap();
    assert!(merges(&plan), "{plan:?}");
    let (expected, _) = rows(
        &mut session,
        &format!("{parallel} SETTINGS max_threads = 3"),
    )
    .await
    .unwrap();
    for _ in 0..3 {
        let (limited, context) = rows(&mut session, &format!("{parallel} SETTINGS {tight}"))
            .await
            .unwrap();
        assert!(limited == expected, "a sort in one stream changed the rows");
        assert!(context.spill.figures().disk_bytes_written > 0);
    }
    assert_no_files(tmp.path());

    // max_bytes_before_external_sort spills without any memory limit; at
    // its default (half the memory limit) this sort stays in memory.
    let (_, in_memory) = rows(&mut session, sorted).await.unwrap();
    assert_eq!(in_memory.spill.figures().disk_bytes_written, 0);
    let (limited, context) = rows(
        &mut session,
        &format!(
            "{sorted} SETTINGS max_bytes_before_external_sort = 500000, max_block_size = 8192"
        ),
    )
    .await
    .unwrap();
    assert!(
        limited == unlimited,
        "max_bytes_before_external_sort changed the rows"
    );
    assert!(context.spill.figures().disk_bytes_written > 0);
    assert_no_files(tmp.path());
    let error = rows(
        &mut session,
        &format!("{sorted} SETTINGS max_bytes_ratio_before_external_sort = 1.5"),
    )
    .await
    .unwrap_err();
    assert_eq!(error.code, ErrorCode::BAD_ARGUMENTS, "{error}");

    // A limit past the top-k heap's size sorts externally too.
    let top = "SELECT intHash64(number) AS h FROM numbers(1200000) ORDER BY h LIMIT 1100000, 3";
    let (unlimited, _) = rows(&mut session, top).await.unwrap();
    let (limited, context) = rows(
        &mut session,
        &format!("{top} SETTINGS max_memory_usage = 12000000"),
    )
    .await
    .unwrap();
    assert_eq!(limited, unlimited);
    assert!(context.spill.figures().disk_bytes_written > 0);
    assert_no_files(tmp.path());

    // Runs count against the query's disk limit like the stores' files.
    let error = rows(
        &mut session,
        "SELECT intHash64(number) AS h FROM numbers(1000000) ORDER BY h SETTINGS max_memory_usage = 4000000, max_block_size = 8192, max_temporary_data_on_disk_size_for_query = 1000000",
    )
    .await
    .unwrap_err();
    assert_eq!(error.code, ErrorCode::TOO_MANY_ROWS_OR_BYTES, "{error}");
    assert_no_files(tmp.path());
}

#[test]
fn leftovers_of_a_killed_process_are_removed_at_start() {
    let tmp = tempfile::tempdir().unwrap();
    // pid_max is at most 2^22, so no process has this id.
    let leftover = tmp.path().join(format!("strata-spill-{}-3", 1u32 << 30));
    std::fs::create_dir(&leftover).unwrap();
    std::fs::write(leftover.join("blocks.bin"), vec![0u8; 4096]).unwrap();
    let _engine = engine_with_tmp(tmp.path());
    assert_no_files(tmp.path());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sorted_inputs_merge_in_constant_memory_with_the_same_answer() {
    let engine = Engine::new().unwrap();
    let mut session = engine.new_session();
    let (plan, _) = rows(
        &mut session,
        "EXPLAIN PIPELINE SELECT count() FROM (SELECT number FROM numbers(5, 100000) INTERSECT SELECT number FROM numbers(1, 60000))",
    )
    .await
    .unwrap();
    assert!(
        plan.iter().any(|line| line.contains("MergeSemiJoinExec")),
        "{plan:#?}"
    );
    for operation in ["INTERSECT", "EXCEPT"] {
        for (left, right) in [
            ("numbers(5, 100000)", "numbers(1, 60000)"),
            ("numbers(100000)", "numbers(200000, 10)"),
            ("numbers(10, 10)", "numbers(100000)"),
        ] {
            let query = |function: &str| {
                format!(
                    "SELECT count(), sum(number) FROM (SELECT number FROM {function}{} {operation} SELECT number FROM {function}{})",
                    left.trim_start_matches("numbers"),
                    right.trim_start_matches("numbers"),
                )
            };
            // numbers_mt comes in several partitions, so the hybrid join
            // answers it.
            let hashed = rows(&mut session, &query("numbers_mt")).await.unwrap().0;
            let (merged, context) = rows(&mut session, &query("numbers")).await.unwrap();
            assert_eq!(merged, hashed, "{left} {operation} {right}");
            assert_eq!(context.spill.figures().bytes_spilled, 0);
        }
    }
}

/// Joins of inputs sorted on their keys (as `numbers()` is) merge them side
/// by side: the same answer as the grace hash join over the same rows from
/// several partitions, under a limit that makes the hash join spill, while
/// the merge spills nothing.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sorted_inputs_join_in_constant_memory_with_the_same_answer() {
    let tmp = tempfile::tempdir().unwrap();
    let engine = engine_with_tmp(tmp.path());
    let mut session = engine.new_session();
    let query = |join: &str, function: &str| {
        format!(
            "SELECT count(), count(a.number), count(b.n), sum(a.number), sum(b.n) \
             FROM {function}(1000000) AS a {join} \
             (SELECT number AS n FROM {function}(300000, 1200000) WHERE n % 3 = 0) AS b \
             ON a.number = b.n SETTINGS max_memory_usage = 12000000"
        )
    };
    for join in ["JOIN", "LEFT JOIN", "RIGHT JOIN", "FULL JOIN"] {
        let merge = query(join, "numbers");
        let (plan, _) = rows(&mut session, &format!("EXPLAIN PIPELINE {merge}"))
            .await
            .unwrap();
        assert!(
            plan.iter().any(|line| line.contains("SortMergeJoinExec")),
            "{join}: {plan:#?}"
        );
        let (hashed, context) = rows(&mut session, &query(join, "numbers_mt"))
            .await
            .unwrap();
        assert!(context.spill.figures().bytes_spilled > 0, "{join}");
        let (merged, context) = rows(&mut session, &merge)
            .await
            .unwrap_or_else(|e| panic!("{join}: {e}"));
        assert_eq!(merged, hashed, "{join}");
        assert_eq!(context.spill.figures().bytes_spilled, 0, "{join}");
        assert_eq!(context.spill.figures().disk_bytes_written, 0, "{join}");
        assert_no_files(tmp.path());
    }
}
