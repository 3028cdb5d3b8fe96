//! Mutations of MergeTree tables (Memory tables': [`super::memory_mutations`]):
//! `ALTER TABLE t DELETE WHERE c`,
//! `ALTER TABLE t UPDATE a = e WHERE c` (several commands to one ALTER),
//! `ALTER TABLE t MATERIALIZE COLUMN c`, `ALTER TABLE t CLEAR COLUMN c`,
//! `ALTER TABLE t APPLY DELETED MASK`, the lightweight `DELETE FROM t
//! WHERE c`, the mutation `UPDATE _row_exists = 0 WHERE c` as in ClickHouse,
//! which only masks rows, and the lightweight `UPDATE t SET a = e WHERE c`,
//! whose new values are kept as a patch of the rows it changes.
//!
//! The engine plans each command's condition and values as a SELECT over the
//! table would be (ClickHouse's names, types and rewrites), compiles them to
//! physical expressions over the table's columns, and hands them to the
//! table (`strata-storage`), which numbers, stores and runs the mutation.
//! `mutations_sync` (`lightweight_deletes_sync` for DELETE FROM) says
//! whether the statement waits for it.

use std::sync::Arc;

use datafusion::arrow::datatypes::SchemaRef;
use datafusion::catalog::TableProvider;
use datafusion::common::tree_node::{Transformed, TreeNode};
use datafusion::common::{DFSchema, ScalarValue};
use datafusion::logical_expr::{Expr as LogicalExpr, LogicalPlan, lit};
use datafusion::physical_expr::PhysicalExpr;
use datafusion::sql::sqlparser::ast::{
    AssignmentTarget, Delete, Expr, FromTable, Ident, ObjectName, SelectItem, SetExpr, Statement,
    TableFactor, Update,
};
use strata_common::types::field_type_name;
use strata_common::{ErrorCode, Result, StrataError, events};
use strata_execution::expressions::specialize;
use strata_sql::mutations::{AlterMutation, MutationAst, ROW_EXISTS};
use strata_sql::parse_statement;
use strata_storage::merge_tree::{Condition, MutationCommand, MutationEntry, MutationKind};

use super::mutation_subqueries;
use crate::session::{Session, StatementOutcome, UserTable};
use crate::sources::merge_tree_table::MergeTreeProvider;

impl Session {
    pub(crate) async fn alter_mutation(
        &mut self,
        alter: AlterMutation,
    ) -> Result<StatementOutcome> {
        let is_update = |c: &MutationAst| matches!(c, MutationAst::Update { assignments, .. } if !is_row_mask(assignments).unwrap_or(true));
        let updates = alter.commands.iter().filter(|c| is_update(c)).count();
        let all_updates = updates == alter.commands.len();
        let kind = match self.settings.alter_update_mode().as_str() {
            "lightweight" | "lightweight_force" if all_updates => MutationKind::LightweightUpdate,
            "lightweight_force" if updates > 0 => {
                return Err(StrataError::new(
                    ErrorCode::SUPPORT_IS_DISABLED,
                    "Setting alter_update_mode='lightweight_force' but cannot execute the query as a lightweight update: it has commands other than UPDATE",
                ));
            }
            _ => MutationKind::Alter,
        };
        let sync = kind == MutationKind::LightweightUpdate || self.settings.mutations_sync() > 0;
        self.mutate(&alter.table, &alter.commands, kind, sync).await
    }

