//! Functions of the block a row arrives in: `blockSize`, `rowNumberInBlock`,
//! `rowNumberInAllBlocks`, `blockNumber`, `runningDifference`,
//! `runningDifferenceStartingWithFirstValue`, `neighbor`, `runningConcurrency`.
//!
//! ClickHouse evaluates functions one block of rows at a time; in Strata a
//! block is one Arrow batch of a stream, as the operator evaluating the
//! expression receives it. A single-stream source such as `numbers(N)`
//! produces batches of `max_block_size` rows, as ClickHouse's blocks are;
//! filters, joins and parallel scans reshape batches, so values that depend
//! on block boundaries are as unpredictable there as they are in ClickHouse.
//! `rowNumberInAllBlocks` and `blockNumber` count across the blocks of one
//! query: each query's plan gets its own counter when it is simplified.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::hash::{Hash, Hasher};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use datafusion::arrow::array::{
    ArrayRef, AsArray, Float64Array, Int64Array, UInt32Array, UInt64Array, new_null_array,
};
use datafusion::arrow::compute::interleave;
use datafusion::arrow::compute::kernels::cast;
use datafusion::arrow::datatypes::{DataType, Field, FieldRef, Float64Type, TimeUnit, i256};
use datafusion::common::{Result, ScalarValue};
use datafusion::logical_expr::expr::ScalarFunction;
use datafusion::logical_expr::simplify::{ExprSimplifyResult, SimplifyContext};
use datafusion::logical_expr::{
    ColumnarValue, Expr, ReturnFieldArgs, ScalarFunctionArgs, ScalarUDF, ScalarUDFImpl, Signature,
    TypeSignature, Volatility,
};
use strata_common::ErrorCode;
use strata_common::types::{BigInt, field_type_name};
use strata_formats::value::{Style, ValueOptions, write_value};

use super::frame::{Call, Spec, Typing, failure};
use crate::int_cast::to_i64_wrapping;

pub(crate) const SPECS: &[Spec] = &[
    Spec {
        name: "blockSize",
        aliases: &[],
        args: (0, 0),
        volatility: Volatility::Volatile,
        typing: |t| Ok(t.plain(DataType::UInt64)),
        eval: |call| {
            Ok(ColumnarValue::Scalar(ScalarValue::UInt64(Some(
                call.rows as u64,
            ))))
        },
    },
    Spec {
        name: "rowNumberInBlock",
        aliases: &[],
        args: (0, 0),
        volatility: Volatility::Volatile,
        typing: |t| Ok(t.plain(DataType::UInt64)),
        eval: |call| {
            let rows = UInt64Array::from_iter_values(0..call.rows as u64);
            Ok(ColumnarValue::Array(Arc::new(rows)))
        },
    },
    Spec {
        name: "runningDifference",
        aliases: &[],
        args: (1, 1),
        volatility: Volatility::Volatile,
        typing: difference_typing,
        eval: |call| running_difference(call, false),
    },
    Spec {
        name: "runningDifferenceStartingWithFirstValue",
        aliases: &[],
        args: (1, 1),
        volatility: Volatility::Volatile,
        typing: difference_typing,
        eval: |call| running_difference(call, true),
    },
    Spec {
        name: "neighbor",
        aliases: &[],
        args: (2, 3),
        volatility: Volatility::Volatile,
        typing: neighbor_typing,
        eval: neighbor,
    },
    Spec {
        name: "runningConcurrency",
        aliases: &[],
        args: (2, 2),
        volatility: Volatility::Volatile,
        typing: concurrency_typing,
        eval: running_concurrency,
    },
];

/// The type of a difference: one wider than a small integer, Int64 for the
/// rest of the integers and times, Float64 for floats.
fn difference_typing(t: &Typing) -> Result<Field> {
    let field = &t.fields[0];
    let data_type = match field.data_type() {
        DataType::UInt8 | DataType::Int8 | DataType::Boolean => DataType::Int16,
        DataType::UInt16 | DataType::Int16 => DataType::Int32,
        DataType::UInt32 | DataType::Int32 | DataType::UInt64 | DataType::Int64 => DataType::Int64,
        DataType::Float32 | DataType::Float64 => DataType::Float64,
        // Date is 16 bits wide in ClickHouse, Date32 32.
        DataType::Date32 if field_type_name(field).contains("Date32") => DataType::Int64,
        DataType::Date32 => DataType::Int32,
        DataType::Timestamp(TimeUnit::Second, _) => DataType::Int64,
        data_type if let Some(big) = BigInt::of(data_type) => crate::big_int::negate_type(big),
        _ => {
            return Err(failure(
                ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
                format!("Argument for function {} must have numeric type", t.name),
            ));
        }
    };
    Ok(t.propagating(data_type))
}

