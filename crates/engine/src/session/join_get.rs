//! `joinGet('join_table', 'column', key, ...)` and `joinGetOrNull`: a
//! column's value at a key of a `Join(ANY, LEFT, keys)` table. The table is
//! named by a constant, so each call is bound while the statement is planned:
//! it becomes a function of its own (`__strata_join_get_<n>`) holding the
//! column and a hash index of the keys as the table has them then, and the
//! query looks keys up row by row. A missing key gives the type's default,
//! or NULL for `joinGetOrNull` (and with the table's `join_use_nulls = 1`)
//! where the type can be NULL.

use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::ops::ControlFlow;
use std::sync::Arc;

use datafusion::arrow::array::{Array, ArrayRef, UInt32Array};
use datafusion::arrow::compute::{cast, concat, take};
use datafusion::arrow::datatypes::{DataType, Field, FieldRef};
use datafusion::arrow::row::{RowConverter, SortField};
use datafusion::logical_expr::{
    ColumnarValue, ReturnFieldArgs, ScalarFunctionArgs, ScalarUDF, ScalarUDFImpl, Signature,
    Volatility,
};
use datafusion::sql::sqlparser::ast::{
    Expr, Function, FunctionArg, FunctionArgExpr, FunctionArguments, Ident, ObjectName, Statement,
    Value, Visit, VisitMut, Visitor, VisitorMut,
};
use strata_common::types::{field_default_value, field_type_name};
use strata_common::{ErrorCode, Result, StrataError};
use strata_sql::parse_object_name;

use super::{Session, UserTable};
use crate::sources::set_and_join::{JoinKind, Strictness};

const NAMES: [&str; 2] = ["joinGet", "joinGetOrNull"];

/// A joinGet call as written: the table and column it reads.
struct Call {
    function: &'static str,
    table: ObjectName,
    column: String,
}

impl Session {
    /// Binds the statement's joinGet calls to their tables: each is renamed
    /// to a function of its own, returned for the query's planner.
    pub(crate) async fn bind_join_gets(&self, statement: &mut Statement) -> Result<Vec<ScalarUDF>> {
        let mut found = Found::default();
        if let ControlFlow::Break(error) = Visit::visit(&*statement, &mut found) {
            return Err(error);
        }
        let mut bound = Vec::with_capacity(found.calls.len());
        for (n, call) in found.calls.iter().enumerate() {
            bound.push(
                self.bind_join_get(call, format!("__strata_join_get_{n}"))
                    .await?,
            );
        }
        let mut rename = Rename { next: 0 };
        let _ = VisitMut::visit(statement, &mut rename);
        Ok(bound.into_iter().map(ScalarUDF::new_from_impl).collect())
    }

    async fn bind_join_get(&self, call: &Call, name: String) -> Result<JoinGet> {
        let (database, table) = self.table_name(&call.table)?;
        let UserTable::Memory(memory) = self.user_table(&call.table).await? else {
            return Err(not_a_join_table(&table));
        };
        let Some(rows) = memory.keyed() else {
            return Err(not_a_join_table(&table));
        };
        let Some(spec) = &rows.definition.join else {
            return Err(not_a_join_table(&table));
        };
        if (spec.strictness, spec.kind) != (Strictness::Any, JoinKind::Left) {
            return Err(StrataError::new(
                ErrorCode::INCOMPATIBLE_TYPE_OF_JOIN,
                format!(
                    "{}: joinGet only supports StorageJoin of type Left Any",
                    call.function
                ),
            ));
        }
        let schema = rows.schema();
        let value_index = schema
            .index_of(&call.column)
            .ok()
            .filter(|&i| !spec.keys.contains(schema.field(i).name()))
            .ok_or_else(|| {
                StrataError::new(
                    ErrorCode::NO_SUCH_COLUMN_IN_TABLE,
                    format!(
                        "StorageJoin {database}.{table} doesn't contain column {}",
                        call.column
                    ),
                )
            })?;
        let key_indices: Vec<usize> = spec
            .keys
            .iter()
            .map(|k| {
                schema
                    .index_of(k)
                    .expect("a Join table's keys are its columns")
            })
            .collect();
        let keys: Vec<FieldRef> = key_indices
            .iter()
            .map(|&i| Arc::new(schema.field(i).clone()))
            .collect();
        let converter = key_converter(&keys)?;
        let batches = memory.batches().await;
        let mut index = HashMap::new();
        let mut columns = Vec::with_capacity(batches.len());
        let mut offset = 0u32;
        for batch in &batches {
            let key_columns: Vec<ArrayRef> = key_indices
                .iter()
                .map(|&i| batch.column(i).clone())
                .collect();
            let encoded = converter.convert_columns(&key_columns)?;
            for (i, key) in encoded.iter().enumerate() {
                index.entry(key.data().into()).or_insert(offset + i as u32);
            }
            offset += batch.num_rows() as u32;
            columns.push(batch.column(value_index).clone());
        }
        let value_field = schema.field(value_index);
        let nullable = (call.function == "joinGetOrNull"
            || rows.definition.use_nulls()
            || value_field.is_nullable())
            && can_be_null(value_field.data_type());
        let result = Arc::new(value_field.clone().with_nullable(nullable));
        // A missing key reads one row past the table's: NULL, or the default.
        let missing = match nullable {
            true => datafusion::common::ScalarValue::try_from(value_field.data_type())?,
            false => field_default_value(value_field)?,
        };
        columns.push(missing.to_array_of_size(1)?);
        let parts: Vec<&dyn Array> = columns.iter().map(|c| c.as_ref()).collect();
        Ok(JoinGet {
            name,
            function: call.function,
            signature: Signature::variadic_any(Volatility::Stable),
            keys,
            converter,
            index,
            missing: offset,
            values: concat(&parts)?,
            result,
        })
    }
}