    /// `UPDATE t SET a = e WHERE c`: the rows it changes are written as a
    /// patch beside each part, at once, as ClickHouse's lightweight update.
    pub(crate) async fn update(&mut self, update: Update) -> Result<StatementOutcome> {
        if !self.settings.enable_lightweight_update() {
            return Err(StrataError::new(
                ErrorCode::SUPPORT_IS_DISABLED,
                "Lightweight updates are disabled: set enable_lightweight_update = 1",
            ));
        }
        if update.from.is_some() || update.returning.is_some() || !update.table.joins.is_empty() {
            return Err(StrataError::new(
                ErrorCode::NOT_IMPLEMENTED,
                "UPDATE supports one table, without FROM, joins or RETURNING",
            ));
        }
        let TableFactor::Table { name, .. } = &update.table.relation else {
            return Err(StrataError::new(
                ErrorCode::SYNTAX_ERROR,
                "Syntax error: UPDATE expects a table name",
            ));
        };
        let Some(predicate) = update.selection.clone() else {
            return Err(StrataError::new(
                ErrorCode::SYNTAX_ERROR,
                "Syntax error: UPDATE needs a WHERE clause",
            ));
        };
        let columns: Vec<String> = update
            .assignments
            .iter()
            .map(|a| a.target.to_string())
            .collect();
        self.require_on_name("ALTER UPDATE", name, &columns)?;
        let assignments = update
            .assignments
            .iter()
            .map(|a| match &a.target {
                AssignmentTarget::ColumnName(column) if column.0.len() == 1 => {
                    let column = column.0[0].as_ident().cloned();
                    column
                        .map(|c| (c, a.value.clone()))
                        .ok_or_else(assignment_error)
                }
                _ => Err(assignment_error()),
            })
            .collect::<Result<Vec<_>>>()?;
        if is_row_mask(&assignments)? {
            return Err(StrataError::new(
                ErrorCode::NOT_IMPLEMENTED,
                format!("{ROW_EXISTS} cannot be updated: use DELETE FROM"),
            ));
        }
        let command = MutationAst::Update {
            assignments,
            predicate,
        };
        let name = name.clone();
        self.mutate(&name, &[command], MutationKind::LightweightUpdate, true)
            .await
    }

    /// DELETE FROM t WHERE c: the lightweight mutation `UPDATE _row_exists = 0 WHERE c`.
    pub(crate) async fn delete_from(&mut self, delete: Delete) -> Result<StatementOutcome> {
        let tables = match &delete.from {
            FromTable::WithFromKeyword(tables) | FromTable::WithoutKeyword(tables) => tables,
        };
        let [table] = tables.as_slice() else {
            return Err(StrataError::new(
                ErrorCode::NOT_IMPLEMENTED,
                "DELETE FROM supports one table",
            ));
        };
        let datafusion::sql::sqlparser::ast::TableFactor::Table { name, .. } = &table.relation
        else {
            return Err(StrataError::new(
                ErrorCode::SYNTAX_ERROR,
                "Syntax error: DELETE FROM expects a table name",
            ));
        };
        let Some(predicate) = delete.selection.clone() else {
            return Err(StrataError::new(
                ErrorCode::SYNTAX_ERROR,
                "Syntax error: DELETE FROM needs a WHERE clause",
            ));
        };
        let sync = self.settings.lightweight_deletes_sync() > 0;
        let command = MutationAst::lightweight_delete(predicate);
        self.mutate(name, &[command], MutationKind::Alter, sync)
            .await
    }

    pub(crate) async fn mutate(
        &mut self,
        name: &ObjectName,
        commands: &[MutationAst],
        kind: MutationKind,
        sync: bool,
    ) -> Result<StatementOutcome> {
        self.check_writable()?;
        if let UserTable::Memory(memory) = self.user_table(name).await? {
            return self.mutate_memory(&memory, name, commands, kind).await;
        }
        let table = self.mutable_table(name).await?;
        let compiled = self.compile_mutation(&table, name, commands, kind).await?;
        let text: Vec<String> = commands.iter().map(ToString::to_string).collect();
        let number = table.data.add_mutation(&text.join("\n"), kind, compiled)?;
        let query = self.new_query(self.settings.clone());
        self.log_start(&query);
        if !sync {
            table.schedule_mutations();
            return Ok(StatementOutcome::Done(query));
        }
        wait_for_mutation(&table, number).await?;
        Ok(StatementOutcome::Done(query))
    }

    async fn mutable_table(&self, name: &ObjectName) -> Result<Arc<MergeTreeProvider>> {
        match self.user_table(name).await? {
            UserTable::MergeTree(table) if table.engine.is_log() => Err(StrataError::new(
                ErrorCode::NOT_IMPLEMENTED,
                format!(
                    "Table engine {} doesn't support mutations",
                    table.engine.name()
                ),
            )),
            UserTable::MergeTree(table) => Ok(table),
            table @ (UserTable::Memory(_)
            | UserTable::External(_)
            | UserTable::Merge(_)
            | UserTable::Buffer(_)) => Err(StrataError::new(
                ErrorCode::NOT_IMPLEMENTED,
                format!(
                    "Table engine {} doesn't support mutations",
                    table.engine_name()
                ),
            )),
        }
    }

