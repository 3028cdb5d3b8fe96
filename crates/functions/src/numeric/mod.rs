//! Conversion, arithmetic, mathematical, rounding, bit, comparison and logical functions with ClickHouse's semantics.

pub mod accurate;
pub mod arith;
pub mod bits;
pub mod buckets;
pub mod conditional;
pub mod division;
pub mod logical;
pub mod math;
pub mod random;
pub mod reinterpret;
pub mod rounding;

use datafusion::arrow::array::Array;
use datafusion::arrow::datatypes::DataType;
use datafusion::common::ScalarValue;
use datafusion::error::DataFusionError;
use datafusion::logical_expr::{ReturnFieldArgs, ScalarUDF, Signature, TypeSignature, Volatility};
use strata_common::types::clickhouse_type_name;
use strata_common::{ErrorCode, StrataError};

/// The scalar functions of this family.
pub fn scalar_functions() -> Vec<ScalarUDF> {
    let mut functions = Vec::new();
    functions.extend(rounding::scalar_functions());
    functions.extend(buckets::scalar_functions());
    functions.extend(math::scalar_functions());
    functions.extend(arith::scalar_functions());
    functions.extend(division::scalar_functions());
    functions.extend(bits::scalar_functions());
    functions.extend(random::scalar_functions());
    functions.extend(accurate::scalar_functions());
    functions.extend(reinterpret::scalar_functions());
    functions.extend(logical::scalar_functions());
    functions.extend(conditional::scalar_functions());
    functions
}

pub(crate) fn is_integer(t: &DataType) -> bool {
    matches!(
        t,
        DataType::UInt8
            | DataType::UInt16
            | DataType::UInt32
            | DataType::UInt64
            | DataType::Int8
            | DataType::Int16
            | DataType::Int32
            | DataType::Int64
    )
}

pub(crate) fn is_float(t: &DataType) -> bool {
    matches!(t, DataType::Float32 | DataType::Float64)
}

/// A ClickHouse number: integers, floats, decimals, Bool, and NULL.
pub(crate) fn is_number(t: &DataType) -> bool {
    is_integer(t)
        || is_float(t)
        || matches!(
            t,
            DataType::Decimal128(..)
                | DataType::Decimal256(..)
                | DataType::Boolean
                | DataType::Null
        )
}

pub(crate) fn illegal_type(function: &str, t: &DataType) -> DataFusionError {
    StrataError::new(
        ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
        format!(
            "Illegal type {} of argument of function {function}",
            clickhouse_type_name(t, false)
        ),
    )
    .into_datafusion()
}

pub(crate) fn arity_error(function: &str, passed: usize, expected: &str) -> DataFusionError {
    StrataError::new(
        ErrorCode::NUMBER_OF_ARGUMENTS_DOESNT_MATCH,
        format!(
            "Number of arguments for function {function} doesn't match: passed {passed}, should be {expected}"
        ),
    )
    .into_datafusion()
}

pub(crate) fn error(code: ErrorCode, message: impl Into<String>) -> DataFusionError {
    StrataError::new(code, message.into()).into_datafusion()
}

/// Any number of arguments, none included: each function checks its own
/// count, with ClickHouse's error.
pub(crate) fn any_arguments(volatility: Volatility) -> Signature {
    Signature::one_of(
        vec![TypeSignature::Nullary, TypeSignature::VariadicAny],
        volatility,
    )
}

/// `udf`'s result type for the arguments' types, or, where those have no
/// common type, for the types ClickHouse gives their integer literals
/// ([`argument_types`]).
pub(crate) fn literal_aware_type(
    udf: &dyn datafusion::logical_expr::ScalarUDFImpl,
    args: &ReturnFieldArgs,
) -> datafusion::common::Result<DataType> {
    let types = crate::field_types(args.arg_fields);
    udf.return_type(&types)
        .or_else(|e| udf.return_type(&argument_types(args)).map_err(|_| e))
}

/// [`literal_aware_type`] in a field that is nullable when an argument is.
pub(crate) fn literal_aware_field(
    udf: &dyn datafusion::logical_expr::ScalarUDFImpl,
    args: &ReturnFieldArgs,
) -> datafusion::common::Result<datafusion::arrow::datatypes::FieldRef> {
    let nullable = args.arg_fields.iter().any(|f| f.is_nullable());
    let data_type = literal_aware_type(udf, args)?;
    Ok(std::sync::Arc::new(
        datafusion::arrow::datatypes::Field::new(udf.name(), data_type, nullable),
    ))
}

/// The argument types as ClickHouse sees them: SQL planning types integer
/// literals (and arrays of them) Int64 before Strata's plan rewrite narrows
/// them, and a common type must not see the wide type.
pub(crate) fn argument_types(args: &ReturnFieldArgs) -> Vec<DataType> {
    args.arg_fields
        .iter()
        .enumerate()
        .map(
            |(i, field)| match args.scalar_arguments.get(i).copied().flatten() {
                Some(ScalarValue::Int64(Some(v))) => strata_common::types::literal_integer_type(*v),
                Some(ScalarValue::List(list))
                    if let DataType::List(item) = field.data_type()
                        && item.data_type() == &DataType::Int64
                        && !list.is_null(0) =>
                {
                    let values = list.value(0);
                    let values = values
                        .as_any()
                        .downcast_ref::<datafusion::arrow::array::Int64Array>();
                    let narrow = values.map_or(DataType::Int64, |values| {
                        let types: Vec<DataType> = values
                            .iter()
                            .flatten()
                            .map(strata_common::types::literal_integer_type)
                            .collect();
                        crate::arrays::common_type(&types).unwrap_or(DataType::Int64)
                    });
                    DataType::List(std::sync::Arc::new(
                        item.as_ref().clone().with_data_type(narrow),
                    ))
                }
                _ => field.data_type().clone(),
            },
        )
        .collect()
}
