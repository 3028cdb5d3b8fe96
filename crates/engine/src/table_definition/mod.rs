//! From a `CREATE TABLE` to a table: the engine clause checked and compiled
//! (keys to physical expressions, codecs, table settings), and the
//! definition written back as the one canonical statement that
//! `SHOW CREATE TABLE` prints and the data path stores for restarts.

use std::sync::Arc;

use datafusion::arrow::datatypes::{DataType, Field, Schema, SchemaRef};
use datafusion::common::DFSchema;
use datafusion::execution::session_state::SessionState;
use datafusion::logical_expr::ExprSchemable;
use datafusion::physical_expr::PhysicalExpr;
use datafusion::sql::sqlparser::ast::{
    ArrayElemTypeDef, ColumnDef, ColumnOption, DataType as SqlDataType, Expr as SqlExpr,
    ExprWithAlias, Ident, Value,
};
use strata_common::pretty_types::{Spread, pretty_type_name};
use strata_common::types::{clickhouse_type_name, field_type_name, parse_clickhouse_type};
use strata_common::{ErrorCode, Result, StrataError};
use strata_sql::EngineClause;
use strata_sql::constraints::TableConstraint;
use strata_sql::literal_text::{expr_text, quoted};
use strata_sql::skip_index::SkipIndex;
use strata_sql::ttl::{TtlAction, TtlRule};
use strata_storage::compression::CodecChain;
use strata_storage::disk::StoragePolicy;
use strata_storage::merge_tree::{Conversion, MergeTreeSettings, TableKeys, TableTtl, TtlTarget};
use uuid::Uuid;

use datafusion::catalog::TableProvider;

pub(crate) mod inline_disk;
mod skip_index;

use crate::data_path::StoredTable;
use crate::sources::buffer_table::BufferDefinition;
use crate::sources::memory_table::MemoryTable;
use crate::sources::merge_table::MergeSource;
use crate::sources::merge_tree_table::MergeTreeProvider;
use crate::sources::sampling::SamplingKey;
use crate::sources::set_and_join::KeyedDefinition;
use crate::table_engine::TableEngine;

/// How a column gets its values: ClickHouse's `default_kind`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum ColumnKind {
    /// Stored; an INSERT may give it, or it takes its `DEFAULT`.
    #[default]
    Ordinary,
    /// Stored, always computed from the row at INSERT; `*` leaves it out.
    Materialized,
    /// Not stored: its expression is read in its place.
    Alias,
    /// Not stored: an INSERT may give it for other columns' defaults.
    Ephemeral,
}

impl ColumnKind {
    pub fn is_stored(self) -> bool {
        matches!(self, ColumnKind::Ordinary | ColumnKind::Materialized)
    }

    /// The column's default kind as DESCRIBE shows it (`DEFAULT` for an
    /// ordinary column with a default expression).
    pub fn keyword(self) -> &'static str {
        match self {
            ColumnKind::Ordinary => "DEFAULT",
            ColumnKind::Materialized => "MATERIALIZED",
            ColumnKind::Alias => "ALIAS",
            ColumnKind::Ephemeral => "EPHEMERAL",
        }
    }
}

/// One column as declared: its kind, default expression, comment and
/// `CODEC` as written.
#[derive(Debug, Clone, Default)]
pub struct ColumnExtras {
    pub kind: ColumnKind,
    pub default: Option<SqlExpr>,
    pub comment: Option<String>,
    pub codec: Option<String>,
}

/// Where a CREATE statement's codecs come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Codecs {
    /// Written by the user: each must suit its column's type, and compress
    /// unless `allow_suspicious_codecs` is on (`suspicious`).
    Declared { suspicious: bool },
    /// A table's kept definition: checked when declared (a later change of
    /// the column's type keeps them, as in ClickHouse).
    Stored,
}

/// The columns of a CREATE statement as Arrow fields and their extras;
/// `codecs` are the CODEC clauses cut from the text, by column position.
pub fn column_definitions(
    columns: &[ColumnDef],
    codecs: Vec<(usize, String)>,
    source: Codecs,
) -> Result<(Vec<Field>, Vec<ColumnExtras>)> {
    let mut fields: Vec<Field> = Vec::new();
    let mut extras = Vec::new();
    if let Some(position) = codecs.iter().map(|(p, _)| *p).find(|p| {
        columns
            .get(*p)
            .is_some_and(|c| matches!(c.data_type, SqlDataType::Nested(_)))
    }) {
        return Err(StrataError::new(
            ErrorCode::NOT_IMPLEMENTED,
            format!(
                "CODEC of the Nested column {} is not supported yet",
                columns[position].name
            ),
        ));
    }
    let codecs = codecs_after_nested(columns, codecs);
    for column in flatten_nested(columns)? {
        let (field, extra) = column_definition(&column)?;
        if fields.iter().any(|f| f.name() == field.name()) {
            return Err(StrataError::new(
                ErrorCode::ILLEGAL_COLUMN,
                format!(
                    "Cannot add column {}: column with this name already exists",
                    field.name()
                ),
            ));
        }
        fields.push(field);
        extras.push(extra);
    }
    for (position, codec) in codecs {
        let (Some(field), Some(extra)) = (fields.get(position), extras.get_mut(position)) else {
            return Err(StrataError::new(
                ErrorCode::SYNTAX_ERROR,
                "CODEC outside a column definition",
            ));
        };
        // Kept as ClickHouse shows it: `Delta(8), ZSTD(1)`.
        let chain = match source {
            Codecs::Declared { suspicious: false } => {
                CodecChain::parse(&codec, &field_type_name(field))?
            }
            Codecs::Declared { suspicious: true } => {
                CodecChain::parse_suspicious(&codec, &field_type_name(field))?
            }
            Codecs::Stored => CodecChain::stored(&codec)?,
        };
        extra.codec = Some(chain.sql());
    }
    Ok((fields, extras))
}

