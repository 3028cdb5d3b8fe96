//! Statistics over a few running sums, with ClickHouse's formulas:
//! `skewPop`, `skewSamp`, `kurtPop`, `kurtSamp` (power sums up to x^4),
//! `avgWeighted` (an integer weight truncates the value, as ClickHouse's
//! integer numerator does), `simpleLinearRegression` (least squares,
//! `(k, b)`), `sumKahan` (compensated sums over four lanes per batch,
//! merged exactly), `boundingRatio` (the slope between the points with the
//! least and greatest x); and the spread of values: `varPop`, `varSamp`,
//! `stddevPop`, `stddevSamp`, `covarPop`, `covarSamp` and `corr` (with
//! their SQL names `VAR_POP`, `STD`, `STDDEV`, ...) from running sums, a
//! variance below zero by rounding being 0 and too few rows NaN; and their
//! `Stable` forms by Welford's updates, too few rows being infinity. Each
//! keeps one slice of floats per group, so GROUP BY runs them as groups
//! accumulators.

use std::sync::Arc;

use datafusion::arrow::array::{Array, ArrayRef, AsArray, BooleanArray, Float64Array};
use datafusion::arrow::compute::cast;
use datafusion::arrow::datatypes::{DataType, Field, Fields, Float64Type, TimeUnit};
use datafusion::common::{Result, ScalarValue};
use datafusion::logical_expr::{Accumulator, AggregateUDF, EmitTo, GroupsAccumulator};

