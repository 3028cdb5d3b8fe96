//! Functions about a value's shape and a number's bits:
//! - `visibleWidth(x)`: the terminal columns the value's text takes (`NULL`
//!   is 4, the width of its name);
//! - `isNullable(x)`: whether the argument's type is Nullable (1/0);
//! - `byteSize(x, ...)`: the bytes the values take in memory, as ClickHouse
//!   counts them (a number its width, a string its length plus an 8-byte
//!   offset, an array an offset plus its elements, a Nullable one more byte);
//! - `countDigits(x)`: the decimal digits of an integer or of a decimal's
//!   unscaled value;
//! - `bar(x, min, max [, width])`: a bar of Unicode blocks, `width`
//!   characters at `max`, drawn to an eighth of a character;
//! - `bitmaskToArray(x)`, `bitmaskToList(x)` and `bitPositionsToArray(x)`:
//!   the powers of two, as an array or a comma-separated string, and the
//!   positions of the bits set in an integer.

use std::sync::Arc;

use datafusion::arrow::array::{
    Array, ArrayRef, AsArray, Int64Array, ListArray, StringArray, UInt8Array, UInt64Array,
};
use datafusion::arrow::buffer::OffsetBuffer;
use datafusion::arrow::compute::cast;
use datafusion::arrow::datatypes::{DataType, Field, Float64Type, Int64Type, TimeUnit, UInt64Type};
use datafusion::common::{Result, ScalarValue};
use datafusion::logical_expr::{ColumnarValue, Volatility};
use strata_common::ErrorCode;
use strata_common::types::{clickhouse_type_name, field_type_name, parse_clickhouse_type};
use strata_common::visible_width::visible_width;
use strata_formats::value::{Style, ValueOptions, write_value};

use super::frame::{Call, Spec, Typing, failure, literal_typed};
use crate::numeric::{is_float, is_integer};

pub(crate) const SPECS: &[Spec] = &[
    Spec {
        name: "visibleWidth",
        aliases: &[],
        args: (1, 1),
        volatility: Volatility::Immutable,
        typing: |t| Ok(t.plain(DataType::UInt64)),
        eval: visible_widths,
    },
    Spec {
        name: "isNullable",
        aliases: &[],
        args: (1, 1),
        volatility: Volatility::Immutable,
        typing: |t| Ok(t.plain(DataType::UInt8)),
        eval: |call| {
            let nullable =
                call.fields[0].is_nullable() || *call.fields[0].data_type() == DataType::Null;
            Ok(ColumnarValue::Scalar(ScalarValue::UInt8(Some(u8::from(
                nullable,
            )))))
        },
    },
    Spec {
        name: "byteSize",
        aliases: &[],
        args: (1, usize::MAX),
        volatility: Volatility::Immutable,
        typing: |t| Ok(t.plain(DataType::UInt64)),
        eval: byte_size,
    },
    Spec {
        name: "countDigits",
        aliases: &[],
        args: (1, 1),
        volatility: Volatility::Immutable,
        typing: |t| {
            let field = t.field(0);
            let t0 = field.data_type();
            if !(is_integer(t0) || matches!(t0, DataType::Decimal128(..) | DataType::Null)) {
                return Err(illegal(t.name, 1, t0, "(U)Int* or Decimal"));
            }
            Ok(t.propagating(DataType::UInt8))
        },
        eval: count_digits,
    },
    Spec {
        name: "bar",
        aliases: &[],
        args: (3, 4),
        volatility: Volatility::Immutable,
        typing: |t| {
            for (i, f) in t.fields.iter().enumerate() {
                let numeric = is_integer(f.data_type()) || is_float(f.data_type());
                if !numeric && *f.data_type() != DataType::Null {
                    return Err(failure(
                        ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
                        format!(
                            "All arguments for function {} must be numeric (argument {})",
                            t.name,
                            i + 1
                        ),
                    ));
                }
            }
            if let Some(width) = t.scalar(3) {
                bar_width(width)?;
            }
            Ok(t.propagating(DataType::Utf8))
        },
        eval: bar,
    },
    Spec {
        name: "bitmaskToArray",
        aliases: &[],
        args: (1, 1),
        volatility: Volatility::Immutable,
        typing: |t| {
            let field = integer_argument(t)?;
            let item = Field::new("item", field.data_type().clone(), false);
            Ok(t.plain(DataType::List(Arc::new(item))))
        },
        eval: |call| bits(call, Bits::Powers),
    },
    Spec {
        name: "bitmaskToList",
        aliases: &[],
        args: (1, 1),
        volatility: Volatility::Immutable,
        typing: |t| {
            integer_argument(t)?;
            Ok(t.propagating(DataType::Utf8))
        },
        eval: |call| bits(call, Bits::List),
    },
    Spec {
        name: "bitPositionsToArray",
        aliases: &[],
        args: (1, 1),
        volatility: Volatility::Immutable,
        typing: |t| {
            integer_argument(t)?;
            let item = Field::new("item", DataType::UInt64, false);
            Ok(t.plain(DataType::List(Arc::new(item))))
        },
        eval: |call| bits(call, Bits::Positions),
    },
];

