//! ClickHouse's bit functions: `bitNot` (of numbers, and of strings byte by
//! byte), `bitRotateLeft`/`bitRotateRight` (in the width of `bitAnd`'s
//! result type), `bitTest`/`bitTestAll`/`bitTestAny`,
//! `bitHammingDistance` (numbers as 64-bit integers, strings byte by byte)
//! and `bitSlice` (a string's bits, counted from 1 like `substring`).

use std::sync::Arc;

use datafusion::arrow::array::{
    Array, ArrayRef, AsArray, BinaryArray, PrimitiveArray, UInt8Array, UInt64Array,
};
use datafusion::arrow::compute::kernels::cast;
use datafusion::arrow::datatypes::*;
use datafusion::common::Result;
use datafusion::logical_expr::{
    ColumnarValue, ReturnFieldArgs, ScalarFunctionArgs, ScalarUDF, ScalarUDFImpl, Signature,
    Volatility,
};
use strata_common::ErrorCode;
use strata_common::types::clickhouse_type_name;

use super::{arity_error, error, illegal_type, is_float, is_integer};
use crate::arithmetic::int_type;
use crate::hashing::{is_null_at, is_text};
use crate::int_cast::{narrow_from_i64, to_i64_wrapping};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BitFunction {
    Not,
    RotateLeft,
    RotateRight,
    Test,
    TestAll,
    TestAny,
    HammingDistance,
    Slice,
}

impl BitFunction {
    const ALL: [BitFunction; 8] = [
        BitFunction::Not,
        BitFunction::RotateLeft,
        BitFunction::RotateRight,
        BitFunction::Test,
        BitFunction::TestAll,
        BitFunction::TestAny,
        BitFunction::HammingDistance,
        BitFunction::Slice,
    ];

    fn name(self) -> &'static str {
        match self {
            BitFunction::Not => "bitNot",
            BitFunction::RotateLeft => "bitRotateLeft",
            BitFunction::RotateRight => "bitRotateRight",
            BitFunction::Test => "bitTest",
            BitFunction::TestAll => "bitTestAll",
            BitFunction::TestAny => "bitTestAny",
            BitFunction::HammingDistance => "bitHammingDistance",
            BitFunction::Slice => "bitSlice",
        }
    }
}

pub fn scalar_functions() -> Vec<ScalarUDF> {
    BitFunction::ALL
        .into_iter()
        .map(|function| {
            ScalarUDF::new_from_impl(Bits {
                function,
                signature: super::any_arguments(Volatility::Immutable),
            })
        })
        .collect()
}

#[derive(Debug, PartialEq, Eq, Hash)]
struct Bits {
    function: BitFunction,
    signature: Signature,
}

/// (signed, bytes) of an integer type; NULL and Bool count as UInt8.
fn shape(t: &DataType) -> Option<(bool, u8)> {
    Some(match t {
        DataType::Null | DataType::Boolean | DataType::UInt8 => (false, 1),
        DataType::UInt16 => (false, 2),
        DataType::UInt32 => (false, 4),
        DataType::UInt64 => (false, 8),
        DataType::Int8 => (true, 1),
        DataType::Int16 => (true, 2),
        DataType::Int32 => (true, 4),
        DataType::Int64 => (true, 8),
        _ => return None,
    })
}

impl Bits {
    fn illegal_pair(&self, l: &DataType, r: &DataType) -> datafusion::error::DataFusionError {
        error(
            ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
            format!(
                "Illegal types {} and {} of arguments of function {}",
                clickhouse_type_name(l, false),
                clickhouse_type_name(r, false),
                self.function.name()
            ),
        )
    }

