//! The `groupArray` variants: `groupArrayMovingSum`/`groupArrayMovingAvg`
//! (running sums over a window, the whole group by default; the average
//! divides by the window size), `groupArrayLast(n)` (a ring of the last n
//! values, position i holding the latest value whose index is i modulo n),
//! `groupArraySorted(n)` (the n least values, ascending),
//! `groupArrayInsertAt([default[, size]])(x, pos)` (values placed by
//! position, the first one written to a position kept) and
//! `groupArraySample(n[, seed])` (a uniform sample of n values).

use std::sync::Arc;

use datafusion::arrow::array::{Array, ArrayRef, AsArray, UInt32Array, new_empty_array};
use datafusion::arrow::compute::{SortOptions, cast, sort_to_indices, take};
use datafusion::arrow::datatypes::{DataType, Float64Type, UInt64Type};
use datafusion::common::{Result, ScalarValue};
use datafusion::logical_expr::{Accumulator, AggregateUDF};
use rand::seq::index::sample;
use rand::{SeedableRng, rngs::StdRng};
use strata_common::ErrorCode;

use super::frame::{
    Aggregate, AggregateSpec, Call, Collect, count_parameter, error, expect_args, expect_params,
    illegal_type, list_of, list_scalar,
};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Variant {
    MovingSum,
    MovingAvg,
    Last,
    Sorted,
    InsertAt,
    Sample,
}

#[derive(Debug, PartialEq, Eq, Hash)]
pub struct GroupArrayVariant {
    variant: Variant,
}

pub fn functions() -> Vec<AggregateUDF> {
    [
        Variant::MovingSum,
        Variant::MovingAvg,
        Variant::Last,
        Variant::Sorted,
        Variant::InsertAt,
        Variant::Sample,
    ]
    .into_iter()
    .map(|variant| Aggregate::udaf(GroupArrayVariant { variant }, &[]))
    .collect()
}

impl GroupArrayVariant {
    fn element_type(&self, arg: &DataType) -> Result<DataType> {
        let name = self.name();
        let moving = matches!(self.variant, Variant::MovingSum | Variant::MovingAvg);
        if !moving {
            return Ok(arg.clone());
        }
        Ok(match arg {
            DataType::Decimal128(_, s) => DataType::Decimal128(38, *s),
            t if self.variant == Variant::MovingAvg && (t.is_integer() || t.is_floating()) => {
                DataType::Float64
            }
            t if t.is_signed_integer() => DataType::Int64,
            t if t.is_unsigned_integer() || *t == DataType::Boolean => DataType::UInt64,
            t if t.is_floating() => DataType::Float64,
            t => return Err(illegal_type(name, t)),
        })
    }

    /// The one size parameter the variant requires or allows.
    fn size(&self, params: &[ScalarValue]) -> Result<Option<usize>> {
        let name = self.name();
        let size = params
            .first()
            .map(|p| count_parameter(name, p))
            .transpose()?;
        if size == Some(0) {
            return Err(error(
                ErrorCode::BAD_ARGUMENTS,
                format!("Parameter for aggregate function {name} should be positive number"),
            ));
        }
        if size.is_none()
            && matches!(
                self.variant,
                Variant::Last | Variant::Sorted | Variant::Sample
            )
        {
            return Err(error(
                ErrorCode::BAD_ARGUMENTS,
                format!(
                    "Aggregate function {name} requires the number of elements as its parameter"
                ),
            ));
        }
        Ok(size.map(|s| s as usize))
    }
}

impl AggregateSpec for GroupArrayVariant {
    fn name(&self) -> &str {
        match self.variant {
            Variant::MovingSum => "groupArrayMovingSum",
            Variant::MovingAvg => "groupArrayMovingAvg",
            Variant::Last => "groupArrayLast",
            Variant::Sorted => "groupArraySorted",
            Variant::InsertAt => "groupArrayInsertAt",
            Variant::Sample => "groupArraySample",
        }
    }

