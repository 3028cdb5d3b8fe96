//! `ALTER TABLE ... ADD COLUMN | DROP COLUMN | RENAME COLUMN`, and the
//! entry of every statement that starts `ALTER TABLE` or `CHECK TABLE`
//! (part operations and CHECK TABLE go on to `parts`).
//!
//! An ALTER edits the table's canonical CREATE statement and opens the
//! table again from it, as a restart would: a Memory table gets its rows
//! carried over in the new shape; a MergeTree table's old object is closed
//! (no more inserts or merges commit to it) and the directory reopened,
//! which rewrites the parts holding a dropped column or a renamed one under
//! its old name. The new definition is stored before the parts change, and
//! a rename is recorded in the table's directory first, so a crash at any
//! point leaves the table as before or as after once reopened.

use std::collections::HashMap;
use std::sync::Arc;

use datafusion::arrow::array::{ArrayRef, RecordBatch, new_null_array};
use datafusion::arrow::datatypes::{Field, Schema, SchemaRef};
use datafusion::common::ScalarValue;
use datafusion::physical_plan::execute_stream;
use datafusion::sql::sqlparser::ast::{
    AlterTableOperation, Delete, Expr, FromTable, Ident, MySQLColumnPosition, ObjectName,
    Statement, TableFactor, Value,
};
use futures::StreamExt;
use strata_common::types::field_type_name;
use strata_common::{ErrorCode, Result, StrataError};
use strata_sql::alter_columns::{AlterCommand, parse_alter_columns};
use strata_sql::constraints::{ConstraintCommand, TableConstraint};
use strata_sql::mutations::MutationAst;
use strata_sql::part_statements::{MoveDestination, PartAction};
use strata_sql::skip_index::IndexCommand;
use strata_sql::ttl::AlterTtl;
use strata_sql::{
    EngineClause, parse_alter_statement, parse_statement, split_create_table,
    split_trailing_clauses,
};
use strata_storage::merge_tree::{MergeTreeTable, MutationKind};

use super::constant_defaults;
use super::modify_column::Columns;
use crate::engine::task_context;
use crate::session::{Session, StatementOutcome, UserTable, strip_keyword};
use crate::sources::merge_tree_table::MergeTreeProvider;
use crate::table_definition::{
    Codecs, TableIdentity, TableStorage, column_definition, column_definitions, create_statement,
    flatten_nested, past_type_conversion, quote_name, storable, stored_columns, unstorable,
};

impl Session {
    /// Runs a statement that is not a query but takes a trailing `SETTINGS`
    /// clause (`CHECK TABLE`, `ALTER`, `DELETE FROM`) with those settings
    /// while it runs.
    pub(crate) async fn with_trailing_settings(&mut self, text: &str) -> Result<StatementOutcome> {
        let (body, clauses) = match split_trailing_clauses(text)? {
            // No ALTER ends in FORMAT: that is a column named `format`.
            (_, clauses) if clauses.format.is_some() => (text.to_string(), Default::default()),
            split => split,
        };
        let settings = self.settings_with(&clauses.settings)?;
        let saved = std::mem::replace(&mut self.settings, settings);
        let outcome = self.execute_part_or_alter(&body).await;
        self.settings = saved;
        outcome
    }

