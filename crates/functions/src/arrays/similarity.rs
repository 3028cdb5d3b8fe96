//! How alike two arrays are: `arrayJaccardIndex(a, b)` (the share of
//! their distinct elements found in both), `arrayLevenshteinDistance(a,
//! b)` (the fewest insertions, deletions and substitutions of elements
//! that turn `a` into `b`), `arrayLevenshteinDistanceWeighted(a, b, wa,
//! wb)` (the same where inserting or deleting an element costs its weight
//! and substituting costs both weights) and `arraySimilarity(a, b, wa,
//! wb)` (one less the weighted distance over the sum of all weights).
//!
//! Elements compare in the arrays' common type, NULL equal to NULL; the
//! Levenshtein functions take arrays with no common type, whose elements
//! then never match.

use std::collections::HashSet;
use std::sync::Arc;

use datafusion::arrow::array::{Array, ArrayRef, Float64Array, ListArray, UInt32Array};
use datafusion::arrow::compute::kernels::cast;
use datafusion::arrow::datatypes::DataType;
use datafusion::arrow::row::Rows;
use datafusion::common::Result;
use datafusion::logical_expr::{ColumnarValue, Volatility};
use strata_common::ErrorCode;
use strata_common::types::field_type_name;

use super::{as_list, common_type, item, row_range, value_rows};
use crate::numeric::{is_float, is_integer};
use crate::other::frame::{Call, Spec, Typing, failure};

pub(crate) const SPECS: &[Spec] = &[
    Spec {
        name: "arrayJaccardIndex",
        aliases: &[],
        args: (2, 2),
        volatility: Volatility::Immutable,
        typing: |t| typed(t, DataType::Float64, true),
        eval: jaccard,
    },
    Spec {
        name: "arrayLevenshteinDistance",
        aliases: &[],
        args: (2, 2),
        volatility: Volatility::Immutable,
        typing: |t| typed(t, DataType::UInt32, false),
        eval: levenshtein,
    },
    Spec {
        name: "arrayLevenshteinDistanceWeighted",
        aliases: &[],
        args: (4, 4),
        volatility: Volatility::Immutable,
        typing: |t| typed(t, DataType::Float64, false),
        eval: levenshtein,
    },
    Spec {
        name: "arraySimilarity",
        aliases: &[],
        args: (4, 4),
        volatility: Volatility::Immutable,
        typing: |t| typed(t, DataType::Float64, false),
        eval: levenshtein,
    },
];

/// The result type after checking the arguments: two arrays (of a common
/// type where `common` says so), then numeric weight arrays.
fn typed(
    t: &Typing,
    result: DataType,
    common: bool,
) -> Result<datafusion::arrow::datatypes::Field> {
    for (i, field) in t.fields.iter().enumerate() {
        let Some(element) = super::item_field(field.data_type()) else {
            return Err(failure(
                ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
                format!(
                    "Argument {} of function {} must be an array, found {} instead",
                    i + 1,
                    t.name,
                    field_type_name(field)
                ),
            ));
        };
        let numeric = |d: &DataType| is_integer(d) || is_float(d);
        if i >= 2 && !numeric(element.data_type()) {
            return Err(failure(
                ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
                format!(
                    "Argument {} of function {} must be a numeric array. Found {} instead",
                    i + 1,
                    t.name,
                    field_type_name(field)
                ),
            ));
        }
    }
    if common {
        elements_type(&t.fields[0].data_type().clone(), t.fields[1].data_type())?;
    }
    Ok(t.propagating(result))
}

/// The common element type of two array types.
fn elements_type(a: &DataType, b: &DataType) -> Result<DataType> {
    let element = |t: &DataType| super::item_field(t).map(|f| f.data_type().clone());
    let (a, b) = (
        element(a).unwrap_or(DataType::Null),
        element(b).unwrap_or(DataType::Null),
    );
    common_type([&a, &b])
}

/// Both arrays with their elements in their common type, if they have one.
fn compared(call: &Call) -> Result<Option<(ListArray, ListArray)>> {
    let (a, b) = (as_list(&call.column(0)?)?, as_list(&call.column(1)?)?);
    let Ok(common) = elements_type(a.data_type(), b.data_type()) else {
        return Ok(None);
    };
    let to = |l: &ListArray| -> Result<ListArray> {
        let nullable = super::item_field(l.data_type()).is_some_and(|f| f.is_nullable());
        let target = DataType::List(item(common.clone(), nullable || common == DataType::Null));
        let array: ArrayRef = Arc::new(l.clone());
        as_list(&cast::cast(&array, &target)?)
    };
    Ok(Some((to(&a)?, to(&b)?)))
}

