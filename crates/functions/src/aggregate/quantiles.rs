//! ClickHouse's quantile family: `quantile`/`median` (linear interpolation
//! between the two nearest values), `quantileDeterministic`, `quantileExact`
//! (the value at index `floor(level * n)` of the sorted values) with its Low,
//! High, Exclusive (R6) and Inclusive (R7) forms, `quantileExactWeighted`
//! and `quantileTiming` (exact up to 5672 values, then ClickHouse's
//! histogram of milliseconds up to 30 s), `quantileInterpolatedWeighted` and
//! `quantileExactWeightedInterpolated` (interpolating over weighted values),
//! and the sketches of [`super::digests`] (`quantileTDigest`,
//! `quantileBFloat16` and their weighted forms), each also as
//! `quantiles*(levels...)` returning an array.
//!
//! `quantile` and `quantileDeterministic` interpolate over every value,
//! where ClickHouse does over a sample of 8192: the results are equal up to
//! 8192 values.

use datafusion::arrow::array::{Array, ArrayRef, AsArray};
use datafusion::arrow::compute::{cast, sort_to_indices, take};
use datafusion::arrow::datatypes::{DataType, Decimal128Type, Float64Type, TimeUnit, UInt64Type};
use std::sync::Arc;

use datafusion::common::{Result, ScalarValue};
use datafusion::logical_expr::{Accumulator, AggregateUDF};
use strata_common::ErrorCode;

use super::digests;
use super::frame::{Aggregate, AggregateSpec, Call, Collect, error, float_parameter, illegal_type};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Method {
    Interpolated,
    Deterministic,
    Exact,
    ExactLow,
    ExactHigh,
    ExactExclusive,
    ExactInclusive,
    ExactWeighted,
    ExactWeightedInterpolated,
    InterpolatedWeighted,
    Timing,
    TDigest,
    TDigestWeighted,
    BFloat16,
    BFloat16Weighted,
}

impl Method {
    const ALL: [Method; 15] = [
        Method::Interpolated,
        Method::Deterministic,
        Method::Exact,
        Method::ExactLow,
        Method::ExactHigh,
        Method::ExactExclusive,
        Method::ExactInclusive,
        Method::ExactWeighted,
        Method::ExactWeightedInterpolated,
        Method::InterpolatedWeighted,
        Method::Timing,
        Method::TDigest,
        Method::TDigestWeighted,
        Method::BFloat16,
        Method::BFloat16Weighted,
    ];

    fn suffix(self) -> &'static str {
        match self {
            Method::Interpolated => "",
            Method::Deterministic => "Deterministic",
            Method::Exact => "Exact",
            Method::ExactLow => "ExactLow",
            Method::ExactHigh => "ExactHigh",
            Method::ExactExclusive => "ExactExclusive",
            Method::ExactInclusive => "ExactInclusive",
            Method::ExactWeighted => "ExactWeighted",
            Method::ExactWeightedInterpolated => "ExactWeightedInterpolated",
            Method::InterpolatedWeighted => "InterpolatedWeighted",
            Method::Timing => "Timing",
            Method::TDigest => "TDigest",
            Method::TDigestWeighted => "TDigestWeighted",
            Method::BFloat16 => "BFloat16",
            Method::BFloat16Weighted => "BFloat16Weighted",
        }
    }

    fn arguments(self) -> usize {
        match self {
            Method::Deterministic
            | Method::ExactWeighted
            | Method::ExactWeightedInterpolated
            | Method::InterpolatedWeighted
            | Method::TDigestWeighted
            | Method::BFloat16Weighted => 2,
            _ => 1,
        }
    }

    /// Whether the state is a sketch of bounded size rather than every value.
    fn sketched(self) -> Option<digests::Sketch> {
        match self {
            Method::TDigest | Method::TDigestWeighted => Some(digests::Sketch::TDigest),
            Method::BFloat16 | Method::BFloat16Weighted => Some(digests::Sketch::BFloat16),
            _ => None,
        }
    }

    /// The result type for one level, or None if the argument type is refused.
    fn value_type(self, arg: &DataType) -> Option<DataType> {
        let number = arg.is_integer() || arg.is_floating() || *arg == DataType::Boolean;
        let temporal = matches!(
            arg,
            DataType::Date32 | DataType::Timestamp(TimeUnit::Second, _)
        );
        let decimal = matches!(arg, DataType::Decimal128(..) | DataType::Decimal256(..));
        match self {
            Method::Interpolated | Method::Deterministic
                if temporal || matches!(arg, DataType::Decimal128(..)) =>
            {
                Some(arg.clone())
            }
            Method::Interpolated | Method::Deterministic if number => Some(DataType::Float64),
            Method::ExactExclusive | Method::ExactInclusive if number && !wide(arg) => {
                Some(DataType::Float64)
            }
            Method::Exact | Method::ExactLow | Method::ExactHigh | Method::ExactWeighted
                if number || temporal || decimal =>
            {
                Some(arg.clone())
            }
            Method::Timing if number || temporal => Some(DataType::Float32),
            Method::InterpolatedWeighted if number || temporal => Some(arg.clone()),
            Method::ExactWeightedInterpolated | Method::BFloat16 | Method::BFloat16Weighted
                if temporal =>
            {
                Some(arg.clone())
            }
            Method::ExactWeightedInterpolated | Method::BFloat16 | Method::BFloat16Weighted
                if number =>
            {
                Some(DataType::Float64)
            }
            Method::TDigest | Method::TDigestWeighted if temporal => Some(arg.clone()),
            Method::TDigest | Method::TDigestWeighted if number => Some(DataType::Float32),
            _ => None,
        }
    }
}