    async fn execute_part_or_alter(&mut self, text: &str) -> Result<StatementOutcome> {
        if strip_keyword(text, &["DELETE"]).is_some() {
            return match parse_statement(text)?.statement {
                Statement::Delete(delete) => {
                    if let Some(name) = delete_target(&delete) {
                        self.require_on_name("ALTER DELETE", name, &[])?;
                    }
                    self.delete_from(delete).await
                }
                other => Err(StrataError::new(
                    ErrorCode::SYNTAX_ERROR,
                    format!("Syntax error: expected DELETE FROM, got {other}"),
                )),
            };
        }
        if let Some(alter) = strata_sql::skip_index::parse_alter_index(text)? {
            let privilege = match alter.command {
                IndexCommand::Add { .. } => "ALTER ADD INDEX",
                IndexCommand::Drop { .. } => "ALTER DROP INDEX",
                IndexCommand::Clear => "ALTER CLEAR INDEX",
            };
            self.require_on_name(privilege, &alter.table, &[])?;
            return self.alter_index(alter).await;
        }
        if let Some(alter) = strata_sql::constraints::parse_alter_constraint(text)? {
            let privilege = match alter.command {
                ConstraintCommand::Add { .. } => "ALTER ADD CONSTRAINT",
                ConstraintCommand::Drop { .. } => "ALTER DROP CONSTRAINT",
            };
            self.require_on_name(privilege, &alter.table, &[])?;
            return self.alter_constraint(alter).await;
        }
        if let Some(mutation) = strata_sql::mutations::parse_alter_mutation(text)? {
            for command in &mutation.commands {
                let (privilege, columns) = mutation_privilege(command);
                self.require_on_name(privilege, &mutation.table, &columns)?;
            }
            return self.alter_mutation(mutation).await;
        }
        if let Some(check) = strata_sql::part_statements::parse_check_table(text)? {
            self.require_on_name("CHECK", &check.table, &[])?;
            return self.check_table(check).await;
        }
        if let Some(operation) = strata_sql::part_statements::parse_part_operation(text)? {
            let privilege = match operation.action {
                PartAction::Attach | PartAction::AttachFrom(_) => "INSERT",
                PartAction::Detach
                | PartAction::Drop
                | PartAction::DropDetached
                | PartAction::ReplaceFrom(_) => "ALTER DELETE",
                PartAction::Move(_) => "ALTER MOVE PARTITION",
            };
            self.require_on_name(privilege, &operation.table, &[])?;
            // Rows copied from a table are read from it, and rows moved to
            // a table are inserted into it.
            match &operation.action {
                PartAction::AttachFrom(source) | PartAction::ReplaceFrom(source) => {
                    self.require_on_name("SELECT", source, &[])?;
                }
                PartAction::Move(MoveDestination::Table(to)) => {
                    self.require_on_name("INSERT", to, &[])?;
                }
                _ => {}
            }
            return self.part_operation(operation).await;
        }
        if let Some(alter) = strata_sql::alter_settings::parse_alter_settings(text)? {
            self.require_on_name("ALTER SETTINGS", &alter.table, &[])?;
            return self.alter_settings(alter).await;
        }
        if let Some(alter) = strata_sql::ttl::parse_alter_ttl(text)? {
            self.require_on_name("ALTER TTL", &alter.table, &[])?;
            return self.alter_ttl(alter).await;
        }
        let Some(alter) = parse_alter_columns(text)? else {
            // sqlparser's error says what is wrong, when it finds something.
            parse_alter_statement(text)?;
            return Err(StrataError::new(
                ErrorCode::SYNTAX_ERROR,
                format!("Syntax error: expected ALTER TABLE or CHECK TABLE: {text}"),
            ));
        };
        self.alter_table(&alter.table, alter.commands).await?;
        self.done()
    }

    /// Applies each operation in turn, each as a whole.
    async fn alter_table(&mut self, name: &ObjectName, commands: Vec<AlterCommand>) -> Result<()> {
        self.check_writable()?;
        for command in &commands {
            let (privilege, columns) = alter_privilege(command);
            self.require_on_name(privilege, name, &columns)?;
        }
        for command in commands {
            self.alter_once(name, command).await?;
        }
        Ok(())
    }