/// The columns with each `n Nested(a T, b U)` as ClickHouse stores it
/// (`flatten_nested = 1`): the columns `n.a Array(T)` and `n.b Array(U)`,
/// arrays of one length per row.
pub fn flatten_nested(columns: &[ColumnDef]) -> Result<Vec<ColumnDef>> {
    let mut flat = Vec::with_capacity(columns.len());
    for column in columns {
        let SqlDataType::Nested(elements) = &column.data_type else {
            flat.push(column.clone());
            continue;
        };
        if !column.options.is_empty() {
            return Err(StrataError::new(
                ErrorCode::NOT_IMPLEMENTED,
                format!(
                    "Options of the Nested column {} are not supported yet",
                    column.name
                ),
            ));
        }
        for element in elements {
            if matches!(element.data_type, SqlDataType::Nested(_)) {
                return Err(StrataError::new(
                    ErrorCode::NOT_IMPLEMENTED,
                    format!(
                        "Nested inside the Nested column {} is not supported yet",
                        column.name
                    ),
                ));
            }
            let mut element = element.clone();
            element.name = Ident::new(format!("{}.{}", column.name.value, element.name.value));
            element.data_type =
                SqlDataType::Array(ArrayElemTypeDef::Parenthesis(Box::new(element.data_type)));
            flat.push(element);
        }
    }
    Ok(flat)
}

/// Codec positions moved past the columns Nested ones flatten into.
fn codecs_after_nested(
    columns: &[ColumnDef],
    codecs: Vec<(usize, String)>,
) -> Vec<(usize, String)> {
    let width = |c: &ColumnDef| match &c.data_type {
        SqlDataType::Nested(elements) => elements.len(),
        _ => 1,
    };
    codecs
        .into_iter()
        .map(|(position, codec)| {
            let before: usize = columns.iter().take(position).map(width).sum();
            (before, codec)
        })
        .collect()
}

/// Whether a column of type `data_type` can be stored: ClickHouse refuses
/// `Nothing` as the type or, through arrays, its elements' type
/// (`Nullable(Nothing)`, `Array(Nothing)`), which hold no value; inside a
/// Map or a Tuple it is allowed.
pub fn storable(data_type: &DataType) -> bool {
    match data_type {
        DataType::Null => false,
        DataType::List(item) | DataType::LargeList(item) | DataType::FixedSizeList(item, _) => {
            storable(item.data_type())
        }
        _ => true,
    }
}

/// A new column of a type that cannot be stored, in ClickHouse's words.
pub fn unstorable(field: &Field) -> StrataError {
    StrataError::new(
        ErrorCode::DATA_TYPE_CANNOT_BE_USED_IN_TABLES,
        format!(
            "Data type {} of column '{}' cannot be used in tables",
            field_type_name(field),
            field.name()
        ),
    )
}

/// One column definition: its type as an Arrow field, and its DEFAULT.
/// A column declared without a type (`b DEFAULT a + 1`) has type Null
/// until [`infer`](crate::statements) gives it its expression's.
pub fn column_definition(column: &ColumnDef) -> Result<(Field, ColumnExtras)> {
    let type_text = strata_sql::literal_text::type_text(&column.data_type);
    let mut extra = ColumnExtras::default();
    let mut null_modifier = false;
    for option in &column.options {
        match &option.option {
            ColumnOption::Default(expr) => extra.default = Some(expr.clone()),
            ColumnOption::Materialized(expr) => {
                extra.kind = ColumnKind::Materialized;
                extra.default = Some(expr.clone());
            }
            ColumnOption::Alias(expr) => {
                extra.kind = ColumnKind::Alias;
                extra.default = Some(expr.clone());
            }
            ColumnOption::Ephemeral(expr) => {
                extra.kind = ColumnKind::Ephemeral;
                extra.default = expr.clone();
            }
            ColumnOption::Comment(text) => extra.comment = Some(text.clone()),
            ColumnOption::Null | ColumnOption::NotNull if type_text.starts_with("Nullable(") => {
                return Err(StrataError::new(
                    ErrorCode::ILLEGAL_SYNTAX_FOR_DATA_TYPE,
                    "Can't use [NOT] NULL modifier with Nullable type",
                ));
            }
            // `s String NULL` is a Nullable(String) column, as in ClickHouse.
            ColumnOption::Null => null_modifier = true,
            ColumnOption::NotNull => {}
            other => {
                return Err(StrataError::new(
                    ErrorCode::NOT_IMPLEMENTED,
                    format!("Column option {other} is not supported yet"),
                ));
            }
        }
    }
    let name = column.name.value.clone();
    if type_text == strata_sql::create_table::INFERRED_TYPE {
        if extra.default.is_none() {
            return Err(StrataError::new(
                ErrorCode::SYNTAX_ERROR,
                format!("Column {name} needs a type or a default expression"),
            ));
        }
        return Ok((Field::new(name, DataType::Null, true), extra));
    }
    let type_text = match null_modifier {
        true => format!("Nullable({type_text})"),
        false => type_text,
    };
    Ok((parse_clickhouse_type(&type_text)?.field(name), extra))
}

