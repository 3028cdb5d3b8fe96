//! `range(end)`, `range(start, end[, step])`: the integers from `start`
//! (0) up to but not including `end`, `step` (1) apart; a negative step
//! counts down. The element type is the arguments' common integer type
//! (`range(3)` is `Array(UInt8)`); a NULL argument gives NULL.

use std::sync::Arc;

use datafusion::arrow::array::{Array, ArrayRef, Int64Array, UInt64Array};
use datafusion::arrow::buffer::NullBuffer;
use datafusion::arrow::compute::kernels::cast;
use datafusion::arrow::datatypes::{DataType, FieldRef};
use datafusion::common::{Result, ScalarValue};
use datafusion::logical_expr::{
    ColumnarValue, ReturnFieldArgs, ScalarFunctionArgs, ScalarUDFImpl, Signature, Volatility,
};
use strata_common::ErrorCode;

use super::{arrays_of, check_arity, common_type, error, illegal_type, item, list_from_lengths};

/// ClickHouse's `function_range_max_elements_in_block`.
const MAX_ELEMENTS: usize = 500_000_000;

#[derive(Debug, PartialEq, Eq, Hash)]
pub struct Range {
    signature: Signature,
}

impl Default for Range {
    fn default() -> Self {
        Range {
            signature: Signature::variadic_any(Volatility::Immutable),
        }
    }
}

fn element_type(arg_types: &[DataType]) -> Result<DataType> {
    check_arity("range", arg_types.len(), 1..=3)?;
    for t in arg_types {
        if !t.is_integer() && t != &DataType::Null {
            return Err(illegal_type("range", t));
        }
    }
    common_type(arg_types)
}

/// The value at `row` of an integer column, widened.
fn value_at(array: &ArrayRef, row: usize) -> Result<Option<i128>> {
    if array.is_null(row) {
        return Ok(None);
    }
    Ok(match ScalarValue::try_from_array(array, row)? {
        ScalarValue::UInt64(Some(v)) => Some(i128::from(v)),
        other => match other.cast_to(&DataType::Int64)? {
            ScalarValue::Int64(Some(v)) => Some(i128::from(v)),
            _ => None,
        },
    })
}

/// The bounds and step of row `row`, checked as ClickHouse checks them.
fn bounds(args: &[ArrayRef], row: usize) -> Result<Option<(i128, i128, i128)>> {
    let mut values = Vec::with_capacity(3);
    for arg in args {
        match value_at(arg, row)? {
            Some(v) => values.push(v),
            None => return Ok(None),
        }
    }
    let (start, end, step) = match values[..] {
        [end] if end < 0 => {
            return Err(error(
                ErrorCode::ARGUMENT_OUT_OF_BOUND,
                "A call to function range overflows, only support positive values when only end is provided",
            ));
        }
        [end] => (0, end, 1),
        [start, end] => (start, end, 1),
        [start, end, step] => (start, end, step),
        _ => unreachable!("range takes 1 to 3 arguments"),
    };
    if step == 0 {
        return Err(error(
            ErrorCode::ARGUMENT_OUT_OF_BOUND,
            "A call to function range underflows, the 3rd argument step can't be less or equal to zero",
        ));
    }
    Ok(Some((start, end, step)))
}

fn ranges(args: &[ArrayRef], rows: usize, element: &DataType) -> Result<ArrayRef> {
    let mut values: Vec<i128> = Vec::new();
    let mut lengths = Vec::with_capacity(rows);
    let mut valid = Vec::with_capacity(rows);
    for row in 0..rows {
        let Some((start, end, step)) = bounds(args, row)? else {
            lengths.push(0);
            valid.push(false);
            continue;
        };
        let count = if (step > 0 && end > start) || (step < 0 && end < start) {
            ((end - start).abs() + step.abs() - 1) / step.abs()
        } else {
            0
        };
        if values.len() as i128 + count > MAX_ELEMENTS as i128 {
            return Err(error(
                ErrorCode::ARGUMENT_OUT_OF_BOUND,
                format!("A call to function range would produce more than {MAX_ELEMENTS} elements"),
            ));
        }
        values.extend((0..count).map(|i| start + i * step));
        lengths.push(count as usize);
        valid.push(true);
    }
    // Every value lies between two arguments, so it fits their common type.
    let flat: ArrayRef = if matches!(element, DataType::UInt64) {
        Arc::new(values.iter().map(|&v| v as u64).collect::<UInt64Array>())
    } else {
        Arc::new(values.iter().map(|&v| v as i64).collect::<Int64Array>())
    };
    let flat = cast::cast(&flat, element)?;
    let nulls = valid.contains(&false).then(|| NullBuffer::from(valid));
    list_from_lengths(item(element.clone(), false), lengths, flat, nulls)
}

impl ScalarUDFImpl for Range {
    fn name(&self) -> &str {
        "range"
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn return_type(&self, arg_types: &[DataType]) -> Result<DataType> {
        if arg_types.contains(&DataType::Null) {
            element_type(arg_types)?;
            return Ok(DataType::Null);
        }
        Ok(DataType::List(item(element_type(arg_types)?, false)))
    }

    fn return_field_from_args(&self, args: ReturnFieldArgs) -> Result<FieldRef> {
        crate::null_propagating_field(self, &args)
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        let return_type = args.return_field.data_type().clone();
        let (arrays, scalar) = arrays_of(&args.args, args.number_rows)?;
        let rows = arrays[0].len();
        let DataType::List(item) = &return_type else {
            let nulls = datafusion::arrow::array::new_null_array(&DataType::Null, rows);
            return crate::columnar(nulls, scalar);
        };
        let out = ranges(&arrays, rows, item.data_type())?;
        crate::columnar(out, scalar)
    }
}