fn wide(t: &DataType) -> bool {
    matches!(t, DataType::Decimal128(..) | DataType::Decimal256(..))
}

#[derive(Debug, PartialEq, Eq, Hash)]
pub struct Quantile {
    method: Method,
    plural: bool,
    name: String,
}

/// Every function of the family, with the `median*` aliases of the single forms.
pub fn functions() -> Vec<AggregateUDF> {
    let mut out = Vec::new();
    for method in Method::ALL {
        for plural in [false, true] {
            let stem = if plural { "quantiles" } else { "quantile" };
            let name = format!("{stem}{}", method.suffix());
            let median = format!("median{}", method.suffix());
            // ClickHouse has no median form of the R6 and R7 quantiles.
            let ranked = matches!(method, Method::ExactExclusive | Method::ExactInclusive);
            let aliases: Vec<&str> = if plural || ranked {
                vec![]
            } else {
                vec![median.as_str()]
            };
            out.push(Aggregate::udaf(
                Quantile {
                    method,
                    plural,
                    name,
                },
                &aliases,
            ));
        }
    }
    out
}

impl Quantile {
    fn levels(&self, params: &[ScalarValue]) -> Result<Vec<f64>> {
        let levels = if params.is_empty() {
            vec![0.5]
        } else {
            let name = &self.name;
            params
                .iter()
                .map(|p| float_parameter(name, p))
                .collect::<Result<Vec<_>>>()?
        };
        if levels.iter().any(|l| !(0.0..=1.0).contains(l)) {
            return Err(error(
                ErrorCode::PARAMETER_OUT_OF_BOUND,
                "Quantile level is out of range [0..1]",
            ));
        }
        if matches!(self.method, Method::ExactExclusive)
            && levels.iter().any(|&l| l == 0.0 || l == 1.0)
        {
            return Err(error(
                ErrorCode::BAD_ARGUMENTS,
                "QuantileExactExclusive cannot interpolate for the percentiles 1 and 0",
            ));
        }
        Ok(levels)
    }
}

impl AggregateSpec for Quantile {
    fn name(&self) -> &str {
        &self.name
    }

    fn return_type(&self, args: &[DataType], params: &[DataType]) -> Result<DataType> {
        let name = &self.name;
        if args.len() != self.method.arguments() {
            let count = if self.method.arguments() == 2 {
                "two arguments"
            } else {
                "single argument"
            };
            return Err(error(
                ErrorCode::NUMBER_OF_ARGUMENTS_DOESNT_MATCH,
                format!("Aggregate function {name} requires {count}"),
            ));
        }
        if self.plural && params.is_empty() {
            return Err(error(
                ErrorCode::NUMBER_OF_ARGUMENTS_DOESNT_MATCH,
                "Aggregate function for calculation of multiple quantiles require at least one parameter",
            ));
        }
        if !self.plural && params.len() > 1 {
            return Err(error(
                ErrorCode::NUMBER_OF_ARGUMENTS_DOESNT_MATCH,
                format!("Aggregate function {name} requires one level parameter or less"),
            ));
        }
        // ClickHouse wants an unsigned weight; Strata's integer literals are
        // signed, so any integer passes and a negative weight counts as none.
        let weighted = self.method.arguments() == 2 && self.method != Method::Deterministic;
        if weighted && !args[1].is_integer() {
            return Err(error(
                ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
                format!(
                    "Second argument (weight) for function {name} must be unsigned integer, but it has type {}",
                    strata_common::types::clickhouse_type_name(&args[1], false)
                ),
            ));
        }
        let value = self
            .method
            .value_type(&args[0])
            .ok_or_else(|| illegal_type(name, &args[0]))?;
        Ok(if self.plural {
            super::frame::list_of(value)
        } else {
            value
        })
    }

