//! The `Buffer` table engine: rows kept in RAM and written to a destination
//! table in batches. As ClickHouse documents it, the buffer is flushed when
//! every `min_*` condition or one `max_*` condition holds (time since the
//! first buffered row, rows, bytes), checked after each INSERT and once a
//! second in the background, where the optional `flush_*` conditions count
//! too; an INSERT larger than `max_rows` or `max_bytes` goes to the
//! destination directly; `OPTIMIZE TABLE` flushes. A read is the buffered
//! rows and the destination's, columns matched by name (one the destination
//! lacks reads as its default). An empty destination keeps the rows until
//! they are flushed away.
//!
//! One buffer, not `num_layers`: Strata's INSERTs append under one short
//! lock. A flush writes through the destination's own INSERT path, so
//! materialized views on the destination are not triggered by it.

use std::collections::HashMap;
use std::sync::{Arc, Weak};
use std::time::{Duration, Instant};

use async_trait::async_trait;
use datafusion::arrow::array::RecordBatch;
use datafusion::arrow::compute::cast;
use datafusion::arrow::datatypes::SchemaRef;
use datafusion::catalog::{CatalogProvider, Session, TableProvider};
use datafusion::common::{DataFusionError, Result as DfResult, ScalarValue};
use datafusion::datasource::memory::MemorySourceConfig;
use datafusion::datasource::sink::{DataSink, DataSinkExec};
use datafusion::execution::context::SessionState;
use datafusion::execution::{SendableRecordBatchStream, TaskContext};
use datafusion::logical_expr::dml::InsertOp;
use datafusion::logical_expr::{Expr, TableType};
use datafusion::physical_expr::PhysicalExpr;
use datafusion::physical_expr::expressions::{CastExpr, Column, Literal};
use datafusion::physical_plan::projection::ProjectionExec;
use datafusion::physical_plan::union::UnionExec;
use datafusion::physical_plan::{DisplayAs, DisplayFormatType, ExecutionPlan, collect};
use datafusion::sql::sqlparser::ast::{Expr as SqlExpr, Value};
use futures::StreamExt;
use parking_lot::{Mutex, RwLock};
use strata_common::types::field_default_value;
use strata_common::{ErrorCode, Result, StrataError};
use strata_sql::literal_text::{quoted, string_value};

use super::counting::CountingExec;
use crate::query_context::QueryContext;
use crate::table_definition::TableIdentity;

/// How often the background check looks at a buffer.
const BACKGROUND_CHECK: Duration = Duration::from_secs(1);

/// Time in seconds, rows and bytes: one set of flush conditions.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Limits {
    seconds: f64,
    rows: u64,
    bytes: u64,
}

/// A Buffer engine clause's arguments, checked.
#[derive(Debug, Clone, PartialEq)]
pub struct BufferDefinition {
    /// `(database, table)`; None for an empty destination.
    destination: Option<(String, String)>,
    layers: u64,
    min: Limits,
    max: Limits,
    flush: Option<Limits>,
}

impl BufferDefinition {
    /// `Buffer(database, table, num_layers, min_time, max_time, min_rows,
    /// max_rows, min_bytes, max_bytes[, flush_time, flush_rows, flush_bytes])`;
    /// `currentDatabase()` was written as a name when the table was created.
    pub fn from_arguments(arguments: &[SqlExpr]) -> Result<BufferDefinition> {
        if !(9..=12).contains(&arguments.len()) {
            return Err(StrataError::new(
                ErrorCode::NUMBER_OF_ARGUMENTS_DOESNT_MATCH,
                "Storage Buffer requires from 9 to 12 parameters: destination_database, destination_table, num_buckets, min_time, max_time, min_rows, max_rows, min_bytes, max_bytes[, flush_time, flush_rows, flush_bytes]",
            ));
        }
        let name = |expr: &SqlExpr| match expr {
            SqlExpr::Identifier(ident) => Some(ident.value.clone()),
            other => string_value(other),
        };
        let (Some(database), Some(table)) = (name(&arguments[0]), name(&arguments[1])) else {
            return Err(StrataError::new(
                ErrorCode::BAD_ARGUMENTS,
                "Storage Buffer's first two parameters are the destination's database and table",
            ));
        };
        let numbers = arguments[2..]
            .iter()
            .map(number)
            .collect::<Result<Vec<f64>>>()?;
        let limits = |at: usize| Limits {
            seconds: numbers[at],
            rows: numbers[at + 2] as u64,
            bytes: numbers[at + 4] as u64,
        };
        let flush = (numbers.len() > 7).then(|| Limits {
            seconds: numbers[7],
            rows: numbers.get(8).map_or(0, |&n| n as u64),
            bytes: numbers.get(9).map_or(0, |&n| n as u64),
        });
        Ok(BufferDefinition {
            destination: (!table.is_empty()).then_some((database, table)),
            layers: numbers[0] as u64,
            min: limits(1),
            max: Limits {
                seconds: numbers[2],
                rows: numbers[4] as u64,
                bytes: numbers[6] as u64,
            },
            flush,
        })
    }

