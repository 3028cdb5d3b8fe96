//! Aggregates computed from all of a group's rows at the end:
//! `deltaSum` (the sum of the increases between consecutive values),
//! `deltaSumTimestamp` (the same in timestamp order), `entropy` (Shannon,
//! in bits), `exponentialMovingAverage(half_life)(value, time)`,
//! `maxIntersections`/`maxIntersectionsPosition` (intervals `[start, end)`),
//! `rankCorr` (Spearman, ties ranked by their average), `groupConcat([sep[,
//! limit]])`, `anyHeavy` (the majority vote, in row order), `groupBitmap`
//! (distinct integers), `uniqUpTo(n)` (distinct rows, n + 1 past n) and
//! `topK`/`topKWeighted` (the most frequent values, by count then first
//! appearance; ClickHouse's is a Space-Saving sketch of 3k counters, equal
//! while a group has at most 3k distinct values, up to the order of ties),
//! `intervalLengthSum(start, end)` (the length of the intervals' union) and
//! `groupArrayIntersect(array)` (the elements in every row's array, in the
//! order of the first; ClickHouse's order is its hash table's).

use std::collections::HashMap;
use std::sync::Arc;

use datafusion::arrow::array::{Array, ArrayRef, AsArray, UInt32Array};
use datafusion::arrow::compute::{cast, sort_to_indices, take};
use datafusion::arrow::datatypes::{DataType, Float64Type, UInt64Type};
use datafusion::arrow::row::{RowConverter, SortField};
use datafusion::common::{Result, ScalarValue};
use datafusion::logical_expr::{Accumulator, AggregateUDF};
use strata_common::ErrorCode;

use super::frame::{
    Aggregate, AggregateSpec, Call, Collect, count_parameter, error, expect_args, expect_params,
    float_parameter, illegal_type, list_of, list_scalar,
};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kind {
    DeltaSum,
    DeltaSumTimestamp,
    Entropy,
    ExponentialMovingAverage,
    MaxIntersections,
    MaxIntersectionsPosition,
    RankCorr,
    GroupConcat,
    AnyHeavy,
    GroupBitmap,
    UniqUpTo,
    TopK,
    TopKWeighted,
    IntervalLengthSum,
    GroupArrayIntersect,
}

impl Kind {
    const ALL: [Kind; 15] = [
        Kind::DeltaSum,
        Kind::DeltaSumTimestamp,
        Kind::Entropy,
        Kind::ExponentialMovingAverage,
        Kind::MaxIntersections,
        Kind::MaxIntersectionsPosition,
        Kind::RankCorr,
        Kind::GroupConcat,
        Kind::AnyHeavy,
        Kind::GroupBitmap,
        Kind::UniqUpTo,
        Kind::TopK,
        Kind::TopKWeighted,
        Kind::IntervalLengthSum,
        Kind::GroupArrayIntersect,
    ];

    fn name(self) -> &'static str {
        match self {
            Kind::DeltaSum => "deltaSum",
            Kind::DeltaSumTimestamp => "deltaSumTimestamp",
            Kind::Entropy => "entropy",
            Kind::ExponentialMovingAverage => "exponentialMovingAverage",
            Kind::MaxIntersections => "maxIntersections",
            Kind::MaxIntersectionsPosition => "maxIntersectionsPosition",
            Kind::RankCorr => "rankCorr",
            Kind::GroupConcat => "groupConcat",
            Kind::AnyHeavy => "anyHeavy",
            Kind::GroupBitmap => "groupBitmap",
            Kind::UniqUpTo => "uniqUpTo",
            Kind::TopK => "topK",
            Kind::TopKWeighted => "topKWeighted",
            Kind::IntervalLengthSum => "intervalLengthSum",
            Kind::GroupArrayIntersect => "groupArrayIntersect",
        }
    }

    fn aliases(self) -> &'static [&'static str] {
        match self {
            Kind::GroupConcat => &["group_concat"],
            _ => &[],
        }
    }

    /// Argument counts and parameter counts allowed.
    fn arity(self) -> (&'static [usize], std::ops::RangeInclusive<usize>) {
        match self {
            Kind::DeltaSum
            | Kind::Entropy
            | Kind::AnyHeavy
            | Kind::GroupBitmap
            | Kind::GroupArrayIntersect => (&[1], 0..=0),
            Kind::GroupConcat => (&[1], 0..=2),
            Kind::TopK => (&[1], 0..=1),
            Kind::TopKWeighted => (&[2], 0..=1),
            Kind::UniqUpTo => (&[1, 2, 3, 4, 5], 1..=1),
            Kind::ExponentialMovingAverage => (&[2], 1..=1),
            Kind::DeltaSumTimestamp
            | Kind::MaxIntersections
            | Kind::MaxIntersectionsPosition
            | Kind::RankCorr
            | Kind::IntervalLengthSum => (&[2], 0..=0),
        }
    }
}

