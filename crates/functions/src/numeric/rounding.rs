//! `round`, `roundBankers`, `floor`, `ceil`, `trunc` with ClickHouse's
//! optional scale: the result keeps the argument's type.
//!
//! Floats round through `x * 10^N` (or `x / 10^-N`), where `10^N` saturates
//! at the largest UInt64 as ClickHouse's does; `round` of a float breaks
//! ties to even, like `roundBankers`. Integers and decimals round to a
//! multiple of `10^-N` with ClickHouse's integer steps, overflow included:
//! arithmetic on 8- and 16-bit values happens in 32 bits and is narrowed
//! when stored, wider types wrap at their own width.

use std::sync::Arc;

use datafusion::arrow::array::{Array, ArrayRef, AsArray, PrimitiveArray};
use datafusion::arrow::compute::kernels::cast;
use datafusion::arrow::datatypes::*;
use datafusion::common::{Result, ScalarValue};
use datafusion::logical_expr::{
    ColumnarValue, ReturnFieldArgs, ScalarFunctionArgs, ScalarUDF, ScalarUDFImpl, Signature,
    Volatility,
};
use strata_common::ErrorCode;

use super::{arity_error, error, illegal_type, is_float, is_integer};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Mode {
    Round,
    Bankers,
    Floor,
    Ceil,
    Trunc,
}

pub fn scalar_functions() -> Vec<ScalarUDF> {
    [
        (Mode::Round, "round", &[][..]),
        (Mode::Bankers, "roundBankers", &[][..]),
        (Mode::Floor, "floor", &[][..]),
        (Mode::Ceil, "ceil", &["ceiling"][..]),
        (Mode::Trunc, "trunc", &["truncate"][..]),
    ]
    .into_iter()
    .map(|(mode, name, aliases)| {
        ScalarUDF::new_from_impl(Rounding::new(mode, name)).with_aliases(aliases.iter().copied())
    })
    .collect()
}

#[derive(Debug, PartialEq, Eq, Hash)]
pub struct Rounding {
    mode: Mode,
    name: &'static str,
    signature: Signature,
}

impl Rounding {
    pub fn new(mode: Mode, name: &'static str) -> Self {
        Rounding {
            mode,
            name,
            signature: super::any_arguments(Volatility::Immutable),
        }
    }
}

