//! The table engines Strata stores as MergeTree parts: `MergeTree`,
//! `ReplacingMergeTree([version[, is_deleted]])`, `SummingMergeTree([columns])`,
//! `CollapsingMergeTree(sign)`, `VersionedCollapsingMergeTree(sign, version)`,
//! `AggregatingMergeTree`, and the Log family (`Log`, `TinyLog`,
//! `StripeLog`: parts without a sorting key, no mutations, no FINAL). Each
//! is checked as ClickHouse checks it and compiled to the storage's
//! [`MergeMode`].

use std::ops::Range;
use std::sync::Arc;

use datafusion::arrow::array::ArrayRef;
use datafusion::arrow::datatypes::{DataType, Field, Schema};
use datafusion::sql::sqlparser::ast::Expr as SqlExpr;
use strata_common::types::{SIMPLE_AGGREGATE_KEY, aggregate_function_parts};
use strata_common::{ErrorCode, Result, StrataError};
use strata_functions::aggregate::states::GroupAggregate;
use strata_sql::EngineClause;
use strata_storage::merge_tree::{CombinedColumn, GroupCombiner, MergeMode};

/// A MergeTree-family engine with its arguments (column names).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TableEngine {
    MergeTree,
    Replacing {
        version: Option<String>,
        is_deleted: Option<String>,
    },
    Summing {
        columns: Vec<String>,
    },
    Collapsing {
        sign: String,
    },
    /// Its sorting key ends with `version` (see [`Self::sorting_key_suffix`]).
    VersionedCollapsing {
        sign: String,
        version: String,
    },
    Aggregating,
    /// `Log`, `TinyLog` or `StripeLog`.
    Log(&'static str),
}

pub const LOG_ENGINES: [&str; 3] = ["Log", "TinyLog", "StripeLog"];

/// The engines this module reads, sorting-key engines first.
pub const PART_ENGINES: [&str; 9] = [
    "MergeTree",
    "ReplacingMergeTree",
    "SummingMergeTree",
    "CollapsingMergeTree",
    "VersionedCollapsingMergeTree",
    "AggregatingMergeTree",
    LOG_ENGINES[0],
    LOG_ENGINES[1],
    LOG_ENGINES[2],
];

impl TableEngine {
    /// Whether `name` is an engine this module reads.
    pub fn is_part_engine(name: &str) -> bool {
        PART_ENGINES.contains(&name)
    }

    /// The engine an ENGINE clause names, its arguments checked for number
    /// and form (their columns are checked by [`Self::merge_mode`]).
    pub fn from_clause(clause: &EngineClause) -> Result<TableEngine> {
        let names = clause
            .arguments
            .iter()
            .map(|arg| column_argument(&clause.name, arg))
            .collect::<Result<Vec<String>>>()?;
        let arity = |range: std::ops::RangeInclusive<usize>, what: &str| {
            if range.contains(&names.len()) {
                return Ok(());
            }
            Err(StrataError::new(
                ErrorCode::NUMBER_OF_ARGUMENTS_DOESNT_MATCH,
                format!(
                    "Storage {} requires {what}, got {} arguments",
                    clause.name,
                    names.len()
                ),
            ))
        };
        let engine = match clause.name.as_str() {
            "MergeTree" => {
                arity(
                    0..=0,
                    "no arguments (use ORDER BY, PARTITION BY and SETTINGS)",
                )?;
                TableEngine::MergeTree
            }
            "ReplacingMergeTree" => {
                arity(
                    0..=2,
                    "at most 2 parameters: version and is_deleted columns",
                )?;
                TableEngine::Replacing {
                    version: names.first().cloned(),
                    is_deleted: names.get(1).cloned(),
                }
            }
            "SummingMergeTree" => TableEngine::Summing {
                columns: clause
                    .arguments
                    .iter()
                    .map(|arg| summed_columns(&clause.name, arg))
                    .collect::<Result<Vec<_>>>()?
                    .concat(),
            },
            "CollapsingMergeTree" => {
                arity(1..=1, "1 parameter: the sign column")?;
                TableEngine::Collapsing {
                    sign: names[0].clone(),
                }
            }
            "VersionedCollapsingMergeTree" => {
                arity(2..=2, "2 parameters: the sign and version columns")?;
                TableEngine::VersionedCollapsing {
                    sign: names[0].clone(),
                    version: names[1].clone(),
                }
            }
            "AggregatingMergeTree" => {
                arity(
                    0..=0,
                    "no parameters (its columns' types say how they merge)",
                )?;
                TableEngine::Aggregating
            }
            log => {
                let name = LOG_ENGINES
                    .into_iter()
                    .find(|n| *n == log)
                    .expect("only part engines reach here");
                arity(0..=0, "no arguments")?;
                let keyed = clause.partition_by.is_some()
                    || clause.order_by.is_some()
                    || clause.primary_key.is_some();
                if keyed {
                    return Err(StrataError::new(
                        ErrorCode::BAD_ARGUMENTS,
                        format!(
                            "Engine {name} doesn't support PARTITION_BY, PRIMARY_KEY, ORDER_BY or SAMPLE_BY clauses"
                        ),
                    ));
                }
                TableEngine::Log(name)
            }
        };
        Ok(engine)
    }