    async fn alter_once(&mut self, name: &ObjectName, command: AlterCommand) -> Result<()> {
        let table = self.user_table(name).await?;
        let fixed_columns = match &table {
            UserTable::External(_) | UserTable::Merge(_) | UserTable::Buffer(_) => true,
            UserTable::Memory(memory) => memory.keyed().is_some(),
            UserTable::MergeTree(_) => false,
        };
        if fixed_columns {
            let (privilege, _) = alter_privilege(&command);
            let kind = privilege.trim_start_matches("ALTER ").replace(' ', "_");
            return Err(StrataError::new(
                ErrorCode::NOT_IMPLEMENTED,
                format!(
                    "Alter of type '{kind}' is not supported by storage {}",
                    table.engine_name()
                ),
            ));
        }
        let identity = table.identity();
        let split = split_create_table(&identity.create_statement)?;
        let Statement::CreateTable(create) = parse_statement(&split.statement)?.statement else {
            unreachable!("a table's canonical statement is a CREATE TABLE");
        };
        let (fields, extras) = column_definitions(&create.columns, split.codecs, Codecs::Stored)?;
        let mut columns = Columns {
            fields,
            extras,
            renamed: None,
            retyped: None,
            comment: split.engine.as_ref().and_then(|e| e.comment.clone()),
        };
        let added = match &command {
            AlterCommand::Standard(AlterTableOperation::AddColumn { column_def, .. }) => {
                Some(column_def.name.clone())
            }
            _ => None,
        };
        let unstorable_before: Vec<_> = columns
            .fields
            .iter()
            .filter(|f| !storable(f.data_type()))
            .cloned()
            .collect();
        let changed = match command {
            AlterCommand::Standard(operation) => edit_columns(&mut columns, operation, &identity)?,
            other => columns.edit(other)?,
        };
        if !changed {
            return Ok(());
        }
        if let Some(new) = columns
            .fields
            .iter()
            .find(|f| !storable(f.data_type()) && !unstorable_before.contains(f))
        {
            return Err(unstorable(new));
        }
        let storage = match &split.engine {
            Some(engine) => TableStorage::from_clause(engine)?,
            None => TableStorage::Memory,
        };
        if let Some(old) = &columns.retyped {
            self.check_retype(&table, name, old, &columns).await?;
        }
        let declared: SchemaRef = Arc::new(Schema::new(columns.fields.clone()));
        let (schema, stored_extras) = stored_columns(&declared, &columns.extras);
        // Checked before anything changes: keys and defaults must still
        // resolve against the new columns.
        let state = self
            .engine
            .query_state(&self.new_query(self.settings.clone()))?;
        if let Some(definition) = storage.parts() {
            let mut compiled = definition.clone();
            self.rewrite_exprs(&mut compiled.partition_by)?;
            self.rewrite_exprs(&mut compiled.order_by)?;
            compiled.compile_keys(&state, &schema).map_err(|_| {
                StrataError::new(
                    ErrorCode::ALTER_OF_COLUMN_IS_FORBIDDEN,
                    format!(
                        "Trying to ALTER a column the key of {} uses",
                        identity.qualified_name()
                    ),
                )
            })?;
        }
        let defaults = self.column_defaults(&state, &schema, &stored_extras)?;
        let fills = constant_defaults(&state, &schema, &stored_extras, &defaults)?;

        let statement = create_statement(
            &identity.database,
            &identity.name,
            &declared,
            &columns.extras,
            &storage,
            &split.constraints,
            columns.comment.as_deref(),
        );
        let altered = TableIdentity {
            create_statement: statement.clone(),
            ..identity.clone()
        };
        // A recorded rename is ignored at open while the stored definition
        // still has the old name, so it is safe to write first.
        if let (UserTable::MergeTree(merge_tree), Some((old, new))) = (&table, &columns.renamed) {
            MergeTreeTable::record_rename(merge_tree.data.dir(), old, new)?;
        }
        let carried = match &table {
            UserTable::Memory(memory) => memory
                .batches()
                .await
                .iter()
                .map(|batch| reshape(batch, &schema, &fills, columns.renamed.as_ref()))
                .collect::<Result<Vec<_>>>()?,
            UserTable::MergeTree(merge_tree) => {
                merge_tree.close();
                Vec::new()
            }
            UserTable::External(_) | UserTable::Merge(_) | UserTable::Buffer(_) => {
                unreachable!("an external, Merge or Buffer table's ALTER is refused above")
            }
        };
        if let Err(error) = self.engine.data_path.store_table(&altered.stored()) {
            // The closed table object takes no more writes: open it again as it was.
            self.reopen(&identity).await?;
            return Err(error);
        }
        self.reopen(&altered).await?;
        if !carried.is_empty() {
            let UserTable::Memory(memory) = self.user_table(name).await? else {
                unreachable!("a Memory table reopens as one");
            };
            memory.append(carried).await;
        }
        // Parts written before read the column converted until this
        // rewrites them in the new type, as ClickHouse's ALTER waits for.
        if let (UserTable::MergeTree(_), Some(old)) = (&table, &columns.retyped) {
            let column = Ident::with_quote('`', old.name());
            let rewrite = MutationAst::Update {
                assignments: vec![(column.clone(), Expr::Identifier(column))],
                predicate: Expr::value(Value::Boolean(true)),
            };
            self.mutate(name, &[rewrite], MutationKind::Alter, true)
                .await?;
        }
        // A DEFAULT that reads other columns has no one value for the parts
        // written before it: their rows get it now, as MATERIALIZE COLUMN
        // writes it (ClickHouse computes it when reading them instead).
        let reads_row = |column: &datafusion::sql::sqlparser::ast::Ident| {
            defaults
                .get(&column.value)
                .is_some_and(|default| !default.column_refs().is_empty())
        };
        if let (UserTable::MergeTree(_), Some(column)) = (&table, added)
            && reads_row(&column)
        {
            let materialize = MutationAst::MaterializeColumn(column);
            self.mutate(name, &[materialize], MutationKind::Alter, true)
                .await?;
        }
        Ok(())
    }
}

