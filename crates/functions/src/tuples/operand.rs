//! A tuple function applies element functions to the tuples' elements, as
//! ClickHouse builds them (`tuplePlus` is `plus` per element, `L1Norm` is
//! `abs` per element folded with `plus`). An [`Operand`] is one element:
//! its field and, while evaluating, its values, so a single composition both
//! types a call and evaluates it, and the two cannot disagree.

use std::sync::Arc;

use datafusion::arrow::array::{Array, ArrayRef, AsArray, Float64Array, StructArray};
use datafusion::arrow::compute::kernels::{cast, cmp};
use datafusion::arrow::datatypes::{DataType, Field, FieldRef, Fields, Float64Type};
use datafusion::common::config::ConfigOptions;
use datafusion::common::{Result, ScalarValue};
use datafusion::logical_expr::type_coercion::binary::comparison_coercion;
use datafusion::logical_expr::{ColumnarValue, ReturnFieldArgs, ScalarFunctionArgs, ScalarUDF};
use strata_common::ErrorCode;
use strata_common::types::clickhouse_type_name;

use super::element::element;
use crate::numeric::error;

/// One value of a composition: an element of a tuple argument, another
/// argument, or an intermediate result.
#[derive(Clone)]
pub(crate) struct Operand {
    pub field: FieldRef,
    /// The values while evaluating; a constant's value while typing.
    pub value: Option<ColumnarValue>,
}

impl Operand {
    pub(crate) fn data_type(&self) -> &DataType {
        self.field.data_type()
    }
}

/// Whether a composition only types its call or also evaluates it.
pub(crate) enum Mode {
    Typing,
    Evaluating {
        rows: usize,
        config: Arc<ConfigOptions>,
    },
}

impl Mode {
    /// Applies `function` to `args`: its result field always, its values
    /// when evaluating.
    pub(crate) fn apply(&self, function: &ScalarUDF, args: &[Operand]) -> Result<Operand> {
        let arg_fields: Vec<FieldRef> = args.iter().map(|a| Arc::clone(&a.field)).collect();
        let scalars: Vec<Option<&ScalarValue>> = args
            .iter()
            .map(|a| match &a.value {
                Some(ColumnarValue::Scalar(s)) => Some(s),
                _ => None,
            })
            .collect();
        let field = function.return_field_from_args(ReturnFieldArgs {
            arg_fields: &arg_fields,
            scalar_arguments: &scalars,
        })?;
        let Mode::Evaluating { rows, config } = self else {
            return Ok(Operand { field, value: None });
        };
        let values = args
            .iter()
            .map(|a| a.value.clone().expect("an evaluated operand has values"))
            .collect();
        let value = function.invoke_with_args(ScalarFunctionArgs {
            args: values,
            arg_fields,
            number_rows: *rows,
            return_field: Arc::clone(&field),
            config_options: Arc::clone(config),
        })?;
        Ok(Operand {
            field,
            value: Some(value),
        })
    }

    /// `function` applied pairwise from the left: `f(f(a, b), c)`.
    pub(crate) fn fold(&self, function: &ScalarUDF, operands: Vec<Operand>) -> Result<Operand> {
        let mut operands = operands.into_iter();
        let first = operands.next().expect("a fold over at least one operand");
        operands.try_fold(first, |acc, next| self.apply(function, &[acc, next]))
    }

    /// The constant `value`, known in either mode.
    pub(crate) fn constant(&self, value: ScalarValue) -> Operand {
        let field = Field::new("constant", value.data_type(), value.is_null());
        Operand {
            field: Arc::new(field),
            value: Some(ColumnarValue::Scalar(value)),
        }
    }

    /// 1 where `a` and `b` differ and 0 where they are equal, compared in
    /// their common type as ClickHouse's `notEquals`.
    pub(crate) fn unequal(&self, a: &Operand, b: &Operand) -> Result<Operand> {
        let common = comparison_coercion(a.data_type(), b.data_type()).ok_or_else(|| {
            error(
                ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
                format!(
                    "Illegal types of arguments ({}, {}) of function notEquals",
                    clickhouse_type_name(a.data_type(), false),
                    clickhouse_type_name(b.data_type(), false)
                ),
            )
        })?;
        let nullable = a.field.is_nullable() || b.field.is_nullable();
        let field = Arc::new(Field::new("unequal", DataType::UInt8, nullable));
        let Mode::Evaluating { rows, .. } = self else {
            return Ok(Operand { field, value: None });
        };
        let column = |o: &Operand| -> Result<ArrayRef> {
            let value = o.value.as_ref().expect("an evaluated operand has values");
            Ok(cast::cast(&value.to_array(*rows)?, &common)?)
        };
        let unequal = cmp::neq(&column(a)?, &column(b)?)?;
        let value = cast::cast(&unequal, &DataType::UInt8)?;
        Ok(Operand {
            field,
            value: Some(ColumnarValue::Array(value)),
        })
    }

