//! SELECT: planned in the query's state and returned as a stream the caller
//! formats.

use std::sync::Arc;

use datafusion::arrow::array::{RecordBatch, RecordBatchOptions};
use datafusion::arrow::datatypes::{Field, Schema};
use datafusion::execution::SendableRecordBatchStream;
use datafusion::physical_plan::execute_stream;
use datafusion::physical_plan::stream::RecordBatchStreamAdapter;
use datafusion::sql::sqlparser::ast::{Query, Statement};
use futures::StreamExt;
use strata_common::Result;
use strata_common::events::{self, Event};
use strata_sql::TrailingClauses;

use crate::session::{QueryResult, Session, StatementOutcome};

impl Session {
    pub(crate) async fn select(
        &mut self,
        mut query: Box<Query>,
        clauses: &TrailingClauses,
    ) -> Result<StatementOutcome> {
        events::add(Event::SelectQuery, 1);
        let (format, settings) = self.query_options(&mut query, clauses)?;
        strata_sql::repeated_columns::mark_repeated_columns(&mut query);
        let (plan, state, query_context) = self.plan(Statement::Query(query), settings).await?;
        let physical = state.create_physical_plan(&plan).await?;
        self.log_start(&query_context);
        let stream = show_repeated_columns(execute_stream(physical, state.task_ctx())?);
        Ok(StatementOutcome::Rows(QueryResult {
            schema: stream.schema(),
            stream,
            format,
            query: query_context,
        }))
    }
}

/// `stream` with its repeated columns under their own names
/// (`strata_sql::repeated_columns`); Arrow allows a schema to repeat a name.
fn show_repeated_columns(stream: SendableRecordBatchStream) -> SendableRecordBatchStream {
    use strata_sql::repeated_columns::{MARK, shown_name};
    let schema = stream.schema();
    if !schema.fields().iter().any(|f| f.name().contains(MARK)) {
        return stream;
    }
    let fields: Vec<Field> = schema
        .fields()
        .iter()
        .map(|f| f.as_ref().clone().with_name(shown_name(f.name())))
        .collect();
    let shown = Arc::new(Schema::new_with_metadata(fields, schema.metadata().clone()));
    let renamed = Arc::clone(&shown);
    let batches = stream.map(move |batch| {
        let batch = batch?;
        Ok(RecordBatch::try_new_with_options(
            Arc::clone(&renamed),
            batch.columns().to_vec(),
            &RecordBatchOptions::new().with_row_count(Some(batch.num_rows())),
        )?)
    });
    Box::pin(RecordBatchStreamAdapter::new(shown, batches))
}
