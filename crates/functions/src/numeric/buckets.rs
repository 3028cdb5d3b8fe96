//! Rounding down to a set of values: `roundToExp2` (the power of two at or
//! below an integer; a float keeps only its sign and exponent),
//! `roundDuration` and `roundAge` (ClickHouse's fixed buckets, UInt16 and
//! UInt8), and `roundDown(x, [bounds])` (the greatest bound at or below `x`,
//! else the least bound, in the common type of `x` and the bounds).

use std::sync::Arc;

use datafusion::arrow::array::{Array, ArrayRef, AsArray, PrimitiveArray, UInt8Array, UInt16Array};
use datafusion::arrow::compute::kernels::cast;
use datafusion::arrow::datatypes::*;
use datafusion::common::{Result, ScalarValue};
use datafusion::logical_expr::{
    ColumnarValue, ReturnFieldArgs, ScalarFunctionArgs, ScalarUDF, ScalarUDFImpl, Signature,
    Volatility,
};
use strata_common::ErrorCode;
use strata_common::types::clickhouse_type_name;

use super::{error, illegal_type, is_float, is_integer};
use crate::int_cast::{narrow_from_i64, narrow_from_u64, to_i64_wrapping};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Bucket {
    Exp2,
    Duration,
    Age,
    Down,
}

impl Bucket {
    fn name(self) -> &'static str {
        match self {
            Bucket::Exp2 => "roundToExp2",
            Bucket::Duration => "roundDuration",
            Bucket::Age => "roundAge",
            Bucket::Down => "roundDown",
        }
    }
}

const DURATIONS: [u16; 16] = [
    0, 1, 10, 30, 60, 120, 180, 240, 300, 600, 1200, 1800, 3600, 7200, 18000, 36000,
];

pub fn scalar_functions() -> Vec<ScalarUDF> {
    [Bucket::Exp2, Bucket::Duration, Bucket::Age, Bucket::Down]
        .into_iter()
        .map(|bucket| {
            ScalarUDF::new_from_impl(Buckets {
                bucket,
                signature: super::any_arguments(Volatility::Immutable),
            })
        })
        .collect()
}

#[derive(Debug, PartialEq, Eq, Hash)]
struct Buckets {
    bucket: Bucket,
    signature: Signature,
}

fn native(t: &DataType) -> bool {
    is_integer(t) || is_float(t) || *t == DataType::Null
}

