//! The `Merge` table engine and the `merge()` table function: the tables
//! whose database and name match patterns, read as one. A statement that
//! reads one has it replaced before planning, as a view is, by a UNION ALL
//! of one SELECT per table (see [`union_query`]), resolved against the
//! tables there are when it runs, as in ClickHouse. The provider holds the
//! patterns and the columns, for DESCRIBE and system.columns.

use std::sync::Arc;

use async_trait::async_trait;
use datafusion::arrow::datatypes::{Field, Schema, SchemaRef};
use datafusion::catalog::{Session, TableProvider};
use datafusion::common::Result as DfResult;
use datafusion::logical_expr::dml::InsertOp;
use datafusion::logical_expr::{Expr, TableType};
use datafusion::physical_plan::ExecutionPlan;
use datafusion::sql::sqlparser::ast::{Expr as SqlExpr, Value};
use parking_lot::RwLock;
use regex::Regex;
use strata_common::types::field_type_name;
use strata_common::{ErrorCode, Result, StrataError};
use strata_sql::literal_text::{quoted, string_value, unnamed_arguments};

use crate::table_definition::{TableIdentity, quote_name};

/// The virtual columns a merge read has, when the statement names them.
pub const VIRTUAL_COLUMNS: [&str; 2] = ["_database", "_table"];

/// Which databases a merge reads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DatabasePattern {
    Name(String),
    /// `REGEXP('pattern')`.
    Regexp(String),
}

/// The databases and tables a merge reads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MergeSource {
    pub database: DatabasePattern,
    /// A regular expression a table's name must match (anywhere in it).
    pub tables: String,
}

impl MergeSource {
    /// `Merge(database, 'tables')` or `merge([database,] 'tables')`;
    /// `currentDatabase()` and a missing database are `current`.
    pub fn from_arguments(
        function: &str,
        arguments: &[SqlExpr],
        current: &str,
    ) -> Result<MergeSource> {
        let (database, tables) = match arguments {
            [tables] if function == "merge" => (None, tables),
            [database, tables] => (Some(database), tables),
            _ => {
                return Err(StrataError::new(
                    ErrorCode::NUMBER_OF_ARGUMENTS_DOESNT_MATCH,
                    format!(
                        "{function} requires 2 parameters: a database name or REGEXP('pattern') and a pattern of table names"
                    ),
                ));
            }
        };
        let tables = string_value(tables).ok_or_else(|| bad_argument(function, "second"))?;
        Regex::new(&tables).map_err(|e| bad_regexp(&tables, e))?;
        let database = match database {
            None => DatabasePattern::Name(current.to_string()),
            Some(expr) => {
                database_pattern(expr, current).ok_or_else(|| bad_argument(function, "first"))?
            }
        };
        if let DatabasePattern::Regexp(pattern) = &database {
            Regex::new(pattern).map_err(|e| bad_regexp(pattern, e))?;
        }
        Ok(MergeSource { database, tables })
    }

    /// The engine clause as SHOW CREATE TABLE prints it.
    pub fn clause_text(&self) -> String {
        let database = match &self.database {
            DatabasePattern::Name(name) => quoted(name),
            DatabasePattern::Regexp(pattern) => format!("REGEXP({})", quoted(pattern)),
        };
        format!("ENGINE = Merge({database}, {})", quoted(&self.tables))
    }

    pub fn matches_database(&self, database: &str) -> bool {
        match &self.database {
            DatabasePattern::Name(name) => name == database,
            DatabasePattern::Regexp(pattern) => {
                Regex::new(pattern).is_ok_and(|re| re.is_match(database))
            }
        }
    }

    pub fn matches_table(&self, table: &str) -> bool {
        Regex::new(&self.tables).is_ok_and(|re| re.is_match(table))
    }
}

/// Writes `currentDatabase()` in a Merge or Buffer clause's arguments as
/// the name `current`, as ClickHouse stores it.
pub fn name_current_database(arguments: &mut [SqlExpr], current: &str) {
    for argument in arguments {
        if matches!(
            database_pattern(argument, current),
            Some(DatabasePattern::Name(_))
        ) && matches!(argument, SqlExpr::Function(_))
        {
            *argument = SqlExpr::value(Value::SingleQuotedString(current.to_string()));
        }
    }
}

fn database_pattern(expr: &SqlExpr, current: &str) -> Option<DatabasePattern> {
    match expr {
        SqlExpr::Identifier(ident) => Some(DatabasePattern::Name(ident.value.clone())),
        SqlExpr::Function(f) => {
            let name = f.name.to_string();
            let args = unnamed_arguments(&f.args);
            match (name.as_str(), args.as_slice()) {
                ("currentDatabase", []) => Some(DatabasePattern::Name(current.to_string())),
                (regexp, [pattern]) if regexp.eq_ignore_ascii_case("REGEXP") => {
                    string_value(pattern).map(DatabasePattern::Regexp)
                }
                _ => None,
            }
        }
        other => string_value(other).map(DatabasePattern::Name),
    }
}

