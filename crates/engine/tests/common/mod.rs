//! Running statements to the end, shared by the engine's test binaries.

// Each test binary uses its own share of these.
#![allow(dead_code)]

pub mod fault_proxy;
pub mod s3_server;

use std::sync::Arc;

use datafusion::arrow::array::{Array, RecordBatch, StringArray, UInt64Array};
use futures::StreamExt;
use strata_common::StrataError;
use strata_engine::{QueryContext, Session, StatementOutcome};

/// Runs one statement to the end: its query context and rows, or its error.
pub async fn run_query(
    session: &mut Session,
    sql: &str,
) -> Result<(Arc<QueryContext>, Vec<RecordBatch>), StrataError> {
    match session.execute(sql).await? {
        StatementOutcome::Rows(mut result) => {
            let mut batches = Vec::new();
            while let Some(batch) = result.stream.next().await {
                batches.push(batch.map_err(StrataError::from)?);
            }
            Ok((result.query, batches))
        }
        StatementOutcome::Done(query) => Ok((query, Vec::new())),
    }
}

/// Runs one statement to the end: its rows, or its error.
pub async fn run(session: &mut Session, sql: &str) -> Result<Vec<RecordBatch>, StrataError> {
    run_query(session, sql).await.map(|(_, batches)| batches)
}

/// The single UInt64 a query returns.
pub async fn number(session: &mut Session, sql: &str) -> u64 {
    let batches = run(session, sql).await.unwrap();
    let column = batches[0].column(0);
    column
        .as_any()
        .downcast_ref::<UInt64Array>()
        .unwrap_or_else(|| panic!("{sql} returned {:?}", column.data_type()))
        .value(0)
}

/// Each row of a one-String-column query.
pub async fn texts(session: &mut Session, sql: &str) -> Vec<String> {
    let batches = run(session, sql).await.unwrap();
    let mut values = Vec::new();
    for batch in batches {
        let column = batch
            .column(0)
            .as_any()
            .downcast_ref::<StringArray>()
            .unwrap_or_else(|| panic!("{sql} returned {:?}", batch.column(0).data_type()));
        values.extend((0..column.len()).map(|i| column.value(i).to_string()));
    }
    values
}

/// Waits up to 10 s for `done`, for work a statement's end sets off.
pub fn wait_for(done: impl Fn() -> bool, what: &str) {
    for _ in 0..200 {
        if done() {
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    panic!("timed out waiting: {what}");
}
