//! The `Memory` table engine: rows kept in RAM as Arrow batches for the life of
//! the process, with reads counted like any other source. The `Null` engine
//! is the same table keeping no rows: its inserts only feed materialized views.
//! `Set` and `Join` are the same table keeping rows unique by a key, and on
//! disk ([`super::set_and_join`]).

use std::collections::HashMap;
use std::sync::Arc;

use async_trait::async_trait;
use datafusion::arrow::array::RecordBatch;
use datafusion::arrow::compute::concat_batches;
use datafusion::arrow::datatypes::{FieldRef, SchemaRef};
use datafusion::catalog::{Session, TableProvider};
use datafusion::common::Result;
use datafusion::datasource::MemTable;
use datafusion::datasource::memory::PartitionData;
use datafusion::datasource::sink::{DataSink, DataSinkExec};
use datafusion::execution::{SendableRecordBatchStream, TaskContext};
use datafusion::logical_expr::dml::InsertOp;
use datafusion::logical_expr::{Expr, TableType};
use datafusion::physical_expr::PhysicalExpr;
use datafusion::physical_expr::expressions::{Column, cast};
use datafusion::physical_plan::projection::ProjectionExec;
use datafusion::physical_plan::{DisplayAs, DisplayFormatType, ExecutionPlan};
use futures::StreamExt;

use parking_lot::RwLock;
use strata_common::StrataError;

use super::counting::CountingExec;
use super::set_and_join::KeyedRows;
use crate::query_context::QueryContext;
use crate::table_definition::TableIdentity;

#[derive(Debug)]
pub struct MemoryTable {
    inner: MemTable,
    identity: RwLock<TableIdentity>,
    /// `DEFAULT` expressions by column, for inserts that leave columns out.
    defaults: HashMap<String, Expr>,
    engine: MemoryEngine,
}

/// Which rows a [`MemoryTable`] keeps.
#[derive(Debug)]
pub enum MemoryEngine {
    /// `Memory`: every row.
    Memory,
    /// `Null`: none.
    Null,
    /// `Set` or `Join`: rows unique by a key, also kept on disk.
    Keyed(Arc<KeyedRows>),
}

impl MemoryTable {
    pub fn new(
        schema: SchemaRef,
        identity: TableIdentity,
        defaults: HashMap<String, Expr>,
        engine: MemoryEngine,
        rows: Vec<RecordBatch>,
    ) -> Result<Self> {
        Ok(MemoryTable {
            inner: MemTable::try_new(schema, vec![rows])?,
            identity: RwLock::new(identity),
            defaults,
            engine,
        })
    }

    pub fn engine_name(&self) -> &'static str {
        match &self.engine {
            MemoryEngine::Memory => "Memory",
            MemoryEngine::Null => "Null",
            MemoryEngine::Keyed(rows) => rows.definition.engine_name(),
        }
    }

    /// The rows of a `Set` or `Join` table.
    pub fn keyed(&self) -> Option<&Arc<KeyedRows>> {
        match &self.engine {
            MemoryEngine::Keyed(rows) => Some(rows),
            MemoryEngine::Memory | MemoryEngine::Null => None,
        }
    }

    pub fn identity(&self) -> TableIdentity {
        self.identity.read().clone()
    }

    pub fn set_identity(&self, identity: TableIdentity) {
        *self.identity.write() = identity;
    }
}

#[async_trait]
impl TableProvider for MemoryTable {
    fn schema(&self) -> SchemaRef {
        self.inner.schema()
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
        filters: &[Expr],
        limit: Option<usize>,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        if let Some(query) = state.config().get_extension::<QueryContext>() {
            query.add_rows_to_read(self.totals().await.0);
        }
        Ok(CountingExec::new(
            self.inner.scan(state, projection, filters, limit).await?,
        ))
    }

    async fn insert_into(
        &self,
        state: &dyn Session,
        input: Arc<dyn ExecutionPlan>,
        insert_op: InsertOp,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        let input = conformed(input, &self.schema())?;
        let sink: Arc<dyn DataSink> = match &self.engine {
            MemoryEngine::Memory => return self.inner.insert_into(state, input, insert_op).await,
            MemoryEngine::Null => Arc::new(DroppingSink(self.schema())),
            MemoryEngine::Keyed(rows) => Arc::new(KeyedSink {
                rows: Arc::clone(rows),
                partition: Arc::clone(self.partition()),
            }),
        };
        Ok(Arc::new(DataSinkExec::new(input, sink, None)))
    }
}

