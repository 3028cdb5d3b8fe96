//! Granule bounds: the least and greatest value of a column in each
//! granule, written beside the column as `<column>.bounds`, so that a
//! filter on any column, not only the primary key, can skip granules (as
//! DuckDB's zone maps do, and ClickHouse's minmax skipping indexes).
//!
//! A bound is null where it is unknown: a granule of only NULLs, a float
//! granule holding NaN, a greatest string longer than
//! [`MAX_STRING_BOUND_BYTES`]. Pruning keeps a granule whose bound is null.

use std::ops::Range;

use datafusion::arrow::array::{Array, ArrayRef, AsArray, make_array};
use datafusion::arrow::buffer::Buffer;
use datafusion::arrow::compute::concat;
use datafusion::arrow::datatypes::{DataType, Float32Type, Float64Type};
use datafusion::common::ScalarValue;
use datafusion::functions_aggregate::min_max::{MaxAccumulator, MinAccumulator};
use datafusion::logical_expr::Accumulator;
use strata_common::error::{ErrorCode, Result, StrataError};

use super::array_bytes;
use crate::compression::{Codec, read_block, write_block};

/// Suffix of a column's granule bounds file.
pub(crate) const BOUNDS_SUFFIX: &str = ".bounds";
/// Longest string a bound keeps. A longer least value is cut to a prefix
/// (still a lower bound); a longer greatest value is left unknown.
pub const MAX_STRING_BOUND_BYTES: usize = 64;

/// One row per granule of a column: its least and greatest value.
#[derive(Debug, Clone)]
pub struct GranuleBounds {
    pub min: ArrayRef,
    pub max: ArrayRef,
}

impl GranuleBounds {
    /// The bounds of `granules` alone.
    pub fn slice(&self, granules: Range<usize>) -> GranuleBounds {
        GranuleBounds {
            min: self.min.slice(granules.start, granules.len()),
            max: self.max.slice(granules.start, granules.len()),
        }
    }

    /// The bounds of consecutive runs of granules, `pieces` in order, as one.
    pub fn concat(pieces: &[GranuleBounds]) -> Result<GranuleBounds> {
        let mins: Vec<&dyn Array> = pieces.iter().map(|p| p.min.as_ref()).collect();
        let maxes: Vec<&dyn Array> = pieces.iter().map(|p| p.max.as_ref()).collect();
        Ok(GranuleBounds {
            min: concat(&mins)?,
            max: concat(&maxes)?,
        })
    }
}

/// Whether columns of `data_type` get granule bounds: types whose Arrow
/// order is the order filters compare them in.
pub fn has_bounds(data_type: &DataType) -> bool {
    data_type.is_integer()
        || data_type.is_floating()
        || matches!(
            data_type,
            DataType::Decimal128(..)
                | DataType::Decimal256(..)
                | DataType::Date32
                | DataType::Date64
                | DataType::Timestamp(..)
                | DataType::Utf8
                | DataType::LargeUtf8
        )
}

/// The bounds of `column` split into granules of `granules` rows each;
/// `None` for a type without bounds.
pub fn compute(column: &ArrayRef, granules: &[usize]) -> Result<Option<GranuleBounds>> {
    if !has_bounds(column.data_type()) {
        return Ok(None);
    }
    debug_assert_eq!(granules.iter().sum::<usize>(), column.len());
    let mut mins = Vec::with_capacity(granules.len());
    let mut maxes = Vec::with_capacity(granules.len());
    let mut start = 0;
    for &rows in granules {
        let granule = column.slice(start, rows);
        start += rows;
        if holds_nan(&granule) {
            let unknown = ScalarValue::try_from(column.data_type())?;
            mins.push(unknown.clone());
            maxes.push(unknown);
            continue;
        }
        let mut min = MinAccumulator::try_new(column.data_type())?;
        let mut max = MaxAccumulator::try_new(column.data_type())?;
        min.update_batch(std::slice::from_ref(&granule))?;
        max.update_batch(std::slice::from_ref(&granule))?;
        mins.push(widen(min.evaluate()?, false));
        maxes.push(widen(max.evaluate()?, true));
    }
    Ok(Some(GranuleBounds {
        min: ScalarValue::iter_to_array(mins)?,
        max: ScalarValue::iter_to_array(maxes)?,
    }))
}

/// NaN has no place in an order filters agree on, so a granule holding one
/// has unknown bounds.
fn holds_nan(granule: &ArrayRef) -> bool {
    match granule.data_type() {
        DataType::Float32 => granule
            .as_primitive::<Float32Type>()
            .iter()
            .any(|v| v.is_some_and(f32::is_nan)),
        DataType::Float64 => granule
            .as_primitive::<Float64Type>()
            .iter()
            .any(|v| v.is_some_and(f64::is_nan)),
        _ => false,
    }
}