    /// A Float64 computed row by row from Float64 operands by `f`.
    pub(crate) fn real(&self, operands: &[Operand], f: impl Fn(&[f64]) -> f64) -> Result<Operand> {
        let nullable = operands.iter().any(|o| o.field.is_nullable());
        let field = Arc::new(Field::new("real", DataType::Float64, nullable));
        let Mode::Evaluating { rows, .. } = self else {
            return Ok(Operand { field, value: None });
        };
        let columns = operands
            .iter()
            .map(|o| {
                let value = o.value.as_ref().expect("an evaluated operand has values");
                let array = value.to_array(*rows)?;
                Ok(cast::cast(&array, &DataType::Float64)?)
            })
            .collect::<Result<Vec<ArrayRef>>>()?;
        let columns: Vec<&Float64Array> = columns
            .iter()
            .map(|c| c.as_primitive::<Float64Type>())
            .collect();
        let mut row = vec![0.0; columns.len()];
        let values: Vec<f64> = (0..*rows)
            .map(|i| {
                for (slot, column) in row.iter_mut().zip(&columns) {
                    *slot = column.value(i);
                }
                f(&row)
            })
            .collect();
        let nulls = columns.iter().fold(None, |nulls, c| {
            datafusion::arrow::buffer::NullBuffer::union(nulls.as_ref(), c.nulls())
        });
        let array = Float64Array::new(values.into(), nulls);
        Ok(Operand {
            field,
            value: Some(ColumnarValue::Array(Arc::new(array))),
        })
    }
}

/// The elements of a tuple argument, NULL where the tuple is.
pub(crate) fn elements(tuple: &Operand) -> Result<Vec<Operand>> {
    let DataType::Struct(fields) = tuple.data_type() else {
        unreachable!("elements of a checked tuple")
    };
    let column = match &tuple.value {
        Some(ColumnarValue::Array(array)) => Some((Arc::clone(array), false)),
        Some(ColumnarValue::Scalar(scalar)) => Some((scalar.to_array()?, true)),
        None => None,
    };
    fields
        .iter()
        .enumerate()
        .map(|(i, f)| {
            let nullable = f.is_nullable() || tuple.field.is_nullable();
            let field = Arc::new(f.as_ref().clone().with_nullable(nullable));
            let value = match &column {
                Some((array, scalar)) => {
                    let values = element(array, i)?;
                    Some(match scalar {
                        true => ColumnarValue::Scalar(ScalarValue::try_from_array(&values, 0)?),
                        false => ColumnarValue::Array(values),
                    })
                }
                None => None,
            };
            Ok(Operand { field, value })
        })
        .collect()
}

/// A tuple of `operands`, unnamed as ClickHouse's results are.
pub(crate) fn tuple(mode: &Mode, operands: Vec<Operand>) -> Result<Operand> {
    let fields: Fields = operands
        .iter()
        .enumerate()
        .map(|(i, o)| o.field.as_ref().clone().with_name((i + 1).to_string()))
        .collect();
    let field = Arc::new(Field::new("tuple", DataType::Struct(fields.clone()), false));
    let Mode::Evaluating { rows, .. } = mode else {
        return Ok(Operand { field, value: None });
    };
    let columns = operands
        .iter()
        .map(|o| {
            let value = o.value.as_ref().expect("an evaluated operand has values");
            value.to_array(*rows)
        })
        .collect::<Result<Vec<_>>>()?;
    let array: ArrayRef = match fields.is_empty() {
        true => Arc::new(StructArray::new_empty_fields(*rows, None)),
        false => Arc::new(StructArray::try_new(fields, columns, None)?),
    };
    Ok(Operand {
        field,
        value: Some(ColumnarValue::Array(array)),
    })
}
