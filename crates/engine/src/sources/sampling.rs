//! `SAMPLE BY key` tables and `SELECT ... FROM t SAMPLE k [OFFSET m]`: a
//! sample is the rows whose key lies in `[m, m + k)` of the key type's
//! whole range (the universe, `max + 1`), as ClickHouse cuts it, so the
//! same table and clause give the same rows. `k` or `m` above 1 counts rows
//! and becomes a share of the table's rows.

use datafusion::arrow::datatypes::DataType;
use strata_common::{ErrorCode, Result, StrataError};
use strata_sql::sample_clause::Ratio;

/// A table's `SAMPLE BY` expression over its columns, of an unsigned
/// integer type.
#[derive(Debug, Clone)]
pub struct SamplingKey {
    /// The expression as written in the definition.
    text: String,
    data_type: DataType,
}

/// The rows a SAMPLE clause keeps, and `_sample_factor`, the inverse of
/// the share kept.
#[derive(Debug, Clone, PartialEq)]
pub struct Sample {
    pub range: SampleRange,
    pub factor: f64,
}

#[derive(Debug, Clone, PartialEq)]
pub enum SampleRange {
    /// No cut: `SAMPLE 1`, or a size of 0.
    All,
    /// The cut holds no value of the key.
    Empty,
    /// `lower <= key` and `key < upper`, each where given.
    Between {
        lower: Option<u128>,
        upper: Option<u128>,
    },
}

impl SamplingKey {
    /// Fails as ClickHouse does unless `data_type` is UInt8 to UInt64.
    pub fn new(text: String, data_type: DataType, type_name: &str) -> Result<Self> {
        if universe(&data_type).is_none() {
            return Err(StrataError::new(
                ErrorCode::ILLEGAL_TYPE_OF_COLUMN_FOR_FILTER,
                format!(
                    "Invalid sampling column type in storage parameters: {type_name}. Must be one unsigned integer type"
                ),
            ));
        }
        Ok(SamplingKey { text, data_type })
    }

    fn universe(&self) -> u128 {
        universe(&self.data_type).expect("checked when the key was made")
    }

    /// The sample `SAMPLE size OFFSET offset` takes of a table of
    /// `total_rows` rows.
    pub fn sample(&self, size: Ratio, offset: Ratio, total_rows: u64) -> Result<Sample> {
        let rows_share = |ratio: Ratio| match total_rows {
            0 => Ratio::ONE,
            rows => {
                let share = Ratio::new(ratio.floor(), u128::from(rows));
                if share.le(Ratio::ONE) {
                    share
                } else {
                    Ratio::ONE
                }
            }
        };
        let mut size = if Ratio::ONE.le(size) && size != Ratio::ONE {
            rows_share(size)
        } else {
            size
        };
        // SAMPLE 1 is no sample at all.
        if size == Ratio::ONE {
            size = Ratio::ZERO;
        }
        if !offset.is_zero() && size.is_zero() {
            return Err(StrataError::new(
                ErrorCode::ARGUMENT_OUT_OF_BOUND,
                "Sampling offset is incorrect because no sampling",
            ));
        }
        let offset = if Ratio::ONE.le(offset) && offset != Ratio::ONE {
            rows_share(offset)
        } else {
            offset
        };
        if size.is_zero() {
            return Ok(Sample {
                range: SampleRange::All,
                factor: 1.0,
            });
        }
        let factor = size.denominator as f64 / size.numerator as f64;
        let range = self.range(size, offset).ok_or_else(|| {
            StrataError::new(
                ErrorCode::ARGUMENT_OUT_OF_BOUND,
                "SAMPLE size and offset are too precise to compute",
            )
        })?;
        Ok(Sample { range, factor })
    }

    /// `[offset, offset + size)` of the universe, in whole key values.
    fn range(&self, size: Ratio, offset: Ratio) -> Option<SampleRange> {
        let universe = self.universe();
        let (lower, rest_offset) = times_universe(offset, universe)?;
        let (whole_size, rest_size) = times_universe(size, universe)?;
        // The fractions left over may add up to one more whole value.
        let carry = rest_offset
            .checked_mul(size.denominator)?
            .checked_add(rest_size.checked_mul(offset.denominator)?)?
            >= offset.denominator.checked_mul(size.denominator)?;
        let upper = lower + whole_size + u128::from(carry);
        let end_below_one = offset
            .numerator
            .checked_mul(size.denominator)?
            .checked_add(size.numerator.checked_mul(offset.denominator)?)?
            < offset.denominator.checked_mul(size.denominator)?;
        let has_lower = lower > 0;
        let has_upper = end_below_one;
        if (has_upper && upper == 0) || (has_lower && has_upper && lower == upper) {
            return Some(SampleRange::Empty);
        }
        if lower >= universe {
            return Some(SampleRange::Empty);
        }
        Some(match (has_lower, has_upper) {
            (false, false) => SampleRange::All,
            _ => SampleRange::Between {
                lower: has_lower.then_some(lower),
                upper: has_upper.then_some(upper),
            },
        })
    }