impl ScalarUDFImpl for Rounding {
    fn name(&self) -> &str {
        self.name
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn return_type(&self, arg_types: &[DataType]) -> Result<DataType> {
        if !(1..=2).contains(&arg_types.len()) {
            return Err(arity_error(self.name, arg_types.len(), "1 or 2"));
        }
        let value = &arg_types[0];
        if !(is_integer(value)
            || is_float(value)
            || matches!(value, DataType::Decimal128(..) | DataType::Null))
        {
            return Err(illegal_type(self.name, value));
        }
        if let Some(scale) = arg_types.get(1)
            && !(is_integer(scale) || *scale == DataType::Null)
        {
            return Err(illegal_type(self.name, scale));
        }
        Ok(value.clone())
    }

    fn return_field_from_args(&self, args: ReturnFieldArgs) -> Result<FieldRef> {
        crate::null_propagating_field(self, &args)
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        let rows = args.number_rows;
        let scalar = args
            .args
            .iter()
            .all(|a| matches!(a, ColumnarValue::Scalar(_)));
        let values = args.args[0].to_array(rows)?;
        let scales: Vec<Option<i64>> = match args.args.get(1) {
            None => vec![Some(0); rows],
            Some(ColumnarValue::Scalar(s)) => vec![scale_of(s)?; rows],
            Some(ColumnarValue::Array(a)) => {
                let wide = cast::cast(a, &DataType::Int64)?;
                wide.as_primitive::<Int64Type>().iter().collect()
            }
        };
        let out = round_array(&values, &scales, self.mode)?;
        crate::columnar(out, scalar)
    }
}

fn scale_of(value: &ScalarValue) -> Result<Option<i64>> {
    if value.is_null() {
        return Ok(None);
    }
    let ScalarValue::Int64(Some(scale)) = value.cast_to(&DataType::Int64)? else {
        return Ok(None);
    };
    // ClickHouse keeps scales in 16 bits.
    if i16::try_from(scale).is_err() {
        return Err(error(
            ErrorCode::ARGUMENT_OUT_OF_BOUND,
            "Scale argument for rounding function is too large",
        ));
    }
    Ok(Some(scale))
}

/// 10^n as ClickHouse's `intExp10`: 0 below zero, saturating at UInt64's maximum.
pub(crate) fn int_exp10(n: i64) -> u64 {
    if n < 0 {
        0
    } else {
        10u64.checked_pow(n as u32).unwrap_or(u64::MAX)
    }
}

fn round_array(values: &ArrayRef, scales: &[Option<i64>], mode: Mode) -> Result<ArrayRef> {
    macro_rules! integers {
        ($t:ty, $bits:expr, $signed:expr) => {{
            let width = Width {
                bits: $bits,
                signed: $signed,
            };
            let out: PrimitiveArray<$t> = values
                .as_primitive::<$t>()
                .iter()
                .zip(scales)
                .map(|(v, s)| {
                    let (v, s) = (v?, (*s)?);
                    Some(round_integer(v as i128, s, width, mode)
                        as <$t as ArrowPrimitiveType>::Native)
                })
                .collect();
            Arc::new(out) as ArrayRef
        }};
    }
    Ok(match values.data_type() {
        DataType::Null => Arc::clone(values),
        DataType::Float64 => Arc::new(floats::<Float64Type>(values, scales, |x, s| {
            round_f64(x, s, mode)
        })),
        DataType::Float32 => Arc::new(floats::<Float32Type>(values, scales, |x, s| {
            round_f32(x, s, mode)
        })),
        DataType::UInt8 => integers!(UInt8Type, 8, false),
        DataType::UInt16 => integers!(UInt16Type, 16, false),
        DataType::UInt32 => integers!(UInt32Type, 32, false),
        DataType::UInt64 => integers!(UInt64Type, 64, false),
        DataType::Int8 => integers!(Int8Type, 8, true),
        DataType::Int16 => integers!(Int16Type, 16, true),
        DataType::Int32 => integers!(Int32Type, 32, true),
        DataType::Int64 => integers!(Int64Type, 64, true),
        DataType::Decimal128(precision, scale) => {
            let decimals = values.as_primitive::<Decimal128Type>();
            let out: PrimitiveArray<Decimal128Type> = decimals
                .iter()
                .zip(scales)
                .map(|(v, s)| Some(round_decimal(v?, i64::from(*scale), (*s)?, mode)))
                .collect();
            Arc::new(out.with_precision_and_scale(*precision, *scale)?)
        }
        other => return Err(illegal_type("round", other)),
    })
}

fn floats<T: ArrowPrimitiveType>(
    values: &ArrayRef,
    scales: &[Option<i64>],
    f: impl Fn(T::Native, i64) -> T::Native,
) -> PrimitiveArray<T> {
    let values = values.as_primitive::<T>();
    if let Some(Some(scale)) = scales.first()
        && scales.iter().all(|s| *s == Some(*scale))
    {
        return values.unary(|x| f(x, *scale));
    }
    values
        .iter()
        .zip(scales)
        .map(|(v, s)| Some(f(v?, (*s)?)))
        .collect()
}

macro_rules! float_rounding {
    ($name:ident, $t:ty) => {
        fn $name(x: $t, scale: i64, mode: Mode) -> $t {
            let apply = |v: $t| match mode {
                Mode::Round | Mode::Bankers => v.round_ties_even(),
                Mode::Floor => v.floor(),
                Mode::Ceil => v.ceil(),
                Mode::Trunc => v.trunc(),
            };
            if scale > 0 {
                let p = int_exp10(scale) as $t;
                apply(x * p) / p
            } else if scale < 0 {
                let p = int_exp10(-scale) as $t;
                apply(x / p) * p
            } else {
                apply(x)
            }
        }
    };
}

float_rounding!(round_f64, f64);
float_rounding!(round_f32, f32);

/// An integer type: its width in bits and signedness.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Width {
    pub bits: u32,
    pub signed: bool,
}

impl Width {
    fn max(self) -> i128 {
        if self.bits == 128 {
            return i128::MAX;
        }
        let magnitude = if self.signed {
            self.bits - 1
        } else {
            self.bits
        };
        (1i128 << magnitude) - 1
    }

    /// `v` stored in this type: its low bits, read back with the type's sign.
    pub(crate) fn wrap(self, v: i128) -> i128 {
        if self.bits == 128 {
            return v;
        }
        let shift = 128 - self.bits;
        if self.signed {
            (v << shift) >> shift
        } else {
            ((v as u128) << shift >> shift) as i128
        }
    }

    /// The result of arithmetic in C++ on this type: types narrower than
    /// `int` compute in `int`, where these values cannot overflow.
    fn op(self, v: i128) -> i128 {
        if self.bits < 32 { v } else { self.wrap(v) }
    }
}