/// A column as DESCRIBE and `system.columns` show it.
#[derive(Debug, Clone, Default)]
pub struct ColumnDescription {
    pub name: String,
    pub type_name: String,
    /// `DEFAULT`, `MATERIALIZED`, `ALIAS`, `EPHEMERAL` or empty.
    pub default_kind: &'static str,
    pub default_expression: String,
    pub comment: String,
    /// The codec as written, without `CODEC(...)` around it.
    pub codec: String,
}

impl ColumnDescription {
    pub fn plain(field: &Field) -> Self {
        ColumnDescription {
            name: field.name().clone(),
            type_name: field_type_name(field),
            ..Default::default()
        }
    }

    fn declared(field: &Field, extra: &ColumnExtras) -> Self {
        let (default_kind, default_expression) = match default_text(field, extra) {
            Some(text) => (extra.kind.keyword(), text),
            None => ("", String::new()),
        };
        ColumnDescription {
            default_kind,
            default_expression,
            comment: extra.comment.clone().unwrap_or_default(),
            codec: extra.codec.clone().unwrap_or_default(),
            ..Self::plain(field)
        }
    }

    /// A table's columns: a user table's as declared, any other's as its
    /// schema has them.
    pub fn of_table(table: &Arc<dyn TableProvider>) -> Result<Vec<ColumnDescription>> {
        let any = table.as_ref() as &dyn std::any::Any;
        let identity = match (
            any.downcast_ref::<MemoryTable>(),
            any.downcast_ref::<MergeTreeProvider>(),
        ) {
            (Some(memory), _) => Some(memory.identity()),
            (_, Some(merge_tree)) => Some(merge_tree.identity()),
            _ => None,
        };
        Ok(match identity {
            Some(identity) => identity
                .declared_columns()?
                .iter()
                .map(|(field, extra)| Self::declared(field, extra))
                .collect(),
            None => table
                .schema()
                .fields()
                .iter()
                .map(|f| Self::plain(f))
                .collect(),
        })
    }
}

/// A column's default expression as written, or for an EPHEMERAL column
/// without one its type's default, as ClickHouse shows it.
pub fn default_text(field: &Field, extra: &ColumnExtras) -> Option<String> {
    match (&extra.default, extra.kind) {
        (Some(expr), _) => Some(expr_text(expr)),
        (None, ColumnKind::Ephemeral) => Some(format!(
            "defaultValueOfTypeName('{}')",
            field_type_name(field)
        )),
        (None, _) => None,
    }
}

/// The columns a table stores (not ALIAS or EPHEMERAL ones) and their
/// extras. A default that reads an EPHEMERAL column is left out: only an
/// INSERT's rows have that column, and the INSERT computes it.
pub fn stored_columns(
    schema: &SchemaRef,
    extras: &[ColumnExtras],
) -> (SchemaRef, Vec<ColumnExtras>) {
    let ephemeral: Vec<String> = schema
        .fields()
        .iter()
        .zip(extras)
        .filter(|(_, extra)| extra.kind == ColumnKind::Ephemeral)
        .map(|(field, _)| field.name().clone())
        .collect();
    let (fields, extras): (Vec<Field>, Vec<ColumnExtras>) = schema
        .fields()
        .iter()
        .zip(extras)
        .filter(|(_, extra)| extra.kind.is_stored())
        .map(|(field, extra)| {
            let mut extra = extra.clone();
            if extra
                .default
                .as_ref()
                .is_some_and(|e| names_any(e, &ephemeral))
            {
                extra.default = None;
            }
            (field.as_ref().clone(), extra)
        })
        .unzip();
    (Arc::new(Schema::new(fields)), extras)
}

/// Whether `expr` names one of `columns`.
pub fn names_any(expr: &SqlExpr, columns: &[String]) -> bool {
    let names: Vec<&str> = columns.iter().map(String::as_str).collect();
    !names.is_empty() && strata_sql::virtual_columns::names_column(expr, &names)
}

/// Where a table's rows go: kept in RAM, dropped, or written as parts.
#[derive(Debug, Clone)]
pub enum TableStorage {
    Memory,
    /// ClickHouse's `Null` engine: inserts pass to materialized views and
    /// are not kept.
    Null,
    Parts(MergeTreeDefinition),
    /// `File(...)` or `S3(...)`: rows in a file or objects, in a format.
    External(ExternalDefinition),
    /// `Set` or `Join(...)`: rows in RAM, unique by a key, and on disk.
    Keyed(KeyedDefinition),
    /// `Merge(database, 'tables')`: other tables read as one.
    Merge(MergeSource),
    /// `Buffer(database, table, ...)`: rows in RAM, written to another table in batches.
    Buffer(BufferDefinition),
}