    /// The condition that keeps `range`'s rows, in SQL; none for all rows.
    /// Bounds are read from text, exact up to UInt64's maximum.
    pub fn condition(&self, range: &SampleRange) -> Option<String> {
        let key = &self.text;
        match range {
            SampleRange::All => None,
            SampleRange::Empty => Some("0".to_string()),
            SampleRange::Between { lower, upper } => {
                debug_assert!(lower.is_some() || upper.is_some());
                let lower = lower.map(|v| format!("({key}) >= toUInt64('{v}')"));
                let upper = upper.map(|v| format!("({key}) < toUInt64('{v}')"));
                Some(
                    lower
                        .into_iter()
                        .chain(upper)
                        .collect::<Vec<_>>()
                        .join(" AND "),
                )
            }
        }
    }
}

/// `max + 1` of an unsigned integer type.
fn universe(data_type: &DataType) -> Option<u128> {
    match data_type {
        DataType::UInt8 => Some(1 << 8),
        DataType::UInt16 => Some(1 << 16),
        DataType::UInt32 => Some(1 << 32),
        DataType::UInt64 => Some(1 << 64),
        _ => None,
    }
}

/// `ratio * universe` as its whole part and the numerator of what is left
/// (over `ratio.denominator`).
fn times_universe(ratio: Ratio, universe: u128) -> Option<(u128, u128)> {
    let product = ratio.numerator.checked_mul(universe)?;
    Some((product / ratio.denominator, product % ratio.denominator))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(data_type: DataType) -> SamplingKey {
        SamplingKey::new("k".to_string(), data_type, "UInt32").unwrap()
    }

    #[test]
    fn ratios_cut_the_universe() {
        let k = key(DataType::UInt32);
        let tenth = k.sample(Ratio::new(1, 10), Ratio::ZERO, 100).unwrap();
        assert_eq!(tenth.factor, 10.0);
        assert_eq!(
            tenth.range,
            SampleRange::Between {
                lower: None,
                upper: Some(429_496_729)
            }
        );
        assert_eq!(
            k.condition(&tenth.range).unwrap(),
            "(k) < toUInt64('429496729')"
        );
        let half = k.sample(Ratio::new(1, 10), Ratio::new(1, 2), 100).unwrap();
        assert_eq!(
            half.range,
            SampleRange::Between {
                lower: Some(1 << 31),
                upper: Some((1u128 << 31) + 429_496_729)
            }
        );
        let tail = k.sample(Ratio::new(1, 2), Ratio::new(1, 2), 100).unwrap();
        assert_eq!(
            tail.range,
            SampleRange::Between {
                lower: Some(1 << 31),
                upper: None
            }
        );
        assert_eq!(
            k.sample(Ratio::ONE, Ratio::ZERO, 100).unwrap().range,
            SampleRange::All
        );
        assert_eq!(
            k.sample(Ratio::ZERO, Ratio::ZERO, 100).unwrap().range,
            SampleRange::All
        );
        assert!(k.sample(Ratio::ONE, Ratio::new(1, 2), 100).is_err());
    }

    #[test]
    fn row_counts_become_shares_of_the_table() {
        let k = key(DataType::UInt8);
        let sample = k.sample(Ratio::new(25, 1), Ratio::ZERO, 100).unwrap();
        assert_eq!(sample.factor, 4.0);
        assert_eq!(
            sample.range,
            SampleRange::Between {
                lower: None,
                upper: Some(64)
            }
        );
        // More rows than the table has: all of it.
        let all = k.sample(Ratio::new(1000, 1), Ratio::ZERO, 100).unwrap();
        assert_eq!(all.range, SampleRange::All);
        let u64_key = key(DataType::UInt64);
        let tenth = u64_key.sample(Ratio::new(1, 10), Ratio::ZERO, 7).unwrap();
        assert_eq!(
            tenth.range,
            SampleRange::Between {
                lower: None,
                upper: Some(1_844_674_407_370_955_161)
            }
        );
    }

    #[test]
    fn only_unsigned_keys_sample() {
        let error = SamplingKey::new("k".to_string(), DataType::Int64, "Int64").unwrap_err();
        assert_eq!(error.code, ErrorCode::ILLEGAL_TYPE_OF_COLUMN_FOR_FILTER);
    }
}