use super::frame::{Aggregate, AggregateSpec, Call, expect_args, expect_params, illegal_type};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Statistic {
    SkewPop,
    SkewSamp,
    KurtPop,
    KurtSamp,
    AvgWeighted,
    SimpleLinearRegression,
    SumKahan,
    BoundingRatio,
    /// From running sums of powers and products.
    Spread(Spread),
    /// From a running mean and sums of squared deviations (Welford's).
    Stable(Spread),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Spread {
    VarPop,
    VarSamp,
    StddevPop,
    StddevSamp,
    CovarPop,
    CovarSamp,
    Corr,
}

impl Spread {
    fn pairs(self) -> bool {
        matches!(self, Spread::CovarPop | Spread::CovarSamp | Spread::Corr)
    }

    fn sample(self) -> bool {
        matches!(
            self,
            Spread::VarSamp | Spread::StddevSamp | Spread::CovarSamp
        )
    }

    /// The rows below which the result is undefined.
    fn least_rows(self) -> f64 {
        if self.sample() || self == Spread::Corr {
            2.0
        } else {
            1.0
        }
    }

    /// The result from a sum of squared deviations (or of products of
    /// deviations) over `n` rows.
    fn from_deviations(self, deviations: f64, n: f64) -> f64 {
        let spread = deviations / if self.sample() { n - 1.0 } else { n };
        match self {
            Spread::StddevPop | Spread::StddevSamp => spread.sqrt(),
            _ => spread,
        }
    }
}

impl Statistic {
    const ALL: [Statistic; 22] = [
        Statistic::SkewPop,
        Statistic::SkewSamp,
        Statistic::KurtPop,
        Statistic::KurtSamp,
        Statistic::AvgWeighted,
        Statistic::SimpleLinearRegression,
        Statistic::SumKahan,
        Statistic::BoundingRatio,
        Statistic::Spread(Spread::VarPop),
        Statistic::Spread(Spread::VarSamp),
        Statistic::Spread(Spread::StddevPop),
        Statistic::Spread(Spread::StddevSamp),
        Statistic::Spread(Spread::CovarPop),
        Statistic::Spread(Spread::CovarSamp),
        Statistic::Spread(Spread::Corr),
        Statistic::Stable(Spread::VarPop),
        Statistic::Stable(Spread::VarSamp),
        Statistic::Stable(Spread::StddevPop),
        Statistic::Stable(Spread::StddevSamp),
        Statistic::Stable(Spread::CovarPop),
        Statistic::Stable(Spread::CovarSamp),
        Statistic::Stable(Spread::Corr),
    ];

    fn name(self) -> &'static str {
        match self {
            Statistic::SkewPop => "skewPop",
            Statistic::SkewSamp => "skewSamp",
            Statistic::KurtPop => "kurtPop",
            Statistic::KurtSamp => "kurtSamp",
            Statistic::AvgWeighted => "avgWeighted",
            Statistic::SimpleLinearRegression => "simpleLinearRegression",
            Statistic::SumKahan => "sumKahan",
            Statistic::BoundingRatio => "boundingRatio",
            Statistic::Spread(spread) => match spread {
                Spread::VarPop => "varPop",
                Spread::VarSamp => "varSamp",
                Spread::StddevPop => "stddevPop",
                Spread::StddevSamp => "stddevSamp",
                Spread::CovarPop => "covarPop",
                Spread::CovarSamp => "covarSamp",
                Spread::Corr => "corr",
            },
            Statistic::Stable(spread) => match spread {
                Spread::VarPop => "varPopStable",
                Spread::VarSamp => "varSampStable",
                Spread::StddevPop => "stddevPopStable",
                Spread::StddevSamp => "stddevSampStable",
                Spread::CovarPop => "covarPopStable",
                Spread::CovarSamp => "covarSampStable",
                Spread::Corr => "corrStable",
            },
        }
    }

    /// The SQL names; the lower-case ones take DataFusion's functions'
    /// place, so every spelling is ClickHouse's.
    fn aliases(self) -> &'static [&'static str] {
        match self {
            Statistic::Spread(Spread::VarPop) => &["VAR_POP", "var_pop"],
            Statistic::Spread(Spread::VarSamp) => &["VAR_SAMP", "var_samp"],
            Statistic::Spread(Spread::StddevPop) => &["STD", "STDDEV_POP", "stddev_pop"],
            Statistic::Spread(Spread::StddevSamp) => {
                &["STDDEV", "STDDEV_SAMP", "stddev", "stddev_samp"]
            }
            Statistic::Spread(Spread::CovarPop) => &["COVAR_POP", "covar_pop"],
            Statistic::Spread(Spread::CovarSamp) => &["COVAR_SAMP", "covar_samp"],
            _ => &[],
        }
    }

    fn arguments(self) -> usize {
        match self {
            Statistic::AvgWeighted
            | Statistic::SimpleLinearRegression
            | Statistic::BoundingRatio => 2,
            Statistic::Spread(spread) | Statistic::Stable(spread) if spread.pairs() => 2,
            _ => 1,
        }
    }

    fn slots(self) -> usize {
        match self {
            Statistic::SkewPop | Statistic::SkewSamp | Statistic::KurtPop | Statistic::KurtSamp => {
                5
            }
            Statistic::AvgWeighted | Statistic::SumKahan => 2,
            Statistic::SimpleLinearRegression => 5,
            // count, least x and its y, greatest x and its y
            Statistic::BoundingRatio => 5,
            // count, sum of x, of x^2 / of y, of xy / and of x^2, of y^2
            Statistic::Spread(Spread::Corr) => 6,
            Statistic::Spread(spread) if spread.pairs() => 4,
            Statistic::Spread(_) => 3,
            // count, mean of x, its squared deviations / mean of y,
            // co-deviations / and squared deviations of x, of y
            Statistic::Stable(Spread::Corr) => 6,
            Statistic::Stable(spread) if spread.pairs() => 4,
            Statistic::Stable(_) => 3,
        }
    }

    /// Whether the statistic of Float32 arguments alone is a Float32, as in
    /// ClickHouse (the `Stable` forms are Float64 always).
    fn narrows(self, args: &[DataType]) -> bool {
        let narrowing = matches!(
            self,
            Statistic::Spread(_)
                | Statistic::SkewPop
                | Statistic::SkewSamp
                | Statistic::KurtPop
                | Statistic::KurtSamp
        );
        narrowing && args.iter().all(|t| *t == DataType::Float32)
    }

    fn result_type(self) -> DataType {
        match self {
            Statistic::SimpleLinearRegression => DataType::Struct(Fields::from(vec![
                Field::new("k", DataType::Float64, false),
                Field::new("b", DataType::Float64, false),
            ])),
            _ => DataType::Float64,
        }
    }

    fn update(self, s: &mut [f64], x: f64, y: f64) {
        match self {
            Statistic::SkewPop | Statistic::SkewSamp | Statistic::KurtPop | Statistic::KurtSamp => {
                s[0] += 1.0;
                s[1] += x;
                s[2] += x * x;
                s[3] += x * x * x;
                s[4] += x * x * x * x;
            }
            Statistic::AvgWeighted => {
                s[0] += x * y;
                s[1] += y;
            }
            Statistic::SimpleLinearRegression => {
                s[0] += 1.0;
                s[1] += x;
                s[2] += y;
                s[3] += x * y;
                s[4] += x * x;
            }
            Statistic::SumKahan => kahan_add(s, x),
            Statistic::Spread(spread) => {
                s[0] += 1.0;
                s[1] += x;
                if spread.pairs() {
                    s[2] += y;
                    s[3] += x * y;
                } else {
                    s[2] += x * x;
                }
                if spread == Spread::Corr {
                    s[4] += x * x;
                    s[5] += y * y;
                }
            }
            Statistic::Stable(spread) => welford_add(spread, s, x, y),
            Statistic::BoundingRatio => {
                if s[0] == 0.0 || x < s[1] {
                    s[1] = x;
                    s[2] = y;
                }
                if s[0] == 0.0 || x > s[3] {
                    s[3] = x;
                    s[4] = y;
                }
                s[0] += 1.0;
            }
        }
    }

    fn merge(self, s: &mut [f64], other: &[f64]) {
        match self {
            Statistic::SumKahan => kahan_merge(s, other),
            Statistic::Stable(spread) => welford_merge(spread, s, other),
            Statistic::BoundingRatio => {
                if other[0] == 0.0 {
                    return;
                }
                if s[0] == 0.0 {
                    s.copy_from_slice(other);
                    return;
                }
                if other[1] < s[1] {
                    s[1] = other[1];
                    s[2] = other[2];
                }
                if other[3] > s[3] {
                    s[3] = other[3];
                    s[4] = other[4];
                }
                s[0] += other[0];
            }
            _ => s.iter_mut().zip(other).for_each(|(a, b)| *a += b),
        }
    }

    fn finish(self, s: &[f64]) -> ScalarValue {
        let value = match self {
            Statistic::SkewPop => moment3(s) / population(s).powf(1.5),
            Statistic::SkewSamp => moment3(s) / sample(s).powf(1.5),
            Statistic::KurtPop => moment4(s) / population(s).powi(2),
            Statistic::KurtSamp => moment4(s) / sample(s).powi(2),
            Statistic::AvgWeighted => s[0] / s[1],
            Statistic::SumKahan => s[0],
            Statistic::BoundingRatio => (s[4] - s[2]) / (s[3] - s[1]),
            Statistic::SimpleLinearRegression => return regression(s),
            Statistic::Spread(spread) => spread_from_sums(spread, s),
            Statistic::Stable(spread) if s[0] < spread.least_rows() => f64::INFINITY,
            Statistic::Stable(Spread::Corr) => s[3] / (s[4] * s[5]).sqrt(),
            Statistic::Stable(spread) => {
                let deviations = if spread.pairs() { s[3] } else { s[2] };
                spread.from_deviations(deviations, s[0])
            }
        };
        ScalarValue::Float64(Some(value))
    }
}