    fn result(&self, types: &[DataType]) -> Result<DataType> {
        let name = self.function.name();
        let Some(first) = types.first() else {
            return Err(arity_error(name, 0, "at least 1"));
        };
        let expect = |counts: &[usize], expected: &str| {
            if counts.contains(&types.len()) {
                Ok(())
            } else {
                Err(arity_error(name, types.len(), expected))
            }
        };
        match self.function {
            BitFunction::Not => {
                expect(&[1], "1")?;
                match first {
                    DataType::Float32 => Ok(DataType::Int32),
                    DataType::Float64 => Ok(DataType::Int64),
                    t if is_text(t) => Ok(DataType::Binary),
                    DataType::Null => Ok(DataType::Null),
                    t if strata_common::types::BigInt::of(t).is_some() => Ok(t.clone()),
                    t => shape(t)
                        .map(|(s, b)| int_type(s, b))
                        .ok_or_else(|| illegal_type(name, t)),
                }
            }
            BitFunction::RotateLeft | BitFunction::RotateRight | BitFunction::Test => {
                expect(&[2], "2")?;
                let (Some(l), Some(r)) = (shape(first), shape(&types[1])) else {
                    return Err(self.illegal_pair(first, &types[1]));
                };
                Ok(match self.function {
                    BitFunction::Test => DataType::UInt8,
                    _ => int_type(l.0 || r.0, l.1.max(r.1)),
                })
            }
            BitFunction::TestAll | BitFunction::TestAny => self.test_many_type(types),
            BitFunction::HammingDistance => {
                expect(&[2], "2")?;
                let number = |t: &DataType| shape(t).is_some() || is_float(t);
                let text = |t: &DataType| matches!(t, DataType::Utf8 | DataType::Binary);
                if number(first) && number(&types[1]) {
                    Ok(DataType::UInt8)
                } else if text(first) && text(&types[1]) {
                    Ok(DataType::UInt64)
                } else {
                    Err(self.illegal_pair(first, &types[1]))
                }
            }
            BitFunction::Slice => {
                expect(&[2, 3], "2 or 3")?;
                if !(is_text(first) || *first == DataType::Null) {
                    return Err(illegal_type(name, first));
                }
                for t in &types[1..] {
                    if !(is_integer(t) || *t == DataType::Null) {
                        return Err(illegal_type(name, t));
                    }
                }
                Ok(DataType::Binary)
            }
        }
    }

    fn test_many_type(&self, types: &[DataType]) -> Result<DataType> {
        let name = self.function.name();
        if types.len() < 2 {
            return Err(error(
                ErrorCode::TOO_FEW_ARGUMENTS_FOR_FUNCTION,
                format!(
                    "Number of arguments for function {name} doesn't match: passed {}, should be at least 2",
                    types.len()
                ),
            ));
        }
        if shape(&types[0]).is_none() {
            return Err(error(
                ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
                format!(
                    "Illegal type {} of first argument of function {name}",
                    clickhouse_type_name(&types[0], false)
                ),
            ));
        }
        for (i, t) in types.iter().enumerate().skip(1) {
            if !matches!(shape(t), Some((false, _))) {
                return Err(error(
                    ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
                    format!(
                        "Illegal type {} of {i} argument of function {name}",
                        clickhouse_type_name(t, false)
                    ),
                ));
            }
        }
        Ok(DataType::UInt8)
    }
}