fn illegal(
    function: &str,
    position: usize,
    t: &DataType,
    expected: &str,
) -> datafusion::error::DataFusionError {
    failure(
        ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
        format!(
            "Illegal type {} of argument {position} of function {function}, expected {expected}",
            clickhouse_type_name(t, false)
        ),
    )
}

/// The argument's field with ClickHouse's type, which must be an integer.
fn integer_argument(t: &Typing) -> Result<Field> {
    let field = t.field(0);
    if !is_integer(field.data_type()) {
        return Err(illegal(t.name, 1, field.data_type(), "an integer"));
    }
    Ok(field)
}

/// The argument's values as a column, and its field with ClickHouse's type
/// (an integer literal's the smallest that holds it).
fn argument(call: &Call, i: usize) -> Result<(ArrayRef, Field)> {
    let field = literal_typed(&call.fields[i], call.constant(i));
    let column = call.column(i)?;
    let column = match column.data_type() == field.data_type() {
        true => column,
        false => cast(&column, field.data_type())?,
    };
    Ok((column, field))
}

fn byte_size(call: &Call) -> Result<ColumnarValue> {
    let mut totals = vec![0u64; call.rows];
    for i in 0..call.args.len() {
        let (column, field) = argument(call, i)?;
        // The declared type knows which nested values are Nullable.
        let declared = parse_clickhouse_type(&field_type_name(&field))
            .map(|t| t.field(field.name()))
            .unwrap_or(field);
        for (row, total) in totals.iter_mut().enumerate() {
            *total += value_size(column.as_ref(), row, &declared);
        }
    }
    call.output(Arc::new(UInt64Array::from(totals)))
}

/// The bytes one value takes in ClickHouse's columns.
fn value_size(array: &dyn Array, row: usize, field: &Field) -> u64 {
    const OFFSET: u64 = 8;
    if *array.data_type() == DataType::Null {
        return 1;
    }
    let null_map = u64::from(field.is_nullable());
    let own = match array.data_type() {
        DataType::Boolean => 1,
        DataType::FixedSizeBinary(n) => *n as u64,
        DataType::Date32 if field_type_name(field).contains("Date32") => 4,
        DataType::Date32 => 2,
        DataType::Timestamp(TimeUnit::Second, _) => 4,
        DataType::Decimal128(precision, _) => match precision {
            0..=9 => 4,
            10..=18 => 8,
            _ => 16,
        },
        DataType::Utf8 => OFFSET + array.as_string::<i32>().value(row).len() as u64,
        DataType::LargeUtf8 => OFFSET + array.as_string::<i64>().value(row).len() as u64,
        DataType::Utf8View => OFFSET + array.as_string_view().value(row).len() as u64,
        DataType::Binary => OFFSET + array.as_binary::<i32>().value(row).len() as u64,
        DataType::List(item) => {
            let values = array.as_list::<i32>().value(row);
            OFFSET + elements_size(values.as_ref(), item)
        }
        DataType::Struct(fields) => {
            let tuple = array.as_struct();
            (0..fields.len())
                .map(|i| value_size(tuple.column(i).as_ref(), row, &fields[i]))
                .sum()
        }
        DataType::Map(entries, _) => {
            let values = array.as_map().value(row);
            OFFSET + elements_size(&values, entries)
        }
        other => other.primitive_width().unwrap_or(0) as u64,
    };
    own + null_map
}