/// A spread from running sums: `s` holds the count, the sum of x and of
/// x^2, or of y and of xy (and for `corr`, of x^2 and of y^2).
fn spread_from_sums(spread: Spread, s: &[f64]) -> f64 {
    let n = s[0];
    match spread {
        Spread::Corr => {
            let (x, y, xy, x2, y2) = (s[1], s[2], s[3], s[4], s[5]);
            (n * xy - x * y) / ((n * x2 - x * x) * (n * y2 - y * y)).sqrt()
        }
        _ if n < spread.least_rows() => f64::NAN,
        Spread::CovarPop | Spread::CovarSamp => spread.from_deviations(s[3] - s[1] * s[2] / n, n),
        // Rounding can leave the squares a little below zero.
        _ => spread.from_deviations((s[2] - s[1] * s[1] / n).max(0.0), n),
    }
}

/// Welford's update of a count, means and sums of (co-)deviations.
fn welford_add(spread: Spread, s: &mut [f64], x: f64, y: f64) {
    let dx = x - s[1];
    s[0] += 1.0;
    s[1] += dx / s[0];
    if !spread.pairs() {
        s[2] += dx * (x - s[1]);
        return;
    }
    let dy = y - s[2];
    s[2] += dy / s[0];
    s[3] += (x - s[1]) * dy;
    if spread == Spread::Corr {
        s[4] += dx * (x - s[1]);
        s[5] += dy * (y - s[2]);
    }
}