fn not_a_join_table(table: &str) -> StrataError {
    StrataError::new(
        ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
        format!("Table {table} should have engine StorageJoin"),
    )
}

/// Array, Map and Tuple values are never NULL in ClickHouse.
fn can_be_null(data_type: &DataType) -> bool {
    !matches!(
        data_type,
        DataType::List(_) | DataType::LargeList(_) | DataType::Map(..) | DataType::Struct(_)
    )
}

fn key_converter(keys: &[FieldRef]) -> Result<RowConverter> {
    let fields = keys
        .iter()
        .map(|k| SortField::new(k.data_type().clone()))
        .collect();
    Ok(RowConverter::new(fields)?)
}

fn is_join_get(function: &Function) -> Option<&'static str> {
    // The rewrite may have quoted the name.
    let name = function.name.0.last()?.as_ident()?.value.as_str();
    NAMES.into_iter().find(|n| *n == name)
}

/// The joinGet calls of a statement, in visiting order.
#[derive(Default)]
struct Found {
    calls: Vec<Call>,
}

impl Visitor for Found {
    type Break = StrataError;

    fn pre_visit_expr(&mut self, expr: &Expr) -> ControlFlow<StrataError> {
        if let Expr::Function(function) = expr
            && let Some(name) = is_join_get(function)
        {
            match call(name, function) {
                Ok(call) => self.calls.push(call),
                Err(error) => return ControlFlow::Break(error),
            }
        }
        ControlFlow::Continue(())
    }
}

/// A call's table and column, its keys left as its arguments.
fn call(function: &'static str, f: &Function) -> Result<Call> {
    let FunctionArguments::List(list) = &f.args else {
        return Err(arity(function, 0));
    };
    let args: Vec<&Expr> = list
        .args
        .iter()
        .filter_map(|arg| match arg {
            FunctionArg::Unnamed(FunctionArgExpr::Expr(e)) => Some(e),
            _ => None,
        })
        .collect();
    if args.len() < 3 {
        return Err(arity(function, args.len()));
    }
    let table = match args[0] {
        Expr::Value(v) => match &v.value {
            Value::SingleQuotedString(text) => parse_object_name(text)?,
            _ => return Err(constant_argument(function, "first")),
        },
        Expr::Identifier(ident) => ObjectName::from(vec![ident.clone()]),
        Expr::CompoundIdentifier(parts) => ObjectName::from(parts.clone()),
        _ => return Err(constant_argument(function, "first")),
    };
    let column = match args[1] {
        Expr::Value(v) => match &v.value {
            Value::SingleQuotedString(text) => text.clone(),
            _ => return Err(constant_argument(function, "second")),
        },
        _ => return Err(constant_argument(function, "second")),
    };
    Ok(Call {
        function,
        table,
        column,
    })
}

