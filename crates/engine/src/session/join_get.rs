//! `joinGet('join_table', 'column', key, ...)` and `joinGetOrNull`: a
//! column's value at a key of a `Join(ANY, LEFT, keys)` table. The table is
//! named by a constant, so each call is bound while the statement is planned:
//! it becomes a function of its own (`__strata_join_get_<n>`, a
//! [`KeyLookup`]) holding the column and a hash index of the keys as the
//! table has them then. A missing key gives the type's default,
//! or NULL for `joinGetOrNull` (and with the table's `join_use_nulls = 1`)
//! where the type can be NULL.

use std::ops::ControlFlow;
use std::sync::Arc;

use datafusion::arrow::array::ArrayRef;
use datafusion::arrow::datatypes::FieldRef;
use datafusion::logical_expr::ScalarUDF;
use datafusion::sql::sqlparser::ast::{
    Expr, Function, ObjectName, Statement, Visit, VisitMut, Visitor,
};
use strata_common::types::field_default_value;
use strata_common::{ErrorCode, Result, StrataError};
use strata_sql::literal_text::{string_value, unnamed_arguments};

use super::key_lookup::{
    Answer, KeyArguments, KeyIndex, KeyLookup, RenameCalls, can_be_null, object_argument,
};
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
        let mut rename = RenameCalls {
            prefix: "__strata_join_get_",
            bound: |f: &Function| is_join_get(f).map(|_| 2),
            next: 0,
        };
        let _ = VisitMut::visit(statement, &mut rename);
        Ok(bound.into_iter().map(ScalarUDF::new_from_impl).collect())
    }

    async fn bind_join_get(&self, call: &Call, name: String) -> Result<KeyLookup> {
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
        let batches = memory.batches().await;
        let index = KeyIndex::build(keys, &batches, &key_indices, false)?;
        let value_field = schema.field(value_index);
        let nullable = (call.function == "joinGetOrNull"
            || rows.definition.use_nulls()
            || value_field.is_nullable())
            && can_be_null(value_field.data_type());
        let result = Arc::new(value_field.clone().with_nullable(nullable));
        let missing = match nullable {
            true => datafusion::common::ScalarValue::try_from(value_field.data_type())?,
            false => field_default_value(value_field)?,
        };
        let columns: Vec<ArrayRef> = batches
            .iter()
            .map(|b| b.column(value_index).clone())
            .collect();
        let values = KeyLookup::with_missing(&columns, &missing.to_array_of_size(1)?)?;
        KeyLookup::new(
            name,
            call.function,
            Arc::new(index),
            (KeyArguments::Exact, Answer::Value),
            values,
            result,
        )
    }
}

fn not_a_join_table(table: &str) -> StrataError {
    StrataError::new(
        ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
        format!("Table {table} should have engine StorageJoin"),
    )
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
    let args = unnamed_arguments(&f.args);
    if args.len() < 3 {
        return Err(arity(function, args.len()));
    }
    let table = object_argument(args[0])?.ok_or_else(|| constant_argument(function, "first"))?;
    let column = string_value(args[1]).ok_or_else(|| constant_argument(function, "second"))?;
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