fn bad_argument(function: &str, which: &str) -> StrataError {
    StrataError::new(
        ErrorCode::BAD_ARGUMENTS,
        format!(
            "The {which} argument of {function} must be a database name, a string or REGEXP('pattern') (first) or a string pattern (second)"
        ),
    )
}

fn bad_regexp(pattern: &str, error: regex::Error) -> StrataError {
    StrataError::new(
        ErrorCode::CANNOT_COMPILE_REGEXP,
        format!("Cannot compile regexp {pattern}: {error}"),
    )
}

/// A table a merge reads: its database, name and columns.
pub struct MergedTable {
    pub database: String,
    pub name: String,
    pub schema: SchemaRef,
}

/// The query a merge read stands for: per table, its columns of `columns`
/// cast to their type there (a column it lacks reads as the type's
/// default), with `_database` and `_table` when `virtuals`; all under
/// UNION ALL. `columns` None takes each name where it first appears, in
/// the order of `tables`, and leaves the types to UNION ALL's supertype.
pub fn union_query(
    tables: &[MergedTable],
    columns: Option<&Schema>,
    virtuals: bool,
) -> Result<String> {
    let declared = columns.is_some();
    let columns = match columns {
        Some(schema) => schema.fields().iter().map(|f| f.as_ref().clone()).collect(),
        None => inferred_columns(tables)?,
    };
    let selects: Vec<String> = tables
        .iter()
        .map(|table| {
            let mut items: Vec<String> = columns
                .iter()
                .map(|column| read_column(table, column, declared))
                .collect();
            if virtuals {
                items.push(format!(
                    "toLowCardinality({}) AS _database",
                    quoted(&table.database)
                ));
                items.push(format!(
                    "toLowCardinality({}) AS _table",
                    quoted(&table.name)
                ));
            }
            format!(
                "SELECT {} FROM {}.{}",
                items.join(", "),
                quote_name(&table.database),
                quote_name(&table.name)
            )
        })
        .collect();
    if selects.is_empty() {
        let mut items: Vec<String> = columns
            .iter()
            .map(|c| format!("{} AS {}", default_of(c), quote_name(c.name())))
            .collect();
        if virtuals {
            items.extend(
                VIRTUAL_COLUMNS
                    .iter()
                    .map(|v| format!("toLowCardinality('') AS {v}")),
            );
        }
        return Ok(format!("SELECT {} WHERE 0", items.join(", ")));
    }
    Ok(selects.join(" UNION ALL "))
}

fn default_of(column: &Field) -> String {
    format!(
        "defaultValueOfTypeName({})",
        quoted(&field_type_name(column))
    )
}

/// `column` as `table` reads it.
fn read_column(table: &MergedTable, column: &Field, declared: bool) -> String {
    let name = quote_name(column.name());
    match table.schema.field_with_name(column.name()) {
        Err(_) => format!("{} AS {name}", default_of(column)),
        Ok(own) if !declared || field_type_name(own) == field_type_name(column) => name,
        Ok(_) => format!(
            "_CAST({name}, {}) AS {name}",
            quoted(&field_type_name(column))
        ),
    }
}

fn inferred_columns(tables: &[MergedTable]) -> Result<Vec<Field>> {
    if tables.is_empty() {
        return Err(StrataError::new(
            ErrorCode::CANNOT_EXTRACT_TABLE_STRUCTURE,
            "There are no tables satisfied provided regexp, you must specify table structure manually",
        ));
    }
    let mut columns: Vec<Field> = Vec::new();
    for table in tables {
        for field in table.schema.fields() {
            if !columns.iter().any(|c| c.name() == field.name()) {
                columns.push(field.as_ref().clone());
            }
        }
    }
    Ok(columns)
}

/// A `Merge` table: its patterns and columns.
#[derive(Debug)]
pub struct MergeTable {
    identity: RwLock<TableIdentity>,
    pub source: MergeSource,
    schema: SchemaRef,
}

impl MergeTable {
    pub fn new(identity: TableIdentity, source: MergeSource, schema: SchemaRef) -> MergeTable {
        MergeTable {
            identity: RwLock::new(identity),
            source,
            schema,
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
impl TableProvider for MergeTable {
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
    ) -> DfResult<Arc<dyn ExecutionPlan>> {
        unreachable!("a Merge table is replaced by its tables' union before planning")
    }

    async fn insert_into(
        &self,
        _state: &dyn Session,
        _input: Arc<dyn ExecutionPlan>,
        _insert_op: InsertOp,
    ) -> DfResult<Arc<dyn ExecutionPlan>> {
        Err(super::write_refused("Merge"))
    }
}