    fn return_type(&self, args: &[DataType], params: &[DataType]) -> Result<DataType> {
        let name = self.name();
        let (arguments, parameters) = match self.variant {
            Variant::InsertAt => (2, 0..=2),
            Variant::Sample => (1, 1..=2),
            Variant::Last | Variant::Sorted => (1, 1..=1),
            _ => (1, 0..=1),
        };
        expect_args(name, args, &[arguments])?;
        if params.is_empty() && *parameters.start() == 1 {
            return Err(error(
                ErrorCode::BAD_ARGUMENTS,
                format!(
                    "Aggregate function {name} requires the number of elements as its parameter"
                ),
            ));
        }
        expect_params(name, params.len(), parameters)?;
        // ClickHouse asks for an unsigned integer; signed ones are let through
        // as Strata plans some non-negative literals (tuple elements) as Int64.
        if self.variant == Variant::InsertAt && !args[1].is_integer() {
            return Err(error(
                ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
                format!("Second argument of aggregate function {name} must be unsigned integer."),
            ));
        }
        Ok(list_of(self.element_type(&args[0])?))
    }

    fn nullable_result(&self) -> bool {
        false
    }

    fn state_types(&self, call: &Call) -> Vec<DataType> {
        Collect::state_types(&call.args)
    }

    fn accumulator(&self, call: &Call) -> Result<Box<dyn Accumulator>> {
        let element = self.element_type(&call.args[0])?;
        let variant = self.variant;
        let finish: Box<dyn Fn(&[ArrayRef]) -> Result<ArrayRef> + Send + Sync> = match variant {
            Variant::MovingSum | Variant::MovingAvg => {
                let window = self.size(&call.params)?;
                Box::new(move |c| moving(&c[0], window, variant == Variant::MovingAvg, &element))
            }
            Variant::Last => {
                let n = self.size(&call.params)?.expect("required");
                Box::new(move |c| ring(&c[0], n))
            }
            Variant::Sorted => {
                let n = self.size(&call.params)?.expect("required");
                Box::new(move |c| {
                    let indices = sort_to_indices(&c[0], Some(SortOptions::default()), Some(n))?;
                    Ok(take(&c[0], &indices, None)?)
                })
            }
            Variant::Sample => {
                let n = self.size(&call.params)?.expect("required");
                let seed = call
                    .params
                    .get(1)
                    .map(|p| count_parameter(self.name(), p))
                    .transpose()?;
                Box::new(move |c| sampled(&c[0], n, seed))
            }
            Variant::InsertAt => {
                let default = match call.params.first() {
                    Some(p) => p.cast_to(&element)?,
                    None => strata_common::types::default_value(&element)?,
                };
                let size = call
                    .params
                    .get(1)
                    .map(|p| count_parameter(self.name(), p))
                    .transpose()?;
                Box::new(move |c| inserted(&c[0], &c[1], &default, size))
            }
        };
        Ok(Box::new(Collect::new(call.args.clone(), move |columns| {
            Ok(list_scalar(finish(columns)?))
        })))
    }
}

/// Running sums over the last `window` values (all by default); averages
/// divide each by the window size, or the count without one.
fn moving(
    values: &ArrayRef,
    window: Option<usize>,
    average: bool,
    element: &DataType,
) -> Result<ArrayRef> {
    if let DataType::Decimal128(..) = element {
        return moving_decimal(values, window, average, element);
    }
    let sum_type = if average { &DataType::Float64 } else { element };
    let n = values.len();
    let window_size = window.unwrap_or(n);
    let running = |get: &dyn Fn(usize) -> f64| -> Vec<f64> {
        let mut sums = Vec::with_capacity(n);
        let mut sum = 0.0;
        for i in 0..n {
            sum += get(i);
            if i >= window_size {
                sum -= get(i - window_size);
            }
            sums.push(if average {
                sum / window_size as f64
            } else {
                sum
            });
        }
        sums
    };
    if sum_type == &DataType::Float64 {
        let floats = cast(values, &DataType::Float64)?;
        let floats = floats.as_primitive::<Float64Type>();
        let sums = running(&|i| floats.value(i));
        return Ok(Arc::new(datafusion::arrow::array::Float64Array::from(sums)));
    }
    // Integers sum exactly, wrapping as ClickHouse's 64-bit sums do.
    let words = cast(values, &DataType::Int64)
        .or_else(|_| cast(&cast(values, &DataType::UInt64)?, &DataType::Int64))?;
    let words = words.as_primitive::<datafusion::arrow::datatypes::Int64Type>();
    let mut sums = Vec::with_capacity(n);
    let mut sum = 0i64;
    for i in 0..n {
        sum = sum.wrapping_add(words.value(i));
        if i >= window_size {
            sum = sum.wrapping_sub(words.value(i - window_size));
        }
        sums.push(sum);
    }
    let sums: ArrayRef = Arc::new(datafusion::arrow::array::Int64Array::from(sums));
    Ok(cast(&sums, element)?)
}

