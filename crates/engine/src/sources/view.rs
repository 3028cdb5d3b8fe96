//! The `View` table engine: a stored query. Statements that read a view
//! have it replaced by its query before planning
//! (`statements/view.rs`), so it is resolved against the tables as they are
//! then, as in ClickHouse; the provider only holds the query and the
//! columns it had when created, for `system.columns` and DESCRIBE.

use std::sync::Arc;

use async_trait::async_trait;
use datafusion::arrow::datatypes::SchemaRef;
use datafusion::catalog::{Session, TableProvider};
use datafusion::common::Result;
use datafusion::logical_expr::dml::InsertOp;
use datafusion::logical_expr::{Expr, TableType};
use datafusion::physical_plan::ExecutionPlan;

use crate::table_definition::TableIdentity;

#[derive(Debug)]
pub struct ViewTable {
    pub identity: TableIdentity,
    /// The SELECT, its table names qualified with their databases.
    pub query: String,
    schema: SchemaRef,
}

impl ViewTable {
    pub fn new(identity: TableIdentity, query: String, schema: SchemaRef) -> ViewTable {
        ViewTable {
            identity,
            query,
            schema,
        }
    }
}

#[async_trait]
impl TableProvider for ViewTable {
    fn schema(&self) -> SchemaRef {
        Arc::clone(&self.schema)
    }

    fn table_type(&self) -> TableType {
        TableType::View
    }

    async fn scan(
        &self,
        _state: &dyn Session,
        _projection: Option<&Vec<usize>>,
        _filters: &[Expr],
        _limit: Option<usize>,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        unreachable!("a view is replaced by its query before planning")
    }

    async fn insert_into(
        &self,
        _state: &dyn Session,
        _input: Arc<dyn ExecutionPlan>,
        _insert_op: InsertOp,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        Err(super::write_refused("View"))
    }
}