/// The INSERT's rows with the table's column types: ClickHouse typing
/// can leave a constant its literal's type (`INSERT INTO t SELECT 0` gives
/// a UInt8 for an Int64 column), and RAM keeps batches as they come.
fn conformed(input: Arc<dyn ExecutionPlan>, schema: &SchemaRef) -> Result<Arc<dyn ExecutionPlan>> {
    let given = input.schema();
    let same = |(a, b): (&FieldRef, &FieldRef)| a.data_type() == b.data_type();
    if given.fields().len() != schema.fields().len()
        || given.fields().iter().zip(schema.fields()).all(same)
    {
        return Ok(input);
    }
    let columns = schema
        .fields()
        .iter()
        .enumerate()
        .map(|(i, field)| {
            let column: Arc<dyn PhysicalExpr> = Arc::new(Column::new(given.field(i).name(), i));
            let expr = match given.field(i).data_type() == field.data_type() {
                true => column,
                false => cast(column, &given, field.data_type().clone())?,
            };
            Ok((expr, given.field(i).name().clone()))
        })
        .collect::<Result<Vec<_>>>()?;
    Ok(Arc::new(ProjectionExec::try_new(columns, input)?))
}

/// A `Set` or `Join` table's sink: admits an INSERT's rows as one batch,
/// writes them to disk, then adds them to the rows in RAM.
#[derive(Debug)]
struct KeyedSink {
    rows: Arc<KeyedRows>,
    partition: PartitionData,
}

impl DisplayAs for KeyedSink {
    fn fmt_as(&self, _: DisplayFormatType, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        write!(f, "KeyedSink")
    }
}

#[async_trait]
impl DataSink for KeyedSink {
    fn schema(&self) -> &SchemaRef {
        self.rows.schema()
    }

    async fn write_all(
        &self,
        mut data: SendableRecordBatchStream,
        _: &Arc<TaskContext>,
    ) -> Result<u64> {
        let mut batches = Vec::new();
        while let Some(batch) = data.next().await {
            batches.push(batch?);
        }
        self.keep(batches)
            .await
            .map_err(StrataError::into_datafusion)
    }
}

impl KeyedSink {
    async fn keep(&self, batches: Vec<RecordBatch>) -> strata_common::Result<u64> {
        let batches = batches
            .iter()
            .map(|b| self.rows.relabel(b))
            .collect::<strata_common::Result<Vec<_>>>()?;
        let batch = concat_batches(self.rows.schema(), &batches)?;
        let count = batch.num_rows() as u64;
        // Held across the write, so INSERTs admit one after another.
        let mut kept = self.partition.write().await;
        if let Some(admitted) = self.rows.admit(batch, &mut kept)? {
            self.rows.persist(&admitted)?;
            kept.push(admitted);
        }
        Ok(count)
    }
}

/// A `Null` table's sink: reads every row, keeps none.
#[derive(Debug)]
struct DroppingSink(SchemaRef);

impl DisplayAs for DroppingSink {
    fn fmt_as(&self, _: DisplayFormatType, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        write!(f, "DroppingSink")
    }
}

#[async_trait]
impl DataSink for DroppingSink {
    fn schema(&self) -> &SchemaRef {
        &self.0
    }

    async fn write_all(
        &self,
        mut data: SendableRecordBatchStream,
        _: &Arc<TaskContext>,
    ) -> Result<u64> {
        let mut rows = 0u64;
        while let Some(batch) = data.next().await {
            rows += batch?.num_rows() as u64;
        }
        Ok(rows)
    }
}

impl MemoryTable {
    /// Total rows and in-memory bytes, for system.tables.
    pub async fn totals(&self) -> (u64, u64) {
        let mut rows = 0u64;
        let mut bytes = 0u64;
        for partition in &self.inner.batches {
            for batch in partition.read().await.iter() {
                rows += batch.num_rows() as u64;
                bytes += batch.get_array_memory_size() as u64;
            }
        }
        (rows, bytes)
    }

    /// Every row, for an ALTER to carry over.
    pub async fn batches(&self) -> Vec<RecordBatch> {
        let mut batches = Vec::new();
        for partition in &self.inner.batches {
            batches.extend(partition.read().await.iter().cloned());
        }
        batches
    }

    fn partition(&self) -> &PartitionData {
        self.inner
            .batches
            .first()
            .expect("a Memory table has a partition")
    }

    /// Adds rows already in the table's shape.
    pub async fn append(&self, batches: Vec<RecordBatch>) {
        self.partition().write().await.extend(batches);
    }

    /// Replaces the rows by `rewritten(rows)`, holding them for writing
    /// meanwhile (an ALTER's mutation): inserts wait, none is lost.
    pub async fn rewrite(
        &self,
        rewritten: impl FnOnce(&[RecordBatch]) -> strata_common::Result<Vec<RecordBatch>>,
    ) -> strata_common::Result<()> {
        let mut rows = self.partition().write().await;
        *rows = rewritten(&rows)?;
        Ok(())
    }

    /// Removes every row (TRUNCATE).
    pub async fn truncate(&self) -> Result<()> {
        let mut kept = self.partition().write().await;
        if let Some(rows) = self.keyed() {
            rows.clear().map_err(StrataError::into_datafusion)?;
        }
        kept.clear();
        Ok(())
    }
}
