//! CREATE TABLE (Memory and MergeTree, with columns or AS SELECT, temporary
//! or not) and CREATE DATABASE.
//!
//! While stored tables load, `Session::attaching` names the table being
//! brought back: CREATE opens its existing data under its stored name and
//! UUID and stores nothing.

use std::collections::HashMap;
use std::sync::Arc;

use datafusion::arrow::array::{RecordBatch, RecordBatchOptions};
use datafusion::arrow::datatypes::{Schema, SchemaRef};
use datafusion::catalog::{MemorySchemaProvider, TableProvider};
use datafusion::common::{DFSchema, ScalarValue};
use datafusion::execution::session_state::SessionState;
use datafusion::logical_expr::dml::InsertOp;
use datafusion::physical_plan::collect;
use datafusion::sql::sqlparser::ast::{
    ColumnDef, ColumnOption, ColumnOptionDef, CreateTable, Expr, Ident, LimitClause, ObjectName,
    Query, Statement, TableObject, Value,
};
use strata_common::{ErrorCode, Result, StrataError};
use strata_sql::constraints::TableConstraint;
use strata_sql::create_table::DEFAULT_ENGINE;
use strata_sql::literal_text::expr_text;
use strata_sql::{EngineClause, parse_object_name, parse_statement, split_create_table};
use strata_storage::disk::{DEFAULT_POLICY, StoragePolicy};
use strata_storage::merge_tree::{MergeMemory, MergeTreeTable, PastColumns};

use crate::engine::task_context;
use crate::session::{Session, StatementOutcome, single_name, temporary};
use crate::sources::buffer_table::BufferTable;
use crate::sources::external_table::ExternalTable;
use crate::sources::file_function::UserFiles;
use crate::sources::memory_table::{MemoryEngine, MemoryTable};
use crate::sources::merge_table::{MergeSource, MergeTable, name_current_database, union_query};
use crate::sources::merge_tree_table::MergeTreeProvider;
use crate::sources::set_and_join::KeyedRows;
use crate::system::SYSTEM_DATABASE;
use crate::table_definition::{
    Codecs, ColumnExtras, TableIdentity, TableStorage, column_codecs, column_definitions,
    create_statement, inline_disk, past_type_conversion, storable, stored_columns, unstorable,
};

/// ClickHouse table engines Strata does not have yet: naming one is
/// NOT_IMPLEMENTED, any other unknown name UNKNOWN_STORAGE.
const CLICKHOUSE_ENGINES: &[&str] = &[
    "Dictionary",
    "Distributed",
    "GraphiteMergeTree",
    "ReplicatedMergeTree",
    "URL",
];

/// What `CREATE TABLE new AS existing` copies.
struct TableStructure {
    columns: Vec<ColumnDef>,
    engine: Option<EngineClause>,
    clauses: ColumnClauses,
}

/// What a column list declares beside its columns.
#[derive(Default)]
pub(crate) struct ColumnClauses {
    /// `CODEC(...)` arguments as written, by column position.
    pub codecs: Vec<(usize, String)>,
    pub constraints: Vec<TableConstraint>,
}

/// Columns and rows of a table being created.
struct NewTableData {
    schema: SchemaRef,
    extras: Vec<ColumnExtras>,
    /// The rows of `AS SELECT`.
    rows: Vec<RecordBatch>,
}

impl NewTableData {
    /// The columns the table stores, ALIAS and EPHEMERAL ones left out.
    fn stored(self) -> NewTableData {
        let (schema, extras) = stored_columns(&self.schema, &self.extras);
        NewTableData {
            schema,
            extras,
            rows: self.rows,
        }
    }
}

impl Session {
    pub(crate) fn create_database(
        &self,
        name: &ObjectName,
        if_not_exists: bool,
    ) -> Result<StatementOutcome> {
        self.check_writable()?;
        let name = single_name(name)?;
        self.require("CREATE DATABASE", &[&name])?;
        if self.engine.catalog.schema(&name).is_some() {
            if if_not_exists {
                return self.done();
            }
            return Err(StrataError::new(
                ErrorCode::DATABASE_ALREADY_EXISTS,
                format!("Database {name} already exists"),
            ));
        }
        self.engine.data_path.create_database(&name)?;
        self.engine
            .catalog
            .register_schema(&name, Arc::new(MemorySchemaProvider::new()))?;
        self.done()
    }