fn elements_size(values: &dyn Array, item: &Field) -> u64 {
    (0..values.len()).map(|i| value_size(values, i, item)).sum()
}

fn count_digits(call: &Call) -> Result<ColumnarValue> {
    let column = call.column(0)?;
    let digits = |v: u128| if v == 0 { 1 } else { v.ilog10() as u8 + 1 };
    let out: UInt8Array = match column.data_type() {
        DataType::Decimal128(..) => column
            .as_primitive::<datafusion::arrow::datatypes::Decimal128Type>()
            .iter()
            .map(|v| v.map(|v| digits(v.unsigned_abs())))
            .collect(),
        DataType::UInt64 => column
            .as_primitive::<UInt64Type>()
            .iter()
            .map(|v| v.map(|v| digits(u128::from(v))))
            .collect(),
        DataType::Null => UInt8Array::new_null(column.len()),
        _ => cast(&column, &DataType::Int64)?
            .as_primitive::<Int64Type>()
            .iter()
            .map(|v| v.map(|v| digits(u128::from(v.unsigned_abs()))))
            .collect(),
    };
    call.output(Arc::new(out))
}

/// The widest bar ClickHouse draws, in characters.
const BAR_MAX_WIDTH: f64 = 1000.0;

fn bar_width(width: &ScalarValue) -> Result<f64> {
    let width = match width.cast_to(&DataType::Float64)? {
        ScalarValue::Float64(Some(w)) => w,
        _ => return Ok(0.0),
    };
    if width < 1.0 {
        return Err(failure(
            ErrorCode::ARGUMENT_OUT_OF_BOUND,
            "Argument 'max_width' must be >= 1".into(),
        ));
    }
    if width > BAR_MAX_WIDTH {
        return Err(failure(
            ErrorCode::ARGUMENT_OUT_OF_BOUND,
            "Argument 'max_width' must be <= 1000".into(),
        ));
    }
    Ok(width)
}

fn bar(call: &Call) -> Result<ColumnarValue> {
    let width = match call.args.get(3) {
        Some(ColumnarValue::Scalar(w)) => bar_width(w)?,
        Some(ColumnarValue::Array(_)) => {
            return Err(failure(
                ErrorCode::ILLEGAL_COLUMN,
                "Argument at index 3 for function bar must be constant".into(),
            ));
        }
        None => 80.0,
    };
    let floats = |i: usize| -> Result<ArrayRef> { Ok(cast(&call.column(i)?, &DataType::Float64)?) };
    let (x, low, high) = (floats(0)?, floats(1)?, floats(2)?);
    let (x, low, high) = (
        x.as_primitive::<Float64Type>(),
        low.as_primitive::<Float64Type>(),
        high.as_primitive::<Float64Type>(),
    );
    let out: StringArray = (0..call.rows)
        .map(|r| {
            let any_null = x.is_null(r) || low.is_null(r) || high.is_null(r);
            (!any_null)
                .then(|| render_bar(bar_length(x.value(r), low.value(r), high.value(r), width)))
        })
        .collect();
    call.output(Arc::new(out))
}

/// The bar's length in characters: `width` at `high`, none at `low`.
fn bar_length(x: f64, low: f64, high: f64, width: f64) -> f64 {
    if x <= low || x.is_nan() {
        return 0.0;
    }
    if x >= high {
        return width;
    }
    let length = (x - low) * width / (high - low);
    if length.is_nan() {
        0.0
    } else {
        length.clamp(0.0, width)
    }
}

