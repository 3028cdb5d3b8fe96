//! The approximate quantiles whose state is a sketch of bounded size:
//! `quantileTDigest` (ClickHouse's t-digest: Float32 centroids merged while
//! a pair's weight stays under `4 q (1 - q) epsilon n`) and
//! `quantileBFloat16` (a histogram of the values cut to their upper 16
//! bits), each also weighted. Both follow ClickHouse's arithmetic step by
//! step, Float32 where it uses Float32, so a digest fed the same values in
//! the same order answers the same.

use std::collections::HashMap;

use datafusion::arrow::array::{Array, ArrayRef, AsArray, Float32Array, UInt16Array, UInt64Array};
use datafusion::arrow::compute::cast;
use datafusion::arrow::datatypes::{DataType, Float32Type, UInt16Type, UInt64Type};
use datafusion::common::{Result, ScalarValue};
use datafusion::logical_expr::Accumulator;
use std::sync::Arc;

use super::frame::{list_rows, list_scalar, state_list_of, state_list_scalar};
use super::quantiles::from_f64;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Sketch {
    TDigest,
    BFloat16,
}

/// What a sketch's result looks like: the levels asked for, one value or an
/// array, and the value type (Float32/Float64, or the argument's date type).
#[derive(Debug)]
pub struct Output {
    pub levels: Vec<f64>,
    pub plural: bool,
    pub value_type: DataType,
}

impl Sketch {
    pub fn state_types(self) -> Vec<DataType> {
        match self {
            Sketch::TDigest => vec![
                state_list_of(DataType::Float32),
                state_list_of(DataType::Float32),
            ],
            Sketch::BFloat16 => vec![
                state_list_of(DataType::UInt16),
                state_list_of(DataType::UInt64),
            ],
        }
    }

    /// An accumulator of values, each with its weight when `weighted`.
    pub fn accumulator(self, output: Output, weighted: bool) -> Box<dyn Accumulator> {
        match self {
            Sketch::TDigest => Box::new(Sketched {
                sketch: TDigest::default(),
                output,
                weighted,
            }),
            Sketch::BFloat16 => Box::new(Sketched {
                sketch: BFloat16Histogram::default(),
                output,
                weighted,
            }),
        }
    }
}

/// The operations both sketches offer their accumulator.
trait QuantileSketch: Send + Sync + std::fmt::Debug + 'static {
    fn add(&mut self, value: f32, weight: u64);
    /// The quantiles at `levels`, None when the sketch is empty.
    fn quantiles(&mut self, levels: &[f64]) -> Option<Vec<f64>>;
    fn state(&mut self) -> (ArrayRef, ArrayRef);
    fn merge(&mut self, keys: &ArrayRef, weights: &ArrayRef);
    fn bytes(&self) -> usize;
}

#[derive(Debug)]
struct Sketched<S: QuantileSketch> {
    sketch: S,
    output: Output,
    /// Whether a weight column follows the values (then the parameters).
    weighted: bool,
}

impl<S: QuantileSketch> Sketched<S> {
    /// An empty sketch's answer: NaN as a float, zero as a date.
    fn empty(&self) -> Result<ScalarValue> {
        match &self.output.value_type {
            DataType::Float32 => Ok(ScalarValue::Float32(Some(f32::NAN))),
            DataType::Float64 => Ok(ScalarValue::Float64(Some(f64::NAN))),
            other => from_f64(0.0, other),
        }
    }
}

impl<S: QuantileSketch> Accumulator for Sketched<S> {
    fn update_batch(&mut self, values: &[ArrayRef]) -> Result<()> {
        let floats = as_f32(&values[0])?;
        let floats = floats.as_primitive::<Float32Type>();
        match values.get(1).filter(|_| self.weighted) {
            Some(weights) => {
                let weights = cast(weights, &DataType::UInt64)?;
                let weights = weights.as_primitive::<UInt64Type>();
                for (v, w) in floats.iter().zip(weights.iter()) {
                    if let (Some(v), Some(w)) = (v, w) {
                        self.sketch.add(v, w);
                    }
                }
            }
            None => floats.iter().flatten().for_each(|v| self.sketch.add(v, 1)),
        }
        Ok(())
    }