impl TableStorage {
    /// The storage an ENGINE clause Strata has names.
    pub fn from_clause(engine: &EngineClause) -> Result<TableStorage> {
        let has_indexes = !engine.indexes.is_empty();
        match engine.name.as_str() {
            "Memory" | "Null" if has_indexes => Err(no_skip_indexes(&engine.name)),
            "Memory" => Ok(TableStorage::Memory),
            "Null" => Ok(TableStorage::Null),
            "Set" | "Join" if has_indexes => Err(no_skip_indexes(&engine.name)),
            "Set" | "Join" => Ok(TableStorage::Keyed(KeyedDefinition::from_clause(engine)?)),
            "Merge" => Ok(TableStorage::Merge(merge_source(engine)?)),
            "Buffer" => Ok(TableStorage::Buffer(BufferDefinition::from_arguments(
                &engine.arguments,
            )?)),
            "File" | "S3" if has_indexes => Err(no_skip_indexes(&engine.name)),
            "File" => Ok(TableStorage::External(ExternalDefinition::from_clause(
                engine,
                ExternalEngine::File,
            )?)),
            "S3" => Ok(TableStorage::External(ExternalDefinition::from_clause(
                engine,
                ExternalEngine::S3,
            )?)),
            name if TableEngine::is_part_engine(name) => Ok(TableStorage::Parts(
                MergeTreeDefinition::from_clause(engine)?,
            )),
            other => Err(StrataError::new(
                ErrorCode::UNKNOWN_STORAGE,
                format!("Unknown table engine {other}"),
            )),
        }
    }

    pub fn parts(&self) -> Option<&MergeTreeDefinition> {
        match self {
            TableStorage::Parts(definition) => Some(definition),
            TableStorage::Memory
            | TableStorage::Null
            | TableStorage::External(_)
            | TableStorage::Keyed(_)
            | TableStorage::Merge(_)
            | TableStorage::Buffer(_) => None,
        }
    }

    /// The engine clause as SHOW CREATE TABLE prints it.
    fn clause_text(&self) -> String {
        match self {
            TableStorage::Memory => "ENGINE = Memory".to_string(),
            // NULL is a keyword, so ClickHouse quotes the name.
            TableStorage::Null => "ENGINE = `Null`".to_string(),
            TableStorage::Parts(definition) => definition.clause_text(),
            TableStorage::External(definition) => definition.clause_text(),
            TableStorage::Keyed(definition) => definition.clause_text(),
            TableStorage::Merge(source) => source.clause_text(),
            TableStorage::Buffer(definition) => definition.clause_text(),
        }
    }
}

/// A Merge clause's source; `currentDatabase()` was made a name when the
/// table was created ([`crate::sources::merge_table::name_current_database`]).
fn merge_source(engine: &EngineClause) -> Result<MergeSource> {
    let keyed = engine.partition_by.is_some()
        || engine.order_by.is_some()
        || engine.primary_key.is_some()
        || !engine.indexes.is_empty();
    if keyed {
        return Err(StrataError::new(
            ErrorCode::BAD_ARGUMENTS,
            "Engine Merge doesn't support PARTITION_BY, PRIMARY_KEY, ORDER_BY, SAMPLE_BY clauses or skipping indices",
        ));
    }
    MergeSource::from_arguments("Merge", &engine.arguments, "")
}

fn no_skip_indexes(engine: &str) -> StrataError {
    StrataError::new(
        ErrorCode::BAD_ARGUMENTS,
        format!("Engine {engine} doesn't support skipping indices"),
    )
}

/// The engines whose rows are kept outside parts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExternalEngine {
    File,
    S3,
}

/// A `File` or `S3` table's engine arguments, as written (checked).
#[derive(Debug, Clone)]
pub struct ExternalDefinition {
    pub engine: ExternalEngine,
    pub arguments: Vec<String>,
}

impl ExternalDefinition {
    fn from_clause(engine: &EngineClause, kind: ExternalEngine) -> Result<ExternalDefinition> {
        if engine.partition_by.is_some()
            || engine.order_by.is_some()
            || engine.primary_key.is_some()
        {
            return Err(StrataError::new(
                ErrorCode::BAD_ARGUMENTS,
                format!(
                    "Engine {} doesn't support PARTITION BY, ORDER BY or PRIMARY KEY clauses",
                    engine.name
                ),
            ));
        }
        let arguments = engine
            .arguments
            .iter()
            .map(|arg| match arg {
                SqlExpr::Identifier(word) => Ok(word.value.clone()),
                SqlExpr::Value(value) => match &value.value {
                    Value::SingleQuotedString(text) => Ok(text.clone()),
                    _ => Err(not_a_string(&engine.name, arg)),
                },
                _ => Err(not_a_string(&engine.name, arg)),
            })
            .collect::<Result<Vec<String>>>()?;
        match kind {
            ExternalEngine::File => check_file_arguments(&arguments)?,
            ExternalEngine::S3 => {
                crate::sources::s3_function::S3Arguments::of_engine_texts(arguments.clone())?;
            }
        }
        Ok(ExternalDefinition {
            engine: kind,
            arguments,
        })
    }

    fn clause_text(&self) -> String {
        let name = match self.engine {
            ExternalEngine::File => "File",
            ExternalEngine::S3 => "S3",
        };
        let arguments: Vec<String> = self.arguments.iter().map(|text| quoted(text)).collect();
        format!("ENGINE = {name}({})", arguments.join(", "))
    }
}