    /// CREATE TABLE text with the parts sqlparser does not read (the ENGINE
    /// clause, column codecs) split off first.
    pub(crate) async fn create_table_text(&mut self, text: &str) -> Result<StatementOutcome> {
        let mut split = split_create_table(text)?;
        if let Some(function) = &split.as_function {
            return Box::pin(self.execute_statement(&function_view(&split.statement, function)?))
                .await;
        }
        let mut create = create_table_statement(&split.statement)?;
        if let Some(source) = &split.as_table {
            let source = self.table_structure(source).await?;
            create.columns = source.columns;
            split.engine = split.engine.or(source.engine);
            split.codecs = source.clauses.codecs;
            split.constraints = source.clauses.constraints;
        }
        if split.empty {
            take_no_rows(&mut create);
        }
        column_primary_key(&mut create, &mut split.engine)?;
        let query_settings = split
            .engine
            .as_mut()
            .map(EngineClause::take_query_settings)
            .unwrap_or_default();
        let settings = self.settings_with(&query_settings)?;
        let session_settings = std::mem::replace(&mut self.settings, settings);
        let created = self
            .create_with_columns_as(
                create,
                split.engine,
                ColumnClauses {
                    codecs: split.codecs,
                    constraints: split.constraints,
                },
            )
            .await;
        self.settings = session_settings;
        created
    }

    /// `CREATE TABLE t (columns) AS SELECT`: the table takes its columns
    /// from the list, and the query's rows go in by position, as an INSERT
    /// would put them; if they cannot, the new table goes away again.
    async fn create_with_columns_as(
        &mut self,
        mut create: CreateTable,
        engine: Option<EngineClause>,
        clauses: ColumnClauses,
    ) -> Result<StatementOutcome> {
        let query = match &create.query {
            Some(_) if !create.columns.is_empty() && !self.table_exists(&create.name)? => {
                create.query.take()
            }
            _ => None,
        };
        let Some(query) = query else {
            return self.create_table(create, engine, clauses).await;
        };
        let (plan, _, _) = self
            .plan(Statement::Query(query.clone()), self.settings.clone())
            .await?;
        let (source, target) = (plan.schema().fields().len(), create.columns.len());
        if source != target {
            return Err(StrataError::new(
                ErrorCode::NUMBER_OF_COLUMNS_DOESNT_MATCH,
                format!("Number of columns doesn't match (source: {source} and result: {target})"),
            ));
        }
        let (name, temporary) = (create.name.clone(), create.temporary);
        self.create_table(create, engine, clauses).await?;
        let Statement::Insert(mut insert) = parse_statement("INSERT INTO t SELECT 1")?.statement
        else {
            unreachable!("an INSERT parses as one");
        };
        insert.table = TableObject::TableName(name.clone());
        insert.source = Some(query);
        if let Err(error) = self.insert(insert).await {
            self.drop_table(&name, true, temporary)?;
            return Err(error);
        }
        self.done()
    }

    fn table_exists(&self, name: &ObjectName) -> Result<bool> {
        let (database, table) = self.table_name(name)?;
        Ok(self
            .engine
            .catalog
            .schema(&database)
            .is_some_and(|schema| schema.table_exist(&table)))
    }

    /// The columns, codecs and engine of an existing table, for `CREATE
    /// TABLE new AS existing`.
    async fn table_structure(&self, name: &str) -> Result<TableStructure> {
        let name = parse_object_name(name)?;
        let (database, table) = self.table_name(&name)?;
        self.require_show(&[&database, &table])?;
        let definition = self.user_table(&name).await?.identity().create_statement;
        let split = split_create_table(&definition)?;
        Ok(TableStructure {
            columns: create_table_statement(&split.statement)?.columns,
            engine: split.engine,
            clauses: ColumnClauses {
                codecs: split.codecs,
                constraints: split.constraints,
            },
        })
    }