impl ScalarUDFImpl for Bits {
    fn name(&self) -> &str {
        self.function.name()
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn return_type(&self, arg_types: &[DataType]) -> Result<DataType> {
        self.result(arg_types)
    }

    fn return_field_from_args(&self, args: ReturnFieldArgs) -> Result<FieldRef> {
        super::literal_aware_field(self, &args)
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        let rows = args.number_rows;
        let scalar = args
            .args
            .iter()
            .all(|a| matches!(a, ColumnarValue::Scalar(_)));
        let arrays = args
            .args
            .iter()
            .map(|a| a.to_array(rows))
            .collect::<Result<Vec<_>>>()?;
        let result = args.return_type().clone();
        let out = match self.function {
            BitFunction::Not => bit_not(&arrays[0], &result)?,
            BitFunction::RotateLeft => rotate(&arrays, &result, true)?,
            BitFunction::RotateRight => rotate(&arrays, &result, false)?,
            BitFunction::Test => bit_test(&arrays)?,
            BitFunction::TestAll => test_many(&arrays, true)?,
            BitFunction::TestAny => test_many(&arrays, false)?,
            BitFunction::HammingDistance => hamming(&arrays[0], &arrays[1])?,
            BitFunction::Slice => slice(&arrays)?,
        };
        crate::columnar(out, scalar)
    }
}

/// Numbers of any integer kind (and floats, truncated) as their Int64 bits.
fn as_i64(array: &ArrayRef) -> Result<PrimitiveArray<Int64Type>> {
    to_i64_wrapping(array)
}

fn bit_not(values: &ArrayRef, result: &DataType) -> Result<ArrayRef> {
    if *result == DataType::Null {
        return Ok(Arc::clone(values));
    }
    if let Some(big) = strata_common::types::BigInt::of(result) {
        return Ok(crate::big_int::bit_not(values, big));
    }
    if *result == DataType::Binary {
        let bytes = cast::cast(values, &DataType::Binary)?;
        let out: BinaryArray = bytes
            .as_binary::<i32>()
            .iter()
            .map(|v| v.map(|v| v.iter().map(|b| !b).collect::<Vec<u8>>()))
            .collect();
        return Ok(Arc::new(out));
    }
    narrow_from_i64(&as_i64(values)?.unary(|v: i64| !v), result)
}

fn width_bits(t: &DataType) -> u32 {
    shape(t).map_or(64, |(_, bytes)| u32::from(bytes) * 8)
}

fn rotate(arrays: &[ArrayRef], result: &DataType, left: bool) -> Result<ArrayRef> {
    if *result == DataType::Null {
        return Ok(Arc::clone(&arrays[0]));
    }
    let bits = width_bits(result);
    let values = as_i64(&arrays[0])?;
    let amounts = as_i64(&arrays[1])?;
    let mask = if bits == 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    };
    let out: PrimitiveArray<Int64Type> =
        datafusion::arrow::compute::binary(&values, &amounts, |v, n| {
            // Rotation within the low `bits` bits; only n modulo `bits` counts.
            let v = (v as u64) & mask;
            let n = (n as u64 % u64::from(bits)) as u32;
            let n = if left { n } else { (bits - n) % bits };
            if n == 0 {
                v as i64
            } else {
                (((v << n) | (v >> (bits - n))) & mask) as i64
            }
        })?;
    narrow_from_i64(&out, result)
}

fn bit_test(arrays: &[ArrayRef]) -> Result<ArrayRef> {
    let bits = i64::from(width_bits(arrays[0].data_type()));
    let values = as_i64(&arrays[0])?;
    let positions = as_i64(&arrays[1])?;
    let out = values
        .iter()
        .zip(positions.iter())
        .map(|(v, p)| {
            let (Some(v), Some(p)) = (v, p) else {
                return Ok(None);
            };
            if !(0..bits).contains(&p) {
                return Err(error(
                    ErrorCode::PARAMETER_OUT_OF_BOUND,
                    format!(
                        "The bit position argument needs to a positive value and less or equal to {} for integer {v}",
                        bits - 1
                    ),
                ));
            }
            Ok(Some(((v >> p) & 1) as u8))
        })
        .collect::<Result<UInt8Array>>()?;
    Ok(Arc::new(out))
}

fn test_many(arrays: &[ArrayRef], all: bool) -> Result<ArrayRef> {
    let bits = u64::from(width_bits(arrays[0].data_type()));
    let values = as_i64(&arrays[0])?;
    let positions = arrays[1..]
        .iter()
        .map(|a| Ok(cast::cast(a, &DataType::UInt64)?))
        .collect::<Result<Vec<_>>>()?;
    let out = (0..values.len())
        .map(|row| {
            if values.is_null(row) || positions.iter().any(|p| p.is_null(row)) {
                return Ok(None);
            }
            let v = values.value(row) as u64;
            let mut set = positions.iter().map(|p| {
                let p = p.as_primitive::<UInt64Type>().value(row);
                if p >= bits {
                    return Err(error(
                        ErrorCode::PARAMETER_OUT_OF_BOUND,
                        format!("The bit position argument {p} is out of bounds for number"),
                    ));
                }
                Ok((v >> p) & 1 == 1)
            });
            let hit = if all {
                set.try_fold(true, |acc, b| b.map(|b| acc && b))?
            } else {
                set.try_fold(false, |acc, b| b.map(|b| acc || b))?
            };
            Ok(Some(u8::from(hit)))
        })
        .collect::<Result<UInt8Array>>()?;
    Ok(Arc::new(out))
}

