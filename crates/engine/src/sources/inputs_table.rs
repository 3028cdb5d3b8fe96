//! The table of `file()` and `s3()`: one stream per file or object, each
//! reading only the columns a query projects (for Parquet, only their
//! column chunks are fetched). A filter on the virtual columns alone
//! (`WHERE _file = 'a.csv'`) skips the inputs it rejects before they are
//! opened; a filter on the data skips the Parquet row groups whose
//! statistics rule it out.

use std::sync::Arc;

use async_trait::async_trait;
use datafusion::arrow::array::{Array, AsArray};
use datafusion::arrow::datatypes::{Schema, SchemaRef};
use datafusion::arrow::record_batch::RecordBatch;
use datafusion::catalog::{Session, TableProvider};
use datafusion::common::{DFSchema, Result};
use datafusion::logical_expr::utils::conjunction;
use datafusion::logical_expr::{Expr, TableProviderFilterPushDown, TableType};
use datafusion::physical_optimizer::pruning::{PruningPredicate, PruningPredicateBuilder};
use datafusion::physical_plan::ExecutionPlan;
use datafusion::physical_plan::streaming::{PartitionStream, StreamingTableExec};
use strata_common::StrataError;

use super::input_columns;
use super::input_stream::InputStream;
use crate::query_context::QueryContext;

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

    /// Whether `filter` reads only virtual columns, so it can be judged
    /// for each input from its facts.
    fn judges_inputs(&self, filter: &Expr) -> bool {
        let columns = filter.column_refs();
        let shows_facts = self.streams.first().is_some_and(|s| s.facts().is_some());
        shows_facts
            && !filter.is_volatile()
            && !columns.is_empty()
            && columns.iter().all(|column| {
                input_columns::NAMES.contains(&column.name.as_str())
                    && self.schema.field_with_name(&column.name).is_ok()
                    && !self.streams[0].reads_column(&column.name)
            })
    }

    /// Whether every filter that judges inputs passes `stream`'s input.
    fn passes(&self, state: &dyn Session, stream: &InputStream, filters: &[&Expr]) -> Result<bool> {
        let Some(facts) = stream.facts() else {
            return Ok(true);
        };
        let fields = input_columns::fields();
        let schema = Arc::new(Schema::new(fields));
        let row = RecordBatch::try_new(Arc::clone(&schema), facts.columns(1))?;
        let df_schema = DFSchema::try_from(schema.as_ref().clone())?;
        for filter in filters {
            // The filter stays above the scan: one it cannot judge here
            // (or fails on these values) keeps the input.
            let Ok(predicate) = state.create_physical_expr((*filter).clone(), &df_schema) else {
                continue;
            };
            let Ok(verdict) = predicate.evaluate(&row).and_then(|v| v.into_array(1)) else {
                continue;
            };
            let verdict = verdict.as_boolean_opt();
            if !verdict.is_some_and(|v| v.is_valid(0) && v.value(0)) {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// The filters as a judge of Parquet row groups by their statistics;
    /// none where they say nothing statistics can answer, or where
    /// `input_format_parquet_filter_push_down` is off.
    fn row_group_filter(
        &self,
        state: &dyn Session,
        filters: &[Expr],
    ) -> Option<Arc<PruningPredicate>> {
        let query = state.config().get_extension::<QueryContext>();
        if query.is_some_and(|query| !query.settings.input_format_parquet_filter_push_down()) {
            return None;
        }
        let filter = conjunction(filters.iter().filter(|f| !f.is_volatile()).cloned())?;
        let df_schema = DFSchema::try_from(self.schema.as_ref().clone()).ok()?;
        let filter = state.create_physical_expr(filter, &df_schema).ok()?;
        PruningPredicateBuilder::new()
            .with_file_schema(Arc::clone(&self.schema))
            .build(filter)
    }
}

#[async_trait]
impl TableProvider for InputsTable {
    fn schema(&self) -> SchemaRef {
        Arc::clone(&self.schema)
    }

    fn table_type(&self) -> TableType {
        TableType::View
    }

    fn supports_filters_pushdown(
        &self,
        filters: &[&Expr],
    ) -> Result<Vec<TableProviderFilterPushDown>> {
        // Every filter stays above the scan; the scan uses those it can to
        // skip inputs and row groups.
        Ok(filters
            .iter()
            .map(|filter| match filter.is_volatile() {
                true => TableProviderFilterPushDown::Unsupported,
                false => TableProviderFilterPushDown::Inexact,
            })
            .collect())
    }

    async fn scan(
        &self,
        state: &dyn Session,
        projection: Option<&Vec<usize>>,
        filters: &[Expr],
        limit: Option<usize>,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        let all: Vec<usize> = (0..self.schema.fields().len()).collect();
        let projection = projection.unwrap_or(&all);
        let schema = Arc::new(self.schema.project(projection)?);
        let judging: Vec<&Expr> = filters.iter().filter(|f| self.judges_inputs(f)).collect();
        let pruning = self.row_group_filter(state, filters);
        let mut streams: Vec<Arc<dyn PartitionStream>> = Vec::new();
        for stream in &self.streams {
            if self.passes(state, stream, &judging)? {
                let projected = stream
                    .projected(projection, pruning.clone())
                    .map_err(StrataError::into_datafusion)?;
                streams.push(Arc::new(projected));
            }
        }
        let exec = StreamingTableExec::try_new(schema, streams, None, [], false, limit)?;
        Ok(Arc::new(exec))
    }
}