/// `File(format[, path[, compression]])`: a format Strata reads or writes.
fn check_file_arguments(arguments: &[String]) -> Result<()> {
    let [format, rest @ ..] = arguments else {
        return Err(file_arguments_error());
    };
    if rest.len() > 2 {
        return Err(file_arguments_error());
    }
    if let Err(error) = strata_formats::input::InputFormat::from_name(format) {
        strata_formats::OutputFormat::from_name(format).map_err(|_| error)?;
    }
    Ok(())
}

fn not_a_string(engine: &str, arg: &SqlExpr) -> StrataError {
    StrataError::new(
        ErrorCode::BAD_ARGUMENTS,
        format!("Storage {engine}: the argument {arg} is not a constant string"),
    )
}

fn file_arguments_error() -> StrataError {
    StrataError::new(
        ErrorCode::NUMBER_OF_ARGUMENTS_DOESNT_MATCH,
        "Storage File requires from 1 to 3 arguments: name of used format, source and compression method",
    )
}

/// A MergeTree-family table's definition, checked.
#[derive(Debug, Clone)]
pub struct MergeTreeDefinition {
    pub engine: TableEngine,
    pub partition_by: Vec<SqlExpr>,
    pub order_by: Vec<SqlExpr>,
    pub primary_key: Vec<SqlExpr>,
    /// `SAMPLE BY`: one of the primary key's expressions.
    pub sample_by: Option<SqlExpr>,
    pub settings: MergeTreeSettings,
    /// Settings as written, for SHOW CREATE TABLE.
    pub settings_text: Vec<(String, String)>,
    /// TTL rules as written.
    pub ttl: Vec<TtlRule>,
    /// Data-skipping indexes as declared; kept and shown, not built.
    pub indexes: Vec<SkipIndex>,
}

/// `(a, b)` as its elements, `tuple()` as none, anything else as itself.
fn key_elements(expr: Option<&SqlExpr>) -> Vec<SqlExpr> {
    match expr {
        None => Vec::new(),
        Some(SqlExpr::Tuple(elements)) => elements.clone(),
        Some(SqlExpr::Nested(inner)) => vec![(**inner).clone()],
        Some(SqlExpr::Function(f))
            if f.name.to_string().eq_ignore_ascii_case("tuple")
                && f.args
                    .to_string()
                    .trim_matches(['(', ')'])
                    .trim()
                    .is_empty() =>
        {
            Vec::new()
        }
        Some(other) => vec![other.clone()],
    }
}

/// The arguments of `tuple(a, b)`, a key written as a function; any other
/// expression as itself.
fn tuple_arguments(expr: &SqlExpr) -> Vec<SqlExpr> {
    use datafusion::sql::sqlparser::ast::{FunctionArg, FunctionArgExpr, FunctionArguments};
    match expr {
        SqlExpr::Function(f) if f.name.to_string().eq_ignore_ascii_case("tuple") => {
            let FunctionArguments::List(list) = &f.args else {
                return vec![expr.clone()];
            };
            list.args
                .iter()
                .filter_map(|arg| match arg {
                    FunctionArg::Unnamed(FunctionArgExpr::Expr(e)) => Some(e.clone()),
                    _ => None,
                })
                .collect()
        }
        other => vec![other.clone()],
    }
}

fn show_key(elements: &[SqlExpr]) -> String {
    match elements {
        [] => "tuple()".to_string(),
        [one] => expr_text(one),
        many => format!(
            "({})",
            many.iter().map(expr_text).collect::<Vec<_>>().join(", ")
        ),
    }
}