/// `x` rounded to a multiple of 10^-scale, in the type `width`.
fn round_integer(x: i128, scale: i64, width: Width, mode: Mode) -> i128 {
    if scale >= 0 {
        return x;
    }
    let factor = int_exp10(-scale);
    if i128::from(factor) > width.max() {
        return 0;
    }
    round_to_multiple(x, i128::from(factor), width, mode)
}

fn round_to_multiple(mut x: i128, s: i128, w: Width, mode: Mode) -> i128 {
    let op = |v: i128| w.op(v);
    let multiple = |v: i128| w.wrap(op(op(v / s).wrapping_mul(s)));
    match mode {
        Mode::Trunc => multiple(x),
        Mode::Floor => {
            if x < 0 {
                x = w.wrap(x.wrapping_sub(s - 1));
            }
            multiple(x)
        }
        Mode::Ceil => {
            if x >= 0 {
                x = w.wrap(x.wrapping_add(s - 1));
            }
            multiple(x)
        }
        Mode::Round => {
            if x < 0 {
                x = w.wrap(x.wrapping_sub(s));
            }
            multiple(op(x.wrapping_add(s / 2)))
        }
        Mode::Bankers => {
            if x < 0 {
                x = w.wrap(x.wrapping_sub(s));
            }
            let shifted = op(x.wrapping_add(s / 2));
            let quotient = w.wrap(op(shifted / s));
            if op(quotient.wrapping_mul(s)) == shifted {
                let even = op(quotient.wrapping_add(i128::from(x < 0))) & !1;
                w.wrap(op(even.wrapping_mul(s)))
            } else {
                w.wrap(op(quotient.wrapping_mul(s)))
            }
        }
    }
}

/// A decimal's unscaled value `v` (with `digits` decimal places) rounded to `scale` places.
fn round_decimal(v: i128, digits: i64, scale: i64, mode: Mode) -> i128 {
    let drop = digits - scale;
    if drop <= 0 {
        return v;
    }
    let Some(factor) = 10i128.checked_pow(drop as u32) else {
        return 0;
    };
    let width = Width {
        bits: 128,
        signed: true,
    };
    round_to_multiple(v, factor, width, mode)
}

#[cfg(test)]
mod tests {
    use super::*;

    const I8: Width = Width {
        bits: 8,
        signed: true,
    };
    const U8: Width = Width {
        bits: 8,
        signed: false,
    };
    const I64: Width = Width {
        bits: 64,
        signed: true,
    };

    #[test]
    fn integers_round_as_clickhouse_does() {
        assert_eq!(round_integer(25, -1, I64, Mode::Round), 30);
        assert_eq!(round_integer(-25, -1, I64, Mode::Round), -30);
        assert_eq!(round_integer(25, -1, I64, Mode::Bankers), 20);
        assert_eq!(round_integer(35, -1, I64, Mode::Bankers), 40);
        assert_eq!(round_integer(-25, -1, I64, Mode::Bankers), -20);
        assert_eq!(round_integer(-17, -1, I64, Mode::Floor), -20);
        assert_eq!(round_integer(-17, -1, I64, Mode::Trunc), -10);
        assert_eq!(round_integer(15, -1, I64, Mode::Ceil), 20);
        // Overflow as ClickHouse's C++ computes it.
        assert_eq!(round_integer(-128, -1, I8, Mode::Round), 120);
        assert_eq!(round_integer(127, -1, I8, Mode::Round), -126);
        assert_eq!(round_integer(255, -1, U8, Mode::Round), 4);
        assert_eq!(round_integer(251, -2, U8, Mode::Ceil), 0);
        assert_eq!(round_integer(249, -3, U8, Mode::Round), 0);
    }

    #[test]
    fn floats_round_through_the_scale() {
        assert_eq!(round_f64(2.5, 0, Mode::Round), 2.0);
        assert_eq!(round_f64(2.675, 2, Mode::Round), 2.68);
        assert_eq!(round_f64(1.5, 309, Mode::Round), 1.5);
        assert_eq!(round_f64(1e-320, 320, Mode::Round), 0.0);
        assert_eq!(round_f64(12345.6789, -2, Mode::Round), 12300.0);
    }

    #[test]
    fn decimals_round_half_away_from_zero() {
        assert_eq!(round_decimal(25, 1, 0, Mode::Round), 30);
        assert_eq!(round_decimal(-25, 1, 0, Mode::Round), -30);
        assert_eq!(round_decimal(25, 1, 0, Mode::Bankers), 20);
        assert_eq!(round_decimal(255, 2, 1, Mode::Floor), 250);
    }
}