#[derive(Debug, PartialEq, Eq, Hash)]
pub struct Collected {
    kind: Kind,
}

pub fn functions() -> Vec<AggregateUDF> {
    Kind::ALL
        .into_iter()
        .map(|kind| Aggregate::udaf(Collected { kind }, kind.aliases()))
        .collect()
}

fn numeric(t: &DataType) -> bool {
    t.is_integer() || t.is_floating()
}

impl AggregateSpec for Collected {
    fn name(&self) -> &str {
        self.kind.name()
    }

    fn nullable_result(&self) -> bool {
        !matches!(
            self.kind,
            Kind::DeltaSum
                | Kind::DeltaSumTimestamp
                | Kind::GroupBitmap
                | Kind::UniqUpTo
                | Kind::TopK
                | Kind::TopKWeighted
                | Kind::IntervalLengthSum
                | Kind::GroupArrayIntersect
        )
    }

    fn return_type(&self, args: &[DataType], params: &[DataType]) -> Result<DataType> {
        let name = self.name();
        let (counts, parameters) = self.kind.arity();
        expect_args(name, args, counts)?;
        expect_params(name, params.len(), parameters)?;
        let check = |ok: bool, t: &DataType| {
            if ok {
                Ok(())
            } else {
                Err(illegal_type(name, t))
            }
        };
        Ok(match self.kind {
            Kind::DeltaSum => {
                check(numeric(&args[0]), &args[0])?;
                args[0].clone()
            }
            Kind::DeltaSumTimestamp => {
                check(numeric(&args[0]), &args[0])?;
                let t = &args[1];
                check(
                    t.is_integer()
                        || t.is_floating()
                        || matches!(t, DataType::Date32 | DataType::Timestamp(..)),
                    t,
                )?;
                args[0].clone()
            }
            Kind::Entropy | Kind::RankCorr | Kind::ExponentialMovingAverage => {
                if self.kind != Kind::Entropy {
                    for t in args {
                        check(numeric(t), t)?;
                    }
                }
                DataType::Float64
            }
            Kind::MaxIntersections | Kind::MaxIntersectionsPosition if args[0] != args[1] => {
                return Err(error(
                    ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
                    format!("{name}: arguments must have the same type"),
                ));
            }
            Kind::MaxIntersections => DataType::UInt64,
            Kind::MaxIntersectionsPosition => args[0].clone(),
            Kind::GroupConcat => DataType::Utf8,
            Kind::AnyHeavy => args[0].clone(),
            Kind::GroupBitmap => {
                check(args[0].is_integer(), &args[0])?;
                DataType::UInt64
            }
            Kind::UniqUpTo => DataType::UInt64,
            Kind::TopK | Kind::TopKWeighted => list_of(args[0].clone()),
            Kind::IntervalLengthSum => {
                let point = |t: &DataType| {
                    numeric(t) || matches!(t, DataType::Date32 | DataType::Timestamp(..))
                };
                for t in args {
                    check(point(t), t)?;
                }
                match args.iter().any(|t| t.is_floating()) {
                    true => DataType::Float64,
                    false => DataType::UInt64,
                }
            }
            Kind::GroupArrayIntersect => match &args[0] {
                DataType::List(_) => args[0].clone(),
                other => return Err(illegal_type(name, other)),
            },
        })
    }