/// Each value minus the previous non-NULL one of the block; the first gets
/// 0, or itself when `from_first`. A constant gives 0 on every row.
fn running_difference(call: &Call, from_first: bool) -> Result<ColumnarValue> {
    let target = call.result.data_type();
    if let Some(value) = call.constant(0) {
        let zero = match value.is_null() {
            true => ScalarValue::try_from(target)?,
            false => ScalarValue::new_zero(target)?,
        };
        return Ok(ColumnarValue::Scalar(zero));
    }
    let input = call.column(0)?;
    let out: ArrayRef = if target == &DataType::Float64 {
        let values = cast::cast(&input, &DataType::Float64)?;
        let values = values.as_primitive::<Float64Type>();
        let diffs: Float64Array = differences(values.iter(), from_first, |v, p| v - p).collect();
        Arc::new(diffs)
    } else if let Some(big) = BigInt::of(target) {
        let values = crate::big_int::widen(&input, target)?;
        big.array(
            differences(values.into_iter(), from_first, i256::wrapping_sub).collect::<Vec<_>>(),
        )
    } else {
        let values = to_i64_wrapping(&input)?;
        let diffs: Int64Array = differences(values.iter(), from_first, i64::wrapping_sub).collect();
        cast::cast(&diffs, target)?
    };
    Ok(ColumnarValue::Array(out))
}

fn differences<T: Copy + Default>(
    values: impl Iterator<Item = Option<T>>,
    from_first: bool,
    minus: impl Fn(T, T) -> T,
) -> impl Iterator<Item = Option<T>> {
    let mut previous: Option<T> = None;
    values.map(move |value| {
        let value = value?;
        let out = match previous {
            Some(p) => minus(value, p),
            None if from_first => value,
            None => T::default(),
        };
        previous = Some(value);
        Some(out)
    })
}

/// `neighbor(column, offset[, default])`: the common type of the column and
/// the default; the offset must be an integer.
fn neighbor_typing(t: &Typing) -> Result<Field> {
    let offset = &t.fields[1];
    if !offset.data_type().is_integer() {
        return Err(failure(
            ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
            format!(
                "Illegal type {} of second argument of function neighbor - should be an integer",
                field_type_name(offset)
            ),
        ));
    }
    let column = &t.fields[0];
    let Some(default) = t.fields.get(2) else {
        return Ok(column.as_ref().clone().with_name(t.name));
    };
    let data_type = crate::arrays::common_type([column.data_type(), default.data_type()])?;
    if data_type == *column.data_type() && !default.is_nullable() {
        return Ok(column.as_ref().clone().with_name(t.name));
    }
    let nullable = column.is_nullable() || default.is_nullable();
    Ok(Field::new(t.name, data_type, nullable))
}

/// The largest offset ClickHouse's `neighbor` accepts, either way.
const MAX_OFFSET: i64 = i32::MAX as i64;

fn neighbor(call: &Call) -> Result<ColumnarValue> {
    let target = call.result.data_type();
    let rows = call.rows;
    let column = cast::cast(&call.column(0)?, target)?;
    let defaults = match call.args.get(2) {
        Some(default) => cast::cast(&default.to_array(rows)?, target)?,
        None if call.result.is_nullable() => new_null_array(target, rows),
        None => strata_common::types::default_value(target)?.to_array_of_size(rows)?,
    };
    let offsets = to_i64_wrapping(&call.column(1)?)?;
    let mut picks = Vec::with_capacity(rows);
    for (row, offset) in offsets.iter().enumerate() {
        let offset = offset.unwrap_or(0);
        if !(-MAX_OFFSET..=MAX_OFFSET).contains(&offset) {
            return Err(failure(
                ErrorCode::ARGUMENT_OUT_OF_BOUND,
                format!("Too large offset: {offset} in function neighbor"),
            ));
        }
        let source = row as i64 + offset;
        picks.push(match (0..rows as i64).contains(&source) {
            true => (0, source as usize),
            false => (1, row),
        });
    }
    let out = interleave(&[column.as_ref(), defaults.as_ref()], &picks)?;
    Ok(ColumnarValue::Array(out))
}

/// `runningConcurrency(begin, end)`: two Date, DateTime or DateTime64
/// arguments of one type.
fn concurrency_typing(t: &Typing) -> Result<Field> {
    let (begin, end) = (&t.fields[0], &t.fields[1]);
    if !matches!(
        begin.data_type(),
        DataType::Date32 | DataType::Timestamp(..)
    ) {
        return Err(failure(
            ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
            "Arguments for function runningConcurrency must be Date, DateTime, or DateTime64"
                .to_string(),
        ));
    }
    if field_type_name(begin) != field_type_name(end) {
        return Err(failure(
            ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
            "Function runningConcurrency must be called with two arguments having the same type"
                .to_string(),
        ));
    }
    Ok(t.plain(DataType::UInt32))
}

