//! Memory governance seen through the engine: per-query limits, the tracked
//! peak, the query log, and the server-wide overcommit policy under
//! concurrent queries.

use std::collections::BTreeSet;
use std::sync::Arc;

use futures::StreamExt;
use strata_common::settings::Settings;
use strata_common::{ErrorCode, StrataError};
use strata_engine::{Engine, QueryContext, Session, StatementOutcome};

/// Runs one statement to the end: its query context, or its error.
async fn run(session: &mut Session, sql: &str) -> Result<Arc<QueryContext>, StrataError> {
    match session.execute(sql).await? {
        StatementOutcome::Rows(mut result) => {
            while let Some(batch) = result.stream.next().await {
                batch.map_err(StrataError::from)?;
            }
            Ok(result.query)
        }
        StatementOutcome::Done(query) => Ok(query),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn over_max_memory_usage_fails_with_the_figures_and_the_next_query_runs() {
    let engine = Engine::new().unwrap();
    let mut session = engine.new_session();
    let error = run(
        &mut session,
        "SELECT groupArray(number) FROM numbers(1000000) SETTINGS max_memory_usage = 1000000",
    )
    .await
    .unwrap_err();
    assert_eq!(error.code, ErrorCode::MEMORY_LIMIT_EXCEEDED);
    for figure in [
        "would use",
        "attempt to allocate chunk of",
        "current RSS:",
        "maximum: 976.56 KiB",
    ] {
        assert!(
            error.message.contains(figure),
            "{figure}: {}",
            error.message
        );
    }
    // DataFusion's own hash join (which cannot spill) fails in every probing
    // partition at once; the code must still be 241, not a generic error.
    let join = run(
        &mut session,
        "SELECT count() FROM numbers(1, 30000000) AS a JOIN numbers(1, 30000000) AS b ON a.number = b.number SETTINGS max_memory_usage = 100000000, strata_group_by_operators = 0",
    )
    .await
    .unwrap_err();
    assert_eq!(join.code, ErrorCode::MEMORY_LIMIT_EXCEEDED, "{join}");
    let next = run(&mut session, "SELECT sum(number) FROM numbers(1000)")
        .await
        .unwrap();
    assert_eq!(next.rows_read(), 1000);
    // Tasks of a failed query are aborted asynchronously; their memory must
    // come back shortly, not leak.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while engine.instance().memory.reserved() != 0 && std::time::Instant::now() < deadline {
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    assert_eq!(
        engine.instance().memory.reserved(),
        0,
        "failed queries released everything"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tracked_peak_matches_a_known_footprint() {
    let engine = Engine::new().unwrap();
    let mut session = engine.new_session();
    for n in [1u64 << 20, 3_000_000, 10_000_000] {
        let query = run(
            &mut session,
            &format!("SELECT groupArray(number) FROM numbers({n}) SETTINGS max_threads = 1"),
        )
        .await
        .unwrap();
        let expected = (n * 8) as f64;
        let peak = query.memory.peak() as f64;
        assert!(
            (peak - expected).abs() / expected < 0.10,
            "groupArray of {n} UInt64: peak {peak}, expected about {expected}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn query_log_records_start_finish_and_failures() {
    let engine = Engine::new().unwrap();
    let mut session = engine.new_session();
    run(
        &mut session,
        "SELECT groupArray(number) FROM numbers(100000)",
    )
    .await
    .unwrap();
    run(
        &mut session,
        "SELECT groupArray(number) FROM numbers(100000) SETTINGS max_memory_usage = 1000",
    )
    .await
    .unwrap_err();
    run(&mut session, "SELEC 1").await.unwrap_err();
    let mut log_session = engine.new_session();
    let mut result = match log_session
        .execute("SELECT type, read_rows, result_rows, peak_memory_usage, exception_code, query FROM system.query_log")
        .await
        .unwrap()
    {
        StatementOutcome::Rows(result) => result,
        StatementOutcome::Done(_) => panic!("a query returns rows"),
    };
    let mut rows = Vec::new();
    while let Some(batch) = result.stream.next().await {
        let batch = batch.unwrap();
        let text = datafusion::arrow::util::pretty::pretty_format_batches(&[batch]).unwrap();
        rows.push(text.to_string());
    }
    let table = rows.join("\n");
    let lines: Vec<&str> = table
        .lines()
        .filter(|l| l.starts_with("| Q") || l.starts_with("| E"))
        .collect();
    // The reading query's own entries come after its scan, as in ClickHouse.
    assert_eq!(lines.len(), 5, "{table}");
    assert!(lines[0].contains("QueryStart"), "{table}");
    assert!(
        lines[1].starts_with("| QueryFinish ")
            && lines[1].contains("| 100000 ")
            && lines[1].contains("| 1 "),
        "{table}"
    );
    assert!(
        lines[1].contains("| 8001"),
        "peak of 100,000 UInt64 is about 800,000: {table}"
    );
    assert!(
        lines[3].starts_with("| ExceptionWhileProcessing") && lines[3].contains("| 241 "),
        "{table}"
    );
    assert!(
        lines[4].starts_with("| ExceptionBeforeStart") && lines[4].contains("| 62 "),
        "{table}"
    );
}

/// Eight queries at once under a server limit they cannot share: the
/// overcommit policy stops some, only chosen queries fail, the rest finish,
/// and the process goes on.
#[test]
fn concurrent_queries_over_the_server_limit_fail_exactly_as_chosen() {
    let mut server = Settings::server();
    server.set("max_server_memory_usage", "200000000").unwrap();
    let engine = Engine::with_server_settings(server).unwrap();
    assert_eq!(engine.instance().memory.limit(), 200_000_000);
    let threads: Vec<_> = (0..8)
        .map(|_| {
            let engine = Arc::clone(&engine);
            std::thread::spawn(move || {
                let runtime = tokio::runtime::Builder::new_current_thread()
                    .build()
                    .unwrap();
                runtime.block_on(async {
                    let mut session = engine.new_session();
                    run(
                        &mut session,
                        "SELECT groupArray(number) FROM numbers(8000000) SETTINGS max_threads = 1",
                    )
                    .await
                })
            })
        })
        .collect();
    let results: Vec<_> = threads.into_iter().map(|t| t.join().unwrap()).collect();
    let failures: Vec<&StrataError> = results.iter().filter_map(|r| r.as_ref().err()).collect();
    for error in &failures {
        assert_eq!(error.code, ErrorCode::MEMORY_LIMIT_EXCEEDED, "{error}");
    }
    let failed_ids: BTreeSet<String> = engine
        .instance()
        .query_log
        .entries()
        .into_iter()
        .filter(|e| e.exception_code == 241)
        .map(|e| e.query_id)
        .collect();
    let chosen: BTreeSet<String> = engine
        .instance()
        .memory
        .decisions()
        .into_iter()
        .map(|d| d.stopped_query_id)
        .collect();
    assert_eq!(failed_ids.len(), failures.len());
    // No query the policy did not choose fails. A chosen query fails at its
    // next reservation or block; one chosen after its last reservation
    // finishes instead, and its memory goes to the waiting query all the same.
    assert!(
        failed_ids.is_subset(&chosen),
        "only chosen queries fail: {failed_ids:?} {chosen:?}"
    );
    let finished = results.iter().filter(|r| r.is_ok()).count();
    assert_eq!(
        finished + failed_ids.len(),
        8,
        "every query ends, failed or finished"
    );
    assert!(
        !failures.is_empty(),
        "8 x 64 MB cannot fit in 200 MB at once"
    );
    assert!(failures.len() < 8, "some queries finish: {results:?}");
    assert!(engine.instance().memory.peak() <= 200_000_000);
    assert_eq!(engine.instance().memory.reserved(), 0);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    let mut session = engine.new_session();
    runtime
        .block_on(run(&mut session, "SELECT count() FROM numbers(10)"))
        .unwrap();
}