    pub fn name(&self) -> &'static str {
        match self {
            TableEngine::MergeTree => "MergeTree",
            TableEngine::Replacing { .. } => "ReplacingMergeTree",
            TableEngine::Summing { .. } => "SummingMergeTree",
            TableEngine::Collapsing { .. } => "CollapsingMergeTree",
            TableEngine::VersionedCollapsing { .. } => "VersionedCollapsingMergeTree",
            TableEngine::Aggregating => "AggregatingMergeTree",
            TableEngine::Log(name) => name,
        }
    }

    /// `Name(arguments)` as SHOW CREATE TABLE prints it.
    pub fn head(&self) -> String {
        let arguments: Vec<&String> = match self {
            TableEngine::MergeTree | TableEngine::Log(_) | TableEngine::Aggregating => Vec::new(),
            TableEngine::Replacing {
                version,
                is_deleted,
            } => version.iter().chain(is_deleted).collect(),
            TableEngine::Summing { columns } if columns.is_empty() => Vec::new(),
            TableEngine::Summing { columns } => {
                return format!("SummingMergeTree(({}))", columns.join(", "));
            }
            TableEngine::Collapsing { sign } => vec![sign],
            TableEngine::VersionedCollapsing { sign, version } => vec![sign, version],
        };
        match arguments.is_empty() {
            true => self.name().to_string(),
            false => format!(
                "{}({})",
                self.name(),
                arguments
                    .iter()
                    .map(|a| a.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        }
    }

    /// The column the engine appends to the sorting key, as ClickHouse
    /// does: VersionedCollapsingMergeTree's version, so that one key's
    /// rows of one version sit together.
    pub fn sorting_key_suffix(&self) -> Option<&str> {
        match self {
            TableEngine::VersionedCollapsing { version, .. } => Some(version),
            _ => None,
        }
    }

    pub fn is_log(&self) -> bool {
        matches!(self, TableEngine::Log(_))
    }

    /// Whether `SELECT ... FINAL` reads this engine (ILLEGAL_FINAL if not).
    pub fn supports_final(&self) -> bool {
        !matches!(self, TableEngine::MergeTree | TableEngine::Log(_))
    }

    /// The storage's rule for rows of one sorting key, over `schema`'s
    /// columns; `key_columns` are the columns the sorting key reads.
    /// AggregatingMergeTree with aggregate columns refuses other plain
    /// columns (whose value a merge picks arbitrarily) other than the
    /// `partition_columns` unless `dimensions_allowed`, ClickHouse's table
    /// setting `allow_dimensions_outside_sorting_key`.
    pub fn merge_mode(
        &self,
        schema: &Schema,
        key_columns: &[usize],
        partition_columns: &[usize],
        dimensions_allowed: bool,
    ) -> Result<MergeMode> {
        let column = |name: &str, role: &str| {
            schema.index_of(name).map_err(|_| {
                StrataError::new(
                    ErrorCode::NO_SUCH_COLUMN_IN_TABLE,
                    format!("{role} column {name} does not exist in table declaration"),
                )
            })
        };
        match self {
            TableEngine::MergeTree | TableEngine::Log(_) => Ok(MergeMode::Ordinary),
            TableEngine::Replacing {
                version,
                is_deleted,
            } => {
                let version = version
                    .as_deref()
                    .map(|v| column(v, "Version"))
                    .transpose()?;
                if let Some(index) = version {
                    check_version_type(schema, index, self.name())?;
                }
                let is_deleted = is_deleted
                    .as_deref()
                    .map(|d| column(d, "is_deleted"))
                    .transpose()?;
                if let Some(index) = is_deleted {
                    check_type(schema, index, &[DataType::UInt8], "is_deleted", "UInt8")?;
                }
                Ok(MergeMode::Replacing {
                    version,
                    is_deleted,
                })
            }
            TableEngine::Summing { columns } => {
                // Aggregate columns merge by their function, not by adding.
                let combined = combined_columns(schema, key_columns)?;
                let summable = |i: &usize| {
                    !key_columns.contains(i)
                        && is_summable(schema, *i)
                        && !combined.iter().any(|c| c.index == *i)
                };
                let summed = match columns.is_empty() {
                    true => (0..schema.fields().len()).filter(summable).collect(),
                    false => columns
                        .iter()
                        .map(|c| column(c, "Summing"))
                        .collect::<Result<Vec<usize>>>()?
                        .into_iter()
                        .filter(summable)
                        .collect(),
                };
                Ok(MergeMode::Summing {
                    columns: summed,
                    combined,
                })
            }
            TableEngine::Collapsing { sign } => {
                let sign = column(sign, "Sign")?;
                check_type(schema, sign, &[DataType::Int8], "Sign", "Int8")?;
                Ok(MergeMode::Collapsing { sign })
            }
            TableEngine::VersionedCollapsing { sign, version } => {
                let sign = column(sign, "Sign")?;
                check_type(schema, sign, &[DataType::Int8], "Sign", "Int8")?;
                check_version_type(schema, column(version, "Version")?, self.name())?;
                Ok(MergeMode::VersionedCollapsing { sign })
            }
            TableEngine::Aggregating => {
                let columns = combined_columns(schema, key_columns)?;
                let dimensions: Vec<&str> = (0..schema.fields().len())
                    .filter(|i| !key_columns.contains(i) && !partition_columns.contains(i))
                    .filter(|i| !columns.iter().any(|c| c.index == *i))
                    .map(|i| schema.field(i).name().as_str())
                    .collect();
                // Without any measure the table only keeps one row per key.
                if !dimensions.is_empty() && !columns.is_empty() && !dimensions_allowed {
                    return Err(StrataError::new(
                        ErrorCode::BAD_ARGUMENTS,
                        format!(
                            "Column(s) {} of the AggregatingMergeTree table are neither part of the sorting key nor aggregate measures (AggregateFunction or SimpleAggregateFunction): a merge would keep an arbitrary value of them. Add them to the sorting key, or set allow_dimensions_outside_sorting_key = 1",
                            dimensions.join(", ")
                        ),
                    ));
                }
                Ok(MergeMode::Aggregating { columns })
            }
        }
    }
}

/// The columns outside the sorting key that merge by an aggregate.
fn combined_columns(schema: &Schema, key_columns: &[usize]) -> Result<Vec<CombinedColumn>> {
    let mut columns = Vec::new();
    for (index, field) in schema.fields().iter().enumerate() {
        if key_columns.contains(&index) {
            continue;
        }
        if let Some(aggregate) = column_aggregate(field)? {
            let combiner = Arc::new(Aggregate(aggregate));
            columns.push(CombinedColumn { index, combiner });
        }
    }
    Ok(columns)
}

/// How a column merges by an aggregate: its states, or its values by its
/// `SimpleAggregateFunction`'s function; `None` for a plain column.
fn column_aggregate(field: &Field) -> Result<Option<GroupAggregate>> {
    if aggregate_function_parts(field.data_type()).is_some() {
        return Ok(Some(GroupAggregate::states(field.data_type())?));
    }
    match field.metadata().get(SIMPLE_AGGREGATE_KEY) {
        Some(function) => Ok(Some(GroupAggregate::simple(function, field)?)),
        None => Ok(None),
    }
}

#[derive(Debug)]
struct Aggregate(GroupAggregate);

impl GroupCombiner for Aggregate {
    fn combine(&self, column: &ArrayRef, groups: &[Range<usize>]) -> Result<ArrayRef> {
        Ok(self.0.apply(column, groups)?)
    }
}

/// An engine argument that names a column (`ver`, `(a, b)` for Summing).
fn column_argument(engine: &str, arg: &SqlExpr) -> Result<String> {
    match arg {
        SqlExpr::Identifier(ident) => Ok(ident.value.clone()),
        SqlExpr::Nested(inner) => column_argument(engine, inner),
        SqlExpr::Tuple(items) => Ok(items
            .iter()
            .map(|item| column_argument(engine, item))
            .collect::<Result<Vec<_>>>()?
            .join(", ")),
        other => Err(StrataError::new(
            ErrorCode::BAD_ARGUMENTS,
            format!("Engine {engine} takes column names as arguments, got {other}"),
        )),
    }
}

/// The columns a SummingMergeTree argument names: one, or a tuple of them
/// (`SummingMergeTree((y, z))`).
fn summed_columns(engine: &str, arg: &SqlExpr) -> Result<Vec<String>> {
    match arg {
        SqlExpr::Tuple(items) => items
            .iter()
            .map(|item| column_argument(engine, item))
            .collect(),
        SqlExpr::Nested(inner) if matches!(inner.as_ref(), SqlExpr::Tuple(_)) => {
            summed_columns(engine, inner)
        }
        other => Ok(vec![column_argument(engine, other)?]),
    }
}

fn is_summable(schema: &Schema, column: usize) -> bool {
    let data_type = schema.field(column).data_type();
    data_type.is_integer() || data_type.is_floating()
}

/// ReplacingMergeTree's version: an integer, a date or a time.
fn check_version_type(schema: &Schema, column: usize, engine: &str) -> Result<()> {
    let field = schema.field(column);
    let data_type = field.data_type();
    let fits =
        data_type.is_integer() || matches!(data_type, DataType::Date32 | DataType::Timestamp(_, _));
    if fits && !field.is_nullable() {
        return Ok(());
    }
    Err(StrataError::new(
        ErrorCode::BAD_TYPE_OF_FIELD,
        format!(
            "The column {} cannot be used as a version column for storage {engine} because it is of type {} (must be of an integer type or of type Date/DateTime/DateTime64)",
            field.name(),
            strata_common::types::field_type_name(field)
        ),
    ))
}

fn check_type(
    schema: &Schema,
    column: usize,
    allowed: &[DataType],
    role: &str,
    expected: &str,
) -> Result<()> {
    let field = schema.field(column);
    if allowed.contains(field.data_type()) && !field.is_nullable() {
        return Ok(());
    }
    Err(StrataError::new(
        ErrorCode::BAD_TYPE_OF_FIELD,
        format!(
            "{role} column ({}) must have type {expected}. Provided column of type {}",
            field.name(),
            strata_common::types::field_type_name(field)
        ),
    ))
}