    /// Each command as physical expressions over the table's columns; the
    /// UPDATEs of a lightweight update become patches.
    async fn compile_mutation(
        &self,
        table: &MergeTreeProvider,
        name: &ObjectName,
        commands: &[MutationAst],
        kind: MutationKind,
    ) -> Result<Vec<MutationCommand>> {
        let mut compiled = Vec::with_capacity(commands.len());
        for command in commands {
            compiled.push(match command {
                MutationAst::Delete { predicate } => {
                    let (_, predicate) = self.compile_exprs(table, name, &[], predicate).await?;
                    MutationCommand::Delete { predicate }
                }
                MutationAst::ApplyDeletedMask => MutationCommand::ApplyDeletedMask,
                MutationAst::MaterializeColumn(column) => {
                    let (column, value) = self.column_default(table, &column.value, true)?;
                    MutationCommand::FillColumn { column, value }
                }
                // An index the table does not have builds nothing, as in ClickHouse.
                MutationAst::MaterializeIndex(index) => MutationCommand::BuildIndex {
                    name: index.value.clone(),
                },
                MutationAst::ClearColumn(column) => {
                    let (column, value) = self.column_default(table, &column.value, false)?;
                    MutationCommand::Update {
                        predicate: Condition::always(),
                        assignments: vec![(column, value)],
                    }
                }
                MutationAst::Update {
                    assignments,
                    predicate,
                } if is_row_mask(assignments)? => {
                    let (_, predicate) = self.compile_exprs(table, name, &[], predicate).await?;
                    MutationCommand::DeleteMask { predicate }
                }
                MutationAst::Update {
                    assignments,
                    predicate,
                } => {
                    let columns = assignments
                        .iter()
                        .map(|(column, _)| updatable_column(table, &column.value))
                        .collect::<Result<Vec<usize>>>()?;
                    let schema = table.data.schema();
                    let values = columns
                        .iter()
                        .zip(assignments)
                        .map(|(&column, (_, value))| cast_to_column(value, schema.field(column)))
                        .collect::<Result<Vec<Expr>>>()?;
                    let (values, predicate) =
                        self.compile_exprs(table, name, &values, predicate).await?;
                    let assignments = columns.into_iter().zip(values).collect();
                    match kind {
                        MutationKind::Alter => MutationCommand::Update {
                            predicate,
                            assignments,
                        },
                        MutationKind::LightweightUpdate => MutationCommand::Patch {
                            predicate,
                            assignments,
                        },
                    }
                }
            });
        }
        Ok(compiled)
    }

    /// Plans `SELECT values FROM table WHERE predicate` and returns the
    /// values and the condition as DataFusion analyzed them, compiled over
    /// the table's columns.
    async fn compile_exprs(
        &self,
        table: &MergeTreeProvider,
        name: &ObjectName,
        values: &[Expr],
        predicate: &Expr,
    ) -> Result<(Vec<Arc<dyn PhysicalExpr>>, Condition)> {
        let schema = table.data.schema();
        let (values, pruning) = self.plan_exprs(schema, name, values, predicate).await?;
        // Conditions are evaluated over every row of the granules they read:
        // the scans' faster shapes (a string column equal to a constant);
        // pruning reads the analyzed form.
        let rows = specialize(Arc::clone(&pruning), schema)?;
        Ok((values, Condition::new(rows, pruning)))
    }

    /// Plans `SELECT values FROM table WHERE predicate` and returns the
    /// values and the condition as DataFusion analyzed them, compiled over
    /// columns of `schema`, the table's.
    pub(super) async fn plan_exprs(
        &self,
        schema: &SchemaRef,
        name: &ObjectName,
        values: &[Expr],
        predicate: &Expr,
    ) -> Result<(Vec<Arc<dyn PhysicalExpr>>, Arc<dyn PhysicalExpr>)> {
        let mut statement = parse_statement(&format!("SELECT 1 FROM {name} WHERE 1"))?.statement;
        if let Statement::Query(query) = &mut statement
            && let SetExpr::Select(select) = query.body.as_mut()
        {
            if !values.is_empty() {
                select.projection = values
                    .iter()
                    .cloned()
                    .map(SelectItem::UnnamedExpr)
                    .collect();
            }
            select.selection = Some(predicate.clone());
        }
        let (plan, state, _) = self.plan(statement, self.settings.clone()).await?;
        let plan = state
            .analyzer()
            .execute_and_check(plan, state.config_options(), |_, _| {})?;
        let (projected, condition) = projection_and_filter(&plan)?;
        let row = DFSchema::try_from(schema.as_ref().clone())?;
        let mut physical = Vec::with_capacity(projected.len() + 1);
        let values_planned = match values.is_empty() {
            true => Vec::new(),
            false => projected,
        };
        for expr in values_planned.into_iter().chain([condition]) {
            let expr = mutation_subqueries::evaluated(unqualified(expr)?, &row, &state).await?;
            physical.push(state.create_physical_expr(expr, &row)?);
        }
        let condition = physical.pop().expect("the condition was compiled last");
        Ok((physical, condition))
    }

