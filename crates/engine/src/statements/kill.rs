//! `KILL QUERY WHERE <condition> [SYNC | ASYNC | TEST]`: cancels the running
//! queries whose `system.processes` row matches, and lists them as
//! ClickHouse does (`kill_status`, `query_id`, `user`, `query`).
//! `KILL MUTATION WHERE <condition>` forgets the mutations whose
//! `system.mutations` rows match (parts they already changed keep it).

use std::sync::Arc;
use std::time::{Duration, Instant};

use datafusion::arrow::array::{Array, RecordBatch, StringArray};
use datafusion::arrow::datatypes::{DataType, Field, Schema};
use datafusion::sql::sqlparser::ast::{Ident, ObjectName};
use futures::StreamExt;
use strata_common::{ErrorCode, Result, StrataError};

use crate::query_context::QueryContext;
use crate::session::{Session, StatementOutcome, UserTable, strip_keyword};

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
    pub(crate) async fn kill(&mut self, rest: &str) -> Result<StatementOutcome> {
        let Some((what, rest)) = strip_keyword(rest, &["QUERY", "MUTATION"]) else {
            return Err(StrataError::new(
                ErrorCode::NOT_IMPLEMENTED,
                format!("KILL{rest} is not supported; KILL QUERY and KILL MUTATION are"),
            ));
        };
        let Some((_, condition)) = strip_keyword(rest, &["WHERE"]) else {
            return Err(StrataError::new(
                ErrorCode::SYNTAX_ERROR,
                format!("Syntax error: expected WHERE after KILL {what}"),
            ));
        };
        let (condition, mode) = split_mode(condition);
        if what == "MUTATION" {
            return self.kill_mutations(condition, mode).await;
        }
        let ids = self.matching_query_ids(condition).await?;
        let queries: Vec<Arc<QueryContext>> = self
            .engine
            .instance
            .processes
            .running()
            .into_iter()
            .filter(|q| ids.contains(&q.query_id))
            .collect();
        // One's own queries need no grant; others' need KILL QUERY.
        if queries.iter().any(|q| q.client.user != self.client.user) {
            self.require("KILL QUERY", &[])?;
        }
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

    async fn kill_mutations(&mut self, condition: &str, mode: Mode) -> Result<StatementOutcome> {
        let sql = format!(
            "SELECT DISTINCT database, table, mutation_id, command FROM system.mutations WHERE {condition}"
        );
        let rows = self.string_rows(&sql).await?;
        for row in rows.iter().filter(|_| mode != Mode::Test) {
            let [database, table, mutation_id, _] = row;
            let number = mutation_id
                .strip_prefix("mutation_")
                .and_then(|rest| rest.strip_suffix(".txt"))
                .and_then(|n| n.parse::<u64>().ok());
            let name = ObjectName::from(vec![
                Ident::with_quote('`', database.as_str()),
                Ident::with_quote('`', table.as_str()),
            ]);
            if let (Some(number), Ok(UserTable::MergeTree(table))) =
                (number, self.user_table(&name).await)
            {
                table.data.kill_mutation(number)?;
            }
        }
        let status = if mode == Mode::Test {
            "unknown_status"
        } else {
            "waiting"
        };
        let schema = Arc::new(Schema::new(
            ["kill_status", "database", "table", "mutation_id", "command"]
                .map(|name| Field::new(name, DataType::Utf8, false))
                .to_vec(),
        ));
        let column = |i: usize| {
            Arc::new(StringArray::from_iter_values(rows.iter().map(
                |row| match i {
                    0 => status.to_string(),
                    _ => row[i - 1].clone(),
                },
            ))) as Arc<dyn Array>
        };
        let batch = RecordBatch::try_new(Arc::clone(&schema), (0..5).map(column).collect())?;
        self.rows(schema, vec![batch])
    }

    /// The rows of a query of four String columns.
    async fn string_rows(&mut self, sql: &str) -> Result<Vec<[String; 4]>> {
        let StatementOutcome::Rows(result) = Box::pin(self.execute(sql)).await? else {
            return Ok(Vec::new());
        };
        let mut stream = result.stream;
        let mut rows = Vec::new();
        while let Some(batch) = stream.next().await {
            let batch = batch?;
            let column = |i: usize| {
                batch
                    .column(i)
                    .as_any()
                    .downcast_ref::<StringArray>()
                    .cloned()
            };
            let (Some(a), Some(b), Some(c), Some(d)) = (column(0), column(1), column(2), column(3))
            else {
                continue;
            };
            for row in 0..batch.num_rows() {
                rows.push(
                    [a.value(row), b.value(row), c.value(row), d.value(row)].map(str::to_string),
                );
            }
        }
        Ok(rows)
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