    /// The engine clause as SHOW CREATE TABLE prints it.
    pub fn clause_text(&self) -> String {
        let (database, table) = self
            .destination
            .clone()
            .unwrap_or((String::new(), String::new()));
        let number = |n: f64| format!("{n}");
        let mut arguments = vec![
            quoted(&database),
            quoted(&table),
            self.layers.to_string(),
            number(self.min.seconds),
            number(self.max.seconds),
            self.min.rows.to_string(),
            self.max.rows.to_string(),
            self.min.bytes.to_string(),
            self.max.bytes.to_string(),
        ];
        if let Some(flush) = &self.flush {
            arguments.extend([
                number(flush.seconds),
                flush.rows.to_string(),
                flush.bytes.to_string(),
            ]);
        }
        format!("ENGINE = Buffer({})", arguments.join(", "))
    }

    /// Whether a buffer holding `rows` and `bytes` for `seconds` is flushed;
    /// `background` counts the `flush_*` conditions too.
    fn due(&self, seconds: f64, rows: u64, bytes: u64, background: bool) -> bool {
        let all_min =
            seconds >= self.min.seconds && rows >= self.min.rows && bytes >= self.min.bytes;
        let any_max = seconds > self.max.seconds || rows > self.max.rows || bytes > self.max.bytes;
        let any_flush = background
            && self.flush.is_some_and(|f| {
                (f.seconds > 0.0 && seconds >= f.seconds)
                    || (f.rows > 0 && rows >= f.rows)
                    || (f.bytes > 0 && bytes >= f.bytes)
            });
        all_min || any_max || any_flush
    }
}

fn number(expr: &SqlExpr) -> Result<f64> {
    let text = match expr {
        SqlExpr::Value(v) => match &v.value {
            Value::Number(n, _) => Some(n.as_str()),
            _ => None,
        },
        _ => None,
    };
    text.and_then(|t| t.parse::<f64>().ok())
        .filter(|n| *n >= 0.0)
        .ok_or_else(|| {
            StrataError::new(
                ErrorCode::BAD_ARGUMENTS,
                format!("Storage Buffer's parameters after the table are numbers, got {expr}"),
            )
        })
}

/// The buffered rows.
#[derive(Debug, Default)]
struct Buffered {
    batches: Vec<RecordBatch>,
    rows: u64,
    bytes: u64,
    /// When the first buffered row came.
    since: Option<Instant>,
    /// The planning state of the last INSERT, which background flushes write with.
    state: Option<SessionState>,
}

impl Buffered {
    fn take(&mut self) -> Vec<RecordBatch> {
        self.rows = 0;
        self.bytes = 0;
        self.since = None;
        std::mem::take(&mut self.batches)
    }

    fn seconds(&self) -> f64 {
        self.since.map_or(0.0, |s| s.elapsed().as_secs_f64())
    }
}

/// A `Buffer` table.
#[derive(Debug)]
pub struct BufferTable {
    identity: RwLock<TableIdentity>,
    schema: SchemaRef,
    defaults: HashMap<String, Expr>,
    /// The constant DEFAULTs, for columns the destination lacks.
    fills: HashMap<String, ScalarValue>,
    core: Arc<BufferCore>,
}

/// What a Buffer table's INSERTs and background flushes share.
#[derive(Debug)]
struct BufferCore {
    definition: BufferDefinition,
    catalog: Arc<dyn CatalogProvider>,
    buffered: Mutex<Buffered>,
}

impl BufferTable {
    /// The table, with its background flushes running while it lives.
    pub fn open(
        identity: TableIdentity,
        schema: SchemaRef,
        defaults: HashMap<String, Expr>,
        fills: HashMap<String, ScalarValue>,
        definition: BufferDefinition,
        catalog: Arc<dyn CatalogProvider>,
    ) -> BufferTable {
        let core = Arc::new(BufferCore {
            definition,
            catalog,
            buffered: Mutex::default(),
        });
        tokio::spawn(background_flushes(Arc::downgrade(&core)));
        BufferTable {
            identity: RwLock::new(identity),
            schema,
            defaults,
            fills,
            core,
        }
    }