impl Session {
    /// `ALTER TABLE t MODIFY TTL ... | REMOVE TTL`: the definition stored
    /// with the new rules, the table reopened, and the rules applied at
    /// once (ClickHouse's `materialize_ttl_after_modify`).
    async fn alter_ttl(&mut self, alter: AlterTtl) -> Result<StatementOutcome> {
        self.check_writable()?;
        let table = self.merge_tree(&alter.table, "TTL").await?;
        let rules = alter.rules.unwrap_or_default();
        self.alter_definition(&table, |engine, _| {
            engine.ttl = rules;
            Ok(true)
        })
        .await?;
        let reopened = self.merge_tree(&alter.table, "TTL").await?;
        tokio::task::spawn_blocking(move || reopened.apply_ttl_now())
            .await
            .map_err(|e| StrataError::new(ErrorCode::LOGICAL_ERROR, e.to_string()))??;
        self.done()
    }

    /// Stores `table`'s definition with its engine clause and constraints
    /// changed by `edit` and reopens the table from it; a definition the
    /// table cannot open with is undone. An edit that changes nothing (`IF
    /// EXISTS`) leaves the table open as it is.
    /// The MergeTree table whose definition an ALTER edits; other engines
    /// refuse the alter of type `kind` (`ADD_INDEX`), as ClickHouse does.
    pub(super) async fn merge_tree_to_alter(
        &self,
        name: &ObjectName,
        kind: &str,
    ) -> Result<Arc<MergeTreeProvider>> {
        self.check_writable()?;
        match self.user_table(name).await? {
            UserTable::MergeTree(table) => Ok(table),
            other => Err(StrataError::new(
                ErrorCode::NOT_IMPLEMENTED,
                format!(
                    "Alter of type '{kind}' is not supported by storage {}",
                    other.engine_name()
                ),
            )),
        }
    }

    pub(super) async fn alter_definition(
        &mut self,
        table: &MergeTreeProvider,
        edit: impl FnOnce(&mut EngineClause, &mut Vec<TableConstraint>) -> Result<bool>,
    ) -> Result<()> {
        let identity = table.identity();
        let mut split = split_create_table(&identity.create_statement)?;
        let Statement::CreateTable(create) = parse_statement(&split.statement)?.statement else {
            unreachable!("a table's canonical statement is a CREATE TABLE");
        };
        let Some(engine) = split.engine.as_mut() else {
            return Err(StrataError::new(
                ErrorCode::LOGICAL_ERROR,
                format!(
                    "The definition of {} has no engine clause",
                    identity.qualified_name()
                ),
            ));
        };
        if !edit(engine, &mut split.constraints)? {
            return Ok(());
        }
        let storage = TableStorage::from_clause(engine)?;
        let (declared, extras) = column_definitions(&create.columns, split.codecs, Codecs::Stored)?;
        let declared: SchemaRef = Arc::new(Schema::new(declared));
        let statement = create_statement(
            &identity.database,
            &identity.name,
            &declared,
            &extras,
            &storage,
            &split.constraints,
            engine.comment.as_deref(),
        );
        let altered = TableIdentity {
            create_statement: statement,
            ..identity.clone()
        };
        table.close();
        if let Err(error) = self.engine.data_path.store_table(&altered.stored()) {
            self.reopen(&identity).await?;
            return Err(error);
        }
        if let Err(error) = self.reopen(&altered).await {
            // A definition the table cannot compile: back to the one it had.
            self.engine.data_path.store_table(&identity.stored())?;
            self.reopen(&identity).await?;
            return Err(error);
        }
        Ok(())
    }