/// Two Welford states as one (Chan's formulas).
fn welford_merge(spread: Spread, s: &mut [f64], other: &[f64]) {
    if other[0] == 0.0 {
        return;
    }
    if s[0] == 0.0 {
        s.copy_from_slice(other);
        return;
    }
    let (a, b) = (s[0], other[0]);
    let n = a + b;
    let weight = a * b / n;
    let dx = other[1] - s[1];
    s[0] = n;
    s[1] += dx * b / n;
    if !spread.pairs() {
        s[2] += other[2] + dx * dx * weight;
        return;
    }
    let dy = other[2] - s[2];
    s[2] += dy * b / n;
    s[3] += other[3] + dx * dy * weight;
    if spread == Spread::Corr {
        s[4] += other[4] + dx * dx * weight;
        s[5] += other[5] + dy * dy * weight;
    }
}

fn population(m: &[f64]) -> f64 {
    (m[2] - m[1] * m[1] / m[0]) / m[0]
}

fn sample(m: &[f64]) -> f64 {
    (m[2] - m[1] * m[1] / m[0]) / (m[0] - 1.0)
}

fn moment3(m: &[f64]) -> f64 {
    (m[3] - (3.0 * m[2] - 2.0 * m[1] * m[1] / m[0]) * m[1] / m[0]) / m[0]
}

fn moment4(m: &[f64]) -> f64 {
    (m[4] - (4.0 * m[3] - (6.0 * m[2] - 3.0 * m[1] * m[1] / m[0]) * m[1] / m[0]) * m[1] / m[0])
        / m[0]
}

fn regression(s: &[f64]) -> ScalarValue {
    let (n, x, y, xy, x2) = (s[0], s[1], s[2], s[3], s[4]);
    let k = (n * xy - x * y) / (n * x2 - x * x);
    let b = (y - k * x) / n;
    let fields = match Statistic::SimpleLinearRegression.result_type() {
        DataType::Struct(fields) => fields,
        _ => unreachable!("a tuple"),
    };
    let columns: Vec<ArrayRef> = vec![
        Arc::new(Float64Array::from(vec![k])),
        Arc::new(Float64Array::from(vec![b])),
    ];
    let array = datafusion::arrow::array::StructArray::new(fields, columns, None);
    ScalarValue::Struct(Arc::new(array))
}

/// Kahan's compensated addition: `s[0]` the sum, `s[1]` the compensation.
fn kahan_add(s: &mut [f64], x: f64) {
    let compensated = x - s[1];
    let sum = s[0] + compensated;
    s[1] = (sum - s[0]) - compensated;
    s[0] = sum;
}

/// Two compensated sums as one, with the rounding error of adding them kept.
fn kahan_merge(s: &mut [f64], other: &[f64]) {
    let raw = s[0] + other[0];
    let rhs = raw - s[0];
    let compensation = ((other[0] - rhs) + (s[0] - (raw - rhs))) + s[1] + other[1];
    let sum = raw + compensation;
    s[1] = compensation - (sum - raw);
    s[0] = sum;
}