fn hamming(a: &ArrayRef, b: &ArrayRef) -> Result<ArrayRef> {
    if !is_text(a.data_type()) {
        let out: UInt8Array =
            datafusion::arrow::compute::binary(&as_i64(a)?, &as_i64(b)?, |x, y| {
                (x ^ y).count_ones() as u8
            })?;
        return Ok(Arc::new(out));
    }
    let (a, b) = (
        cast::cast(a, &DataType::Binary)?,
        cast::cast(b, &DataType::Binary)?,
    );
    let out: UInt64Array = a
        .as_binary::<i32>()
        .iter()
        .zip(b.as_binary::<i32>().iter())
        .map(|(x, y)| {
            let (x, y) = (x?, y?);
            // The shorter string counts as padded with zero bytes.
            let len = x.len().max(y.len());
            let byte = |s: &[u8], i: usize| s.get(i).copied().unwrap_or(0);
            Some(
                (0..len)
                    .map(|i| u64::from((byte(x, i) ^ byte(y, i)).count_ones()))
                    .sum(),
            )
        })
        .collect();
    Ok(Arc::new(out))
}

fn slice(arrays: &[ArrayRef]) -> Result<ArrayRef> {
    let text = &arrays[0];
    let bytes = cast::cast(text, &DataType::Binary)?;
    let bytes = bytes.as_binary::<i32>();
    let offsets = as_i64(&arrays[1])?;
    let lengths = arrays.get(2).map(as_i64).transpose()?;
    let out: BinaryArray = (0..text.len())
        .map(|row| {
            if is_null_at(text.as_ref(), row)
                || offsets.is_null(row)
                || lengths.as_ref().is_some_and(|l| l.is_null(row))
            {
                return None;
            }
            let length = lengths.as_ref().map(|l| l.value(row));
            Some(bit_slice(bytes.value(row), offsets.value(row), length))
        })
        .collect();
    Ok(Arc::new(out))
}

/// Bits `offset..` (from 1; from the end when negative) of `bytes`, `length`
/// of them (all but the last `-length` when negative), packed from the
/// first byte's high bit with the last byte padded by zeros.
fn bit_slice(bytes: &[u8], offset: i64, length: Option<i64>) -> Vec<u8> {
    let total = bytes.len() as i64 * 8;
    let start = match offset {
        0 => return Vec::new(),
        o if o > 0 => o - 1,
        o => total + o,
    };
    let end = match length {
        None => total,
        Some(l) if l >= 0 => start.saturating_add(l),
        Some(l) => total + l,
    };
    let (start, end) = (start.max(0), end.min(total));
    if start >= end {
        return Vec::new();
    }
    let count = (end - start) as usize;
    let mut out = vec![0u8; count.div_ceil(8)];
    for i in 0..count {
        let bit = start as usize + i;
        if bytes[bit / 8] & (0x80 >> (bit % 8)) != 0 {
            out[i / 8] |= 0x80 >> (i % 8);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::bit_slice;

    #[test]
    fn slices_count_bits_like_substring() {
        let hello = b"Hello";
        assert_eq!(bit_slice(hello, 1, Some(8)), vec![0x48]);
        assert_eq!(bit_slice(hello, 1, Some(9)), vec![0x48, 0x00]);
        assert_eq!(bit_slice(hello, -4, None), vec![0xF0]);
        assert_eq!(bit_slice(hello, 0, None), Vec::<u8>::new());
        assert_eq!(bit_slice(hello, 3, Some(5)), vec![0x20]);
        assert_eq!(bit_slice(hello, -10, Some(4)), vec![0x10]);
        assert_eq!(bit_slice(hello, -42, Some(4)), vec![0x40]);
        assert_eq!(bit_slice(hello, -41, Some(-30)), vec![0x48, 0x40]);
        assert_eq!(
            bit_slice(hello, 2, Some(-3)),
            vec![0x90, 0xCA, 0xD8, 0xD8, 0xD0]
        );
    }
}
