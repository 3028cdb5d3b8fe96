//! The `Memory` table engine: rows kept in RAM as Arrow batches for the life of
//! the process, with reads counted like any other source. The `Null` engine
//! is the same table keeping no rows: its inserts only feed materialized views.

use std::collections::HashMap;
use std::sync::Arc;

use async_trait::async_trait;
use datafusion::arrow::array::RecordBatch;
use datafusion::arrow::datatypes::SchemaRef;
use datafusion::catalog::{Session, TableProvider};
use datafusion::common::Result;
use datafusion::datasource::MemTable;
use datafusion::datasource::sink::{DataSink, DataSinkExec};
use datafusion::execution::{SendableRecordBatchStream, TaskContext};
use datafusion::logical_expr::dml::InsertOp;
use datafusion::logical_expr::{Expr, TableType};
use datafusion::physical_plan::{DisplayAs, DisplayFormatType, ExecutionPlan};
use futures::StreamExt;

use parking_lot::RwLock;

use super::counting::CountingExec;
use crate::query_context::QueryContext;
use crate::table_definition::TableIdentity;

#[derive(Debug)]
pub struct MemoryTable {
    inner: MemTable,
    identity: RwLock<TableIdentity>,
    /// `DEFAULT` expressions by column, for inserts that leave columns out.
    defaults: HashMap<String, Expr>,
    /// False for the `Null` engine.
    keeps_rows: bool,
}

impl MemoryTable {
    pub fn new(
        schema: SchemaRef,
        identity: TableIdentity,
        defaults: HashMap<String, Expr>,
        keeps_rows: bool,
    ) -> Result<Self> {
        Ok(MemoryTable {
            inner: MemTable::try_new(schema, vec![vec![]])?,
            identity: RwLock::new(identity),
            defaults,
            keeps_rows,
        })
    }

    /// `Memory`, or `Null` for a table that keeps no rows.
    pub fn engine_name(&self) -> &'static str {
        if self.keeps_rows { "Memory" } else { "Null" }
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
        if !self.keeps_rows {
            let sink = Arc::new(DroppingSink(self.schema()));
            return Ok(Arc::new(DataSinkExec::new(input, sink, None)));
        }
        self.inner.insert_into(state, input, insert_op).await
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

    /// Adds rows already in the table's shape.
    pub async fn append(&self, batches: Vec<RecordBatch>) {
        let partition = self
            .inner
            .batches
            .first()
            .expect("a Memory table has a partition");
        partition.write().await.extend(batches);
    }

    /// Removes every row (TRUNCATE).
    pub async fn truncate(&self) {
        for partition in &self.inner.batches {
            partition.write().await.clear();
        }
    }
}