    /// A column and its DEFAULT over the table's columns (its type's default
    /// without one), for MATERIALIZE COLUMN (`materialize`) or CLEAR COLUMN,
    /// which refuse key columns as ClickHouse does.
    fn column_default(
        &self,
        table: &MergeTreeProvider,
        name: &str,
        materialize: bool,
    ) -> Result<(usize, Arc<dyn PhysicalExpr>)> {
        let schema = table.data.schema();
        let Ok(column) = schema.index_of(name) else {
            return Err(match materialize {
                true => StrataError::new(
                    ErrorCode::NO_SUCH_COLUMN_IN_TABLE,
                    format!("There is no column {name} in table"),
                ),
                false => StrataError::new(
                    ErrorCode::NOT_FOUND_COLUMN_IN_BLOCK,
                    format!("Wrong column name. Cannot find column `{name}` to clear"),
                ),
            });
        };
        if table.data.keys().reads_column(column) {
            return Err(match materialize {
                true => StrataError::new(
                    ErrorCode::CANNOT_UPDATE_COLUMN,
                    format!(
                        "Refused to materialize column `{name}` because it's in the sort key. Doing so could break the sort order"
                    ),
                ),
                false => StrataError::new(
                    ErrorCode::ALTER_OF_COLUMN_IS_FORBIDDEN,
                    format!(
                        "Trying to ALTER CLEAR key `{name}` column which is a part of key expression"
                    ),
                ),
            });
        }
        let field = schema.field(column);
        let default = match table.get_column_default(name) {
            Some(expr) => expr.clone(),
            None => lit(ScalarValue::try_from(field.data_type())?),
        };
        let state = self
            .engine
            .query_state(&self.new_query(self.settings.clone()))?;
        let row = DFSchema::try_from(schema.as_ref().clone())?;
        Ok((column, state.create_physical_expr(default, &row)?))
    }

    /// Compiles the mutations a table loaded from its files, so they can run:
    /// planned now, with the session's settings, as when they were made.
    pub(crate) async fn resume_mutations(&self, table: &Arc<MergeTreeProvider>, name: &ObjectName) {
        for entry in table.data.uncompiled_mutations() {
            match self.compile_stored(table, name, &entry).await {
                Ok(commands) => table.data.set_commands(entry.number, commands),
                Err(error) => table.data.set_failure(entry.number, &error),
            }
        }
        table.schedule_mutations();
    }

    async fn compile_stored(
        &self,
        table: &MergeTreeProvider,
        name: &ObjectName,
        entry: &MutationEntry,
    ) -> Result<Vec<MutationCommand>> {
        let text = format!("ALTER TABLE {name} {}", entry.command.replace('\n', ", "));
        let Some(alter) = strata_sql::mutations::parse_alter_mutation(&text)? else {
            return Err(StrataError::new(
                ErrorCode::UNKNOWN_MUTATION_COMMAND,
                format!("Unknown mutation command {}", entry.command),
            ));
        };
        self.compile_mutation(table, name, &alter.commands, entry.kind)
            .await
    }
}