    fn evaluate(&mut self) -> Result<ScalarValue> {
        let values = match self.sketch.quantiles(&self.output.levels) {
            Some(found) => found
                .into_iter()
                .map(|v| match self.output.value_type {
                    DataType::Float32 => Ok(ScalarValue::Float32(Some(v as f32))),
                    ref t => from_f64(v, t),
                })
                .collect::<Result<Vec<_>>>()?,
            None => vec![self.empty()?; self.output.levels.len()],
        };
        if self.output.plural {
            let array = match values.is_empty() {
                true => datafusion::arrow::array::new_empty_array(&self.output.value_type),
                false => ScalarValue::iter_to_array(values)?,
            };
            Ok(list_scalar(array))
        } else {
            Ok(values.into_iter().next().expect("one level"))
        }
    }

    fn size(&self) -> usize {
        std::mem::size_of_val(self) + self.sketch.bytes()
    }

    fn state(&mut self) -> Result<Vec<ScalarValue>> {
        let (keys, weights) = self.sketch.state();
        Ok(vec![state_list_scalar(keys), state_list_scalar(weights)])
    }

    fn merge_batch(&mut self, states: &[ArrayRef]) -> Result<()> {
        for (keys, weights) in list_rows(&states[0]).iter().zip(list_rows(&states[1])) {
            self.sketch.merge(keys, &weights);
        }
        Ok(())
    }
}

/// Numbers as Float32 in one rounding, dates as days and times as seconds.
fn as_f32(values: &ArrayRef) -> Result<ArrayRef> {
    let numbers = match values.data_type() {
        DataType::Date32 => cast(values, &DataType::Int32)?,
        DataType::Timestamp(..) => cast(values, &DataType::Int64)?,
        _ => Arc::clone(values),
    };
    Ok(cast(&numbers, &DataType::Float32)?)
}

#[derive(Debug, Clone, Copy)]
struct Centroid {
    mean: f32,
    count: f32,
}

/// ClickHouse's t-digest. `count` is kept in f64, the centroids in f32.
#[derive(Debug, Default)]
struct TDigest {
    centroids: Vec<Centroid>,
    count: f64,
    /// Centroids added since the last compression.
    unmerged: usize,
}

impl TDigest {
    /// The error bound at the median, as ClickHouse's Float32 parameter.
    const EPSILON: f32 = 0.01;
    const MAX_CENTROIDS: usize = 2048;
    const MAX_UNMERGED: usize = 2048;

    fn add_centroid(&mut self, c: Centroid) {
        self.centroids.push(c);
        self.count += f64::from(c.count);
        self.unmerged += 1;
        if self.unmerged > Self::MAX_UNMERGED {
            self.compress();
        }
    }

    /// Sorts the centroids and merges each neighbour pair whose weight
    /// stays within the bound at its quantile.
    fn compress(&mut self) {
        if self.unmerged > 0 || self.centroids.len() > Self::MAX_CENTROIDS {
            // Stable, as ClickHouse's radix sort, so equal means keep their order.
            self.centroids.sort_by(|a, b| a.mean.total_cmp(&b.mean));
            let bound = self.count * f64::from(Self::EPSILON) * 4.0;
            let mut l = 0;
            let mut sum = 0.0f64;
            let mut l_mean = f64::from(self.centroids[0].mean);
            let mut l_count = f64::from(self.centroids[0].count);
            for r in 1..self.centroids.len() {
                let right = self.centroids[r];
                let ql = (sum + l_count * 0.5) / self.count;
                let qr = (sum + l_count + f64::from(right.count) * 0.5) / self.count;
                let k = bound * (ql * (1.0 - ql)).min(qr * (1.0 - qr));
                if l_count + f64::from(right.count) <= k && can_merge(l_mean, right.mean) {
                    l_count += f64::from(right.count);
                    if f64::from(right.mean) != l_mean {
                        l_mean +=
                            f64::from(right.count) * (f64::from(right.mean) - l_mean) / l_count;
                    }
                    self.centroids[l] = Centroid {
                        mean: l_mean as f32,
                        count: l_count as f32,
                    };
                } else {
                    sum += f64::from(self.centroids[l].count);
                    l += 1;
                    self.centroids[l] = right;
                    l_mean = f64::from(right.mean);
                    l_count = f64::from(right.count);
                }
            }
            self.count = sum + l_count;
            self.centroids.truncate(l + 1);
            self.unmerged = 0;
        }
        self.compress_brute();
    }