    pub(crate) async fn create_table(
        &mut self,
        create: CreateTable,
        engine: Option<EngineClause>,
        clauses: ColumnClauses,
    ) -> Result<StatementOutcome> {
        self.check_writable()?;
        let (database, table) = match &self.attaching {
            Some(stored) => (stored.database.clone(), stored.name.clone()),
            None if create.temporary => self.temporary_table_name(&create.name)?,
            None => self.table_in_database(&create.name)?,
        };
        if create.temporary {
            self.require("CREATE TEMPORARY TABLE", &[])?;
        } else {
            self.require("CREATE TABLE", &[&database, &table])?;
        }
        if database == SYSTEM_DATABASE {
            return Err(StrataError::new(
                ErrorCode::BAD_ARGUMENTS,
                "Cannot create tables in the system database",
            ));
        }
        let schema_provider = self.database(&database)?;
        if schema_provider.table_exist(&table) {
            if create.or_replace && !create.temporary && self.attaching.is_none() {
                return self.create_or_replace(create, engine, clauses).await;
            }
            if create.if_not_exists {
                return self.done();
            }
            return Err(StrataError::new(
                ErrorCode::TABLE_ALREADY_EXISTS,
                format!("Table {database}.{table} already exists"),
            ));
        }
        // A detached table keeps its name until it is attached or dropped.
        let detached = self.attaching.is_none()
            && !create.temporary
            && self
                .engine
                .data_path
                .stored_table(&database, &table)?
                .is_some();
        if detached {
            if create.if_not_exists {
                return self.done();
            }
            return Err(StrataError::new(
                ErrorCode::TABLE_ALREADY_EXISTS,
                format!("Table {database}.{table} already exists (detached)"),
            ));
        }
        let comment = engine.as_ref().and_then(|e| e.comment.clone());
        let default_engine = self.settings.default_table_engine();
        let mut engine = engine;
        if let Some(engine) = engine.as_mut() {
            let allowed = self.settings.allow_deprecated_syntax_for_merge_tree();
            crate::old_engine_syntax::read_old_syntax(engine, allowed)?;
        }
        if let Some(engine) = engine
            .as_mut()
            .filter(|e| e.name == "Merge" || e.name == "Buffer")
        {
            name_current_database(&mut engine.arguments, &self.current_database);
        }
        let storage = table_engine(engine, create.temporary, &default_engine)?;
        let data = match &storage {
            TableStorage::Merge(source) if create.columns.is_empty() && create.query.is_none() => {
                self.merged_columns(source).await?
            }
            _ => self.new_table_data(&create, clauses.codecs).await?,
        };
        if self.attaching.is_none()
            && let Some(field) = data
                .schema
                .fields()
                .iter()
                .find(|f| !storable(f.data_type()))
        {
            return Err(unstorable(field));
        }
        self.check_constraints(&clauses.constraints, &data.schema)?;
        let identity = TableIdentity {
            create_statement: create_statement(
                &database,
                &table,
                &data.schema,
                &data.extras,
                &storage,
                &clauses.constraints,
                comment.as_deref(),
            ),
            uuid: self
                .attaching
                .as_ref()
                .map_or_else(uuid::Uuid::new_v4, |stored| stored.uuid),
            database,
            name: table.clone(),
        };
        let data = data.stored();
        let state = self
            .engine
            .query_state(&self.new_query(self.settings.clone()))?;
        let provider = self.open_table(&state, &identity, &data, &storage)?;
        if !data.rows.is_empty() {
            let source = datafusion::datasource::MemTable::try_new(
                Arc::clone(&data.schema),
                vec![data.rows],
            )?;
            let source_plan = source.scan(&state, None, &[], None).await?;
            let insert = provider
                .insert_into(&state, source_plan, InsertOp::Append)
                .await?;
            collect(insert, task_context(&state)).await?;
        }
        if self.attaching.is_none() && !create.temporary {
            self.engine.data_path.store_table(&identity.stored())?;
        }
        schema_provider.register_table(table, Arc::clone(&provider))?;
        if self.attaching.is_some() {
            self.resume_table_mutations(&identity, provider).await;
        }
        self.done()
    }

    /// `CREATE OR REPLACE TABLE` of a table that exists: the new table is
    /// made under a name of its own, then takes the name.
    async fn create_or_replace(
        &mut self,
        mut create: CreateTable,
        engine: Option<EngineClause>,
        clauses: ColumnClauses,
    ) -> Result<StatementOutcome> {
        let name = create.name.clone();
        let (database, _) = self.table_name(&name)?;
        let created = ObjectName::from(vec![
            Ident::new(database),
            Ident::new(format!("_replacing_{}", uuid::Uuid::new_v4().simple())),
        ]);
        create.name = created.clone();
        create.or_replace = false;
        Box::pin(self.create_table(create, engine, clauses)).await?;
        self.replace_table(&created, &name).await?;
        self.done()
    }

    /// Mutations a loaded MergeTree table's files hold carry on running.
    async fn resume_table_mutations(
        &self,
        identity: &TableIdentity,
        provider: Arc<dyn TableProvider>,
    ) {
        let any: Arc<dyn std::any::Any + Send + Sync> = provider;
        if let Ok(table) = any.downcast::<MergeTreeProvider>() {
            let name = ObjectName::from(vec![
                Ident::with_quote('`', identity.database.as_str()),
                Ident::with_quote('`', identity.name.as_str()),
            ]);
            self.resume_mutations(&table, &name).await;
        }
    }

