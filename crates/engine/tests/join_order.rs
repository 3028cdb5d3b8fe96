//! Join order: multi-way inner joins of MergeTree tables give the same rows
//! in the order the estimates choose as in the order the query names its
//! tables (`query_plan_optimize_join_order_limit = 0`), over keys with
//! NULLs, duplicates and keys without a match, cross-table predicates,
//! subqueries as inputs and self joins, at 1, 2 and 8 threads; and a small
//! filtered table is joined before the large table it shrinks.

use std::path::Path;

use strata_common::settings::Settings;
use strata_engine::data_path::DataPath;
use strata_engine::{Engine, Session};

mod common;
use common::{run, texts};

/// A session of an engine on `dir` holding [`TABLES`].
async fn with_tables(dir: &Path) -> Session {
    let engine = Engine::open(Settings::server(), DataPath::open(dir).unwrap()).unwrap();
    engine.load_tables().await.unwrap();
    let mut session = engine.new_session();
    for statement in TABLES {
        run(&mut session, statement).await.unwrap();
    }
    session
}

/// A fact table `f` and dimensions `da` (keys 0..90 of `f.a`'s 0..97, some
/// twice), `db`, `dc` (7 rows) and `dg` (reached through `db` only).
const TABLES: &[&str] = &[
    "CREATE TABLE f (k UInt64, a Nullable(UInt32), b UInt32, c UInt32, v Int64) ENGINE = MergeTree ORDER BY k",
    "INSERT INTO f SELECT number, if(number % 13 = 0, NULL, number % 97), intHash32(number) % 500, number % 7, number FROM numbers(20000)",
    "CREATE TABLE da (a UInt32, name String) ENGINE = MergeTree ORDER BY a",
    "INSERT INTO da SELECT number, concat('n', toString(number % 10)) FROM numbers(90)",
    "INSERT INTO da SELECT number, 'again' FROM numbers(90) WHERE number % 10 = 0",
    "CREATE TABLE db (b UInt32, grp UInt8) ENGINE = MergeTree ORDER BY b",
    "INSERT INTO db SELECT number, number % 5 FROM numbers(500)",
    "CREATE TABLE dc (c UInt32, w String) ENGINE = MergeTree ORDER BY c",
    "INSERT INTO dc SELECT number, concat('w', toString(number)) FROM numbers(7)",
    "CREATE TABLE dg (grp UInt8, label String) ENGINE = MergeTree ORDER BY grp",
    "INSERT INTO dg SELECT number, concat('g', toString(number)) FROM numbers(5)",
];

/// Queries returning one String column `r`.
const QUERIES: &[&str] = &[
    // Comma joins, a filter on the smallest table.
    "SELECT concat(toString(f.k), ' ', da.name, ' ', toString(db.grp), ' ', dc.w) AS r FROM f, da, db, dc WHERE f.a = da.a AND f.b = db.b AND f.c = dc.c AND dc.w = 'w3'",
    // A chain through db to dg, written from the fact table out.
    "SELECT concat(toString(f.k), ' ', dg.label, ' ', da.name) AS r FROM f JOIN db ON f.b = db.b JOIN dg ON db.grp = dg.grp JOIN da ON da.a = f.a WHERE dg.label IN ('g1', 'g2') AND f.v % 3 = 0",
    // A predicate over three tables and one over two.
    "SELECT concat(toString(f.k), ' ', da.name, ' ', dc.w) AS r FROM f, da, dc WHERE f.a = da.a AND f.c = dc.c AND (da.name = 'n5' OR dc.w = 'w2') AND f.v + da.a > dc.c * 1000",
    // A GROUP BY subquery as one input.
    "SELECT concat(toString(s.b), ' ', toString(s.n), ' ', dg.label) AS r FROM (SELECT b, count() AS n FROM f GROUP BY b) AS s JOIN db ON s.b = db.b JOIN dg ON dg.grp = db.grp WHERE s.n > 40",
    // A self join beside a dimension.
    "SELECT concat(toString(f1.k), ' ', toString(f2.v), ' ', dc.w) AS r FROM f AS f1, f AS f2, dc WHERE f1.k = f2.k + 1 AND f2.c = dc.c AND dc.c = 3 AND f1.v < 5000",
    // A key of two columns, and a cast between key types.
    "SELECT concat(toString(f.k), ' ', da.name, ' ', dc.w) AS r FROM f JOIN da ON f.a = da.a AND f.c = da.a % 7 JOIN dc ON toUInt64(dc.c) = toUInt64(f.c) JOIN db ON db.b = f.b",
];

async fn rows(session: &mut Session, query: &str, settings: &str) -> Vec<String> {
    let sql = format!("SELECT r FROM ({query}) ORDER BY r SETTINGS {settings}");
    texts(session, &sql).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn chosen_orders_return_the_written_orders_rows() {
    let dir = tempfile::tempdir().unwrap();
    let mut session = with_tables(dir.path()).await;
    for query in QUERIES {
        for threads in [1, 2, 8] {
            let written =
                format!("max_threads = {threads}, query_plan_optimize_join_order_limit = 0");
            let chosen = format!("max_threads = {threads}");
            let expected = rows(&mut session, query, &written).await;
            assert!(!expected.is_empty(), "{query}: no rows");
            assert_eq!(
                rows(&mut session, query, &chosen).await,
                expected,
                "{query}"
            );
        }
    }
}

/// The plan's lines that name a join or a table, indented as EXPLAIN shows them.
async fn joins(session: &mut Session, query: &str, settings: &str) -> Vec<String> {
    let plan = texts(session, &format!("EXPLAIN {query} SETTINGS {settings}")).await;
    plan.iter()
        .flat_map(|text| text.lines())
        .filter(|line| line.contains("Join:") || line.contains("TableScan:"))
        .map(str::to_string)
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_filtered_small_table_meets_its_dimension_before_the_fact_table() {
    let dir = tempfile::tempdir().unwrap();
    let mut session = with_tables(dir.path()).await;
    // Written: f first, then db, then dg, which the filter keeps one row of.
    let query =
        "SELECT count() FROM f, db, dg WHERE f.b = db.b AND db.grp = dg.grp AND dg.label = 'g1'";
    let written = joins(
        &mut session,
        query,
        "query_plan_optimize_join_order_limit = 0",
    )
    .await;
    let chosen = joins(
        &mut session,
        query,
        "query_plan_optimize_join_order_limit = 10",
    )
    .await;
    let depth = |lines: &[String], table: &str| {
        let line = lines
            .iter()
            .find(|l| l.contains(&format!("TableScan: {table} ")))
            .unwrap();
        line.len() - line.trim_start().len()
    };
    // As written, f and db meet first, deepest in the plan.
    assert!(depth(&written, "f") > depth(&written, "dg"), "{written:#?}");
    // Chosen: dg and db meet first, and f joins their result.
    assert!(depth(&chosen, "dg") > depth(&chosen, "f"), "{chosen:#?}");
    assert_eq!(depth(&chosen, "dg"), depth(&chosen, "db"), "{chosen:#?}");
    // Past the limit, the written order stays.
    let limited = joins(
        &mut session,
        query,
        "query_plan_optimize_join_order_limit = 2",
    )
    .await;
    assert_eq!(limited, written);
}
