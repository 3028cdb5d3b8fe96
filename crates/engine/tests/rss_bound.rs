//! The process's resident memory stays under the server's memory limit plus
//! a fixed overhead while queries far larger than the limit run: spilling
//! operators move data to the warm tier and disk instead of growing.
//!
//! A test binary of its own, with one test, so the kernel's peak RSS
//! (`VmHWM`) is this test's alone.

use futures::StreamExt;
use strata_common::settings::Settings;
use strata_engine::{Engine, Session, StatementOutcome};
use strata_memory::process::resident;

/// `max_server_memory_usage` for the test.
const SERVER_LIMIT: u64 = 96 << 20;

/// What the process holds outside the server's account: the executable's
/// touched pages, thread stacks, allocator caches, and the batches in
/// flight between operators, which they do not reserve. Measured at 230 to
/// 295 MiB over the limit with two threads (it varies by about 40 MiB from
/// run to run), and about the same at twice the data; documented in
/// ARCHITECTURE.md.
const FIXED_OVERHEAD: u64 = 320 << 20;

async fn drain(session: &mut Session, sql: &str) -> u64 {
    let StatementOutcome::Rows(mut result) = session
        .execute(sql)
        .await
        .unwrap_or_else(|e| panic!("{sql}: {e}"))
    else {
        panic!("{sql} returned no rows");
    };
    let mut rows = 0;
    while let Some(batch) = result.stream.next().await {
        rows += batch.unwrap_or_else(|e| panic!("{sql}: {e}")).num_rows() as u64;
    }
    let spilled = result.query.spill.figures();
    assert!(
        spilled.bytes_spilled + spilled.disk_bytes_written > 0,
        "{sql} did not spill"
    );
    rows
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn resident_memory_stays_under_the_server_limit_plus_a_fixed_overhead() {
    let tmp = tempfile::tempdir().unwrap();
    let mut settings = Settings::server();
    settings
        .set("tmp_path", tmp.path().to_str().unwrap())
        .unwrap();
    settings
        .set("max_server_memory_usage", &SERVER_LIMIT.to_string())
        .unwrap();
    let engine = Engine::with_server_settings(settings).unwrap();
    let mut session = engine.new_session();
    // Each needs several times the limit in memory to run without spilling;
    // each runs at two sizes, so an overhead that grows with the data fails.
    let mut queries = Vec::new();
    for rows in [6_000_000u64, 12_000_000] {
        queries.push(format!(
            "SELECT k FROM (SELECT intHash64(number) AS k, count() FROM numbers_mt({rows}) GROUP BY k) ORDER BY k LIMIT 1"
        ));
        queries.push(format!(
            "SELECT count() FROM (SELECT intHash64(number) FROM numbers({rows}) INTERSECT DISTINCT SELECT intHash64(number + 1000000) FROM numbers({rows}))"
        ));
        queries.push(format!(
            "SELECT h FROM (SELECT intHash64(number) AS h FROM numbers({rows})) ORDER BY h LIMIT 1 OFFSET {}",
            rows - 1
        ));
    }
    let before = resident().peak;
    for sql in &queries {
        assert_eq!(drain(&mut session, sql).await, 1, "{sql}");
        let peak = resident().peak;
        eprintln!(
            "peak RSS {} MiB (before the queries {} MiB) after {sql}",
            peak >> 20,
            before >> 20
        );
        assert!(
            peak <= SERVER_LIMIT + FIXED_OVERHEAD,
            "peak RSS {} MiB is over the limit {} MiB plus the overhead {} MiB after {sql}",
            peak >> 20,
            SERVER_LIMIT >> 20,
            FIXED_OVERHEAD >> 20
        );
    }
}