    fn state_types(&self, call: &Call) -> Vec<DataType> {
        Collect::state_types(&call.args)
    }

    fn accumulator(&self, call: &Call) -> Result<Box<dyn Accumulator>> {
        let finish = self.finisher(call)?;
        Ok(Box::new(Collect::new(call.args.clone(), finish)))
    }
}

type Finish = Box<dyn Fn(&[ArrayRef]) -> Result<ScalarValue> + Send + Sync>;

impl Collected {
    fn finisher(&self, call: &Call) -> Result<Finish> {
        let name = self.name();
        let result = call.result.clone();
        Ok(match self.kind {
            Kind::DeltaSum => Box::new(move |c| from_f64(delta_sum(&floats(&c[0])?), &result)),
            Kind::DeltaSumTimestamp => Box::new(move |c| {
                let order = sort_to_indices(&c[1], None, None)?;
                let values = floats(&take(&c[0], &order, None)?)?;
                from_f64(delta_sum(&values), &result)
            }),
            Kind::Entropy => Box::new(|c| Ok(ScalarValue::Float64(Some(entropy(&c[0])?)))),
            Kind::ExponentialMovingAverage => {
                let half_life = float_parameter(name, &call.params[0])?;
                Box::new(move |c| {
                    Ok(ScalarValue::Float64(Some(moving_average(
                        &floats(&c[0])?,
                        &floats(&c[1])?,
                        half_life,
                    ))))
                })
            }
            Kind::MaxIntersections | Kind::MaxIntersectionsPosition => {
                let position = self.kind == Kind::MaxIntersectionsPosition;
                Box::new(move |c| intersections(&c[0], &c[1], position, &result))
            }
            Kind::RankCorr => Box::new(|c| {
                Ok(ScalarValue::Float64(Some(rank_corr(
                    &floats(&c[0])?,
                    &floats(&c[1])?,
                ))))
            }),
            Kind::GroupConcat => {
                let separator = match call.params.first() {
                    Some(ScalarValue::Utf8(Some(s))) => s.clone(),
                    Some(other) => {
                        return Err(error(
                            ErrorCode::BAD_ARGUMENTS,
                            format!("Separator of {name} must be a string, got {other}"),
                        ));
                    }
                    None => String::new(),
                };
                let limit = call
                    .params
                    .get(1)
                    .map(|p| count_parameter(name, p))
                    .transpose()?;
                Box::new(move |c| concatenated(&c[0], &separator, limit))
            }
            Kind::AnyHeavy => Box::new(move |c| heavy(&c[0], &result)),
            Kind::GroupBitmap => {
                Box::new(|c| Ok(ScalarValue::UInt64(Some(distinct_rows(c)?.len() as u64))))
            }
            Kind::UniqUpTo => {
                let limit = count_parameter(name, &call.params[0])?;
                if limit > 100 {
                    return Err(error(
                        ErrorCode::ARGUMENT_OUT_OF_BOUND,
                        format!("Too large parameter for aggregate function {name}. Maximum: 100"),
                    ));
                }
                Box::new(move |c| {
                    Ok(ScalarValue::UInt64(Some(
                        (distinct_rows(c)?.len() as u64).min(limit + 1),
                    )))
                })
            }
            Kind::TopK | Kind::TopKWeighted => {
                let k = match call.params.first() {
                    Some(p) => count_parameter(name, p)?,
                    None => 10,
                };
                if k == 0 || k > 0xFFFFFF {
                    return Err(error(
                        ErrorCode::ARGUMENT_OUT_OF_BOUND,
                        format!("Parameter {k} is illegal for aggregate function '{name}'"),
                    ));
                }
                let weighted = self.kind == Kind::TopKWeighted;
                Box::new(move |c| top_k(c, k as usize, weighted))
            }
            Kind::IntervalLengthSum => Box::new(move |c| {
                let starts = floats(&super::quantiles::as_floats(&c[0])?)?;
                let ends = floats(&super::quantiles::as_floats(&c[1])?)?;
                from_f64(union_length(&starts, &ends), &result)
            }),
            Kind::GroupArrayIntersect => Box::new(move |c| intersection(&c[0], &result)),
        })
    }
}