/// Whether an UPDATE is a lightweight DELETE: `_row_exists = 0` alone.
pub(super) fn is_row_mask(assignments: &[(Ident, Expr)]) -> Result<bool> {
    let assigns_mask = |(column, _): &(Ident, Expr)| column.value == ROW_EXISTS;
    match assignments {
        [(_, Expr::Value(value))] if assigns_mask(&assignments[0]) => {
            if value.value.to_string() != "0" {
                return Err(StrataError::new(
                    ErrorCode::NOT_IMPLEMENTED,
                    format!("{ROW_EXISTS} can only be set to 0 (a lightweight DELETE)"),
                ));
            }
            Ok(true)
        }
        _ if assignments.iter().any(assigns_mask) => Err(StrataError::new(
            ErrorCode::NOT_IMPLEMENTED,
            format!("{ROW_EXISTS} = 0 is only supported alone (a lightweight DELETE)"),
        )),
        _ => Ok(false),
    }
}

/// `value` converted to the type of the column it is assigned to, as
/// ClickHouse's CAST converts (a number past the type's range wraps).
pub(super) fn cast_to_column(
    value: &Expr,
    field: &datafusion::arrow::datatypes::Field,
) -> Result<Expr> {
    let type_name = strata_sql::literal_text::quoted(&field_type_name(field));
    strata_sql::parse_expr_text(&format!("CAST(({value}), {type_name})"))
}

pub(super) fn assignment_error() -> StrataError {
    StrataError::new(
        ErrorCode::SYNTAX_ERROR,
        "Syntax error: UPDATE assigns columns by their names (SET c = expr)",
    )
}

/// The table column `name` if an UPDATE may assign it.
fn updatable_column(table: &MergeTreeProvider, name: &str) -> Result<usize> {
    let Ok(column) = table.data.schema().index_of(name) else {
        return Err(StrataError::new(
            ErrorCode::NO_SUCH_COLUMN_IN_TABLE,
            format!("There is no column `{name}` in table"),
        ));
    };
    if table.data.keys().reads_column(column) {
        return Err(StrataError::new(
            ErrorCode::CANNOT_UPDATE_COLUMN,
            format!("Cannot UPDATE key column `{name}`"),
        ));
    }
    Ok(column)
}

/// The select list and WHERE of a planned `SELECT ... FROM t WHERE c`.
fn projection_and_filter(plan: &LogicalPlan) -> Result<(Vec<LogicalExpr>, LogicalExpr)> {
    let mut projected = None;
    let mut condition = None;
    plan.apply(|node| {
        match node {
            LogicalPlan::Projection(p) if projected.is_none() => {
                projected = Some(p.expr.iter().map(|e| e.clone().unalias()).collect());
            }
            LogicalPlan::Filter(f) if condition.is_none() => {
                condition = Some(f.predicate.clone());
            }
            _ => {}
        }
        Ok(datafusion::common::tree_node::TreeNodeRecursion::Continue)
    })?;
    Ok((
        projected.unwrap_or_default(),
        condition.unwrap_or_else(|| lit(true)),
    ))
}

/// `expr` with its columns named without their table, as the table's own
/// schema names them.
fn unqualified(expr: LogicalExpr) -> Result<LogicalExpr> {
    Ok(expr
        .transform(|e| match e {
            LogicalExpr::Column(column) => Ok(Transformed::yes(LogicalExpr::Column(
                datafusion::common::Column::new_unqualified(column.name),
            ))),
            other => Ok(Transformed::no(other)),
        })?
        .data)
}

/// Runs the table's mutations until mutation `number` is done, on a
/// blocking thread whose work counts for the waiting statement; a failure
/// comes back as ClickHouse reports one.
async fn wait_for_mutation(table: &Arc<MergeTreeProvider>, number: u64) -> Result<()> {
    let running = Arc::clone(table);
    let query = events::current();
    let outcome = tokio::task::spawn_blocking(move || {
        events::in_scope(query.as_ref(), || running.run_mutations())
    })
    .await
    .map_err(|e| StrataError::new(ErrorCode::LOGICAL_ERROR, e.to_string()))?;
    let status = table
        .data
        .mutation_statuses()
        .into_iter()
        .find(|status| status.entry.number == number);
    match (outcome, status) {
        (Ok(()), _) => Ok(()),
        (Err(error), Some(status)) => Err(StrataError::new(
            ErrorCode::UNFINISHED,
            format!(
                "Exception happened during execution of mutation '{}' with part '{}' reason: '{}'. This error maybe retryable or not. In case of unretryable error, mutation can be killed with KILL MUTATION query",
                status.entry.file_name(),
                status.failure.map(|f| f.part).unwrap_or_default(),
                error
            ),
        )),
        (Err(error), None) => Err(error),
    }
}