/// A bound made safe for every filter: a zero as the zero that orders
/// outside the other (-0.0 lower, +0.0 upper), since SQL holds them equal;
/// a long string cut (lower) or unknown (upper).
fn widen(bound: ScalarValue, upper: bool) -> ScalarValue {
    let cut = |s: String| -> Option<String> {
        if s.len() <= MAX_STRING_BOUND_BYTES {
            return Some(s);
        }
        if upper {
            return None;
        }
        let mut end = MAX_STRING_BOUND_BYTES;
        while !s.is_char_boundary(end) {
            end -= 1;
        }
        Some(s[..end].to_string())
    };
    match bound {
        ScalarValue::Float64(Some(v)) if v == 0.0 => {
            ScalarValue::Float64(Some(if upper { 0.0 } else { -0.0 }))
        }
        ScalarValue::Float32(Some(v)) if v == 0.0 => {
            ScalarValue::Float32(Some(if upper { 0.0 } else { -0.0 }))
        }
        ScalarValue::Utf8(Some(s)) => ScalarValue::Utf8(cut(s)),
        ScalarValue::LargeUtf8(Some(s)) => ScalarValue::LargeUtf8(cut(s)),
        other => other,
    }
}

/// The bounds as stored: the least values, then the greatest, each one
/// LZ4 block.
pub(crate) fn encode(bounds: &GranuleBounds) -> Result<Vec<u8>> {
    let mut out = Vec::new();
    let mut encoded = Vec::new();
    for values in [&bounds.min, &bounds.max] {
        encoded.clear();
        array_bytes::encode(&values.to_data(), &mut encoded);
        write_block(Codec::Lz4, &encoded, &mut out)?;
    }
    Ok(out)
}

/// Bounds of a column of `data_type` read back from `bytes`, which must
/// hold one row per granule of `granules`.
pub(crate) fn decode(data_type: &DataType, bytes: &[u8], granules: usize) -> Result<GranuleBounds> {
    let mut rest = bytes;
    let mut arrays = Vec::with_capacity(2);
    for _ in 0..2 {
        let (block, used) = read_block(rest)?;
        rest = &rest[used..];
        let array = make_array(array_bytes::decode(
            data_type,
            &Buffer::from(block),
            &mut 0,
        )?);
        if array.len() != granules {
            return Err(StrataError::new(
                ErrorCode::CORRUPTED_DATA,
                format!(
                    "Granule bounds hold {} rows for {granules} granules",
                    array.len()
                ),
            ));
        }
        arrays.push(array);
    }
    let max = arrays.pop().expect("two arrays");
    let min = arrays.pop().expect("two arrays");
    Ok(GranuleBounds { min, max })
}

#[cfg(test)]
mod tests {
    use super::*;
    use datafusion::arrow::array::{Float64Array, Int64Array, StringArray};
    use std::sync::Arc;

    #[test]
    fn bounds_per_granule_with_nulls_nan_zeros_and_long_strings() {
        let ints: ArrayRef = Arc::new(Int64Array::from(vec![
            Some(5),
            None,
            Some(-2),
            None,
            None,
            Some(9),
        ]));
        let bounds = compute(&ints, &[3, 2, 1]).unwrap().unwrap();
        let expected_min: ArrayRef = Arc::new(Int64Array::from(vec![Some(-2), None, Some(9)]));
        let expected_max: ArrayRef = Arc::new(Int64Array::from(vec![Some(5), None, Some(9)]));
        assert_eq!(&bounds.min, &expected_min);
        assert_eq!(&bounds.max, &expected_max);
        let back = decode(&DataType::Int64, &encode(&bounds).unwrap(), 3).unwrap();
        assert_eq!(&back.min, &expected_min);
        assert_eq!(&back.max, &expected_max);
        assert!(decode(&DataType::Int64, &encode(&bounds).unwrap(), 4).is_err());

        let floats: ArrayRef = Arc::new(Float64Array::from(vec![1.0, f64::NAN, 0.0, -0.0]));
        let bounds = compute(&floats, &[2, 2]).unwrap().unwrap();
        let min = bounds.min.as_primitive::<Float64Type>();
        let max = bounds.max.as_primitive::<Float64Type>();
        assert!(
            min.is_null(0) && max.is_null(0),
            "NaN leaves bounds unknown"
        );
        assert!(min.value(1).is_sign_negative() && max.value(1).is_sign_positive());

        let long = "é".repeat(MAX_STRING_BOUND_BYTES);
        let strings: ArrayRef = Arc::new(StringArray::from(vec![long.as_str(), "ÿ"]));
        let bounds = compute(&strings, &[2]).unwrap().unwrap();
        let min = bounds.min.as_string::<i32>().value(0);
        assert!(long.starts_with(min) && min.len() <= MAX_STRING_BOUND_BYTES);
        assert_eq!(bounds.max.as_string::<i32>().value(0), "ÿ");
        let bounds = compute(&strings, &[1, 1]).unwrap().unwrap();
        assert!(
            bounds.max.is_null(0),
            "a cut greatest value is no upper bound"
        );

        let lists: ArrayRef = Arc::new(datafusion::arrow::array::ListArray::new_null(
            Arc::new(datafusion::arrow::datatypes::Field::new_list_field(
                DataType::Int64,
                true,
            )),
            2,
        ));
        assert!(compute(&lists, &[2]).unwrap().is_none());
    }
}