    /// Refuses a type change ClickHouse refuses (a key column's), and one
    /// whose stored values do not all convert, before anything changes:
    /// every value is converted as parts written before will read it.
    async fn check_retype(
        &self,
        table: &UserTable,
        name: &ObjectName,
        old: &Field,
        columns: &Columns,
    ) -> Result<()> {
        let at = columns
            .position(old.name())
            .expect("a retyped column is a column");
        let new = &columns.fields[at];
        if let UserTable::MergeTree(merge_tree) = table
            && let Ok(index) = merge_tree.data.schema().index_of(old.name())
            && merge_tree.data.keys().reads_column(index)
        {
            return Err(StrataError::new(
                ErrorCode::ALTER_OF_COLUMN_IS_FORBIDDEN,
                format!(
                    "ALTER of key column {} from type {} to type {} is not safe because it can change the representation of primary key",
                    old.name(),
                    field_type_name(old),
                    field_type_name(new)
                ),
            ));
        }
        if !columns.extras[at].kind.is_stored() {
            return Ok(());
        }
        let sql = format!("SELECT {} FROM {name}", quote_name(old.name()));
        let (plan, state, _) = self
            .plan(parse_statement(&sql)?.statement, self.settings.clone())
            .await?;
        let physical = self.physical_plan(&state, &plan).await?;
        let mut batches = execute_stream(physical, task_context(&state))?;
        let convert = past_type_conversion();
        while let Some(batch) = batches.next().await {
            convert(batch?.column(0), new)?;
        }
        Ok(())
    }

    /// Replaces the table's object with one opened from `identity`'s
    /// statement, on the same data.
    async fn reopen(&mut self, identity: &TableIdentity) -> Result<()> {
        self.database(&identity.database)?
            .deregister_table(&identity.name)?;
        self.attaching = Some(identity.stored());
        let reopened = Box::pin(self.execute_statement(&identity.create_statement)).await;
        self.attaching = None;
        reopened.map(|_| ())
    }
}

/// Applies one operation to `columns`; false if it changes nothing
/// (`IF EXISTS`, `IF NOT EXISTS`).
fn edit_columns(
    columns: &mut Columns,
    operation: AlterTableOperation,
    identity: &TableIdentity,
) -> Result<bool> {
    let table = identity.qualified_name();
    let missing = |name: &str, to: &str| {
        StrataError::new(
            ErrorCode::NOT_FOUND_COLUMN_IN_BLOCK,
            format!("Wrong column name. Cannot find column `{name}` to {to}"),
        )
    };
    match operation {
        AlterTableOperation::AddColumn {
            if_not_exists,
            column_def,
            column_position,
            ..
        } => {
            let mut added = Vec::new();
            for column in flatten_nested(std::slice::from_ref(&column_def))? {
                let (field, extra) = column_definition(&column)?;
                if columns.position(field.name()).is_some() {
                    if if_not_exists {
                        return Ok(false);
                    }
                    return Err(StrataError::new(
                        ErrorCode::DUPLICATE_COLUMN,
                        format!(
                            "Cannot add column {}: column with this name already exists",
                            field.name()
                        ),
                    ));
                }
                added.push((field, extra));
            }
            let at = match column_position {
                None => columns.fields.len(),
                Some(MySQLColumnPosition::First) => 0,
                Some(MySQLColumnPosition::After(after)) => {
                    columns
                        .position(&after.value)
                        .ok_or_else(|| missing(&after.value, "insert after"))?
                        + 1
                }
            };
            for (i, (field, extra)) in added.into_iter().enumerate() {
                columns.fields.insert(at + i, field);
                columns.extras.insert(at + i, extra);
            }
        }
        AlterTableOperation::DropColumn {
            column_names,
            if_exists,
            ..
        } => {
            let mut changed = false;
            for name in column_names {
                let Some(at) = columns.position(&name.value) else {
                    if if_exists {
                        continue;
                    }
                    return Err(missing(&name.value, "drop"));
                };
                if columns.fields.len() == 1 {
                    return Err(StrataError::new(
                        ErrorCode::BAD_ARGUMENTS,
                        format!("Cannot drop the only column of table {table}"),
                    ));
                }
                columns.fields.remove(at);
                columns.extras.remove(at);
                changed = true;
            }
            return Ok(changed);
        }
        AlterTableOperation::RenameColumn {
            old_column_name,
            new_column_name,
        } => {
            let (old, new) = (old_column_name.value, new_column_name.value);
            let at = columns
                .position(&old)
                .ok_or_else(|| missing(&old, "rename"))?;
            if columns.position(&new).is_some() {
                return Err(StrataError::new(
                    ErrorCode::DUPLICATE_COLUMN,
                    format!(
                        "Cannot rename column {old} to {new}: column with this name already exists"
                    ),
                ));
            }
            if old == new {
                return Ok(false);
            }
            if new.contains(['\t', '\n']) {
                return Err(StrataError::new(
                    ErrorCode::BAD_ARGUMENTS,
                    "A column cannot be renamed to a name with tabs or line breaks",
                ));
            }
            columns.fields[at] = columns.fields[at].clone().with_name(&new);
            columns.renamed = Some((old, new));
        }
        other => {
            return Err(StrataError::new(
                ErrorCode::NOT_IMPLEMENTED,
                format!("ALTER TABLE {other} is not supported yet"),
            ));
        }
    }
    Ok(true)
}