fn floats(values: &ArrayRef) -> Result<Vec<f64>> {
    let floats = cast(values, &DataType::Float64)?;
    Ok(floats.as_primitive::<Float64Type>().values().to_vec())
}

/// A float as the argument's own type (integers come back exact).
fn from_f64(v: f64, t: &DataType) -> Result<ScalarValue> {
    ScalarValue::Float64(Some(v)).cast_to(t)
}

/// The length of the union of the intervals, each taken from its lower end.
fn union_length(starts: &[f64], ends: &[f64]) -> f64 {
    let mut intervals: Vec<(f64, f64)> = starts
        .iter()
        .zip(ends)
        .map(|(&a, &b)| (a.min(b), a.max(b)))
        .collect();
    intervals.sort_by(|a, b| a.0.total_cmp(&b.0));
    let mut total = 0.0;
    let mut current: Option<(f64, f64)> = None;
    for (start, end) in intervals {
        current = match current {
            Some((low, high)) if start <= high => Some((low, high.max(end))),
            Some((low, high)) => {
                total += high - low;
                Some((start, end))
            }
            None => Some((start, end)),
        };
    }
    total + current.map_or(0.0, |(low, high)| high - low)
}

/// The distinct elements found in every row's array, in the first's order.
fn intersection(arrays: &ArrayRef, result: &DataType) -> Result<ScalarValue> {
    let DataType::List(item) = result else {
        unreachable!("typed as an array");
    };
    let lists = arrays.as_list::<i32>();
    let valid: Vec<usize> = (0..lists.len()).filter(|&i| lists.is_valid(i)).collect();
    let Some(&first) = valid.first() else {
        let empty = datafusion::arrow::array::new_empty_array(item.data_type());
        return Ok(super::frame::list_value(empty, item.is_nullable()));
    };
    let converter = RowConverter::new(vec![SortField::new(item.data_type().clone())])?;
    let rows = converter.convert_columns(&[Arc::clone(lists.values())])?;
    let offsets = lists.value_offsets();
    let elements = |i: usize| offsets[i] as usize..offsets[i + 1] as usize;
    // Each distinct element of the first array, with how many arrays hold it.
    let mut counts: HashMap<&[u8], (usize, usize)> = HashMap::new();
    let mut order: Vec<&[u8]> = Vec::new();
    for e in elements(first) {
        let key = rows.row(e).data();
        counts.entry(key).or_insert_with(|| {
            order.push(key);
            (e, 0)
        });
    }
    for &i in &valid {
        let mut seen = std::collections::HashSet::new();
        for e in elements(i) {
            let key = rows.row(e).data();
            if seen.insert(key)
                && let Some(entry) = counts.get_mut(key)
            {
                entry.1 += 1;
            }
        }
    }
    let kept: Vec<u32> = order
        .iter()
        .filter_map(|k| {
            let (at, count) = counts[k];
            (count == valid.len()).then_some(at as u32)
        })
        .collect();
    let values = take(lists.values(), &UInt32Array::from(kept), None)?;
    Ok(super::frame::list_value(values, item.is_nullable()))
}

fn delta_sum(values: &[f64]) -> f64 {
    // Folded from +0: Rust's float `sum` starts at -0, which prints as `-0`.
    values
        .windows(2)
        .map(|w| (w[1] - w[0]).max(0.0))
        .fold(0.0, |a, b| a + b)
}