    /// The columns of a new table: its column list, or the result of its
    /// `AS SELECT` with the rows that go in.
    async fn new_table_data(
        &self,
        create: &CreateTable,
        codecs: Vec<(usize, String)>,
    ) -> Result<NewTableData> {
        // A stored table's codecs were checked when declared.
        let source = match self.attaching {
            Some(_) => Codecs::Stored,
            None => Codecs::Declared {
                suspicious: self.settings.allow_suspicious_codecs(),
            },
        };
        let nullable = self.attaching.is_none() && self.settings.data_type_default_nullable();
        let columns = match nullable {
            true => &default_nullable(&create.columns),
            false => &create.columns,
        };
        let (mut fields, extras) = column_definitions(columns, codecs, source)?;
        self.infer_column_types(&mut fields, &extras)?;
        match &create.query {
            Some(query) => self.select_into_new_table(query).await,
            None if fields.is_empty() => Err(StrataError::new(
                ErrorCode::INCORRECT_QUERY,
                "CREATE TABLE needs columns or AS SELECT",
            )),
            None => Ok(NewTableData {
                schema: Arc::new(Schema::new(fields)),
                extras,
                rows: Vec::new(),
            }),
        }
    }

    /// The columns of a Merge table created without any: those of the
    /// tables it reads now, as `merge()` would read them.
    async fn merged_columns(&self, source: &MergeSource) -> Result<NewTableData> {
        let tables = self.merged_tables(source).await?;
        let text = union_query(&tables, None, false)?;
        let Statement::Query(query) = parse_statement(&text)?.statement else {
            unreachable!("a union of SELECTs is a query");
        };
        let (plan, _, _) = self
            .plan(Statement::Query(query), self.settings.clone())
            .await?;
        let schema: SchemaRef = Arc::new(plan.schema().as_arrow().clone());
        Ok(NewTableData {
            extras: vec![ColumnExtras::default(); schema.fields().len()],
            schema,
            rows: Vec::new(),
        })
    }

    async fn select_into_new_table(&self, query: &Query) -> Result<NewTableData> {
        let (plan, state, _) = self
            .plan(
                Statement::Query(Box::new(query.clone())),
                self.settings.clone(),
            )
            .await?;
        let physical = self.physical_plan(&state, &plan).await?;
        let rows = collect(physical, task_context(&state)).await?;
        let schema: SchemaRef = Arc::new(plan.schema().as_arrow().clone());
        Ok(NewTableData {
            extras: vec![ColumnExtras::default(); schema.fields().len()],
            schema,
            rows,
        })
    }

