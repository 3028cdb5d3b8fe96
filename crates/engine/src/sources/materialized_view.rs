//! Materialized views (`CREATE MATERIALIZED VIEW mv TO target AS SELECT ...
//! FROM source`): every block inserted into `source` runs through the
//! query, and what comes out is inserted into `target`, as the block passes
//! on its way to `source` ([`TriggerExec`]). Reading the view reads
//! `target`. As in ClickHouse the two inserts are not one transaction: a
//! source insert that fails after a block leaves that block's rows in
//! `target`.

use std::fmt;
use std::sync::Arc;

use async_trait::async_trait;
use datafusion::arrow::array::RecordBatch;
use datafusion::arrow::compute::cast;
use datafusion::arrow::datatypes::SchemaRef;
use datafusion::catalog::{Session, TableProvider};
use datafusion::common::tree_node::{Transformed, TreeNode, TreeNodeRecursion};
use datafusion::common::{Result, Statistics, TableReference};
use datafusion::datasource::{MemTable, provider_as_source};
use datafusion::execution::session_state::SessionState;
use datafusion::execution::{SendableRecordBatchStream, TaskContext};
use datafusion::logical_expr::dml::InsertOp;
use datafusion::logical_expr::{Expr, LogicalPlan, TableType};
use datafusion::physical_expr::PhysicalExpr;
use datafusion::physical_plan::statistics::{ChildStats, StatisticsArgs};
use datafusion::physical_plan::stream::RecordBatchStreamAdapter;
use datafusion::physical_plan::{
    DisplayAs, DisplayFormatType, ExecutionPlan, PlanProperties, collect,
    replace_children_if_necessary,
};
use datafusion::sql::sqlparser::ast::{Ident, ObjectName};
use futures::TryStreamExt;
use strata_common::{ErrorCode, StrataError};

use crate::engine::task_context;
use crate::table_definition::{TableIdentity, quote_name};

/// A materialized view's inner table is named this and the view's UUID.
pub const INNER_TABLE_PREFIX: &str = ".inner_id.";

#[derive(Debug)]
pub struct MaterializedView {
    pub identity: TableIdentity,
    /// The table whose inserts run through the query, as `database.table`;
    /// none when the query reads no table.
    pub source: Option<TableReference>,
    /// The table the query's rows go to.
    pub target: TableReference,
    /// The SELECT, its tables qualified with their databases.
    pub query: String,
    schema: SchemaRef,
}

impl MaterializedView {
    pub fn new(
        identity: TableIdentity,
        (source, target): (Option<TableReference>, TableReference),
        query: String,
        schema: SchemaRef,
    ) -> MaterializedView {
        MaterializedView {
            identity,
            source,
            target,
            query,
            schema,
        }
    }

    /// The target as a statement names it, `database.table`.
    pub fn target_name(&self) -> ObjectName {
        ObjectName::from(vec![
            Ident::new(self.target.schema().unwrap_or_default()),
            Ident::new(self.target.table()),
        ])
    }

    /// The target's name as SQL text, quoted where it must be.
    pub fn quoted_target(&self) -> String {
        format!(
            "{}.{}",
            quote_name(self.target.schema().unwrap_or_default()),
            quote_name(self.target.table())
        )
    }

    /// Whether the view's target is its own inner table (made with it
    /// from its `ENGINE` clause, and dropped with it).
    pub fn has_inner_table(&self) -> bool {
        self.target.table() == format!("{INNER_TABLE_PREFIX}{}", self.identity.uuid)
    }
}

#[async_trait]
impl TableProvider for MaterializedView {
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
        unreachable!("a materialized view is replaced by its target before planning")
    }

    async fn insert_into(
        &self,
        _state: &dyn Session,
        _input: Arc<dyn ExecutionPlan>,
        _insert_op: InsertOp,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        Err(StrataError::new(
            ErrorCode::NOT_IMPLEMENTED,
            format!(
                "Insert into the materialized view's target {} instead",
                self.target
            ),
        )
        .into_datafusion())
    }
}

/// One materialized view as an insert runs it: `INSERT INTO target <query>`
/// planned over `source`, whose scans each block replaces.
#[derive(Debug, Clone)]
pub struct Trigger {
    pub insert: LogicalPlan,
    pub source: TableReference,
}