    /// Merges runs of equal length when the bound left too many centroids.
    fn compress_brute(&mut self) {
        let n = self.centroids.len();
        if n <= Self::MAX_CENTROIDS {
            return;
        }
        let batch = n.div_ceil(Self::MAX_CENTROIDS);
        let mut l = 0;
        let mut sum = 0.0f64;
        let mut l_mean = f64::from(self.centroids[0].mean);
        let mut l_count = f64::from(self.centroids[0].count);
        let mut position = 0;
        for r in 1..n {
            let right = self.centroids[r];
            if position < batch - 1 {
                l_count += f64::from(right.count);
                if f64::from(right.mean) != l_mean {
                    l_mean += f64::from(right.count) * (f64::from(right.mean) - l_mean) / l_count;
                }
                self.centroids[l] = Centroid {
                    mean: l_mean as f32,
                    count: l_count as f32,
                };
                position += 1;
            } else {
                if !self.centroids[l].mean.is_nan() {
                    sum += f64::from(self.centroids[l].count);
                    l += 1;
                }
                self.centroids[l] = right;
                l_mean = f64::from(right.mean);
                l_count = f64::from(right.count);
                position = 0;
            }
        }
        if self.centroids[l].mean.is_nan() {
            self.count = sum;
            self.centroids.truncate(l);
        } else {
            self.count = sum + l_count;
            self.centroids.truncate(l + 1);
        }
        debug_assert!(self.centroids.len() <= Self::MAX_CENTROIDS);
    }

    /// The value at `level`: between two centroids' middles by linear
    /// interpolation, a single point standing for itself alone.
    fn quantile(&self, level: f64) -> f32 {
        if self.centroids.len() == 1 {
            return self.centroids[0].mean;
        }
        let x = level * self.count;
        let mut prev_x = 0.0f64;
        let mut sum = 0.0f32;
        let mut prev = self.centroids[0];
        for &c in &self.centroids {
            let current_x = f64::from(sum) + f64::from(c.count) * 0.5;
            if current_x >= x {
                let left = prev_x + if prev.count == 1.0 { 0.5 } else { 0.0 };
                let right = current_x - if c.count == 1.0 { 0.5 } else { 0.0 };
                return if x <= left {
                    prev.mean
                } else if x >= right {
                    c.mean
                } else {
                    interpolate(x as f32, left as f32, prev.mean, right as f32, c.mean)
                };
            }
            sum += c.count;
            prev = c;
            prev_x = current_x;
        }
        self.centroids[self.centroids.len() - 1].mean
    }
}

/// Infinities merge only with their own kind.
fn can_merge(l_mean: f64, r_mean: f32) -> bool {
    l_mean == f64::from(r_mean) || (!l_mean.is_infinite() && !r_mean.is_infinite())
}

/// The point at `x` on the line through (x1, y1) and (x2, y2), weighted from
/// both ends so infinities stay finite where they can.
fn interpolate(x: f32, x1: f32, y1: f32, x2: f32, y2: f32) -> f32 {
    let k = f64::from((x - x1) / (x2 - x1));
    ((1.0 - k) * f64::from(y1) + k * f64::from(y2)) as f32
}

impl QuantileSketch for TDigest {
    fn add(&mut self, value: f32, weight: u64) {
        if weight == 0 || value.is_nan() {
            return;
        }
        self.add_centroid(Centroid {
            mean: value,
            count: weight as f32,
        });
    }

    fn quantiles(&mut self, levels: &[f64]) -> Option<Vec<f64>> {
        if self.centroids.is_empty() {
            return None;
        }
        self.compress();
        Some(
            levels
                .iter()
                .map(|&l| f64::from(self.quantile(l)))
                .collect(),
        )
    }

    fn state(&mut self) -> (ArrayRef, ArrayRef) {
        if !self.centroids.is_empty() {
            self.compress();
        }
        let means: Float32Array = self.centroids.iter().map(|c| c.mean).collect();
        let counts: Float32Array = self.centroids.iter().map(|c| c.count).collect();
        (Arc::new(means), Arc::new(counts))
    }

    fn merge(&mut self, means: &ArrayRef, counts: &ArrayRef) {
        let means = means.as_primitive::<Float32Type>();
        let counts = counts.as_primitive::<Float32Type>();
        for (mean, count) in means.values().iter().zip(counts.values()) {
            debug_assert!(*count > 0.0, "a stored centroid has weight");
            self.add_centroid(Centroid {
                mean: *mean,
                count: *count,
            });
        }
    }