    /// The table object: a Memory or Null table, a File or S3 table, or a
    /// MergeTree table over its directory (opening the parts already there).
    fn open_table(
        &self,
        state: &SessionState,
        identity: &TableIdentity,
        data: &NewTableData,
        storage: &TableStorage,
    ) -> Result<Arc<dyn TableProvider>> {
        let schema = &data.schema;
        let defaults = self.column_defaults(state, schema, &data.extras)?;
        let definition = match storage {
            TableStorage::Memory | TableStorage::Null => {
                let engine = match storage {
                    TableStorage::Memory => MemoryEngine::Memory,
                    _ => MemoryEngine::Null,
                };
                return Ok(Arc::new(MemoryTable::new(
                    Arc::clone(schema),
                    identity.clone(),
                    defaults,
                    engine,
                    Vec::new(),
                )?));
            }
            TableStorage::Buffer(definition) => {
                let fills = constant_defaults(state, schema, &data.extras, &defaults)?;
                return Ok(Arc::new(BufferTable::open(
                    identity.clone(),
                    Arc::clone(schema),
                    defaults,
                    fills,
                    definition.clone(),
                    Arc::clone(&self.engine.catalog),
                )));
            }
            TableStorage::Merge(source) => {
                return Ok(Arc::new(MergeTable::new(
                    identity.clone(),
                    source.clone(),
                    Arc::clone(schema),
                )));
            }
            TableStorage::Keyed(definition) => {
                let (rows, kept) = KeyedRows::open(
                    definition.clone(),
                    Arc::clone(schema),
                    &self.engine.data_path.table_data(&identity.uuid),
                )?;
                return Ok(Arc::new(MemoryTable::new(
                    Arc::clone(schema),
                    identity.clone(),
                    defaults,
                    MemoryEngine::Keyed(Arc::new(rows)),
                    kept,
                )?));
            }
            TableStorage::External(definition) => {
                let user_files = UserFiles::from_setting(
                    &self.engine.instance.server_settings.user_files_path(),
                );
                return Ok(Arc::new(ExternalTable::open(
                    Arc::clone(schema),
                    identity.clone(),
                    defaults,
                    definition,
                    &self.engine.data_path.table_data(&identity.uuid),
                    &user_files,
                )?));
            }
            TableStorage::Parts(definition) => definition,
        };
        let dir = self.engine.data_path.table_data(&identity.uuid);
        let mut compiled = definition.clone();
        self.rewrite_exprs(&mut compiled.partition_by)?;
        self.rewrite_exprs(&mut compiled.order_by)?;
        let mut index_exprs: Vec<_> = compiled.indexes.iter().map(|i| i.expr.clone()).collect();
        self.rewrite_exprs(&mut index_exprs)?;
        for (index, expr) in compiled.indexes.iter_mut().zip(index_exprs) {
            index.expr = expr;
        }
        compiled.check_index_exprs(state, schema)?;
        let keys = compiled.compile_keys(state, schema)?;
        self.rewrite_exprs(compiled.sample_by.as_mut_slice())?;
        let sampling = compiled.compile_sampling(state, schema, definition)?;
        let mut settings = definition.settings.clone();
        settings.policy = self.table_policy(&definition.settings_text)?;
        let mut ttl_exprs: Vec<_> = compiled.ttl.iter().map(|rule| rule.expr.clone()).collect();
        self.rewrite_exprs(&mut ttl_exprs)?;
        for (rule, expr) in compiled.ttl.iter_mut().zip(ttl_exprs) {
            rule.expr = expr;
        }
        let ttl = compiled.compile_ttl(state, schema, &settings.policy)?;
        let dimensions_allowed = definition.settings_text.iter().any(|(name, value)| {
            name == "allow_dimensions_outside_sorting_key"
                && (value == "1" || value.eq_ignore_ascii_case("true"))
        });
        settings.merge_mode = definition.engine.merge_mode(
            schema,
            &keys.sorting_columns(),
            &keys.partition_columns,
            dimensions_allowed,
        )?;
        let table = MergeTreeTable::open(
            &dir,
            Arc::clone(schema),
            keys,
            column_codecs(&data.extras)?,
            PastColumns {
                fills: constant_defaults(state, schema, &data.extras, &defaults)?,
                convert: Some(past_type_conversion()),
            },
            self.merge_memory(identity),
            settings,
        )?
        .with_ttl(ttl)
        .with_part_log(self.engine.instance.part_log.for_table(
            &identity.database,
            &identity.name,
            identity.uuid,
        ));
        Ok(Arc::new(
            MergeTreeProvider::new(identity.clone(), definition.engine.clone(), table, defaults)
                .with_sampling(sampling),
        ))
    }

    /// The storage policy `SETTINGS storage_policy = 'p'` or `disk = 'd'`
    /// names (or `disk = disk(...)` defines), the default one without either.
    fn table_policy(&self, settings: &[(String, String)]) -> Result<Arc<StoragePolicy>> {
        let disks = &self.engine.instance.disks;
        let named = |name: &str| settings.iter().find(|(n, _)| n == name).map(|(_, v)| v);
        match (named("storage_policy"), named("disk")) {
            (Some(_), Some(_)) => Err(StrataError::new(
                ErrorCode::BAD_ARGUMENTS,
                "MergeTree settings `storage_policy` and `disk` cannot be specified at the same time",
            )),
            (Some(policy), None) => Ok(Arc::clone(disks.policy(policy)?)),
            (None, Some(disk)) if inline_disk::is_definition(disk) => {
                let disk = inline_disk::DiskDefinition::parse(disk)?.disk(disks)?;
                Ok(Arc::new(StoragePolicy::single(disk)))
            }
            (None, Some(disk)) => Ok(Arc::new(StoragePolicy::single(disks.disk(disk)?))),
            (None, None) => Ok(Arc::clone(disks.policy(DEFAULT_POLICY)?)),
        }
    }