fn moving_decimal(
    values: &ArrayRef,
    window: Option<usize>,
    average: bool,
    element: &DataType,
) -> Result<ArrayRef> {
    let words = cast(values, element)?;
    let words = words.as_primitive::<datafusion::arrow::datatypes::Decimal128Type>();
    let n = words.len();
    let window_size = window.unwrap_or(n);
    let mut out = Vec::with_capacity(n);
    let mut sum = 0i128;
    for i in 0..n {
        sum = sum.wrapping_add(words.value(i));
        if i >= window_size {
            sum = sum.wrapping_sub(words.value(i - window_size));
        }
        out.push(if average {
            sum / window_size as i128
        } else {
            sum
        });
    }
    let array =
        datafusion::arrow::array::Decimal128Array::from(out).with_data_type(element.clone());
    Ok(Arc::new(array))
}

/// The ring of the last `n` values: slot `i % n` holds value `i`'s latest.
fn ring(values: &ArrayRef, n: usize) -> Result<ArrayRef> {
    let total = values.len();
    let kept = total.min(n);
    let indices: UInt32Array = (0..kept)
        .map(|slot| {
            // The latest index congruent to `slot`.
            let last = total - 1;
            let back = (last + n - slot) % n;
            (last - back) as u32
        })
        .collect();
    if total < n {
        return Ok(Arc::clone(values));
    }
    Ok(take(values, &indices, None)?)
}

fn sampled(values: &ArrayRef, n: usize, seed: Option<u64>) -> Result<ArrayRef> {
    if values.len() <= n {
        return Ok(Arc::clone(values));
    }
    let mut rng = match seed {
        Some(seed) => StdRng::seed_from_u64(seed),
        None => StdRng::from_os_rng(),
    };
    let indices: UInt32Array = sample(&mut rng, values.len(), n)
        .into_iter()
        .map(|i| i as u32)
        .collect();
    Ok(take(values, &indices, None)?)
}

/// Values placed at their positions, gaps and the tail up to `size` filled
/// with `default`; a position written twice keeps its first value.
fn inserted(
    values: &ArrayRef,
    positions: &ArrayRef,
    default: &ScalarValue,
    size: Option<u64>,
) -> Result<ArrayRef> {
    let positions = cast(positions, &DataType::UInt64)?;
    let positions = positions.as_primitive::<UInt64Type>();
    if positions.null_count() > 0 {
        return Err(error(
            ErrorCode::ARGUMENT_OUT_OF_BOUND,
            "Position of groupArrayInsertAt must be non-negative",
        ));
    }
    let needed = positions.values().iter().map(|&p| p + 1).max().unwrap_or(0);
    let length = size.unwrap_or(needed) as usize;
    if length > 0xFFFFFF {
        return Err(error(
            ErrorCode::TOO_LARGE_ARRAY_SIZE,
            "Too large array size",
        ));
    }
    let mut slots: Vec<Option<usize>> = vec![None; length];
    for (row, &position) in positions.values().iter().enumerate() {
        if let Some(slot) = slots.get_mut(position as usize)
            && slot.is_none()
        {
            *slot = Some(row);
        }
    }
    if length == 0 {
        return Ok(new_empty_array(values.data_type()));
    }
    let cells: Vec<ScalarValue> = slots
        .into_iter()
        .map(|row| match row {
            Some(row) => ScalarValue::try_from_array(values, row),
            None => Ok(default.clone()),
        })
        .collect::<Result<_>>()?;
    ScalarValue::iter_to_array(cells)
}

#[cfg(test)]
mod tests {
    use super::*;
    use datafusion::arrow::array::UInt64Array;

    #[test]
    fn ring_keeps_the_latest_per_slot() {
        let values: ArrayRef = Arc::new(UInt64Array::from(vec![3, 1, 2]));
        let out = ring(&values, 2).unwrap();
        assert_eq!(
            out.as_primitive::<UInt64Type>().values().to_vec(),
            vec![2, 1]
        );
    }

    #[test]
    fn moving_sums_over_a_window() {
        let values: ArrayRef = Arc::new(UInt64Array::from(vec![0, 1, 2, 3, 4]));
        let out = moving(&values, Some(2), false, &DataType::UInt64).unwrap();
        assert_eq!(
            out.as_primitive::<UInt64Type>().values().to_vec(),
            vec![0, 1, 3, 5, 7]
        );
    }
}