/// A batch's values summed over four interleaved lanes, then merged into `s`,
/// as ClickHouse adds many values at once; the remainder goes in after.
fn kahan_batch(s: &mut [f64], values: &[f64]) {
    const LANES: usize = 4;
    let whole = values.len() - values.len() % LANES;
    let mut lanes = [[0.0f64; 2]; LANES];
    for chunk in values[..whole].chunks_exact(LANES) {
        for (lane, &x) in lanes.iter_mut().zip(chunk) {
            kahan_add(lane, x);
        }
    }
    let mut total = lanes[0];
    for lane in &lanes[1..] {
        kahan_merge(&mut total, lane);
    }
    for &x in &values[whole..] {
        kahan_add(&mut total, x);
    }
    kahan_merge(s, &total);
}

#[derive(Debug, PartialEq, Eq, Hash)]
pub struct Moments {
    statistic: Statistic,
}

pub fn functions() -> Vec<AggregateUDF> {
    Statistic::ALL
        .into_iter()
        .map(|statistic| Aggregate::udaf(Moments { statistic }, statistic.aliases()))
        .collect()
}

impl AggregateSpec for Moments {
    fn name(&self) -> &str {
        self.statistic.name()
    }

    fn return_type(&self, args: &[DataType], params: &[DataType]) -> Result<DataType> {
        let name = self.name();
        expect_args(name, args, &[self.statistic.arguments()])?;
        expect_params(name, params.len(), 0..=0)?;
        // Decimals are summed, and measured alone, but not paired.
        let takes_decimals = match self.statistic {
            Statistic::SumKahan => true,
            Statistic::Spread(spread) | Statistic::Stable(spread) => !spread.pairs(),
            _ => false,
        };
        for t in args {
            let number = t.is_integer() || t.is_floating() || *t == DataType::Boolean;
            let decimal = matches!(t, DataType::Decimal128(..));
            // boundingRatio's points may be dates or DateTimes (days or seconds).
            let moment = matches!(
                t,
                DataType::Date32 | DataType::Timestamp(TimeUnit::Second, _)
            );
            let takes_moments = self.statistic == Statistic::BoundingRatio;
            if !number && !(decimal && takes_decimals) && !(moment && takes_moments) {
                return Err(illegal_type(name, t));
            }
        }
        Ok(match self.statistic.narrows(args) {
            true => DataType::Float32,
            false => self.statistic.result_type(),
        })
    }

    fn state_types(&self, _call: &Call) -> Vec<DataType> {
        vec![DataType::Float64; self.statistic.slots()]
    }

    fn accumulator(&self, call: &Call) -> Result<Box<dyn Accumulator>> {
        Ok(Box::new(MomentsAccumulator(self.groups(call))))
    }

    fn groups_accumulator(&self, call: &Call) -> Option<Box<dyn GroupsAccumulator>> {
        Some(Box::new(self.groups(call)))
    }
}

impl Moments {
    fn groups(&self, call: &Call) -> MomentsGroups {
        let truncate = self.statistic == Statistic::AvgWeighted && call.args[1].is_integer();
        MomentsGroups {
            statistic: self.statistic,
            slots: self.statistic.slots(),
            truncate,
            narrow: self.statistic.narrows(&call.args),
            states: Vec::new(),
        }
    }
}

/// One slice of `slots` floats per group.
#[derive(Debug)]
struct MomentsGroups {
    statistic: Statistic,
    slots: usize,
    /// Whether the value is truncated to an integer (avgWeighted with an integer weight).
    truncate: bool,
    /// Whether the result is a Float32 ([`Statistic::narrows`]).
    narrow: bool,
    states: Vec<f64>,
}

fn floats(array: &ArrayRef) -> Result<Float64Array> {
    let numbers = match array.data_type() {
        DataType::Date32 | DataType::Timestamp(..) => cast(array, &DataType::Int64)?,
        _ => Arc::clone(array),
    };
    Ok(cast(&numbers, &DataType::Float64)?
        .as_primitive::<Float64Type>()
        .clone())
}