    /// Fails as ClickHouse does for a CHECK constraint that does not
    /// compile over the table's columns (a column it names is missing).
    pub(crate) fn check_constraints(
        &self,
        constraints: &[TableConstraint],
        schema: &SchemaRef,
    ) -> Result<()> {
        let checked: Vec<&TableConstraint> = constraints.iter().filter(|c| !c.assume).collect();
        if checked.is_empty() {
            return Ok(());
        }
        let mut exprs: Vec<_> = checked.iter().map(|c| c.expr.clone()).collect();
        self.rewrite_exprs(&mut exprs)?;
        let state = self
            .engine
            .query_state(&self.new_query(self.settings.clone()))?;
        let rows = DFSchema::try_from(Arc::clone(schema))?;
        for expr in exprs {
            crate::sources::insert_checks::compile(&state, &rows, expr)?;
        }
        Ok(())
    }

    /// `exprs` with ClickHouse's meaning, as a SELECT's would get: function
    /// names resolved case-insensitively, `if` and friends rewritten.
    pub(crate) fn rewrite_exprs(
        &self,
        exprs: &mut [datafusion::sql::sqlparser::ast::Expr],
    ) -> Result<()> {
        use datafusion::sql::sqlparser::ast::{SelectItem, SetExpr};
        if exprs.is_empty() {
            return Ok(());
        }
        let list: Vec<String> = exprs.iter().map(expr_text).collect();
        let mut statement = parse_statement(&format!("SELECT {}", list.join(", ")))?.statement;
        self.rewrite(&mut statement, &self.settings)?;
        let not_a_key = |what: String| {
            StrataError::new(
                ErrorCode::BAD_ARGUMENTS,
                format!("{what} cannot be a table key expression"),
            )
        };
        let Statement::Query(query) = statement else {
            return Err(not_a_key(list.join(", ")));
        };
        let SetExpr::Select(select) = *query.body else {
            return Err(not_a_key(list.join(", ")));
        };
        if select.projection.len() != exprs.len() {
            return Err(not_a_key(list.join(", ")));
        }
        for (slot, item) in exprs.iter_mut().zip(select.projection) {
            match item {
                SelectItem::UnnamedExpr(expr) | SelectItem::ExprWithAlias { expr, .. } => {
                    *slot = expr
                }
                other => return Err(not_a_key(other.to_string())),
            }
        }
        Ok(())
    }

    /// Gives each column declared without a type (type Null) the type of
    /// its expression over the columns that have one, as ClickHouse types it.
    pub(crate) fn infer_column_types(
        &self,
        fields: &mut [datafusion::arrow::datatypes::Field],
        extras: &[ColumnExtras],
    ) -> Result<()> {
        use datafusion::arrow::datatypes::DataType;
        use datafusion::logical_expr::{EmptyRelation, LogicalPlan, LogicalPlanBuilder};
        if fields.iter().all(|f| f.data_type() != &DataType::Null) {
            return Ok(());
        }
        let state = self
            .engine
            .query_state(&self.new_query(self.settings.clone()))?;
        for i in 0..fields.len() {
            // A column declared `Nullable(Nothing)` is typed Null too, but
            // without a default to type it by: it keeps its type.
            let Some(default) = extras[i].default.clone() else {
                continue;
            };
            if fields[i].data_type() != &DataType::Null {
                continue;
            }
            let typed: Vec<_> = fields
                .iter()
                .filter(|f| f.data_type() != &DataType::Null)
                .cloned()
                .collect();
            let row = Arc::new(datafusion::common::DFSchema::try_from(Schema::new(typed))?);
            let mut expr = [default];
            self.rewrite_exprs(&mut expr)?;
            let [expr] = expr;
            let logical = state.create_logical_expr_from_sql_expr(
                datafusion::sql::sqlparser::ast::ExprWithAlias { expr, alias: None },
                &row,
            )?;
            let empty = LogicalPlan::EmptyRelation(EmptyRelation {
                produce_one_row: false,
                schema: row,
            });
            let plan = LogicalPlanBuilder::from(empty)
                .project(vec![logical])?
                .build()?;
            let plan = self.engine.rewriter.rewrite(plan, &self.settings)?;
            let typed = plan.schema().field(0);
            fields[i] = typed.as_ref().clone().with_name(fields[i].name());
        }
        Ok(())
    }

