//! SELECT: planned in the query's state and returned as a stream the caller
//! formats.

use std::sync::Arc;

use datafusion::arrow::array::{RecordBatch, RecordBatchOptions};
use datafusion::arrow::compute::{cast, concat_batches};
use datafusion::arrow::datatypes::{Field, Schema, SchemaRef};
use datafusion::common::ScalarValue;
use datafusion::common::tree_node::TreeNode;
use datafusion::execution::SendableRecordBatchStream;
use datafusion::logical_expr::LogicalPlan;
use datafusion::physical_expr::PhysicalExpr;
use datafusion::physical_plan::coalesce_partitions::CoalescePartitionsExec;
use datafusion::physical_plan::limit::GlobalLimitExec;
use datafusion::physical_plan::stream::RecordBatchStreamAdapter;
use datafusion::physical_plan::{ExecutionPlan, ExecutionPlanProperties, collect, execute_stream};
use datafusion::sql::sqlparser::ast::{Expr, Ident, Query, Statement};
use futures::StreamExt;
use strata_common::events::{self, Event};
use strata_common::readable::readable_quantity;
use strata_common::settings::Settings;
use strata_common::{ErrorCode, Result, StrataError};
use strata_execution::fill::{FillExec, FillKeyOptions, FillOptions};
use strata_sql::TrailingClauses;
use strata_sql::with_fill::{FillClause, Interpolation, ResultColumn};

use crate::engine::task_context;
use crate::query_context::Interface;
use crate::session::{QueryResult, Session, StatementOutcome};

