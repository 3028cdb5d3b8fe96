//! `toNullable(x)` and `assumeNotNull(x)`: the same values under a type
//! that may, or may not, hold NULL. Arrow columns may always hold NULLs, so
//! only the field changes, and with it `toTypeName`, aggregates' results
//! over no rows, and how NULLs are filled in. `defaultValueOfArgumentType(x)`:
//! the default of `x`'s type (NULL for a Nullable one);
//! `defaultValueOfTypeName('T')` the default of the type named.

use std::sync::Arc;

use datafusion::arrow::array::{Array, AsArray, StructArray, make_array};
use datafusion::arrow::buffer::NullBuffer;
use datafusion::arrow::datatypes::{DataType, Fields};
use datafusion::common::{Result, ScalarValue};
use datafusion::logical_expr::{ColumnarValue, Volatility};

use strata_common::ErrorCode;

use super::frame::{Call, Spec, failure};

pub(crate) const SPECS: &[Spec] = &[
    Spec {
        name: "toNullable",
        aliases: &[],
        args: (1, 1),
        // Not folded into a literal at planning, which would lose the
        // Nullable type (a literal is nullable only when it is NULL).
        volatility: Volatility::Volatile,
        typing: |t| {
            Ok(t.fields[0]
                .as_ref()
                .clone()
                .with_name(t.name)
                .with_nullable(true))
        },
        eval: |call| Ok(call.args[0].clone()),
    },
    Spec {
        name: "assumeNotNull",
        aliases: &[],
        args: (1, 1),
        volatility: Volatility::Immutable,
        typing: |t| {
            Ok(t.fields[0]
                .as_ref()
                .clone()
                .with_name(t.name)
                .with_nullable(false))
        },
        eval: assume_not_null,
    },
    Spec {
        // A NULL tuple as a tuple of NULLs: what `group_by_use_nulls` gives a
        // Tuple key (a Tuple is never Nullable, its elements become so).
        name: "_tupleElementsNullable",
        aliases: &[],
        args: (1, 1),
        volatility: Volatility::Immutable,
        typing: |t| {
            let field = t.fields[0].as_ref().clone().with_name(t.name);
            Ok(match field.data_type() {
                DataType::Struct(elements) => {
                    let nullable: Fields = elements
                        .iter()
                        .map(|e| e.as_ref().clone().with_nullable(true))
                        .collect();
                    field
                        .with_data_type(DataType::Struct(nullable))
                        .with_nullable(false)
                }
                _ => field,
            })
        },
        eval: tuple_elements_nullable,
    },
    Spec {
        name: "defaultValueOfArgumentType",
        aliases: &[],
        args: (1, 1),
        volatility: Volatility::Immutable,
        typing: |t| Ok(t.fields[0].as_ref().clone().with_name(t.name)),
        eval: |call| {
            let value = match call.result.is_nullable() {
                true => ScalarValue::try_from(call.result.data_type())?,
                false => strata_common::types::field_default_value(call.result)?,
            };
            Ok(ColumnarValue::Scalar(value))
        },
    },
    Spec {
        name: "defaultValueOfTypeName",
        aliases: &[],
        args: (1, 1),
        volatility: Volatility::Immutable,
        typing: |t| {
            let Some(ScalarValue::Utf8(Some(name))) = t.scalar(0) else {
                return Err(failure(
                    ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
                    format!(
                        "The argument of function {} must be a constant type name",
                        t.name
                    ),
                ));
            };
            let parsed = strata_common::types::parse_clickhouse_type(name)
                .map_err(|e| e.into_datafusion())?;
            Ok(parsed.field(t.name))
        },
        eval: |call| {
            let value = match call.result.is_nullable() {
                true => ScalarValue::try_from(call.result.data_type())?,
                false => strata_common::types::field_default_value(call.result)?,
            };
            Ok(ColumnarValue::Scalar(value))
        },
    },
];

/// The values with their NULL marks dropped: what a NULL slot holds (the
/// type's zero, as Arrow builders leave it) shows instead, as ClickHouse
/// shows its nested column's value.
fn assume_not_null(call: &Call) -> Result<ColumnarValue> {
    let column = call.column(0)?;
    if column.null_count() == 0 || column.data_type().is_null() {
        return Ok(call.args[0].clone());
    }
    let data = column.to_data().into_builder().nulls(None).build()?;
    call.output(make_array(data))
}

/// Each element of a tuple NULL where the tuple is.
fn tuple_elements_nullable(call: &Call) -> Result<ColumnarValue> {
    let column = call.column(0)?;
    let DataType::Struct(fields) = call.result.data_type() else {
        return Ok(call.args[0].clone());
    };
    let Some(tuple) = column.as_struct_opt() else {
        return Ok(call.args[0].clone());
    };
    let columns = tuple
        .columns()
        .iter()
        .map(|element| {
            let nulls = NullBuffer::union(element.nulls(), tuple.nulls());
            let data = element.to_data().into_builder().nulls(nulls).build()?;
            Ok(make_array(data))
        })
        .collect::<Result<Vec<_>>>()?;
    let out = StructArray::try_new(fields.clone(), columns, None)?;
    call.output(Arc::new(out))
}