    fn state_types(&self, call: &Call) -> Vec<DataType> {
        match self.method.sketched() {
            Some(sketch) => sketch.state_types(),
            None => Collect::state_types(&call.args),
        }
    }

    fn accumulator(&self, call: &Call) -> Result<Box<dyn Accumulator>> {
        let levels = self.levels(&call.params)?;
        let method = self.method;
        let plural = self.plural;
        let value_type = match &call.result {
            DataType::List(item) if plural => item.data_type().clone(),
            other => other.clone(),
        };
        if let Some(sketch) = method.sketched() {
            let output = digests::Output {
                levels,
                plural,
                value_type,
            };
            return Ok(sketch.accumulator(output, method.arguments() == 2));
        }
        Ok(Box::new(Collect::new(call.args.clone(), move |columns| {
            let values = quantiles(method, &levels, columns, &value_type)?;
            if plural {
                let array = ScalarValue::iter_to_array(values)?;
                Ok(super::frame::list_scalar(array))
            } else {
                Ok(values.into_iter().next().expect("one level"))
            }
        })))
    }
}

/// The quantiles at `levels` of the collected columns.
fn quantiles(
    method: Method,
    levels: &[f64],
    columns: &[ArrayRef],
    out: &DataType,
) -> Result<Vec<ScalarValue>> {
    match method {
        Method::Interpolated | Method::Deterministic
            if matches!(columns[0].data_type(), DataType::Decimal128(..)) =>
        {
            let sorted = sorted_values(&columns[0])?;
            let decimals = sorted.as_primitive::<Decimal128Type>();
            levels
                .iter()
                .map(|&l| match decimals.is_empty() {
                    true => strata_common::types::default_value(out),
                    false => Ok(ScalarValue::Decimal128(
                        Some(interpolated_decimal(decimals.values(), l)),
                        decimals.precision(),
                        decimals.scale(),
                    )),
                })
                .collect()
        }
        Method::Interpolated | Method::Deterministic => {
            let sorted = sorted_floats(&columns[0])?;
            levels
                .iter()
                .map(|&l| from_f64(interpolated(&sorted, l), out))
                .collect()
        }
        Method::ExactExclusive | Method::ExactInclusive => {
            let sorted = sorted_floats(&columns[0])?;
            let exclusive = method == Method::ExactExclusive;
            Ok(levels
                .iter()
                .map(|&l| ScalarValue::Float64(Some(ranked(&sorted, l, exclusive))))
                .collect())
        }
        Method::Exact | Method::ExactLow | Method::ExactHigh => {
            let sorted = sorted_values(&columns[0])?;
            let n = sorted.len();
            levels
                .iter()
                .map(|&l| match n {
                    0 => strata_common::types::default_value(out),
                    _ => ScalarValue::try_from_array(&sorted, exact_index(method, n, l)),
                })
                .collect()
        }
        Method::ExactWeighted => weighted(levels, &columns[0], &columns[1], out),
        Method::ExactWeightedInterpolated | Method::InterpolatedWeighted => {
            let points = weighted_points(&columns[0], &columns[1])?;
            levels
                .iter()
                .map(|&l| match points.is_empty() {
                    true => empty_weighted(method, out),
                    false if method == Method::InterpolatedWeighted => {
                        from_f64(interpolated_weighted(&points, l, out), out)
                    }
                    false => from_f64(exact_weighted_interpolated(&points, l), out),
                })
                .collect()
        }
        Method::TDigest | Method::TDigestWeighted | Method::BFloat16 | Method::BFloat16Weighted => {
            unreachable!("sketched quantiles have their own accumulator")
        }
        Method::Timing => {
            let timing = Timing::new(&columns[0])?;
            Ok(levels
                .iter()
                .map(|&l| ScalarValue::Float32(Some(timing.quantile(l))))
                .collect())
        }
    }
}