impl MergeTreeDefinition {
    pub fn from_clause(engine: &EngineClause) -> Result<MergeTreeDefinition> {
        let kind = TableEngine::from_clause(engine)?;
        let order_by = key_elements(engine.order_by.as_ref());
        let mut primary_key = key_elements(engine.primary_key.as_ref());
        // Without ORDER BY the primary key is the sorting key; without either,
        // rows stay in insert order, as clickhouse-local's
        // `create_table_empty_primary_key_by_default` does.
        let mut order_by = if engine.order_by.is_none() {
            primary_key.clone()
        } else {
            order_by
        };
        if let Some(suffix) = kind.sorting_key_suffix() {
            // The key as written stays the primary key; a stored definition
            // already ends with the suffix.
            if primary_key.is_empty() {
                primary_key = order_by.clone();
            }
            let ends_with = order_by.last().is_some_and(|e| e.to_string() == suffix);
            if !ends_with {
                order_by.push(SqlExpr::Identifier(Ident::new(suffix)));
            }
        }
        let is_prefix = primary_key.len() <= order_by.len()
            && primary_key
                .iter()
                .zip(&order_by)
                .all(|(p, o)| p.to_string() == o.to_string());
        if !is_prefix {
            return Err(StrataError::new(
                ErrorCode::BAD_ARGUMENTS,
                format!(
                    "Primary key must be a prefix of the sorting key, but the primary key is {} and the sorting key is {}",
                    show_key(&primary_key),
                    show_key(&order_by)
                ),
            ));
        }
        let primary = if primary_key.is_empty() {
            &order_by
        } else {
            &primary_key
        };
        if let Some(sample_by) = &engine.sample_by
            && !primary
                .iter()
                .flat_map(tuple_arguments)
                .any(|e| e.to_string() == sample_by.to_string())
        {
            return Err(StrataError::new(
                ErrorCode::BAD_ARGUMENTS,
                "Sampling expression must be present in the primary key",
            ));
        }
        skip_index::check_indexes(&kind, &engine.indexes)?;
        let mut settings = MergeTreeSettings::default();
        for (name, value) in &engine.settings {
            let number = || {
                value
                    .parse::<usize>()
                    .ok()
                    .filter(|&n| n > 0)
                    .ok_or_else(|| {
                        StrataError::new(
                            ErrorCode::BAD_ARGUMENTS,
                            format!("Setting {name} must be a positive integer, got {value}"),
                        )
                    })
            };
            match name.as_str() {
                "index_granularity" => settings.index_granularity = number()?,
                "min_parts_to_merge_at_once" => settings.parts_to_merge = number()?,
                "max_parts_to_merge_at_once" => settings.max_parts_to_merge_at_once = number()?,
                "max_suspicious_broken_parts" => {
                    settings.max_suspicious_broken_parts = value.parse().map_err(|_| {
                        StrataError::new(
                            ErrorCode::BAD_ARGUMENTS,
                            format!("Setting {name} must be a non-negative integer, got {value}"),
                        )
                    })?
                }
                // ClickHouse's other table settings are kept in the
                // definition and change nothing here.
                known if strata_common::settings::is_merge_tree_setting(known) => {}
                // ClickHouse's Log engines take any setting without checking.
                _ if matches!(kind, TableEngine::Log(_)) => {}
                other => {
                    return Err(StrataError::new(
                        ErrorCode::UNKNOWN_SETTING,
                        format!("Unknown setting '{other}' for storage MergeTree"),
                    ));
                }
            }
        }
        Ok(MergeTreeDefinition {
            engine: kind,
            partition_by: key_elements(engine.partition_by.as_ref()),
            order_by,
            primary_key,
            sample_by: engine.sample_by.clone(),
            settings,
            settings_text: engine.settings.clone(),
            ttl: engine.ttl.clone(),
            indexes: engine.indexes.clone(),
        })
    }

    /// Fails unless every index expression reads the table's columns in
    /// a type its index takes.
    pub fn check_index_exprs(&self, state: &SessionState, schema: &SchemaRef) -> Result<()> {
        let df_schema = DFSchema::try_from(schema.as_ref().clone())?;
        for index in &self.indexes {
            skip_index::check_index_exprs(state, &df_schema, index)?;
        }
        Ok(())
    }

    /// The keys as physical expressions over the table's columns.
    pub fn compile_keys(&self, state: &SessionState, schema: &SchemaRef) -> Result<TableKeys> {
        let df_schema = DFSchema::try_from(schema.as_ref().clone())?;
        let compile = |exprs: &[SqlExpr]| -> Result<Vec<Arc<dyn PhysicalExpr>>> {
            exprs
                .iter()
                .map(|expr| physical_expr(state, &df_schema, expr))
                .collect()
        };
        let primary_len = if self.primary_key.is_empty() {
            self.order_by.len()
        } else {
            self.primary_key.len()
        };
        let indexes = self
            .indexes
            .iter()
            .filter_map(|index| skip_index::compile_index(state, &df_schema, index))
            .collect();
        Ok(TableKeys::new(
            compile(&self.partition_by)?,
            compile(&self.order_by)?,
            primary_len,
        )
        .with_indexes(indexes))
    }

    /// `SAMPLE BY`, checked to be of an unsigned integer type: `written`
    /// is the expression as the definition has it, `self` the one rewritten
    /// for planning.
    pub fn compile_sampling(
        &self,
        state: &SessionState,
        schema: &SchemaRef,
        written: &MergeTreeDefinition,
    ) -> Result<Option<SamplingKey>> {
        let (Some(sample_by), Some(written)) = (&self.sample_by, &written.sample_by) else {
            return Ok(None);
        };
        let df_schema = DFSchema::try_from(schema.as_ref().clone())?;
        let expr = state.create_logical_expr_from_sql_expr(
            ExprWithAlias {
                expr: sample_by.clone(),
                alias: None,
            },
            &df_schema,
        )?;
        let (_, field) = expr.to_field(&df_schema)?;
        let (data_type, nullable) = (field.data_type().clone(), field.is_nullable());
        let name = clickhouse_type_name(&data_type, nullable);
        let data_type = if nullable { DataType::Null } else { data_type };
        let text = expr_text(written);
        SamplingKey::new(text, data_type, &name).map(Some)
    }

    /// The TTL rules as physical expressions over the table's columns,
    /// checked: each gives a point in time, and each disk or volume it
    /// moves to is in `policy`.
    pub fn compile_ttl(
        &self,
        state: &SessionState,
        schema: &SchemaRef,
        policy: &StoragePolicy,
    ) -> Result<Vec<TableTtl>> {
        let df_schema = DFSchema::try_from(schema.as_ref().clone())?;
        let bad = |message: String| StrataError::new(ErrorCode::BAD_TTL_EXPRESSION, message);
        self.ttl
            .iter()
            .map(|rule| {
                let expr = physical_expr(state, &df_schema, &rule.expr)?;
                TableTtl::check_type(&expr.data_type(schema)?)?;
                let target = match &rule.action {
                    TtlAction::Delete => TtlTarget::Delete,
                    TtlAction::ToDisk(name) => {
                        TtlTarget::Move(Arc::clone(policy.disk(name).ok_or_else(|| {
                            bad(format!("No such disk `{name}` for given storage policy"))
                        })?))
                    }
                    TtlAction::ToVolume(name) => {
                        let volume = policy.volume(name).ok_or_else(|| {
                            bad(format!("No such volume `{name}` for given storage policy"))
                        })?;
                        TtlTarget::Move(Arc::clone(&volume.disks[0]))
                    }
                };
                Ok(TableTtl { expr, target })
            })
            .collect()
    }