impl MomentsGroups {
    fn columns(&self, values: &[ArrayRef]) -> Result<(Float64Array, Option<Float64Array>)> {
        let mut x = floats(&values[0])?;
        if self.truncate {
            x = x.unary(f64::trunc);
        }
        let y = match self.statistic.arguments() {
            2 => Some(floats(&values[1])?),
            _ => None,
        };
        Ok((x, y))
    }

    fn emit(&mut self, emit_to: EmitTo) -> Vec<f64> {
        let groups = self.states.len() / self.slots;
        let n = match emit_to {
            EmitTo::All => groups,
            EmitTo::First(n) => n,
        };
        let rest = self.states.split_off(n * self.slots);
        std::mem::replace(&mut self.states, rest)
    }

    /// A batch into one group, the whole-batch path `sumKahan` needs.
    fn update_one(&mut self, values: &[ArrayRef]) -> Result<()> {
        self.states.resize(self.slots.max(self.states.len()), 0.0);
        let (x, y) = self.columns(values)?;
        let state = &mut self.states[..self.slots];
        if self.statistic == Statistic::SumKahan && x.null_count() == 0 {
            kahan_batch(state, x.values());
            return Ok(());
        }
        for row in 0..x.len() {
            if x.is_valid(row) && y.as_ref().is_none_or(|y| y.is_valid(row)) {
                let yv = y.as_ref().map_or(0.0, |y| y.value(row));
                self.statistic.update(state, x.value(row), yv);
            }
        }
        Ok(())
    }
}

impl GroupsAccumulator for MomentsGroups {
    fn update_batch(
        &mut self,
        values: &[ArrayRef],
        group_indices: &[usize],
        opt_filter: Option<&BooleanArray>,
        total_num_groups: usize,
    ) -> Result<()> {
        self.states.resize(total_num_groups * self.slots, 0.0);
        let (x, y) = self.columns(values)?;
        for (row, &g) in group_indices.iter().enumerate() {
            let kept = super::filter_keeps(opt_filter, row);
            if !kept || x.is_null(row) || y.as_ref().is_some_and(|y| y.is_null(row)) {
                continue;
            }
            let yv = y.as_ref().map_or(0.0, |y| y.value(row));
            let state = &mut self.states[g * self.slots..(g + 1) * self.slots];
            self.statistic.update(state, x.value(row), yv);
        }
        Ok(())
    }

    fn evaluate(&mut self, emit_to: EmitTo) -> Result<ArrayRef> {
        let states = self.emit(emit_to);
        let results = states
            .chunks_exact(self.slots)
            .map(|s| self.statistic.finish(s));
        let array = match ScalarValue::iter_to_array(results) {
            Ok(array) => array,
            // No groups: an empty array of the result type.
            Err(_) => datafusion::arrow::array::new_empty_array(&self.statistic.result_type()),
        };
        match self.narrow {
            true => Ok(cast(&array, &DataType::Float32)?),
            false => Ok(array),
        }
    }

    fn state(&mut self, emit_to: EmitTo) -> Result<Vec<ArrayRef>> {
        let states = self.emit(emit_to);
        Ok((0..self.slots)
            .map(|slot| {
                let column: Float64Array = states
                    .iter()
                    .skip(slot)
                    .step_by(self.slots)
                    .copied()
                    .collect();
                Arc::new(column) as ArrayRef
            })
            .collect())
    }

    fn merge_batch(
        &mut self,
        values: &[ArrayRef],
        group_indices: &[usize],
        total_num_groups: usize,
    ) -> Result<()> {
        self.states.resize(total_num_groups * self.slots, 0.0);
        let columns: Vec<&Float64Array> = values
            .iter()
            .map(|v| v.as_primitive::<Float64Type>())
            .collect();
        let mut other = vec![0.0; self.slots];
        for (row, &g) in group_indices.iter().enumerate() {
            for (slot, column) in other.iter_mut().zip(&columns) {
                *slot = column.value(row);
            }
            let state = &mut self.states[g * self.slots..(g + 1) * self.slots];
            self.statistic.merge(state, &other);
        }
        Ok(())
    }