/// Full blocks, then the eighths left as one narrower block.
fn render_bar(length: f64) -> String {
    const EIGHTHS: [char; 7] = ['▏', '▎', '▍', '▌', '▋', '▊', '▉'];
    let full = length.floor();
    let eighths = ((length - full) * 8.0).floor() as usize;
    let mut out = "█".repeat(full as usize);
    if eighths > 0 {
        out.push(EIGHTHS[eighths - 1]);
    }
    out
}

#[derive(Clone, Copy)]
enum Bits {
    Powers,
    List,
    Positions,
}

fn bits(call: &Call, kind: Bits) -> Result<ColumnarValue> {
    let (column, field) = argument(call, 0)?;
    let width = field.data_type().primitive_width().unwrap_or(8) * 8;
    let signed = field.data_type().is_signed_integer();
    // The bits as they are: UInt64's upper half wraps into the sign.
    let values = crate::int_cast::to_i64_wrapping(&column)?;
    let positions =
        |v: i64| -> Vec<u32> { (0..width as u32).filter(|b| (v >> b) & 1 == 1).collect() };
    // The top bit of a signed type stands for its negative power.
    let power = |b: u32| -> i128 {
        let p = 1i128 << b;
        if signed && b as usize == width - 1 {
            -p
        } else {
            p
        }
    };
    let out: ArrayRef = match kind {
        Bits::List => Arc::new(
            values
                .iter()
                .map(|v| {
                    v.map(|v| {
                        let powers: Vec<String> = positions(v)
                            .into_iter()
                            .map(|b| power(b).to_string())
                            .collect();
                        powers.join(",")
                    })
                })
                .collect::<StringArray>(),
        ),
        Bits::Powers | Bits::Positions => {
            let mut lengths = Vec::with_capacity(values.len());
            let mut flat: Vec<i128> = Vec::new();
            for v in values.iter() {
                let set = positions(v.unwrap_or(0));
                lengths.push(set.len());
                flat.extend(set.into_iter().map(|b| match kind {
                    Bits::Powers => power(b),
                    _ => i128::from(b),
                }));
            }
            let item_type = match kind {
                Bits::Powers => field.data_type().clone(),
                _ => DataType::UInt64,
            };
            let items: ArrayRef = match item_type {
                DataType::UInt64 => Arc::new(UInt64Array::from_iter_values(
                    flat.iter().map(|&v| v as u64),
                )),
                ref narrower => cast(
                    &(Arc::new(Int64Array::from_iter_values(flat.iter().map(|&v| v as i64)))
                        as ArrayRef),
                    narrower,
                )?,
            };
            let item = Arc::new(Field::new("item", item_type, false));
            Arc::new(ListArray::new(
                item,
                OffsetBuffer::from_lengths(lengths),
                items,
                None,
            ))
        }
    };
    call.output(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bars_floor_to_eighths() {
        assert_eq!(render_bar(bar_length(2.5, 0.0, 10.0, 3.0)), "▊");
        assert_eq!(render_bar(bar_length(0.124, 0.0, 1.0, 1.0)), "");
        assert_eq!(render_bar(bar_length(15.0, 0.0, 10.0, 2.0)), "██");
        assert_eq!(render_bar(bar_length(5.0, 10.0, 0.0, 4.0)), "");
        assert_eq!(render_bar(bar_length(1.0, 1.0, 1.0, 4.0)), "");
    }
}

/// The visible width of each value as `toString` writes it.
fn visible_widths(call: &Call) -> Result<ColumnarValue> {
    // A constant is measured once.
    let rows = if call.all_constant() { 1 } else { call.rows };
    let column = call.args[0].to_array(rows)?;
    let mut text = String::new();
    let widths: UInt64Array = (0..rows)
        .map(|row| {
            if column.is_null(row) {
                return NULL_WIDTH;
            }
            text.clear();
            write_value(
                column.as_ref(),
                row,
                Style::Raw,
                ValueOptions::default(),
                &mut text,
            );
            visible_width(&text) as u64
        })
        .collect();
    call.output(Arc::new(widths))
}

/// The width of `NULL`, as ClickHouse shows it in text.
const NULL_WIDTH: u64 = 4;