    /// The engine clause as SHOW CREATE TABLE prints it.
    fn clause_text(&self) -> String {
        let mut text = format!("ENGINE = {}", self.engine.head());
        let show = |settings: &[(String, String)]| {
            let shown: Vec<String> = settings
                .iter()
                .map(|(name, value)| format!("{name} = {}", setting_literal(value)))
                .collect();
            format!("\nSETTINGS {}", shown.join(", "))
        };
        if self.engine.is_log() {
            if !self.settings_text.is_empty() {
                text.push_str(&show(&self.settings_text));
            }
            return text;
        }
        if !self.partition_by.is_empty() {
            text.push_str(&format!("\nPARTITION BY {}", show_key(&self.partition_by)));
        }
        if !self.primary_key.is_empty() && self.primary_key.len() != self.order_by.len() {
            text.push_str(&format!("\nPRIMARY KEY {}", show_key(&self.primary_key)));
        }
        text.push_str(&format!("\nORDER BY {}", show_key(&self.order_by)));
        if let Some(sample_by) = &self.sample_by {
            text.push_str(&format!("\nSAMPLE BY {}", expr_text(sample_by)));
        }
        if !self.ttl.is_empty() {
            text.push_str(&format!("\nTTL {}", strata_sql::ttl::rules_text(&self.ttl)));
        }
        let mut settings = self.settings_text.clone();
        if !settings.iter().any(|(name, _)| name == "index_granularity") {
            settings.push((
                "index_granularity".to_string(),
                self.settings.index_granularity.to_string(),
            ));
        }
        text.push_str(&show(&settings));
        text
    }
}

/// `expr` as a physical expression over the columns of `schema`.
fn physical_expr(
    state: &SessionState,
    schema: &DFSchema,
    expr: &SqlExpr,
) -> Result<Arc<dyn PhysicalExpr>> {
    let logical = state.create_logical_expr_from_sql_expr(
        ExprWithAlias {
            expr: expr.clone(),
            alias: None,
        },
        schema,
    )?;
    Ok(state.create_physical_expr(logical, schema)?)
}

/// A table setting's value as SHOW CREATE TABLE writes it: numbers and
/// booleans bare, text quoted.
fn setting_literal(value: &str) -> String {
    if inline_disk::is_definition(value)
        && let Ok(definition) = inline_disk::DiskDefinition::parse(value)
    {
        return definition.render(false);
    }
    let bare = value.parse::<f64>().is_ok() || matches!(value, "true" | "false");
    if bare {
        value.to_string()
    } else {
        format!("'{}'", value.replace('\\', "\\\\").replace('\'', "\\'"))
    }
}

/// How a part written before MODIFY COLUMN changed a column's type reads
/// it: as ClickHouse's CAST converts it.
pub fn past_type_conversion() -> Conversion {
    Arc::new(|values, field| {
        strata_functions::conversion::cast_to_field(values, field).map_err(StrataError::from)
    })
}

/// Each column's codec, LZ4 where none is given.
pub fn column_codecs(extras: &[ColumnExtras]) -> Result<Vec<CodecChain>> {
    extras
        .iter()
        .map(|column| match &column.codec {
            Some(text) => CodecChain::stored(text),
            None => Ok(CodecChain::default()),
        })
        .collect()
}

/// The canonical `CREATE TABLE` for a table, with its `COMMENT` last.
pub fn create_statement(
    database: &str,
    table: &str,
    schema: &SchemaRef,
    extras: &[ColumnExtras],
    storage: &TableStorage,
    constraints: &[TableConstraint],
    comment: Option<&str>,
) -> String {
    let columns: Vec<String> = column_lines(schema, extras)
        .into_iter()
        .chain(
            storage
                .parts()
                .into_iter()
                .flat_map(|definition| &definition.indexes)
                .map(|index| format!("    {}", index.definition())),
        )
        .chain(
            constraints
                .iter()
                .map(|c| format!("    {}", c.definition())),
        )
        .collect();
    let mut text = format!(
        "{}\n(\n{}\n)\n{}",
        statement_head(database, table),
        columns.join(",\n"),
        storage.clause_text()
    );
    if let Some(comment) = comment {
        text.push_str(COMMENT_CLAUSE);
        text.push_str(&quoted(comment));
    }
    text
}