fn arity(function: &str, passed: usize) -> StrataError {
    StrataError::new(
        ErrorCode::NUMBER_OF_ARGUMENTS_DOESNT_MATCH,
        format!(
            "Number of arguments for function '{function}' doesn't match: passed {passed}, should be greater or equal to 3"
        ),
    )
}

fn constant_argument(function: &str, which: &str) -> StrataError {
    StrataError::new(
        ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
        format!("The {which} argument of function {function} must be a constant String"),
    )
}

/// Renames the calls [`Found`] saw, in the same order, leaving their keys.
struct Rename {
    next: usize,
}

impl VisitorMut for Rename {
    type Break = ();

    fn pre_visit_expr(&mut self, expr: &mut Expr) -> ControlFlow<()> {
        if let Expr::Function(function) = expr
            && is_join_get(function).is_some()
        {
            function.name =
                ObjectName::from(vec![Ident::new(format!("__strata_join_get_{}", self.next))]);
            if let FunctionArguments::List(list) = &mut function.args {
                list.args.drain(..2);
            }
            self.next += 1;
        }
        ControlFlow::Continue(())
    }
}

/// One bound joinGet call.
#[derive(Debug)]
struct JoinGet {
    name: String,
    function: &'static str,
    signature: Signature,
    keys: Vec<FieldRef>,
    converter: RowConverter,
    /// Each key's row, in the row format.
    index: HashMap<Box<[u8]>, u32>,
    /// The row of `values` a missing key reads.
    missing: u32,
    values: ArrayRef,
    result: FieldRef,
}

impl PartialEq for JoinGet {
    fn eq(&self, other: &Self) -> bool {
        self.name == other.name && Arc::ptr_eq(&self.values, &other.values)
    }
}

impl Eq for JoinGet {}

impl Hash for JoinGet {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.name.hash(state);
    }
}

impl JoinGet {
    /// Whether key argument `i` has the table's key type (NULL allowed).
    fn check_key(&self, i: usize, given: &Field) -> Result<()> {
        let needed = &self.keys[i];
        let shown = |f: &Field| field_type_name(&f.clone().with_nullable(false));
        if shown(given) == shown(needed) {
            return Ok(());
        }
        Err(StrataError::new(
            ErrorCode::TYPE_MISMATCH,
            format!(
                "Type mismatch in {} key {i}: found type {}, while the needed type is {}",
                self.function,
                field_type_name(given),
                field_type_name(needed)
            ),
        ))
    }
}

impl ScalarUDFImpl for JoinGet {
    fn name(&self) -> &str {
        &self.name
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn return_type(&self, _: &[DataType]) -> datafusion::common::Result<DataType> {
        Ok(self.result.data_type().clone())
    }

    fn return_field_from_args(
        &self,
        args: ReturnFieldArgs,
    ) -> datafusion::common::Result<FieldRef> {
        if args.arg_fields.len() != self.keys.len() {
            return Err(StrataError::new(
                ErrorCode::NUMBER_OF_ARGUMENTS_DOESNT_MATCH,
                format!(
                    "Number of join_keys and number of right table key columns for function {} don't match: passed {}, should be equal to {}",
                    self.function,
                    args.arg_fields.len(),
                    self.keys.len()
                ),
            )
            .into_datafusion());
        }
        for (i, given) in args.arg_fields.iter().enumerate() {
            self.check_key(i, given)
                .map_err(StrataError::into_datafusion)?;
        }
        Ok(Arc::clone(&self.result))
    }

    fn invoke_with_args(
        &self,
        args: ScalarFunctionArgs,
    ) -> datafusion::common::Result<ColumnarValue> {
        let rows = args.number_rows;
        let keys = args
            .args
            .iter()
            .zip(&self.keys)
            .map(|(arg, key)| cast(&arg.to_array(rows)?, key.data_type()).map_err(Into::into))
            .collect::<datafusion::common::Result<Vec<ArrayRef>>>()?;
        let encoded = self.converter.convert_columns(&keys)?;
        let at: UInt32Array = encoded
            .iter()
            .map(|key| Some(*self.index.get(key.data()).unwrap_or(&self.missing)))
            .collect();
        Ok(ColumnarValue::Array(take(&self.values, &at, None)?))
    }
}