/// Numbers, dates and times as floats (days and seconds).
pub(crate) fn as_floats(values: &ArrayRef) -> Result<ArrayRef> {
    let numbers = match values.data_type() {
        DataType::Date32 => cast(values, &DataType::Int32)?,
        DataType::Timestamp(..) => cast(values, &DataType::Int64)?,
        _ => Arc::clone(values),
    };
    Ok(cast(&numbers, &DataType::Float64)?)
}

fn sorted_floats(values: &ArrayRef) -> Result<Vec<f64>> {
    let floats = as_floats(values)?;
    let mut out: Vec<f64> = floats.as_primitive::<Float64Type>().values().to_vec();
    out.sort_by(f64::total_cmp);
    Ok(out)
}

fn sorted_values(values: &ArrayRef) -> Result<ArrayRef> {
    let indices = sort_to_indices(values, None, None)?;
    Ok(take(values, &indices, None)?)
}

/// Linear interpolation between the values around `level * (n - 1)`.
fn interpolated(sorted: &[f64], level: f64) -> f64 {
    let Some(last) = sorted.len().checked_sub(1) else {
        return f64::NAN;
    };
    let position = (level * last as f64).clamp(0.0, last as f64);
    let low = position as usize;
    let high = (low + 1).min(last);
    sorted[low] + (position - low as f64) * (sorted[high] - sorted[low])
}

/// As [`interpolated`] over a decimal's integers, each side's share cut to
/// an integer, as ClickHouse computes it (the 0.3 quantile of 1.25 and 2.5,
/// 0.2 of the way, is 1.49).
fn interpolated_decimal(sorted: &[i128], level: f64) -> i128 {
    let last = sorted.len() - 1;
    let position = (level * last as f64).clamp(0.0, last as f64);
    let low = position as usize;
    let high = (low + 1).min(last);
    let share = position - low as f64;
    (sorted[low] as f64 * (1.0 - share)) as i128 + (sorted[high] as f64 * share) as i128
}

/// R6 (exclusive) and R7 (inclusive) interpolation, 1-based ranks.
fn ranked(sorted: &[f64], level: f64, exclusive: bool) -> f64 {
    let n = sorted.len();
    if n == 0 {
        return f64::NAN;
    }
    let h = if exclusive {
        level * (n + 1) as f64
    } else {
        level * (n - 1) as f64 + 1.0
    };
    let rank = h.floor();
    if rank >= n as f64 {
        return sorted[n - 1];
    }
    if rank < 1.0 {
        return sorted[0];
    }
    let k = rank as usize;
    sorted[k - 1] + (h - rank) * (sorted[k] - sorted[k - 1])
}

fn exact_index(method: Method, n: usize, level: f64) -> usize {
    let index = if method == Method::ExactLow && level == 0.5 {
        // The lower of the two middle values of an even count.
        if n % 2 == 1 { n / 2 } else { n / 2 - 1 }
    } else if level < 1.0 {
        (level * n as f64) as usize
    } else {
        n - 1
    };
    index.min(n - 1)
}

/// The first value, in order, whose accumulated weight reaches
/// `ceil(level * total)`.
fn weighted(
    levels: &[f64],
    values: &ArrayRef,
    weights: &ArrayRef,
    out: &DataType,
) -> Result<Vec<ScalarValue>> {
    let order = sort_to_indices(values, None, None)?;
    let weights = cast(weights, &DataType::UInt64)?;
    let weights = weights.as_primitive::<UInt64Type>();
    let total: f64 = weights.values().iter().map(|&w| w as f64).sum();
    levels
        .iter()
        .map(|&level| {
            let threshold = (level * total).ceil();
            let mut accumulated = 0.0;
            let mut chosen = None;
            for &row in order.values() {
                accumulated += weights.value(row as usize) as f64;
                chosen = Some(row as usize);
                if accumulated >= threshold {
                    break;
                }
            }
            match chosen {
                Some(row) => ScalarValue::try_from_array(values, row),
                None => strata_common::types::default_value(out),
            }
        })
        .collect()
}

