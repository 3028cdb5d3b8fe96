//! Wrapping integer conversions, as ClickHouse does them (`toUInt8(300)` is 44).
//!
//! Arrow's casts either fail or produce NULL on overflow; ClickHouse keeps the low
//! bits. Every integer computation in this crate goes through these helpers.

use std::sync::Arc;

use datafusion::arrow::array::{ArrayRef, AsArray, PrimitiveArray};
use datafusion::arrow::compute::kernels::cast;
use datafusion::arrow::datatypes::*;
use datafusion::common::{Result, exec_err};

macro_rules! widen {
    ($array:expr, $target:ty, $as:ty) => {{
        let a = $array;
        match a.data_type() {
            DataType::UInt8 => a
                .as_primitive::<UInt8Type>()
                .unary::<_, $target>(|v| v as $as),
            DataType::UInt16 => a
                .as_primitive::<UInt16Type>()
                .unary::<_, $target>(|v| v as $as),
            DataType::UInt32 => a
                .as_primitive::<UInt32Type>()
                .unary::<_, $target>(|v| v as $as),
            DataType::UInt64 => a
                .as_primitive::<UInt64Type>()
                .unary::<_, $target>(|v| v as $as),
            DataType::Int8 => a
                .as_primitive::<Int8Type>()
                .unary::<_, $target>(|v| v as $as),
            DataType::Int16 => a
                .as_primitive::<Int16Type>()
                .unary::<_, $target>(|v| v as $as),
            DataType::Int32 => a
                .as_primitive::<Int32Type>()
                .unary::<_, $target>(|v| v as $as),
            DataType::Int64 => a
                .as_primitive::<Int64Type>()
                .unary::<_, $target>(|v| v as $as),
            DataType::Float32 => a
                .as_primitive::<Float32Type>()
                .unary::<_, $target>(|v| v as i64 as $as),
            DataType::Float64 => a
                .as_primitive::<Float64Type>()
                .unary::<_, $target>(|v| v as i64 as $as),
            DataType::Boolean | DataType::Null => {
                let as_u8 = cast::cast(a, &DataType::UInt8)?;
                as_u8
                    .as_primitive::<UInt8Type>()
                    .unary::<_, $target>(|v| v as $as)
            }
            DataType::Date32 => a
                .as_primitive::<Date32Type>()
                .unary::<_, $target>(|v| v as $as),
            DataType::Timestamp(TimeUnit::Second, _) => a
                .as_primitive::<TimestampSecondType>()
                .unary::<_, $target>(|v| v as $as),
            // Digits past the point are cut off, toward zero.
            DataType::Decimal128(_, scale) => {
                let divisor = 10i128.pow(u32::from(scale.unsigned_abs()));
                a.as_primitive::<Decimal128Type>()
                    .unary::<_, $target>(|v| (v / divisor) as $as)
            }
            // Big integers are decimals of scale 0: their low bits.
            DataType::Decimal256(_, scale) => {
                let divisor = i256::from_i128(10).wrapping_pow(u32::from(scale.unsigned_abs()));
                a.as_primitive::<Decimal256Type>()
                    .unary::<_, $target>(|v| v.wrapping_div(divisor).as_i128() as $as)
            }
            other => return exec_err!("cannot convert {other} to an integer"),
        }
    }};
}

/// Any integer, float, decimal, boolean, date or time array as Int64, keeping the low bits.
pub fn to_i64_wrapping(array: &ArrayRef) -> Result<PrimitiveArray<Int64Type>> {
    Ok(widen!(array.as_ref(), Int64Type, i64))
}

/// Any integer, float, decimal, boolean, date or time array as UInt64, keeping the low bits.
pub fn to_u64_wrapping(array: &ArrayRef) -> Result<PrimitiveArray<UInt64Type>> {
    Ok(widen!(array.as_ref(), UInt64Type, u64))
}

macro_rules! narrow {
    ($array:expr, $target:expr, $src:ty) => {{
        let a = $array;
        let out: ArrayRef = match $target {
            DataType::UInt8 => Arc::new(a.unary::<_, UInt8Type>(|v: $src| v as u8)),
            DataType::UInt16 => Arc::new(a.unary::<_, UInt16Type>(|v: $src| v as u16)),
            DataType::UInt32 => Arc::new(a.unary::<_, UInt32Type>(|v: $src| v as u32)),
            DataType::UInt64 => Arc::new(a.unary::<_, UInt64Type>(|v: $src| v as u64)),
            DataType::Int8 => Arc::new(a.unary::<_, Int8Type>(|v: $src| v as i8)),
            DataType::Int16 => Arc::new(a.unary::<_, Int16Type>(|v: $src| v as i16)),
            DataType::Int32 => Arc::new(a.unary::<_, Int32Type>(|v: $src| v as i32)),
            DataType::Int64 => Arc::new(a.unary::<_, Int64Type>(|v: $src| v as i64)),
            DataType::Float32 => Arc::new(a.unary::<_, Float32Type>(|v: $src| v as f32)),
            DataType::Float64 => Arc::new(a.unary::<_, Float64Type>(|v: $src| v as f64)),
            other => return exec_err!("cannot narrow an integer to {other}"),
        };
        Ok(out)
    }};
}

/// Converts Int64 values to `target`, keeping the low bits.
pub fn narrow_from_i64(array: &PrimitiveArray<Int64Type>, target: &DataType) -> Result<ArrayRef> {
    narrow!(array, target, i64)
}

/// Converts UInt64 values to `target`, keeping the low bits.
pub fn narrow_from_u64(array: &PrimitiveArray<UInt64Type>, target: &DataType) -> Result<ArrayRef> {
    narrow!(array, target, u64)
}

/// An integer column's values as i128, wide enough for every integer type
/// (NULL as None).
pub fn to_i128(column: &ArrayRef) -> Result<Vec<Option<i128>>> {
    let wide = cast::cast(column, &DataType::Decimal128(38, 0))?;
    Ok(wide.as_primitive::<Decimal128Type>().iter().collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use datafusion::arrow::array::{Array, Int16Array, UInt8Array};

    #[test]
    fn conversions_wrap_like_clickhouse() {
        let input: ArrayRef = Arc::new(Int16Array::from(vec![300, -1, 200]));
        let wide = to_i64_wrapping(&input).unwrap();
        let narrow = narrow_from_i64(&wide, &DataType::UInt8).unwrap();
        let narrow = narrow.as_any().downcast_ref::<UInt8Array>().unwrap();
        assert_eq!(narrow.values().as_ref(), &[44, 255, 200]);
        let signed = narrow_from_i64(&wide, &DataType::Int8).unwrap();
        assert_eq!(
            signed.as_primitive::<Int8Type>().values().as_ref(),
            &[44, -1, -56]
        );
    }
}