    pub fn identity(&self) -> TableIdentity {
        self.identity.read().clone()
    }

    pub fn set_identity(&self, identity: TableIdentity) {
        *self.identity.write() = identity;
    }

    /// Rows and bytes buffered now, for system.tables.
    pub fn totals(&self) -> (u64, u64) {
        let buffered = self.core.buffered.lock();
        (buffered.rows, buffered.bytes)
    }

    /// Writes every buffered row to the destination (`OPTIMIZE TABLE`).
    pub async fn flush(&self) -> Result<()> {
        self.core.flush().await
    }
}

impl BufferCore {
    async fn flush(&self) -> Result<()> {
        let (batches, state) = {
            let mut buffered = self.buffered.lock();
            (buffered.take(), buffered.state.clone())
        };
        let Some(state) = state else {
            return Ok(());
        };
        let result = self.write_destination(batches.clone(), &state).await;
        if result.is_err() {
            // Kept for the next flush rather than lost.
            let mut buffered = self.buffered.lock();
            for batch in batches.into_iter().rev() {
                buffered.rows += batch.num_rows() as u64;
                buffered.bytes += batch.get_array_memory_size() as u64;
                buffered.batches.insert(0, batch);
            }
            buffered.since.get_or_insert_with(Instant::now);
        }
        result
    }

    async fn destination(&self) -> Result<Option<Arc<dyn TableProvider>>> {
        let Some((database, table)) = &self.definition.destination else {
            return Ok(None);
        };
        let provider = match self.catalog.schema(database) {
            Some(schema) => schema.table(table).await?,
            None => None,
        };
        provider.map(Some).ok_or_else(|| {
            StrataError::new(
                ErrorCode::UNKNOWN_TABLE,
                format!("Destination table {database}.{table} of a Buffer table doesn't exist"),
            )
        })
    }

    /// Writes `batches` to the destination, columns by name (one the
    /// buffer lacks takes its type's default).
    async fn write_destination(
        &self,
        batches: Vec<RecordBatch>,
        state: &SessionState,
    ) -> Result<()> {
        let Some(destination) = self.destination().await? else {
            return Ok(());
        };
        if batches.iter().all(|b| b.num_rows() == 0) {
            return Ok(());
        }
        let target = destination.schema();
        let mut converted = Vec::with_capacity(batches.len());
        for batch in &batches {
            let columns = target
                .fields()
                .iter()
                .map(|field| match batch.column_by_name(field.name()) {
                    Some(column) => Ok(cast(column, field.data_type())?),
                    None => field_default_value(field)?.to_array_of_size(batch.num_rows()),
                })
                .collect::<DfResult<Vec<_>>>()?;
            converted.push(RecordBatch::try_new(Arc::clone(&target), columns)?);
        }
        let source = MemorySourceConfig::try_new_exec(&[converted], target, None)?;
        let insert = destination
            .insert_into(state, source, InsertOp::Append)
            .await?;
        collect(insert, state.task_ctx()).await?;
        Ok(())
    }

    /// The destination's rows in `projected`'s columns, by name: cast to
    /// the buffer's types, the column's constant DEFAULT (in `fills`) or its
    /// type's default where it has no such column.
    async fn destination_scan(
        &self,
        state: &dyn Session,
        projected: &SchemaRef,
        fills: &HashMap<String, ScalarValue>,
    ) -> DfResult<Option<Arc<dyn ExecutionPlan>>> {
        let Some(destination) = self
            .destination()
            .await
            .map_err(StrataError::into_datafusion)?
        else {
            return Ok(None);
        };
        let target = destination.schema();
        let mut read = Vec::new();
        let mut exprs: Vec<(Arc<dyn PhysicalExpr>, String)> = Vec::new();
        for field in projected.fields() {
            let expr: Arc<dyn PhysicalExpr> = match target.index_of(field.name()) {
                Ok(at) => {
                    read.push(at);
                    let column = Arc::new(Column::new(field.name(), read.len() - 1));
                    match target.field(at).data_type() == field.data_type() {
                        true => column,
                        false => Arc::new(CastExpr::new(column, field.data_type().clone(), None)),
                    }
                }
                Err(_) => Arc::new(Literal::new(match fills.get(field.name()) {
                    Some(fill) => fill.clone(),
                    None => field_default_value(field).map_err(DataFusionError::from)?,
                })),
            };
            exprs.push((expr, field.name().clone()));
        }
        let scan = destination.scan(state, Some(&read), &[], None).await?;
        Ok(Some(Arc::new(ProjectionExec::try_new(exprs, scan)?)))
    }
}

