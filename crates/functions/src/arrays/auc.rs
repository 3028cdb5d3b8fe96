//! Areas under curves of a binary classifier's scores: `arrayROCAUC(scores,
//! labels[, scale])` (also `arrayAUC`), under the ROC curve, and
//! `arrayAUCPR(scores, labels)` (also `arrayPRAUC`), under the
//! precision-recall curve. A label is positive when it is not zero.
//!
//! The scores are taken greatest first, equal scores as one threshold.
//! The ROC area is the trapezoids' between thresholds, divided by the
//! positives times the negatives unless `scale` is false; the PR area
//! adds each threshold's recall gained times its precision. The partial
//! offsets ClickHouse also takes (to sum areas over many calls) are not
//! supported.

use std::sync::Arc;

use datafusion::arrow::array::{Array, Float64Array};
use datafusion::arrow::compute::kernels::cast;
use datafusion::arrow::datatypes::{DataType, Field};
use datafusion::common::{Result, ScalarValue};
use datafusion::logical_expr::{ColumnarValue, Volatility};
use strata_common::ErrorCode;
use strata_common::types::field_type_name;

use super::{as_list, item, row_range};
use crate::numeric::{is_float, is_integer};
use crate::other::frame::{Call, Spec, Typing, failure};

pub(crate) const SPECS: &[Spec] = &[
    Spec {
        name: "arrayROCAUC",
        aliases: &["arrayAUC"],
        args: (2, 3),
        volatility: Volatility::Immutable,
        typing,
        eval,
    },
    Spec {
        name: "arrayAUCPR",
        aliases: &["arrayPRAUC"],
        args: (2, 2),
        volatility: Volatility::Immutable,
        typing,
        eval,
    },
];

fn typing(t: &Typing) -> Result<Field> {
    let numeric = |d: &DataType| is_integer(d) || is_float(d) || *d == DataType::Boolean;
    for (i, what) in [
        (0, "First argument (arr_scores)"),
        (1, "Second argument (arr_labels)"),
    ] {
        let field = &t.fields[i];
        let element = super::item_field(field.data_type()).map(|f| f.data_type());
        if !element.is_some_and(numeric) {
            return Err(failure(
                ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
                format!(
                    "{what} for function {} is of type {}, should be an array of numbers",
                    t.name,
                    field_type_name(field)
                ),
            ));
        }
    }
    if t.fields.len() == 3 && !matches!(t.scalar(2), Some(ScalarValue::Boolean(_))) {
        return Err(failure(
            ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
            format!(
                "Third argument (scale) for function {} must be of type const Bool",
                t.name
            ),
        ));
    }
    Ok(t.propagating(DataType::Float64))
}

fn eval(call: &Call) -> Result<ColumnarValue> {
    let float_list = DataType::List(item(DataType::Float64, true));
    let scores = as_list(&cast::cast(&call.column(0)?, &float_list)?)?;
    let labels = as_list(&cast::cast(&call.column(1)?, &float_list)?)?;
    let scale = !matches!(
        call.args.get(2),
        Some(ColumnarValue::Scalar(ScalarValue::Boolean(Some(false))))
    );
    let values = |l: &datafusion::arrow::array::ListArray| {
        l.values()
            .as_any()
            .downcast_ref::<Float64Array>()
            .expect("cast to Float64")
            .clone()
    };
    let (score_values, label_values) = (values(&scores), values(&labels));
    let mut out = Vec::with_capacity(call.rows);
    for row in 0..call.rows {
        if scores.is_null(row) || labels.is_null(row) {
            out.push(None);
            continue;
        }
        let (s, l) = (row_range(&scores, row), row_range(&labels, row));
        if s.len() != l.len() {
            return Err(failure(
                ErrorCode::BAD_ARGUMENTS,
                format!(
                    "First two arguments for function {} must be Arrays of equal sizes",
                    call.name
                ),
            ));
        }
        let mut points: Vec<(f64, bool)> = s
            .zip(l)
            .map(|(i, j)| (score_values.value(i), label_values.value(j) != 0.0))
            .collect();
        points.sort_by(|a, b| b.0.total_cmp(&a.0));
        out.push(Some(match call.name {
            "arrayROCAUC" => roc_area(&points, scale),
            _ => pr_area(&points),
        }));
    }
    call.output(Arc::new(Float64Array::from(out)))
}

/// The thresholds of scores sorted greatest first: the positives and
/// negatives at or above each.
fn thresholds(points: &[(f64, bool)]) -> Vec<(f64, f64)> {
    let (mut tp, mut fp) = (0.0, 0.0);
    let mut out = Vec::new();
    for (i, &(score, positive)) in points.iter().enumerate() {
        if positive {
            tp += 1.0;
        } else {
            fp += 1.0;
        }
        if points.get(i + 1).is_none_or(|next| next.0 != score) {
            out.push((tp, fp));
        }
    }
    out
}

fn roc_area(points: &[(f64, bool)], scale: bool) -> f64 {
    let (mut area, mut previous) = (0.0, (0.0, 0.0));
    for (tp, fp) in thresholds(points) {
        area += (fp - previous.1) * (tp + previous.0) / 2.0;
        previous = (tp, fp);
    }
    if scale {
        area / (previous.0 * previous.1)
    } else {
        area
    }
}

fn pr_area(points: &[(f64, bool)]) -> f64 {
    let positives = points.iter().filter(|p| p.1).count() as f64;
    if positives == 0.0 {
        return 0.0;
    }
    let (mut area, mut recalled) = (0.0, 0.0);
    for (tp, fp) in thresholds(points) {
        let recall = tp / positives;
        area += (recall - recalled) * tp / (tp + fp);
        recalled = recall;
    }
    area
}