impl ScalarUDFImpl for Buckets {
    fn name(&self) -> &str {
        self.bucket.name()
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn return_type(&self, arg_types: &[DataType]) -> Result<DataType> {
        let name = self.bucket.name();
        let arity = if self.bucket == Bucket::Down { 2 } else { 1 };
        if arg_types.len() != arity {
            return Err(super::arity_error(
                name,
                arg_types.len(),
                &arity.to_string(),
            ));
        }
        let value = &arg_types[0];
        if !native(value) {
            return Err(match self.bucket {
                Bucket::Down => error(
                    ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
                    format!(
                        "Unsupported type {} of first argument of function roundDown, must be numeric type",
                        clickhouse_type_name(value, false)
                    ),
                ),
                _ => illegal_type(name, value),
            });
        }
        Ok(match self.bucket {
            Bucket::Exp2 => value.clone(),
            Bucket::Duration => DataType::UInt16,
            Bucket::Age => DataType::UInt8,
            Bucket::Down => {
                let DataType::List(item) = &arg_types[1] else {
                    return Err(error(
                        ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
                        "Second argument of function roundDown, must be array of boundaries to round to",
                    ));
                };
                if !(is_integer(item.data_type()) || is_float(item.data_type())) {
                    return Err(error(
                        ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
                        "Elements of array of second argument of function roundDown must be numeric type",
                    ));
                }
                crate::arrays::common_type([value, item.data_type()])?
            }
        })
    }

    fn return_field_from_args(&self, args: ReturnFieldArgs) -> Result<FieldRef> {
        Ok(Arc::new(Field::new(
            self.name(),
            super::literal_aware_type(self, &args)?,
            args.arg_fields[0].is_nullable(),
        )))
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        let scalar = matches!(args.args[0], ColumnarValue::Scalar(_));
        let values = args.args[0].to_array(crate::rows_to_evaluate(&args))?;
        let result = args.return_type().clone();
        let out = match self.bucket {
            Bucket::Exp2 => exp2(&values)?,
            Bucket::Duration => {
                let out: UInt16Array = as_f64(&values)?
                    .iter()
                    .map(|v| {
                        v.map(|v| {
                            *DURATIONS
                                .iter()
                                .rev()
                                .find(|&&d| v >= f64::from(d))
                                .unwrap_or(&0)
                        })
                    })
                    .collect();
                Arc::new(out) as ArrayRef
            }
            Bucket::Age => {
                let out: UInt8Array = as_f64(&values)?.iter().map(|v| v.map(age)).collect();
                Arc::new(out)
            }
            Bucket::Down => {
                let ColumnarValue::Scalar(bounds) = &args.args[1] else {
                    return Err(error(
                        ErrorCode::ILLEGAL_COLUMN,
                        "Argument at index 1 for function roundDown must be constant",
                    ));
                };
                round_down(&values, bounds, &result)?
            }
        };
        crate::columnar(out, scalar)
    }
}

fn as_f64(values: &ArrayRef) -> Result<PrimitiveArray<Float64Type>> {
    Ok(cast::cast(values, &DataType::Float64)?
        .as_primitive::<Float64Type>()
        .clone())
}

fn age(v: f64) -> u8 {
    match v {
        v if v < 1.0 => 0,
        v if v < 18.0 => 17,
        v if v < 25.0 => 18,
        v if v < 35.0 => 25,
        v if v < 45.0 => 35,
        v if v < 55.0 => 45,
        _ => 55,
    }
}

fn exp2(values: &ArrayRef) -> Result<ArrayRef> {
    let power = |v: u64| {
        if v == 0 {
            0
        } else {
            1u64 << (63 - v.leading_zeros())
        }
    };
    Ok(match values.data_type() {
        // Sign and exponent only: the mantissa's bits cleared.
        DataType::Float64 => Arc::new(
            values
                .as_primitive::<Float64Type>()
                .unary::<_, Float64Type>(|v| f64::from_bits(v.to_bits() & 0xFFF0_0000_0000_0000)),
        ),
        DataType::Float32 => Arc::new(
            values
                .as_primitive::<Float32Type>()
                .unary::<_, Float32Type>(|v| f32::from_bits(v.to_bits() & 0xFF80_0000)),
        ),
        DataType::UInt64 => Arc::new(
            values
                .as_primitive::<UInt64Type>()
                .unary::<_, UInt64Type>(power),
        ),
        DataType::Null => Arc::clone(values),
        t => {
            let wide = to_i64_wrapping(values)?;
            let powers: PrimitiveArray<Int64Type> =
                wide.unary(|v| if v <= 0 { 0 } else { power(v as u64) as i64 });
            narrow_from_i64(&powers, t)?
        }
    })
}

fn round_down(values: &ArrayRef, bounds: &ScalarValue, result: &DataType) -> Result<ArrayRef> {
    let ScalarValue::List(list) = bounds else {
        return Ok(datafusion::arrow::array::new_null_array(
            result,
            values.len(),
        ));
    };
    let mut sorted: Vec<f64> = if list.is_null(0) {
        Vec::new()
    } else {
        as_f64(&list.value(0))?.iter().flatten().collect()
    };
    sorted.sort_by(f64::total_cmp);
    let Some(&least) = sorted.first() else {
        return Err(error(
            ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
            "Elements of array of second argument of function roundDown must be numeric type",
        ));
    };
    let rounded: Vec<Option<f64>> = as_f64(values)?
        .iter()
        .map(|v| {
            v.map(|v| {
                let below = sorted.partition_point(|&b| b <= v);
                if below == 0 { least } else { sorted[below - 1] }
            })
        })
        .collect();
    let floats: ArrayRef = Arc::new(PrimitiveArray::<Float64Type>::from(rounded));
    if is_float(result) {
        return Ok(cast::cast(&floats, result)?);
    }
    // Bounds are integers of the result type, exact in Float64 below 2^53.
    let integers = cast::cast(&floats, &DataType::Int64)?;
    match result {
        DataType::UInt64 => narrow_from_u64(&to_u64(&integers)?, result),
        _ => narrow_from_i64(integers.as_primitive::<Int64Type>(), result),
    }
}

fn to_u64(values: &ArrayRef) -> Result<PrimitiveArray<UInt64Type>> {
    crate::int_cast::to_u64_wrapping(values)
}

#[cfg(test)]
mod tests {
    use super::age;

    #[test]
    fn ages_fall_in_clickhouse_buckets() {
        let buckets: Vec<u8> = [0.5, 1.0, 17.9, 18.0, 34.0, 35.0, 100.0]
            .into_iter()
            .map(age)
            .collect();
        assert_eq!(buckets, vec![0, 17, 17, 18, 25, 35, 55]);
    }
}