/// Distinct values in order, each with the sum of its weights.
fn weighted_points(values: &ArrayRef, weights: &ArrayRef) -> Result<Vec<(f64, f64)>> {
    let floats = as_floats(values)?;
    let floats = floats.as_primitive::<Float64Type>();
    let weights = cast(weights, &DataType::UInt64)?;
    let weights = weights.as_primitive::<UInt64Type>();
    let mut points: Vec<(f64, f64)> = floats
        .values()
        .iter()
        .zip(weights.values())
        .filter(|(v, _)| !v.is_nan())
        .map(|(&v, &w)| (v, w as f64))
        .collect();
    points.sort_by(|a, b| a.0.total_cmp(&b.0));
    points.dedup_by(|later, kept| {
        let same = later.0 == kept.0;
        if same {
            kept.1 += later.1;
        }
        same
    });
    Ok(points)
}

/// What the weighted interpolations return over no rows: NaN where the
/// result is a float, else the type's zero.
fn empty_weighted(method: Method, out: &DataType) -> Result<ScalarValue> {
    match out {
        DataType::Float64 if method == Method::ExactWeightedInterpolated => {
            Ok(ScalarValue::Float64(Some(f64::NAN)))
        }
        DataType::Float32 | DataType::Float64 if method == Method::InterpolatedWeighted => {
            ScalarValue::Float64(Some(f64::NAN)).cast_to(out)
        }
        other => strata_common::types::default_value(other),
    }
}

/// `quantileInterpolatedWeighted`: each distinct value sits at the middle
/// of its weight in the cumulative distribution, and the level is
/// interpolated between the two values around it (the weighted percentile
/// method); integer results are cut toward zero.
fn interpolated_weighted(points: &[(f64, f64)], level: f64, out: &DataType) -> f64 {
    let total: f64 = points.iter().map(|p| p.1).sum();
    let mut accumulated = 0.0;
    let positions: Vec<f64> = points
        .iter()
        .map(|&(_, w)| {
            accumulated += w;
            if total == 0.0 {
                w
            } else {
                (accumulated - 0.5 * w) / total
            }
        })
        .collect();
    let n = points.len();
    let low = if n < 2 {
        0
    } else if level >= positions[n - 2] {
        n - 2
    } else {
        // The first pair whose upper position reaches the level.
        (0..n - 1).find(|&i| level <= positions[i + 1]).unwrap_or(0)
    };
    let high = (low + 1).min(n - 1);
    let (xl, xr) = (positions[low], positions[high]);
    let (mut yl, mut yr) = (points[low].0, points[high].0);
    if level < xl {
        yr = yl;
    }
    if level > xr {
        yl = yr;
    }
    let dx = if xr == xl { 1.0 } else { xr - xl };
    let v = yl + (yr - yl) / dx * (level - xl);
    if out.is_integer() { v.trunc() } else { v }
}

/// `quantileExactWeightedInterpolated`: the values repeated by their
/// weights, interpolated at `level * (total - 1)` as `quantile` does.
fn exact_weighted_interpolated(points: &[(f64, f64)], level: f64) -> f64 {
    let mut accumulated = 0.0;
    let cumulative: Vec<f64> = points
        .iter()
        .map(|&(_, w)| {
            accumulated += w;
            accumulated
        })
        .collect();
    let position = (accumulated - 1.0).max(0.0) * level;
    let (lower, higher) = (position.floor(), position.ceil());
    let at = |rank: f64| {
        let i = cumulative.partition_point(|&c| c < rank + 1.0);
        points[i.min(points.len() - 1)].0
    };
    let (low, high) = (at(lower), at(higher));
    if lower == higher || low == high {
        return low;
    }
    (higher - position) * low + (position - lower) * high
}

/// A float as a value of the result type: dates and times truncated.
pub(crate) fn from_f64(v: f64, t: &DataType) -> Result<ScalarValue> {
    Ok(match t {
        DataType::Date32 if v.is_finite() => ScalarValue::Date32(Some(v as i32)),
        DataType::Timestamp(TimeUnit::Second, tz) if v.is_finite() => {
            ScalarValue::TimestampSecond(Some(v as i64), tz.clone())
        }
        DataType::Float64 => ScalarValue::Float64(Some(v)),
        t if (t.is_numeric()) && v.is_finite() => ScalarValue::Float64(Some(v)).cast_to(t)?,
        other => strata_common::types::default_value(other)?,
    })
}