    /// Each column's `DEFAULT` as an expression of the column's type.
    pub(crate) fn column_defaults(
        &self,
        state: &SessionState,
        schema: &SchemaRef,
        extras: &[ColumnExtras],
    ) -> Result<HashMap<String, datafusion::logical_expr::Expr>> {
        // A default may refer to the row's other columns (`DEFAULT toDate(ts)`).
        let row = datafusion::common::DFSchema::try_from(schema.as_ref().clone())?;
        let mut defaults = HashMap::new();
        for (field, extra) in schema.fields().iter().zip(extras) {
            let Some(default) = &extra.default else {
                // Without a DEFAULT, an omitted column takes its type's
                // default value, NULL if it is Nullable.
                if !field.is_nullable()
                    && let Ok(zero) = strata_common::types::field_default_value(field)
                {
                    defaults.insert(field.name().clone(), datafusion::logical_expr::lit(zero));
                }
                continue;
            };
            // Read with ClickHouse's meaning, as a SELECT would read it; text
            // is read as CAST reads it (`Date DEFAULT '0000-00-00'`).
            let mut default = [default.clone()];
            if is_text(&default[0]) {
                let type_name = strata_common::types::field_type_name(field);
                default[0] = strata_sql::parser::parse_expr_text(&format!(
                    "CAST({}, {})",
                    default[0],
                    strata_sql::literal_text::quoted(&type_name)
                ))?;
            }
            self.rewrite_exprs(&mut default)?;
            let [default] = default;
            let expr = state.create_logical_expr_from_sql_expr(
                datafusion::sql::sqlparser::ast::ExprWithAlias {
                    expr: default,
                    alias: None,
                },
                &row,
            )?;
            let expr = datafusion::logical_expr::cast(expr, field.data_type().clone());
            defaults.insert(field.name().clone(), expr);
        }
        Ok(defaults)
    }

    /// A MergeTree table's merges each get a memory account on the server's
    /// budget, named after the table and the part being made.
    pub(crate) fn merge_memory(&self, identity: &TableIdentity) -> MergeMemory {
        let server = Arc::clone(&self.engine.instance.memory);
        let table = identity.qualified_name();
        Arc::new(move |what: &str| {
            let account = server.new_query(
                format!("{table}: {what}"),
                strata_memory::QueryLimits::default(),
            );
            account as Arc<dyn datafusion::execution::memory_pool::MemoryPool>
        })
    }
}

/// The columns a column list declares (`(a UInt8 DEFAULT 1, ...)`), read
/// as a CREATE TABLE's: a dictionary's.
pub(crate) fn create_table_columns(
    columns: &str,
) -> Result<(Vec<datafusion::arrow::datatypes::Field>, Vec<ColumnExtras>)> {
    let create =
        create_table_statement(&format!("CREATE TABLE _columns {columns} ENGINE = Memory"))?;
    column_definitions(
        &create.columns,
        Vec::new(),
        Codecs::Declared { suspicious: false },
    )
}

/// `data_type_default_nullable = 1`: a column declared with a type and
/// neither `NULL` nor `NOT NULL` is Nullable, as if declared `NULL`.
fn default_nullable(columns: &[ColumnDef]) -> Vec<ColumnDef> {
    let mut columns = columns.to_vec();
    for column in &mut columns {
        let type_text = strata_sql::literal_text::type_text(&column.data_type);
        let says_null = column
            .options
            .iter()
            .any(|o| matches!(o.option, ColumnOption::Null | ColumnOption::NotNull));
        if says_null
            || type_text.starts_with("Nullable(")
            || type_text == strata_sql::create_table::INFERRED_TYPE
        {
            continue;
        }
        column.options.push(ColumnOptionDef {
            name: None,
            option: ColumnOption::Null,
        });
    }
    columns
}

fn create_table_statement(text: &str) -> Result<CreateTable> {
    match parse_statement(text)?.statement {
        Statement::CreateTable(create) => Ok(create),
        other => Err(StrataError::new(
            ErrorCode::SYNTAX_ERROR,
            format!("Syntax error: expected CREATE TABLE, got {other}"),
        )),
    }
}

/// `EMPTY AS SELECT`: with a column list the query is not needed; without
/// one it still gives the columns, under `LIMIT 0`.
fn take_no_rows(create: &mut CreateTable) {
    if !create.columns.is_empty() {
        create.query = None;
    } else if let Some(query) = &mut create.query {
        query.limit_clause = Some(LimitClause::LimitOffset {
            limit: Some(Expr::value(Value::Number("0".to_string(), false))),
            offset: None,
            limit_by: Vec::new(),
        });
    }
}