fn jaccard(call: &Call) -> Result<ColumnarValue> {
    let Some((a, b)) = compared(call)? else {
        unreachable!("typing checked the common type")
    };
    let (rows_a, rows_b) = (value_rows(&a)?, value_rows(&b)?);
    let out: Float64Array = (0..call.rows)
        .map(|row| {
            if a.is_null(row) || b.is_null(row) {
                return None;
            }
            let set = |list: &ListArray, rows: &Rows| -> HashSet<Vec<u8>> {
                row_range(list, row)
                    .map(|i| rows.row(i).as_ref().to_vec())
                    .collect()
            };
            let (x, y) = (set(&a, &rows_a), set(&b, &rows_b));
            let both = x.intersection(&y).count();
            Some(both as f64 / (x.len() + y.len() - both) as f64)
        })
        .collect();
    call.output(Arc::new(out))
}

/// The three Levenshtein functions, told apart by their name.
fn levenshtein(call: &Call) -> Result<ColumnarValue> {
    let lists = compared(call)?;
    let rows = match &lists {
        Some((a, b)) => Some((value_rows(a)?, value_rows(b)?)),
        None => None,
    };
    let (a, b) = (as_list(&call.column(0)?)?, as_list(&call.column(1)?)?);
    let weights = if call.args.len() == 4 {
        let w = |i| -> Result<ListArray> {
            let target = DataType::List(item(DataType::Float64, true));
            as_list(&cast::cast(&call.column(i)?, &target)?)
        };
        Some((w(2)?, w(3)?))
    } else {
        None
    };
    let mut distances = Vec::with_capacity(call.rows);
    for row in 0..call.rows {
        let (ra, rb) = (row_range(&a, row), row_range(&b, row));
        let equal = |i: usize, j: usize| match &rows {
            Some((x, y)) => x.row(ra.start + i).as_ref() == y.row(rb.start + j).as_ref(),
            None => false,
        };
        let (wa, wb) = match &weights {
            Some((wa, wb)) => (
                row_weights(call, wa, row, 3, ra.len())?,
                row_weights(call, wb, row, 4, rb.len())?,
            ),
            None => (vec![1.0; ra.len()], vec![1.0; rb.len()]),
        };
        let distance = weighted_distance(&wa, &wb, equal, weights.is_some());
        distances.push(match call.name {
            "arraySimilarity" => {
                let total: f64 = wa.iter().chain(&wb).sum();
                if total == 0.0 {
                    1.0
                } else {
                    1.0 - distance / total
                }
            }
            _ => distance,
        });
    }
    let out: ArrayRef = if call.name == "arrayLevenshteinDistance" {
        Arc::new(UInt32Array::from_iter_values(
            distances.iter().map(|d| *d as u32),
        ))
    } else {
        Arc::new(Float64Array::from(distances))
    };
    call.output(out)
}

/// Row `row`'s weights, which must be as many as the array has elements.
fn row_weights(
    call: &Call,
    weights: &ListArray,
    row: usize,
    arg: usize,
    len: usize,
) -> Result<Vec<f64>> {
    let range = row_range(weights, row);
    if range.len() != len {
        return Err(failure(
            ErrorCode::SIZES_OF_ARRAYS_DONT_MATCH,
            format!(
                "Arguments {} (size {len}) and {arg} (size {}) of function {} must be arrays of the same size",
                arg - 2,
                range.len(),
                call.name
            ),
        ));
    }
    let values = weights.values().as_any().downcast_ref::<Float64Array>();
    let values = values.expect("weights cast to Float64");
    Ok(range.map(|i| values.value(i)).collect())
}

/// The edit distance with deletion costing `wa[i]`, insertion `wb[j]` and
/// substitution both (one, unweighted).
fn weighted_distance(
    wa: &[f64],
    wb: &[f64],
    equal: impl Fn(usize, usize) -> bool,
    weighted: bool,
) -> f64 {
    let mut previous: Vec<f64> = std::iter::once(0.0)
        .chain(wb.iter().scan(0.0, |s, w| {
            *s += w;
            Some(*s)
        }))
        .collect();
    for (i, &deleted) in wa.iter().enumerate() {
        let mut current = vec![previous[0] + deleted];
        for (j, &inserted) in wb.iter().enumerate() {
            let substituted = if equal(i, j) {
                0.0
            } else if weighted {
                deleted + inserted
            } else {
                1.0
            };
            let best = (previous[j] + substituted)
                .min(previous[j + 1] + deleted)
                .min(current[j] + inserted);
            current.push(best);
        }
        previous = current;
    }
    previous[wb.len()]
}