/// The column list's lines of a canonical statement: name, type, default, comment, codec.
pub fn column_lines(schema: &SchemaRef, extras: &[ColumnExtras]) -> Vec<String> {
    schema
        .fields()
        .iter()
        .zip(extras)
        .map(|(field, extra)| {
            let mut line = format!(
                "    `{}` {}",
                field.name().replace('`', "\\`"),
                pretty_type_name(&field_type_name(field), 4, Spread::All)
            );
            match (&extra.default, extra.kind) {
                (None, ColumnKind::Ephemeral) => line.push_str(" EPHEMERAL"),
                (Some(default), kind) => {
                    line.push_str(&format!(" {} {}", kind.keyword(), expr_text(default)))
                }
                (None, _) => {}
            }
            if let Some(comment) = &extra.comment {
                line.push_str(&format!(" COMMENT {}", quoted(comment)));
            }
            if let Some(codec) = &extra.codec {
                line.push_str(&format!(" CODEC({codec})"));
            }
            line
        })
        .collect()
}

/// What starts a canonical statement's table comment: a line of its own,
/// which nothing else in the statement can start (strings escape their
/// line breaks).
const COMMENT_CLAUSE: &str = "\nCOMMENT ";

/// A canonical statement without its table comment.
pub fn without_comment(statement: &str) -> &str {
    statement
        .rsplit_once(COMMENT_CLAUSE)
        .map_or(statement, |(before, _)| before)
}

/// A canonical statement's table comment.
pub fn table_comment(statement: &str) -> Option<String> {
    strata_sql::split_create_table(statement)
        .ok()?
        .engine?
        .comment
}

/// A name as an identifier, backquoted unless it is a plain word.
pub(crate) fn quote_name(name: &str) -> String {
    let plain = !name.is_empty()
        && !name.starts_with(|c: char| c.is_ascii_digit())
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if plain {
        name.to_string()
    } else {
        format!("`{}`", name.replace('\\', "\\\\").replace('`', "\\`"))
    }
}

/// A user table's name, data UUID and canonical definition. RENAME changes
/// them in place, so the table object (and any query holding it) keeps its
/// data.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableIdentity {
    pub database: String,
    pub name: String,
    pub uuid: Uuid,
    pub create_statement: String,
}

impl TableIdentity {
    /// `database.name`, for EXPLAIN and errors.
    pub fn qualified_name(&self) -> String {
        format!("{}.{}", self.database, self.name)
    }

    /// The same table under another name.
    pub fn renamed(&self, database: &str, name: &str) -> TableIdentity {
        let qualified =
            |database: &str, name: &str| format!("{}.{}", quote_name(database), quote_name(name));
        let old_head = statement_head(&self.database, &self.name);
        let create_statement = match self.create_statement.strip_prefix(&old_head) {
            Some(body) => format!("{}{body}", statement_head(database, name)),
            None => {
                let old_name = qualified(&self.database, &self.name);
                let (kind, body) = ["CREATE VIEW", "CREATE MATERIALIZED VIEW"]
                    .into_iter()
                    .find_map(|kind| {
                        let body = self
                            .create_statement
                            .strip_prefix(&format!("{kind} {old_name}"))?;
                        Some((kind, body))
                    })
                    .expect("a canonical statement starts with its table's name");
                format!("{kind} {}{body}", qualified(database, name))
            }
        };
        TableIdentity {
            database: database.to_string(),
            name: name.to_string(),
            uuid: self.uuid,
            create_statement,
        }
    }

    /// The table's columns as declared, with their extras, when some are
    /// not simply stored and shown to `*` (MATERIALIZED, ALIAS, EPHEMERAL).
    pub fn special_columns(&self) -> Result<Option<Vec<(Field, ColumnExtras)>>> {
        let statement = &self.create_statement;
        let named = [" MATERIALIZED", " ALIAS ", " EPHEMERAL"];
        if !named.iter().any(|word| statement.contains(word)) {
            return Ok(None);
        }
        let declared = self.declared_columns()?;
        if declared
            .iter()
            .all(|(_, extra)| extra.kind == ColumnKind::Ordinary)
        {
            return Ok(None);
        }
        Ok(Some(declared))
    }

    /// The table's columns as its definition declares them.
    pub fn declared_columns(&self) -> Result<Vec<(Field, ColumnExtras)>> {
        let split = strata_sql::split_create_table(&self.create_statement)?;
        let parsed = strata_sql::parse_statement(&split.statement)?.statement;
        let datafusion::sql::sqlparser::ast::Statement::CreateTable(create) = parsed else {
            unreachable!("a table's canonical statement is a CREATE TABLE");
        };
        let (fields, extras) = column_definitions(&create.columns, split.codecs, Codecs::Stored)?;
        Ok(fields.into_iter().zip(extras).collect())
    }

    /// The table's `CONSTRAINT` declarations.
    pub fn constraints(&self) -> Result<Vec<TableConstraint>> {
        if !self.create_statement.contains("CONSTRAINT ") {
            return Ok(Vec::new());
        }
        Ok(strata_sql::split_create_table(&self.create_statement)?.constraints)
    }

    pub fn stored(&self) -> StoredTable {
        StoredTable {
            database: self.database.clone(),
            name: self.name.clone(),
            uuid: self.uuid,
            statement: self.create_statement.clone(),
        }
    }
}

fn statement_head(database: &str, table: &str) -> String {
    if crate::session::is_temporary_database(database) {
        return format!("CREATE TEMPORARY TABLE {}", quote_name(table));
    }
    format!(
        "CREATE TABLE {}.{}",
        quote_name(database),
        quote_name(table)
    )
}