/// Flushes a buffer when it is due, once a second, until its table is gone.
async fn background_flushes(core: Weak<BufferCore>) {
    loop {
        tokio::time::sleep(BACKGROUND_CHECK).await;
        let Some(core) = core.upgrade() else {
            return;
        };
        let due = {
            let buffered = core.buffered.lock();
            buffered.rows > 0
                && core
                    .definition
                    .due(buffered.seconds(), buffered.rows, buffered.bytes, true)
        };
        if due && let Err(error) = core.flush().await {
            log::warn!("Flushing a Buffer table failed: {error}");
        }
    }
}

#[async_trait]
impl TableProvider for BufferTable {
    fn schema(&self) -> SchemaRef {
        Arc::clone(&self.schema)
    }

    fn table_type(&self) -> TableType {
        TableType::Base
    }

    fn get_column_default(&self, column: &str) -> Option<&Expr> {
        self.defaults.get(column)
    }

    async fn scan(
        &self,
        state: &dyn Session,
        projection: Option<&Vec<usize>>,
        _filters: &[Expr],
        _limit: Option<usize>,
    ) -> DfResult<Arc<dyn ExecutionPlan>> {
        let batches = self.core.buffered.lock().batches.clone();
        if let Some(query) = state.config().get_extension::<QueryContext>() {
            query.add_rows_to_read(batches.iter().map(|b| b.num_rows() as u64).sum());
        }
        let own = CountingExec::new(MemorySourceConfig::try_new_exec(
            &[batches],
            Arc::clone(&self.schema),
            projection.cloned(),
        )?);
        match self
            .core
            .destination_scan(state, &own.schema(), &self.fills)
            .await?
        {
            Some(destination) => UnionExec::try_new(vec![own, destination]),
            None => Ok(own),
        }
    }

    async fn insert_into(
        &self,
        state: &dyn Session,
        input: Arc<dyn ExecutionPlan>,
        _insert_op: InsertOp,
    ) -> DfResult<Arc<dyn ExecutionPlan>> {
        let state = state
            .as_any()
            .downcast_ref::<SessionState>()
            .expect("Strata always plans with a SessionState")
            .clone();
        let sink = Arc::new(BufferSink {
            schema: Arc::clone(&self.schema),
            state,
            core: Arc::clone(&self.core),
        });
        Ok(Arc::new(DataSinkExec::new(input, sink, None)))
    }
}

/// A Buffer table's sink: buffers an INSERT's rows (flushing first when
/// they would make the buffer due), or writes them to the destination when
/// they alone pass a `max_*` limit.
#[derive(Debug)]
struct BufferSink {
    schema: SchemaRef,
    state: SessionState,
    core: Arc<BufferCore>,
}

impl DisplayAs for BufferSink {
    fn fmt_as(&self, _: DisplayFormatType, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        write!(f, "BufferSink")
    }
}

#[async_trait]
impl DataSink for BufferSink {
    fn schema(&self) -> &SchemaRef {
        &self.schema
    }

    async fn write_all(
        &self,
        mut data: SendableRecordBatchStream,
        _: &Arc<TaskContext>,
    ) -> DfResult<u64> {
        let mut batches = Vec::new();
        while let Some(batch) = data.next().await {
            let batch = batch?;
            batches.push(RecordBatch::try_new(
                Arc::clone(&self.schema),
                batch.columns().to_vec(),
            )?);
        }
        let rows: u64 = batches.iter().map(|b| b.num_rows() as u64).sum();
        let bytes: u64 = batches
            .iter()
            .map(|b| b.get_array_memory_size() as u64)
            .sum();
        let max = self.core.definition.max;
        if rows > max.rows || bytes > max.bytes {
            self.core
                .write_destination(batches, &self.state)
                .await
                .map_err(StrataError::into_datafusion)?;
            return Ok(rows);
        }
        // As ClickHouse: when the rows to add would pass the limits, what is
        // buffered goes first and the new rows wait.
        let due = {
            let buffered = self.core.buffered.lock();
            buffered.rows > 0
                && self.core.definition.due(
                    buffered.seconds(),
                    buffered.rows + rows,
                    buffered.bytes + bytes,
                    false,
                )
        };
        if due {
            self.core
                .flush()
                .await
                .map_err(StrataError::into_datafusion)?;
        }
        let mut buffered = self.core.buffered.lock();
        buffered.batches.extend(batches);
        buffered.rows += rows;
        buffered.bytes += bytes;
        buffered.since.get_or_insert_with(Instant::now);
        buffered.state = Some(self.state.clone());
        Ok(rows)
    }
}