impl Session {
    pub(crate) async fn select(
        &mut self,
        mut query: Box<Query>,
        clauses: &TrailingClauses,
    ) -> Result<StatementOutcome> {
        events::add(Event::SelectQuery, 1);
        if clauses.outfile.is_some() && self.client.interface != Interface::Local {
            return Err(StrataError::new(
                ErrorCode::INTO_OUTFILE_NOT_ALLOWED,
                "INTO OUTFILE is not allowed: the client writes the file, and an HTTP client gets the rows",
            ));
        }
        let (format, settings) = self.query_options(&mut query, clauses)?;
        let totals_query = strata_sql::totals::take_totals(&mut query)?;
        let fill = strata_sql::with_fill::take_fill(&mut query)?;
        strata_sql::repeated_columns::mark_repeated_columns(&mut query);
        let (plan, state, query_context) =
            self.plan(Statement::Query(query), settings.clone()).await?;
        if totals_query.is_some() && !aggregates(&plan)? {
            return Err(StrataError::new(
                ErrorCode::NOT_IMPLEMENTED,
                "WITH TOTALS, ROLLUP, CUBE or GROUPING SETS are not supported without aggregation",
            ));
        }
        let mut physical = self.physical_plan(&state, &plan).await?;
        if let Some(fill) = fill {
            physical = self.filled(physical, fill, &settings).await?;
        }
        physical = limited_by_settings(physical, &settings)?;
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
            outfile: clauses.outfile.clone(),
        }))
    }

    /// `physical` under the fill operator, then the LIMIT taken off with
    /// the clause (ClickHouse limits the filled rows).
    async fn filled(
        &self,
        physical: Arc<dyn ExecutionPlan>,
        fill: FillClause,
        settings: &Settings,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        let schema = physical.schema();
        let position = |column: &ResultColumn| result_position(&schema, column);
        let mut keys = Vec::with_capacity(fill.keys.len());
        for key in &fill.keys {
            let bounds = [&key.bounds.from, &key.bounds.to, &key.bounds.step];
            let mut values = self.constants(&bounds, settings).await?.into_iter();
            let mut value = || values.next().expect("one value per bound");
            keys.push(FillKeyOptions {
                column: position(&key.column)?,
                descending: key.descending,
                from: value(),
                to: value(),
                step: value(),
            });
        }
        let (interpolate, interpolate_schema) =
            self.interpolation(&schema, &fill, settings).await?;
        let prefix = match settings.use_with_fill_by_sorting_prefix() {
            true => fill.prefix.iter().map(position).collect::<Result<_>>()?,
            false => Vec::new(),
        };
        let options = FillOptions {
            prefix,
            keys,
            interpolate,
            interpolate_schema,
        };
        let filled = Arc::new(FillExec::try_new(physical, options)?);
        if fill.limit.is_none() && fill.offset == 0 {
            return Ok(filled);
        }
        let (skip, fetch) = (fill.offset as usize, fill.limit.map(|n| n as usize));
        Ok(Arc::new(GlobalLimitExec::new(filled, skip, fetch)))
    }

    /// The INTERPOLATE expressions, planned over a row of the result's
    /// columns: `SELECT expr, ... FROM (SELECT <default> AS column, ...)`.
    async fn interpolation(
        &self,
        schema: &SchemaRef,
        fill: &FillClause,
        settings: &Settings,
    ) -> Result<(Vec<(usize, Arc<dyn PhysicalExpr>)>, Option<SchemaRef>)> {
        let quoted = |name: &str| Ident::with_quote('"', name);
        let columns: Vec<(usize, Expr)> = match &fill.interpolate {
            Interpolation::None => Vec::new(),
            Interpolation::All => {
                let sorted: Vec<usize> = fill
                    .sort_columns
                    .iter()
                    .filter_map(|c| result_position(schema, c).ok())
                    .collect();
                (0..schema.fields().len())
                    .filter(|i| !sorted.contains(i))
                    .map(|i| (i, Expr::Identifier(quoted(schema.field(i).name()))))
                    .collect()
            }
            Interpolation::Columns(list) => list
                .iter()
                .map(|(column, expr)| Ok((result_position(schema, column)?, expr.clone())))
                .collect::<Result<_>>()?,
        };
        if columns.is_empty() {
            return Ok((Vec::new(), None));
        }
        let row: Vec<String> = schema
            .fields()
            .iter()
            .map(|field| {
                let type_name = strata_common::types::field_type_name(field).replace('\'', "\\'");
                format!(
                    "defaultValueOfTypeName('{type_name}') AS {}",
                    quoted(field.name())
                )
            })
            .collect();
        let exprs: Vec<String> = columns.iter().map(|(_, expr)| expr.to_string()).collect();
        let sql = format!(
            "SELECT {} FROM (SELECT {}) AS __previous_row",
            exprs.join(", "),
            row.join(", ")
        );
        let statement = strata_sql::parse_statement(&sql)?;
        let (plan, state, _) = self.plan(statement.statement, settings.clone()).await?;
        let LogicalPlan::Projection(projection) = &plan else {
            return Err(StrataError::new(
                ErrorCode::NOT_IMPLEMENTED,
                "INTERPOLATE with these expressions",
            ));
        };
        let input = projection.input.schema();
        let planned = columns
            .iter()
            .zip(&projection.expr)
            .map(|((column, _), expr)| {
                Ok((*column, state.create_physical_expr(expr.clone(), input)?))
            })
            .collect::<Result<Vec<_>>>()?;
        Ok((planned, Some(Arc::new(input.as_arrow().clone()))))
    }

    /// The value of each constant expression given, by one SELECT.
    pub(super) async fn constants(
        &self,
        exprs: &[&Option<Expr>],
        settings: &Settings,
    ) -> Result<Vec<Option<ScalarValue>>> {
        // Named apart: `FROM 1 TO 1` would name two columns `1`.
        let given: Vec<String> = exprs
            .iter()
            .filter_map(|e| e.as_ref())
            .enumerate()
            .map(|(i, e)| format!("{e} AS __constant_{i}"))
            .collect();
        if given.is_empty() {
            return Ok(vec![None; exprs.len()]);
        }
        let statement = strata_sql::parse_statement(&format!("SELECT {}", given.join(", ")))?;
        let (plan, state, _) = self.plan(statement.statement, settings.clone()).await?;
        let physical = self.physical_plan(&state, &plan).await?;
        let schema = physical.schema();
        let row = concat_batches(&schema, &collect(physical, task_context(&state)).await?)?;
        let mut column = 0;
        exprs
            .iter()
            .map(|expr| {
                let Some(_) = expr else { return Ok(None) };
                column += 1;
                Ok(Some(ScalarValue::try_from_array(
                    row.column(column - 1),
                    0,
                )?))
            })
            .collect()
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

/// The position in `schema` of a result column an ORDER BY or INTERPOLATE
/// names.
fn result_position(schema: &SchemaRef, column: &ResultColumn) -> Result<usize> {
    match column {
        ResultColumn::Position(at) => Ok(*at),
        ResultColumn::Named(name) => schema.index_of(name).map_err(|_| {
            StrataError::new(
                ErrorCode::NOT_IMPLEMENTED,
                format!("WITH FILL on {name}, which is not a column of the result"),
            )
        }),
    }
}

/// `stream` under `max_result_rows`: past it, the result fails with
/// TOO_MANY_ROWS_OR_BYTES (`result_overflow_mode = 'throw'`) or ends after
/// the block that reached it (`'break'`), as in ClickHouse.
/// The `limit` and `offset` settings: a LIMIT around the whole result,
/// after the query's own.
fn limited_by_settings(
    physical: Arc<dyn ExecutionPlan>,
    settings: &Settings,
) -> Result<Arc<dyn ExecutionPlan>> {
    let rows = |name: &str, value: f64| -> Result<usize> {
        if value >= 0.0 && value.fract() == 0.0 {
            return Ok(value as usize);
        }
        Err(StrataError::new(
            ErrorCode::NOT_IMPLEMENTED,
            format!(
                "Setting {name} = {value}: Strata takes a whole number of rows, not a fraction or a count from the end"
            ),
        ))
    };
    let (fetch, skip) = (
        rows("limit", settings.limit())?,
        rows("offset", settings.offset())?,
    );
    if fetch == 0 && skip == 0 {
        return Ok(physical);
    }
    let input: Arc<dyn ExecutionPlan> = match physical.output_partitioning().partition_count() {
        1 => physical,
        _ => Arc::new(CoalescePartitionsExec::new(physical)),
    };
    Ok(Arc::new(GlobalLimitExec::new(
        input,
        skip,
        (fetch > 0).then_some(fetch),
    )))
}

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

/// Whether `plan` aggregates anywhere (WITH TOTALS needs it).
fn aggregates(plan: &LogicalPlan) -> Result<bool> {
    Ok(plan.exists(|node| Ok(matches!(node, LogicalPlan::Aggregate(_))))?)
}