/// ClickHouse's `quantileTiming` state: the values themselves up to
/// [`Timing::MEDIUM_MAX`], else a histogram exact below 1024 ms and in 16 ms
/// buckets up to 30 s. Values are whole milliseconds, negative ones ignored.
struct Timing {
    sorted: Vec<u64>,
}

impl Timing {
    const SMALL: u64 = 1024;
    const BIG: u64 = 30000;
    const PRECISION: u64 = 16;
    /// The most values kept as they are: as many 32-bit values as fit in
    /// the histogram's bytes.
    const MEDIUM_MAX: usize = 5672;

    fn new(values: &ArrayRef) -> Result<Self> {
        let floats = as_floats(values)?;
        let mut sorted: Vec<u64> = floats
            .as_primitive::<Float64Type>()
            .values()
            .iter()
            .filter(|v| **v >= 0.0)
            .map(|&v| (v as u64).min(Self::BIG))
            .collect();
        sorted.sort_unstable();
        Ok(Timing { sorted })
    }

    fn quantile(&self, level: f64) -> f32 {
        let n = self.sorted.len();
        if n == 0 {
            return f32::NAN;
        }
        if n <= Self::MEDIUM_MAX {
            let index = if level < 1.0 {
                (level * n as f64) as usize
            } else {
                n - 1
            };
            return self.sorted[index.min(n - 1)] as f32;
        }
        // The histogram's answer: the bucket where the count reaches the level.
        let target = (level * n as f64).ceil().max(1.0) as usize;
        let value = self.sorted[target.min(n) - 1];
        Self::bucket_value(value) as f32
    }

    /// What the histogram returns for a value's bucket: the value below
    /// 1024; above, the bucket's start moved by a hash of its index.
    fn bucket_value(value: u64) -> u64 {
        if value < Self::SMALL || value >= Self::BIG {
            return value;
        }
        let index = (value - Self::SMALL) / Self::PRECISION;
        let jitter = u64::from(int_hash32_unsalted(index)) % Self::PRECISION;
        Self::SMALL + index * Self::PRECISION + jitter - Self::PRECISION / 2
    }
}

/// ClickHouse's `intHash32` with salt 0 (Thomas Wang's 64-to-32-bit hash).
fn int_hash32_unsalted(mut key: u64) -> u32 {
    key = (!key).wrapping_add(key << 18);
    key ^= key.rotate_right(31);
    key = key.wrapping_mul(21);
    key ^= key.rotate_right(11);
    key = key.wrapping_add(key << 6);
    key ^= key.rotate_right(22);
    key as u32
}

#[cfg(test)]
mod tests {
    use super::*;
    use datafusion::arrow::array::UInt64Array;

    #[test]
    fn exact_indexes() {
        assert_eq!(exact_index(Method::Exact, 10, 0.5), 5);
        assert_eq!(exact_index(Method::ExactLow, 10, 0.5), 4);
        assert_eq!(exact_index(Method::ExactHigh, 10, 0.5), 5);
        assert_eq!(exact_index(Method::Exact, 10, 1.0), 9);
    }

    #[test]
    fn timing_buckets() {
        assert_eq!(Timing::bucket_value(1000), 1000);
        assert_eq!(Timing::bucket_value(1024), 1016);
        assert_eq!(Timing::bucket_value(1040), 1034);
        // Values past BIG are clamped to it before they are bucketed.
        assert_eq!(Timing::bucket_value(30000), 30000);
    }

    #[test]
    fn collected_state_round_trip() {
        let call = Call {
            args: vec![DataType::UInt64],
            params: vec![ScalarValue::Float64(Some(0.5))],
            result: DataType::UInt64,
        };
        let spec = Quantile {
            method: Method::Exact,
            plural: false,
            name: "quantileExact".into(),
        };
        let mut a = spec.accumulator(&call).unwrap();
        let mut b = spec.accumulator(&call).unwrap();
        a.update_batch(&[Arc::new(UInt64Array::from(vec![1, 2, 3]))])
            .unwrap();
        b.update_batch(&[Arc::new(UInt64Array::from(vec![4, 5, 6, 7]))])
            .unwrap();
        let state: Vec<ArrayRef> = b
            .state()
            .unwrap()
            .iter()
            .map(|s| s.to_array().unwrap())
            .collect();
        a.merge_batch(&state).unwrap();
        assert_eq!(a.evaluate().unwrap(), ScalarValue::UInt64(Some(4)));
    }
}