    fn convert_to_state(
        &self,
        values: &[ArrayRef],
        opt_filter: Option<&BooleanArray>,
    ) -> Result<Vec<ArrayRef>> {
        let rows = values.first().map_or(0, |v| v.len());
        let mut single = MomentsGroups {
            states: Vec::new(),
            ..*self
        };
        let groups: Vec<usize> = (0..rows).collect();
        single.update_batch(values, &groups, opt_filter, rows)?;
        single.state(EmitTo::All)
    }

    fn size(&self) -> usize {
        self.states.capacity() * std::mem::size_of::<f64>()
    }
}

/// The single-group form, for aggregates without GROUP BY.
#[derive(Debug)]
struct MomentsAccumulator(MomentsGroups);

impl Accumulator for MomentsAccumulator {
    fn update_batch(&mut self, values: &[ArrayRef]) -> Result<()> {
        self.0.update_one(values)
    }

    fn evaluate(&mut self) -> Result<ScalarValue> {
        let groups = &mut self.0;
        groups
            .states
            .resize(groups.slots.max(groups.states.len()), 0.0);
        let value = groups.statistic.finish(&groups.states[..groups.slots]);
        match groups.narrow {
            true => value.cast_to(&DataType::Float32),
            false => Ok(value),
        }
    }

    fn size(&self) -> usize {
        std::mem::size_of_val(self) + self.0.size()
    }

    fn state(&mut self) -> Result<Vec<ScalarValue>> {
        let groups = &mut self.0;
        groups
            .states
            .resize(groups.slots.max(groups.states.len()), 0.0);
        Ok(groups.states[..groups.slots]
            .iter()
            .map(|&v| ScalarValue::Float64(Some(v)))
            .collect())
    }

    fn merge_batch(&mut self, states: &[ArrayRef]) -> Result<()> {
        let rows = states.first().map_or(0, |s| s.len());
        self.0.merge_batch(states, &vec![0; rows], 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kahan_sums_tenths_exactly() {
        let mut s = [0.0, 0.0];
        kahan_batch(&mut s, &[0.1; 10]);
        assert_eq!(s[0], 1.0);
    }

    #[test]
    fn stable_states_merge_as_one_pass() {
        let statistic = Statistic::Stable(Spread::Corr);
        let points: Vec<(f64, f64)> = (0..20).map(|i| (i as f64 * 0.7, (i * i) as f64)).collect();
        let state = |points: &[(f64, f64)]| {
            let mut s = vec![0.0; statistic.slots()];
            points
                .iter()
                .for_each(|&(x, y)| statistic.update(&mut s, x, y));
            s
        };
        let whole = state(&points);
        let mut merged = state(&[]);
        for part in points.chunks(7) {
            statistic.merge(&mut merged, &state(part));
        }
        for (a, b) in whole.iter().zip(&merged) {
            assert!(
                (a - b).abs() <= 1e-9 * a.abs().max(1.0),
                "{whole:?} vs {merged:?}"
            );
        }
    }

    #[test]
    fn groups_state_round_trip() {
        let spec = Moments {
            statistic: Statistic::SimpleLinearRegression,
        };
        let call = Call {
            args: vec![DataType::Float64; 2],
            params: vec![],
            result: DataType::Null,
        };
        let mut a = spec.groups(&call);
        let x: ArrayRef = Arc::new(Float64Array::from(vec![0.0, 1.0, 2.0, 3.0]));
        let y: ArrayRef = Arc::new(Float64Array::from(vec![1.0, 3.0, 5.0, 7.0]));
        a.update_batch(&[x, y], &[0, 1, 0, 1], None, 2).unwrap();
        let state = a.state(EmitTo::All).unwrap();
        let mut b = spec.groups(&call);
        b.merge_batch(&state, &[0, 0], 1).unwrap();
        let ScalarValue::Struct(s) =
            ScalarValue::try_from_array(&b.evaluate(EmitTo::All).unwrap(), 0).unwrap()
        else {
            panic!("a tuple")
        };
        assert_eq!(s.column(0).as_primitive::<Float64Type>().value(0), 2.0);
        assert_eq!(s.column(1).as_primitive::<Float64Type>().value(0), 1.0);
    }
}
