//! `KILL QUERY WHERE <condition> [SYNC | ASYNC | TEST]`: cancels the running
//! queries whose `system.processes` row matches, and lists them as
//! ClickHouse does (`kill_status`, `query_id`, `user`, `query`).

use std::sync::Arc;
use std::time::{Duration, Instant};

use datafusion::arrow::array::{Array, RecordBatch, StringArray};
use datafusion::arrow::datatypes::{DataType, Field, Schema};
use futures::StreamExt;
use strata_common::{ErrorCode, Result, StrataError};

use super::{Session, StatementOutcome, strip_keyword};
use crate::query_context::QueryContext;

/// How long `KILL QUERY ... SYNC` waits for the queries to stop.
const SYNC_WAIT_LIMIT: Duration = Duration::from_secs(30);
const SYNC_POLL_INTERVAL: Duration = Duration::from_millis(10);

#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    Async,
    Sync,
    /// Lists the queries without cancelling them.
    Test,
}

impl Session {
    /// `rest` is the text after `KILL`.
    pub(super) async fn kill(&mut self, rest: &str) -> Result<StatementOutcome> {
        let Some((_, rest)) = strip_keyword(rest, &["QUERY"]) else {
            return Err(StrataError::new(
                ErrorCode::NOT_IMPLEMENTED,
                format!("KILL{rest} is not supported; only KILL QUERY is"),
            ));
        };
        let Some((_, condition)) = strip_keyword(rest, &["WHERE"]) else {
            return Err(StrataError::new(
                ErrorCode::SYNTAX_ERROR,
                "Syntax error: expected WHERE after KILL QUERY",
            ));
        };
        let (condition, mode) = split_mode(condition);
        let ids = self.matching_query_ids(condition).await?;
        let queries: Vec<Arc<QueryContext>> = self
            .engine
            .instance
            .processes
            .running()
            .into_iter()
            .filter(|q| ids.contains(&q.query_id))
            .collect();
        if mode != Mode::Test {
            for query in &queries {
                query.cancel();
            }
        }
        if mode == Mode::Sync {
            wait_stopped(&queries).await;
        }
        let status = match mode {
            Mode::Async => "waiting",
            Mode::Sync => "finished",
            Mode::Test => "pending",
        };
        let schema = Arc::new(Schema::new(
            ["kill_status", "query_id", "user", "query"]
                .map(|name| Field::new(name, DataType::Utf8, false))
                .to_vec(),
        ));
        let column = |value: &dyn Fn(&QueryContext) -> String| {
            Arc::new(StringArray::from_iter_values(
                queries.iter().map(|q| value(q)),
            )) as Arc<dyn Array>
        };
        let batch = RecordBatch::try_new(
            Arc::clone(&schema),
            vec![
                column(&|_| status.to_string()),
                column(&|q| q.query_id.clone()),
                column(&|q| q.client.user.clone()),
                column(&|q| q.text.clone()),
            ],
        )?;
        self.rows(schema, vec![batch])
    }

    /// The ids of running queries `condition` selects in `system.processes`,
    /// this statement's own lookup left out.
    async fn matching_query_ids(&mut self, condition: &str) -> Result<Vec<String>> {
        let sql = format!("SELECT query_id FROM system.processes WHERE {condition}");
        let StatementOutcome::Rows(result) = Box::pin(self.execute(&sql)).await? else {
            return Ok(Vec::new());
        };
        let own = result.query.query_id.clone();
        let mut stream = result.stream;
        let mut ids = Vec::new();
        while let Some(batch) = stream.next().await {
            let batch = batch?;
            let column = batch.column(0);
            let Some(strings) = column.as_any().downcast_ref::<StringArray>() else {
                continue;
            };
            ids.extend(strings.iter().flatten().map(str::to_string));
        }
        ids.retain(|id| *id != own);
        Ok(ids)
    }
}

fn split_mode(condition: &str) -> (&str, Mode) {
    let trimmed = condition.trim_end();
    let last = trimmed.rsplit(char::is_whitespace).next().unwrap_or("");
    let mode = match last.to_ascii_uppercase().as_str() {
        "SYNC" => Mode::Sync,
        "ASYNC" => Mode::Async,
        "TEST" => Mode::Test,
        _ => return (trimmed, Mode::Async),
    };
    (&trimmed[..trimmed.len() - last.len()], mode)
}

/// Waits, bounded, until every query in `queries` has ended.
async fn wait_stopped(queries: &[Arc<QueryContext>]) {
    let started = Instant::now();
    while queries.iter().any(|q| !q.is_finished()) && started.elapsed() < SYNC_WAIT_LIMIT {
        tokio::time::sleep(SYNC_POLL_INTERVAL).await;
    }
}