/// A Memory table's rows in its altered shape: kept columns as they were,
/// a renamed one under its new name, a retyped one converted, an added one
/// as its constant DEFAULT or its type's default.
fn reshape(
    batch: &RecordBatch,
    schema: &SchemaRef,
    fills: &HashMap<String, ScalarValue>,
    renamed: Option<&(String, String)>,
) -> Result<RecordBatch> {
    let rows = batch.num_rows();
    let columns = schema
        .fields()
        .iter()
        .map(|field| {
            let stored = match renamed {
                Some((old, new)) if new == field.name() => old.as_str(),
                _ => field.name().as_str(),
            };
            Ok(match batch.column_by_name(stored) {
                Some(column) if column.data_type() != field.data_type() => {
                    past_type_conversion()(column, field)?
                }
                Some(column) => Arc::clone(column),
                None if fills.contains_key(field.name()) => {
                    fills[field.name()].to_array_of_size(rows)?
                }
                None if field.is_nullable() => new_null_array(field.data_type(), rows),
                None => strata_common::types::field_default_value(field)?.to_array_of_size(rows)?,
            })
        })
        .collect::<Result<Vec<ArrayRef>>>()?;
    Ok(RecordBatch::try_new(Arc::clone(schema), columns)?)
}

/// The table a `DELETE FROM` names.
fn delete_target(delete: &Delete) -> Option<&ObjectName> {
    let tables = match &delete.from {
        FromTable::WithFromKeyword(tables) | FromTable::WithoutKeyword(tables) => tables,
    };
    match &tables.first()?.relation {
        TableFactor::Table { name, .. } => Some(name),
        _ => None,
    }
}

/// The privilege a mutation command needs, and on which columns.
fn mutation_privilege(command: &MutationAst) -> (&'static str, Vec<String>) {
    match command {
        MutationAst::Delete { .. } | MutationAst::ApplyDeletedMask => ("ALTER DELETE", Vec::new()),
        MutationAst::Update { assignments, .. } => (
            "ALTER UPDATE",
            assignments.iter().map(|(c, _)| c.value.clone()).collect(),
        ),
        MutationAst::MaterializeColumn(c) => ("ALTER MATERIALIZE COLUMN", vec![c.value.clone()]),
        MutationAst::ClearColumn(c) => ("ALTER CLEAR COLUMN", vec![c.value.clone()]),
        MutationAst::MaterializeIndex(_) => ("ALTER MATERIALIZE INDEX", Vec::new()),
    }
}

/// The privilege an ALTER TABLE command needs, and on which columns.
fn alter_privilege(command: &AlterCommand) -> (&'static str, Vec<String>) {
    let operation = match command {
        AlterCommand::Standard(operation) => operation,
        AlterCommand::Modify { column, .. } => {
            return ("ALTER MODIFY COLUMN", vec![column.value.clone()]);
        }
        AlterCommand::Comment { column, .. } => {
            return ("ALTER COMMENT COLUMN", vec![column.value.clone()]);
        }
        AlterCommand::TableComment(_) => return ("ALTER MODIFY COMMENT", Vec::new()),
    };
    match operation {
        AlterTableOperation::AddColumn { column_def, .. } => {
            ("ALTER ADD COLUMN", vec![column_def.name.value.clone()])
        }
        AlterTableOperation::DropColumn { column_names, .. } => (
            "ALTER DROP COLUMN",
            column_names.iter().map(|c| c.value.clone()).collect(),
        ),
        AlterTableOperation::RenameColumn {
            old_column_name, ..
        } => ("ALTER RENAME COLUMN", vec![old_column_name.value.clone()]),
        _ => ("ALTER TABLE", Vec::new()),
    }
}