/// Each distinct row (by all argument columns) with its first row and count.
fn distinct_rows(columns: &[ArrayRef]) -> Result<Vec<(usize, u64)>> {
    let fields = columns
        .iter()
        .map(|c| SortField::new(c.data_type().clone()))
        .collect();
    let rows = RowConverter::new(fields)?.convert_columns(columns)?;
    let mut seen: HashMap<&[u8], usize> = HashMap::new();
    let mut out: Vec<(usize, u64)> = Vec::new();
    for (i, row) in rows.iter().enumerate() {
        let slot = *seen.entry(row.data()).or_insert_with(|| {
            out.push((i, 0));
            out.len() - 1
        });
        out[slot].1 += 1;
    }
    Ok(out)
}

fn entropy(values: &ArrayRef) -> Result<f64> {
    let counts = distinct_rows(std::slice::from_ref(values))?;
    let total = values.len() as f64;
    Ok(counts
        .iter()
        .map(|&(_, n)| {
            let p = n as f64 / total;
            -p * p.log2()
        })
        .fold(0.0, |a, b| a + b))
}

/// Each value decayed by half per `half_life` of time before the latest
/// (time 0 at the least, as ClickHouse's state starts there), summed and
/// divided by the weights' sum so a constant series averages to itself.
fn moving_average(values: &[f64], times: &[f64], half_life: f64) -> f64 {
    let mut value = 0.0;
    let mut time = 0.0;
    for (&v, &t) in values.iter().zip(times) {
        if t > time {
            value = value * (-(t - time) / half_life).exp2() + v;
            time = t;
        } else {
            value += v * (-(time - t) / half_life).exp2();
        }
    }
    value / (1.0 / (1.0 - (-1.0 / half_life).exp2()))
}

/// The most intervals `[start, end)` open at once, or where that first happens.
fn intersections(
    starts: &ArrayRef,
    ends: &ArrayRef,
    position: bool,
    result: &DataType,
) -> Result<ScalarValue> {
    let (s, e) = (floats(starts)?, floats(ends)?);
    let mut events: Vec<(f64, i64, usize)> = Vec::with_capacity(s.len() * 2);
    for (i, (&a, &b)) in s.iter().zip(&e).enumerate() {
        events.push((a, 1, i));
        events.push((b, -1, i));
    }
    // At one point, ends before starts.
    events.sort_by(|x, y| x.0.total_cmp(&y.0).then(x.1.cmp(&y.1)));
    let (mut open, mut best, mut at) = (0i64, 0i64, None);
    for &(_, delta, row) in &events {
        open += delta;
        if open > best {
            best = open;
            at = Some(row);
        }
    }
    if !position {
        return Ok(ScalarValue::UInt64(Some(best as u64)));
    }
    match at {
        Some(row) => ScalarValue::try_from_array(starts, row),
        None => strata_common::types::default_value(result),
    }
}

/// Ranks from 1, tied values sharing their average rank.
fn ranks(values: &[f64]) -> Vec<f64> {
    let mut order: Vec<usize> = (0..values.len()).collect();
    order.sort_by(|&a, &b| values[a].total_cmp(&values[b]));
    let mut out = vec![0.0; values.len()];
    let mut i = 0;
    while i < order.len() {
        let mut j = i;
        while j + 1 < order.len() && values[order[j + 1]] == values[order[i]] {
            j += 1;
        }
        let rank = (i + j) as f64 / 2.0 + 1.0;
        for &k in &order[i..=j] {
            out[k] = rank;
        }
        i = j + 1;
    }
    out
}

fn rank_corr(x: &[f64], y: &[f64]) -> f64 {
    let n = x.len() as f64;
    if x.len() < 2 {
        return f64::NAN;
    }
    let (rx, ry) = (ranks(x), ranks(y));
    let d2: f64 = rx.iter().zip(&ry).map(|(a, b)| (a - b) * (a - b)).sum();
    1.0 - 6.0 * d2 / (n * (n * n - 1.0))
}

fn concatenated(values: &ArrayRef, separator: &str, limit: Option<u64>) -> Result<ScalarValue> {
    // Each value as `toString` writes it (an array `[1,2]`, not Arrow's `[1, 2]`).
    let strings = match values.data_type() {
        DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View => cast(values, &DataType::Utf8)?,
        _ => crate::conversion::to_strings(values.as_ref())?,
    };
    let strings = strings.as_string::<i32>();
    let take_n = limit.map_or(strings.len(), |l| (l as usize).min(strings.len()));
    let parts: Vec<&str> = strings.iter().take(take_n).flatten().collect();
    Ok(ScalarValue::Utf8(Some(parts.join(separator))))
}