/// The storage an ENGINE clause names (Memory for a temporary table
/// without one).
fn table_engine(
    engine: Option<EngineClause>,
    temporary: bool,
    default_engine: &str,
) -> Result<TableStorage> {
    if temporary {
        temporary::check_engine(engine.as_ref())?;
    }
    let mut engine = match engine {
        Some(engine) => engine,
        None if temporary => EngineClause::memory(),
        None => EngineClause::named(DEFAULT_ENGINE),
    };
    if engine.name == DEFAULT_ENGINE {
        if default_engine == "None" {
            return Err(StrataError::new(
                ErrorCode::ENGINE_REQUIRED,
                "Table engine is not specified in CREATE query",
            ));
        }
        engine.name = default_engine.to_string();
    }
    match engine.name.as_str() {
        other if CLICKHOUSE_ENGINES.contains(&other) => Err(StrataError::new(
            ErrorCode::NOT_IMPLEMENTED,
            format!(
                "Table engine {other} is not supported yet (system.table_engines lists those that are)"
            ),
        )),
        _ => TableStorage::from_clause(&engine),
    }
}

/// `CREATE TABLE t AS function(args)` as a view of the function's rows:
/// reading `t` calls the function each time, as ClickHouse's table of
/// engine `TableFunction` does.
fn function_view(statement: &str, function: &str) -> Result<String> {
    let upper = statement.to_ascii_uppercase();
    let Some(at) = upper.find("TABLE") else {
        return Err(StrataError::new(
            ErrorCode::SYNTAX_ERROR,
            "Expected TABLE after CREATE",
        ));
    };
    let head = format!(
        "{}VIEW{}",
        &statement[..at],
        &statement[at + "TABLE".len()..]
    );
    Ok(format!("{} AS SELECT * FROM {function}", head.trim_end()))
}

fn is_text(expr: &Expr) -> bool {
    matches!(expr, Expr::Value(v) if matches!(v.value, Value::SingleQuotedString(_)))
}

/// The value of each constant DEFAULT: what a part written before its
/// column was added reads for it. A DEFAULT that depends on other columns
/// is left out (such parts read the type's default).
pub(crate) fn constant_defaults(
    state: &SessionState,
    schema: &SchemaRef,
    extras: &[ColumnExtras],
    defaults: &HashMap<String, datafusion::logical_expr::Expr>,
) -> Result<HashMap<String, ScalarValue>> {
    use datafusion::logical_expr::ColumnarValue;
    let empty = datafusion::common::DFSchema::empty();
    let one_row = RecordBatch::try_new_with_options(
        Arc::new(Schema::empty()),
        vec![],
        &RecordBatchOptions::new().with_row_count(Some(1)),
    )?;
    let mut values = HashMap::new();
    for (field, extra) in schema.fields().iter().zip(extras) {
        let Some(expr) = defaults.get(field.name()) else {
            continue;
        };
        if extra.default.is_none() || !expr.column_refs().is_empty() {
            continue;
        }
        let physical = state.create_physical_expr(expr.clone(), &empty)?;
        let value = match physical.evaluate(&one_row)? {
            ColumnarValue::Scalar(value) => value,
            ColumnarValue::Array(array) => ScalarValue::try_from_array(&array, 0)?,
        };
        values.insert(field.name().clone(), value);
    }
    Ok(values)
}

/// `a String PRIMARY KEY`, or `PRIMARY KEY (a, b)` among the columns: the
/// columns named so are the table's primary key, and its sorting key when
/// it names none, as in ClickHouse.
fn column_primary_key(create: &mut CreateTable, engine: &mut Option<EngineClause>) -> Result<()> {
    use datafusion::sql::sqlparser::ast::{ColumnOption, TableConstraint};
    let mut keys = Vec::new();
    for column in &mut create.columns {
        let before = column.options.len();
        column
            .options
            .retain(|o| !matches!(o.option, ColumnOption::PrimaryKey(_)));
        if column.options.len() != before {
            keys.push(Expr::Identifier(column.name.clone()));
        }
    }
    create.constraints.retain(|constraint| {
        let TableConstraint::PrimaryKey(key) = constraint else {
            return true;
        };
        keys.extend(key.columns.iter().map(|c| c.column.expr.clone()));
        false
    });
    let key = match keys.len() {
        0 => return Ok(()),
        1 => keys.remove(0),
        _ => Expr::Tuple(keys),
    };
    let engine = engine.get_or_insert_with(|| EngineClause::named(DEFAULT_ENGINE));
    if engine.primary_key.is_some() {
        return Err(StrataError::new(
            ErrorCode::BAD_ARGUMENTS,
            "Multiple primary keys are not allowed",
        ));
    }
    engine.order_by.get_or_insert_with(|| key.clone());
    engine.primary_key = Some(key);
    Ok(())
}