impl Trigger {
    /// Runs `block` through the view into its target.
    async fn push(&self, state: &SessionState, block: &RecordBatch) -> Result<()> {
        let plan = self
            .insert
            .clone()
            .transform_up(|node| match node {
                LogicalPlan::TableScan(mut scan) if scan.table_name == self.source => {
                    let schema = scan.source.schema();
                    // The insert's block may still be in its query's types
                    // (`number % 4` is UInt8), which the sink casts itself.
                    let columns = block
                        .columns()
                        .iter()
                        .zip(schema.fields())
                        .map(
                            |(column, field)| match column.data_type() == field.data_type() {
                                true => Ok(Arc::clone(column)),
                                false => cast(column, field.data_type()),
                            },
                        )
                        .collect::<std::result::Result<Vec<_>, _>>()?;
                    let rows = RecordBatch::try_new(Arc::clone(&schema), columns)?;
                    let table = MemTable::try_new(schema, vec![vec![rows]])?;
                    scan.source = provider_as_source(Arc::new(table));
                    Ok(Transformed::yes(LogicalPlan::TableScan(scan)))
                }
                other => Ok(Transformed::no(other)),
            })?
            .data;
        let physical = state.create_physical_plan(&plan).await?;
        collect(physical, task_context(&state)).await?;
        Ok(())
    }
}

/// Passes its input's blocks on unchanged, each once every trigger has
/// run it.
#[derive(Debug)]
pub struct TriggerExec {
    input: Arc<dyn ExecutionPlan>,
    triggers: Arc<Vec<Trigger>>,
    state: SessionState,
}

impl TriggerExec {
    /// `insert` with its input run through `triggers`; `insert` is the plan
    /// of an INSERT, a sink over its input.
    pub fn wrap(
        insert: Arc<dyn ExecutionPlan>,
        triggers: Vec<Trigger>,
        state: SessionState,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        if triggers.is_empty() {
            return Ok(insert);
        }
        let children = insert.children();
        assert_eq!(children.len(), 1, "an insert's sink has one input");
        let input = Arc::clone(children[0]);
        let wrapped: Arc<dyn ExecutionPlan> = Arc::new(TriggerExec {
            input,
            triggers: Arc::new(triggers),
            state,
        });
        replace_children_if_necessary(insert, vec![wrapped])
    }
}

impl DisplayAs for TriggerExec {
    fn fmt_as(&self, _t: DisplayFormatType, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "TriggerExec: views={}", self.triggers.len())
    }
}

impl ExecutionPlan for TriggerExec {
    fn name(&self) -> &str {
        "TriggerExec"
    }

    fn properties(&self) -> &Arc<PlanProperties> {
        self.input.properties()
    }

    fn children(&self) -> Vec<&Arc<dyn ExecutionPlan>> {
        vec![&self.input]
    }

    fn child_stats_requests(&self, partition: Option<usize>) -> Vec<ChildStats> {
        vec![ChildStats::At(partition)]
    }

    fn statistics_from_inputs(
        &self,
        input_stats: &[Arc<Statistics>],
        _args: &StatisticsArgs,
    ) -> Result<Arc<Statistics>> {
        Ok(Arc::clone(&input_stats[0]))
    }

    fn apply_expressions(
        &self,
        _f: &mut dyn FnMut(&Arc<dyn PhysicalExpr>) -> Result<TreeNodeRecursion>,
    ) -> Result<TreeNodeRecursion> {
        Ok(TreeNodeRecursion::Continue)
    }

    fn with_new_children(
        self: Arc<Self>,
        mut children: Vec<Arc<dyn ExecutionPlan>>,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        Ok(Arc::new(TriggerExec {
            input: children.remove(0),
            triggers: Arc::clone(&self.triggers),
            state: self.state.clone(),
        }))
    }

    fn execute(
        &self,
        partition: usize,
        context: Arc<TaskContext>,
    ) -> Result<SendableRecordBatchStream> {
        let input = self.input.execute(partition, context)?;
        let schema = input.schema();
        let (triggers, state) = (Arc::clone(&self.triggers), self.state.clone());
        let pushed = input.and_then(move |block| {
            let (triggers, state) = (Arc::clone(&triggers), state.clone());
            async move {
                for trigger in triggers.iter() {
                    trigger.push(&state, &block).await?;
                }
                Ok(block)
            }
        });
        Ok(Box::pin(RecordBatchStreamAdapter::new(schema, pushed)))
    }
}
