//! SELECT: planned in the query's state and returned as a stream the caller
//! formats.

use std::sync::Arc;

use datafusion::arrow::array::{RecordBatch, RecordBatchOptions};
use datafusion::arrow::compute::{cast, concat_batches};
use datafusion::arrow::datatypes::{Field, Schema, SchemaRef};
use datafusion::execution::SendableRecordBatchStream;
use datafusion::physical_plan::stream::RecordBatchStreamAdapter;
use datafusion::physical_plan::{collect, execute_stream};
use datafusion::sql::sqlparser::ast::{Query, Statement};
use futures::StreamExt;
use strata_common::events::{self, Event};
use strata_common::readable::readable_quantity;
use strata_common::settings::Settings;
use strata_common::{ErrorCode, Result, StrataError};
use strata_sql::TrailingClauses;

use crate::engine::task_context;
use crate::session::{QueryResult, Session, StatementOutcome};

impl Session {
    pub(crate) async fn select(
        &mut self,
        mut query: Box<Query>,
        clauses: &TrailingClauses,
    ) -> Result<StatementOutcome> {
        events::add(Event::SelectQuery, 1);
        let (format, settings) = self.query_options(&mut query, clauses)?;
        let totals_query = strata_sql::totals::take_totals(&mut query)?;
        strata_sql::repeated_columns::mark_repeated_columns(&mut query);
        let (plan, state, query_context) =
            self.plan(Statement::Query(query), settings.clone()).await?;
        let physical = self.physical_plan(&state, &plan).await?;
        self.log_start(&query_context);
        let stream = show_repeated_columns(execute_stream(physical, task_context(&state))?);
        let stream = limit_result(stream, &query_context.settings);
        let totals = match totals_query {
            Some(totals) => Some(self.totals_row(totals, settings, &stream.schema()).await?),
            None => None,
        };
        Ok(StatementOutcome::Rows(QueryResult {
            schema: stream.schema(),
            stream,
            format,
            query: query_context,
            totals,
        }))
    }

    /// The WITH TOTALS row, in the result's columns.
    async fn totals_row(
        &self,
        mut totals: Query,
        settings: Settings,
        schema: &SchemaRef,
    ) -> Result<RecordBatch> {
        strata_sql::repeated_columns::mark_repeated_columns(&mut totals);
        let (plan, state, _) = self
            .plan(Statement::Query(Box::new(totals)), settings)
            .await?;
        let physical = self.physical_plan(&state, &plan).await?;
        let row_schema = physical.schema();
        let batches = collect(physical, task_context(&state)).await?;
        let row = concat_batches(&row_schema, &batches)?;
        debug_assert_eq!(row.num_rows(), 1, "a query without GROUP BY makes one row");
        let columns = row
            .columns()
            .iter()
            .zip(schema.fields())
            .map(|(column, field)| cast(column, field.data_type()))
            .collect::<std::result::Result<Vec<_>, _>>()?;
        Ok(RecordBatch::try_new_with_options(
            Arc::clone(schema),
            columns,
            &RecordBatchOptions::new().with_row_count(Some(row.num_rows())),
        )?)
    }
}

/// `stream` under `max_result_rows`: past it, the result fails with
/// TOO_MANY_ROWS_OR_BYTES (`result_overflow_mode = 'throw'`) or ends after
/// the block that reached it (`'break'`), as in ClickHouse.
fn limit_result(
    stream: SendableRecordBatchStream,
    settings: &Settings,
) -> SendableRecordBatchStream {
    let limit = settings.max_result_rows();
    if limit == 0 {
        return stream;
    }
    let throw = settings.result_overflow_mode() == "throw";
    let schema = stream.schema();
    let mut rows = 0u64;
    let limited = stream.scan(false, move |ended, batch| {
        if *ended {
            return futures::future::ready(None);
        }
        let Ok(batch) = batch else {
            return futures::future::ready(Some(batch));
        };
        rows += batch.num_rows() as u64;
        if rows <= limit {
            return futures::future::ready(Some(Ok(batch)));
        }
        *ended = true;
        if !throw {
            return futures::future::ready(Some(Ok(batch)));
        }
        let error = StrataError::new(
            ErrorCode::TOO_MANY_ROWS_OR_BYTES,
            format!(
                "Limit for result exceeded, max rows: {}, current rows: {}",
                readable_quantity(limit as f64),
                readable_quantity(rows as f64)
            ),
        );
        futures::future::ready(Some(Err(error.into_datafusion())))
    });
    Box::pin(RecordBatchStreamAdapter::new(schema, limited))
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