/// How many of the block's events so far are still going on when each
/// one begins: an event ending at or before a begin is over, the one
/// beginning too when it lasts no time.
fn running_concurrency(call: &Call) -> Result<ColumnarValue> {
    let begins_array = call.column(0)?;
    let begins = to_i64_wrapping(&begins_array)?;
    let ends = to_i64_wrapping(&call.column(1)?)?;
    let mut going_on = BinaryHeap::new();
    let mut out = Vec::with_capacity(call.rows);
    for row in 0..call.rows {
        let (begin, end) = (begins.value(row), ends.value(row));
        if begin > end {
            let ends_array = call.column(1)?;
            return Err(failure(
                ErrorCode::INCORRECT_DATA,
                format!(
                    "Incorrect order of events: '{}' > '{}'",
                    shown(&begins_array, row),
                    shown(&ends_array, row)
                ),
            ));
        }
        going_on.push(Reverse(end));
        while going_on.peek().is_some_and(|Reverse(e)| *e <= begin) {
            going_on.pop();
        }
        out.push(going_on.len() as u32);
    }
    Ok(ColumnarValue::Array(Arc::new(UInt32Array::from(out))))
}

fn shown(array: &ArrayRef, row: usize) -> String {
    let mut text = String::new();
    write_value(
        array.as_ref(),
        row,
        Style::Raw,
        ValueOptions::default(),
        &mut text,
    );
    text
}

/// What a [`Counter`] counts across a query's blocks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Counting {
    /// `rowNumberInAllBlocks()`: rows before this one.
    Rows,
    /// `blockNumber()`: blocks before this one.
    Blocks,
}

/// A function counting across blocks. The registered instance hands each
/// plan that calls it a fresh instance with a counter of its own.
#[derive(Debug)]
pub struct Counter {
    counting: Counting,
    count: Arc<AtomicU64>,
    /// Whether this instance belongs to one plan.
    planned: bool,
    signature: Signature,
}

impl Counter {
    pub fn new(counting: Counting) -> Self {
        Counter {
            counting,
            count: Arc::new(AtomicU64::new(0)),
            planned: false,
            // Any arguments, for the count check to refuse them with ClickHouse's code.
            signature: Signature::one_of(
                vec![TypeSignature::Nullary, TypeSignature::VariadicAny],
                Volatility::Volatile,
            ),
        }
    }
}

impl PartialEq for Counter {
    fn eq(&self, other: &Self) -> bool {
        self.counting == other.counting && Arc::ptr_eq(&self.count, &other.count)
    }
}

impl Eq for Counter {}

impl Hash for Counter {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.counting.hash(state);
        Arc::as_ptr(&self.count).hash(state);
    }
}

impl ScalarUDFImpl for Counter {
    fn name(&self) -> &str {
        match self.counting {
            Counting::Rows => "rowNumberInAllBlocks",
            Counting::Blocks => "blockNumber",
        }
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn return_type(&self, _arg_types: &[DataType]) -> Result<DataType> {
        Ok(DataType::UInt64)
    }

    fn return_field_from_args(&self, args: ReturnFieldArgs) -> Result<FieldRef> {
        if !args.arg_fields.is_empty() {
            return Err(failure(
                ErrorCode::NUMBER_OF_ARGUMENTS_DOESNT_MATCH,
                format!(
                    "Number of arguments for function {} doesn't match: passed {}, should be 0",
                    self.name(),
                    args.arg_fields.len()
                ),
            ));
        }
        Ok(Arc::new(Field::new(self.name(), DataType::UInt64, false)))
    }

    fn simplify(&self, args: Vec<Expr>, _info: &SimplifyContext) -> Result<ExprSimplifyResult> {
        if self.planned {
            return Ok(ExprSimplifyResult::Original(args));
        }
        let own = Counter {
            count: Arc::new(AtomicU64::new(0)),
            planned: true,
            ..Counter::new(self.counting)
        };
        let udf = Arc::new(ScalarUDF::new_from_impl(own));
        Ok(ExprSimplifyResult::Simplified(Expr::ScalarFunction(
            ScalarFunction::new_udf(udf, args),
        )))
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        let rows = args.number_rows as u64;
        Ok(match self.counting {
            Counting::Rows => {
                let first = self.count.fetch_add(rows, Ordering::Relaxed);
                ColumnarValue::Array(Arc::new(UInt64Array::from_iter_values(first..first + rows)))
            }
            Counting::Blocks => {
                let block = self.count.fetch_add(1, Ordering::Relaxed);
                ColumnarValue::Scalar(ScalarValue::UInt64(Some(block)))
            }
        })
    }
}
