//! The table of `file()` and `s3()`: one stream per file or object, each
//! reading only the columns a query projects (for Parquet, only their
//! column chunks are fetched).

use std::sync::Arc;

use async_trait::async_trait;
use datafusion::arrow::datatypes::SchemaRef;
use datafusion::catalog::{Session, TableProvider};
use datafusion::common::Result;
use datafusion::logical_expr::{Expr, TableType};
use datafusion::physical_plan::ExecutionPlan;
use datafusion::physical_plan::streaming::{PartitionStream, StreamingTableExec};
use strata_common::StrataError;

use super::input_stream::InputStream;

#[derive(Debug)]
pub struct InputsTable {
    schema: SchemaRef,
    streams: Vec<InputStream>,
}

impl InputsTable {
    pub fn new(schema: SchemaRef, streams: Vec<InputStream>) -> Self {
        debug_assert!(streams.iter().all(|s| s.schema() == &schema));
        InputsTable { schema, streams }
    }
}

#[async_trait]
impl TableProvider for InputsTable {
    fn schema(&self) -> SchemaRef {
        Arc::clone(&self.schema)
    }

    fn table_type(&self) -> TableType {
        TableType::Temporary
    }

    async fn scan(
        &self,
        _state: &dyn Session,
        projection: Option<&Vec<usize>>,
        _filters: &[Expr],
        limit: Option<usize>,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        let all: Vec<usize> = (0..self.schema.fields().len()).collect();
        let projection = projection.unwrap_or(&all);
        let schema = Arc::new(self.schema.project(projection)?);
        let streams = self
            .streams
            .iter()
            .map(|stream| {
                let projected = stream.projected(projection)?;
                Ok(Arc::new(projected) as Arc<dyn PartitionStream>)
            })
            .collect::<std::result::Result<Vec<_>, StrataError>>()
            .map_err(StrataError::into_datafusion)?;
        let exec = StreamingTableExec::try_new(schema, streams, None, [], false, limit)?;
        Ok(Arc::new(exec))
    }
}