    fn bytes(&self) -> usize {
        self.centroids.capacity() * std::mem::size_of::<Centroid>()
    }
}

/// Weights by the upper 16 bits of each value as Float32 (a bfloat16).
#[derive(Debug, Default)]
struct BFloat16Histogram {
    weights: HashMap<u16, u64>,
}

fn from_bfloat16(bits: u16) -> f32 {
    f32::from_bits(u32::from(bits) << 16)
}

impl QuantileSketch for BFloat16Histogram {
    fn add(&mut self, value: f32, weight: u64) {
        if !value.is_nan() {
            *self
                .weights
                .entry((value.to_bits() >> 16) as u16)
                .or_default() += weight;
        }
    }

    /// The first value whose accumulated weight reaches `ceil(level * total)`.
    fn quantiles(&mut self, levels: &[f64]) -> Option<Vec<f64>> {
        if self.weights.is_empty() {
            return None;
        }
        let mut points: Vec<(f32, u64)> = self
            .weights
            .iter()
            .map(|(&bits, &w)| (from_bfloat16(bits), w))
            .collect();
        points.sort_by(|a, b| a.0.total_cmp(&b.0));
        let total: f64 = points.iter().map(|p| p.1 as f64).sum();
        let last = points[points.len() - 1].0;
        Some(
            levels
                .iter()
                .map(|&level| {
                    let threshold = (total * level).ceil();
                    let mut accumulated = 0.0;
                    let found = points.iter().find(|p| {
                        accumulated += p.1 as f64;
                        accumulated >= threshold
                    });
                    f64::from(found.map_or(last, |p| p.0))
                })
                .collect(),
        )
    }

    fn state(&mut self) -> (ArrayRef, ArrayRef) {
        let keys: UInt16Array = self.weights.keys().copied().collect();
        let weights: UInt64Array = self.weights.values().copied().collect();
        (Arc::new(keys), Arc::new(weights))
    }

    fn merge(&mut self, keys: &ArrayRef, weights: &ArrayRef) {
        let keys = keys.as_primitive::<UInt16Type>();
        let weights = weights.as_primitive::<UInt64Type>();
        for (k, w) in keys.values().iter().zip(weights.values()) {
            *self.weights.entry(*k).or_default() += *w;
        }
    }

    fn bytes(&self) -> usize {
        self.weights.capacity() * (std::mem::size_of::<u16>() + std::mem::size_of::<u64>())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn digest_of(values: impl IntoIterator<Item = (f32, u64)>) -> TDigest {
        let mut d = TDigest::default();
        for (v, w) in values {
            d.add(v, w);
        }
        d
    }

    #[test]
    fn singletons_answer_their_own_values() {
        // ClickHouse: quantileTDigest(0.5)(number) FROM numbers(10) = 4.
        let mut d = digest_of((0..10).map(|v| (v as f32, 1)));
        assert_eq!(d.quantiles(&[0.5, 0.1, 0.99]), Some(vec![4.0, 0.0, 9.0]));
    }

    #[test]
    fn weights_interpolate_between_middles() {
        // ClickHouse: quantileTDigestWeighted(0.5)(number, number) FROM numbers(10).
        let mut d = digest_of((0..10).map(|v| (v as f32, v)));
        assert_eq!(d.quantiles(&[0.5]), Some(vec![f64::from(6.6923075f32)]));
    }

    #[test]
    fn compression_bounds_the_centroids() {
        let mut d = digest_of((0..100_000).map(|v| (v as f32, 1)));
        d.compress();
        assert!(d.centroids.len() < 2048);
        assert_eq!(d.count, 100_000.0);
        let median = d.quantiles(&[0.5]).unwrap()[0];
        assert!((median - 50_000.0).abs() < 500.0, "{median}");
    }

    #[test]
    fn bfloat16_cuts_to_the_upper_bits() {
        let mut h = BFloat16Histogram::default();
        h.add(123_456_789.0, 1);
        assert_eq!(h.quantiles(&[0.5]), Some(vec![123_207_680.0]));
        assert_eq!(BFloat16Histogram::default().quantiles(&[0.5]), None);
    }
}
