//! Arrays in random order: `arrayShuffle(a[, seed])` (a random
//! permutation), `arrayPartialShuffle(a[, limit[, seed]])` (a permutation
//! whose first `limit` elements are a random sample, the rest in no
//! particular order; 0 or none shuffles all) and `arrayRandomSample(a, k)`
//! (`k` of the elements, all of them if fewer, in random order).
//!
//! A seed makes the order repeatable, though not ClickHouse's order.

use std::sync::Arc;

use datafusion::arrow::array::{Array, Int64Array, UInt32Array};
use datafusion::arrow::compute::kernels::cast;
use datafusion::arrow::compute::take;
use datafusion::arrow::datatypes::{DataType, Field};
use datafusion::common::{Result, ScalarValue};
use datafusion::logical_expr::{ColumnarValue, Volatility};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use strata_common::ErrorCode;
use strata_common::types::field_type_name;

use super::{as_list, list_from_lengths, row_range};
use crate::numeric::is_integer;
use crate::other::frame::{Call, Spec, Typing, failure};

pub(crate) const SPECS: &[Spec] = &[
    Spec {
        name: "arrayShuffle",
        aliases: &[],
        args: (1, 2),
        volatility: Volatility::Volatile,
        typing,
        eval,
    },
    Spec {
        name: "arrayPartialShuffle",
        aliases: &[],
        args: (1, 3),
        volatility: Volatility::Volatile,
        typing,
        eval,
    },
    Spec {
        name: "arrayRandomSample",
        aliases: &[],
        args: (2, 2),
        volatility: Volatility::Volatile,
        typing,
        eval,
    },
];

/// The array's type, after checking the array and the integer arguments.
fn typing(t: &Typing) -> Result<Field> {
    let array = &t.fields[0];
    if super::item_field(array.data_type()).is_none() {
        return Err(failure(
            ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
            format!("First argument of function '{}' must be array", t.name),
        ));
    }
    for i in 1..t.fields.len() {
        let field = t.field(i);
        let negative = matches!(t.scalar(i), Some(ScalarValue::Int64(Some(v))) if *v < 0);
        if !is_integer(field.data_type()) || negative {
            return Err(failure(
                ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
                format!(
                    "Illegal type {} of argument {} of function {}, expected an unsigned integer",
                    field_type_name(&field),
                    i + 1,
                    t.name
                ),
            ));
        }
    }
    Ok(array.as_ref().clone().with_name(t.name))
}

fn eval(call: &Call) -> Result<ColumnarValue> {
    let list = as_list(&call.column(0)?)?;
    let integer = |i: usize| -> Result<Option<Int64Array>> {
        if i >= call.args.len() {
            return Ok(None);
        }
        let column = cast::cast(&call.column(i)?, &DataType::Int64)?;
        Ok(column.as_any().downcast_ref::<Int64Array>().cloned())
    };
    let (limit, seed) = match call.name {
        "arrayShuffle" => (None, integer(1)?),
        _ => (integer(1)?, integer(2)?),
    };
    let mut seeded = seed
        .as_ref()
        .filter(|s| !s.is_empty() && s.is_valid(0))
        .map(|s| StdRng::seed_from_u64(s.value(0) as u64));
    let mut unseeded = rand::rng();
    let mut indices = Vec::with_capacity(list.values().len());
    let mut lengths = Vec::with_capacity(call.rows);
    for row in 0..call.rows {
        let range = row_range(&list, row);
        let mut order: Vec<u32> = range.clone().map(|i| i as u32).collect();
        let wanted = limit
            .as_ref()
            .filter(|l| l.is_valid(row))
            .map(|l| l.value(row).max(0) as usize)
            .filter(|&l| l > 0 || call.name == "arrayRandomSample")
            .map_or(order.len(), |l| l.min(order.len()));
        for i in 0..wanted {
            let j = match seeded.as_mut() {
                Some(rng) => rng.random_range(i..order.len()),
                None => unseeded.random_range(i..order.len()),
            };
            order.swap(i, j);
        }
        if call.name == "arrayRandomSample" {
            order.truncate(wanted);
        }
        lengths.push(order.len());
        indices.extend(order);
    }
    let values = take(list.values(), &UInt32Array::from(indices), None)?;
    let DataType::List(element) = call.result.data_type() else {
        unreachable!("typed as the array's type")
    };
    let out = list_from_lengths(Arc::clone(element), lengths, values, list.nulls().cloned())?;
    Ok(ColumnarValue::Array(out))
}