/// The majority vote: a candidate kept while it outnumbers the others.
fn heavy(values: &ArrayRef, result: &DataType) -> Result<ScalarValue> {
    let rows = RowConverter::new(vec![SortField::new(values.data_type().clone())])?
        .convert_columns(&[Arc::clone(values)])?;
    let (mut candidate, mut count) = (None, 0u64);
    for (i, row) in rows.iter().enumerate() {
        match candidate {
            Some(c) if rows.row(c) == row => count += 1,
            _ if count == 0 => {
                candidate = Some(i);
                count = 1;
            }
            _ => count -= 1,
        }
    }
    match candidate {
        Some(row) => ScalarValue::try_from_array(values, row),
        None => strata_common::types::default_value(result),
    }
}

/// The `k` values of greatest count (or weight), ties by first appearance.
fn top_k(columns: &[ArrayRef], k: usize, weighted: bool) -> Result<ScalarValue> {
    let values = &columns[0];
    let distinct = distinct_rows(std::slice::from_ref(values))?;
    let mut totals: Vec<(usize, f64)> = if weighted {
        let weights = cast(&columns[1], &DataType::UInt64)?;
        let weights = weights.as_primitive::<UInt64Type>();
        let fields = vec![SortField::new(values.data_type().clone())];
        let rows = RowConverter::new(fields)?.convert_columns(std::slice::from_ref(values))?;
        let index: HashMap<&[u8], usize> = distinct
            .iter()
            .enumerate()
            .map(|(slot, &(row, _))| (rows.row(row).data(), slot))
            .collect();
        let mut sums = vec![0.0; distinct.len()];
        for (row, r) in rows.iter().enumerate() {
            sums[index[r.data()]] += weights.value(row) as f64;
        }
        distinct
            .iter()
            .zip(sums)
            .map(|(&(row, _), w)| (row, w))
            .collect()
    } else {
        distinct.iter().map(|&(row, n)| (row, n as f64)).collect()
    };
    totals.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    let indices: UInt32Array = totals.iter().take(k).map(|&(row, _)| row as u32).collect();
    Ok(list_scalar(take(values, &indices, None)?))
}

#[cfg(test)]
mod tests {
    use super::*;
    use datafusion::arrow::array::UInt64Array;

    #[test]
    fn deltas_and_ranks() {
        assert_eq!(delta_sum(&[1.0, 3.0, 2.0, 5.0, 4.0]), 5.0);
        assert_eq!(
            rank_corr(&[1.0, 2.0, 3.0, 3.0], &[2.0, 1.0, 3.0, 4.0]),
            0.75
        );
    }

    #[test]
    fn top_k_counts_through_state() {
        let spec = Collected { kind: Kind::TopK };
        let call = Call {
            args: vec![DataType::UInt64],
            params: vec![ScalarValue::UInt64(Some(2))],
            result: list_of(DataType::UInt64),
        };
        let mut a = spec.accumulator(&call).unwrap();
        let mut b = spec.accumulator(&call).unwrap();
        a.update_batch(&[Arc::new(UInt64Array::from(vec![1, 2, 2]))])
            .unwrap();
        b.update_batch(&[Arc::new(UInt64Array::from(vec![3, 3, 3]))])
            .unwrap();
        let state: Vec<ArrayRef> = b
            .state()
            .unwrap()
            .iter()
            .map(|s| s.to_array().unwrap())
            .collect();
        a.merge_batch(&state).unwrap();
        let ScalarValue::List(list) = a.evaluate().unwrap() else {
            panic!("a list")
        };
        assert_eq!(
            list.value(0).as_primitive::<UInt64Type>().values().to_vec(),
            vec![3, 2]
        );
    }
}
