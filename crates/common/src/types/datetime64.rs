//! `DateTime64(p)` for every precision `p` from 0 to 9.
//!
//! Arrow counts time in four units (seconds, milli-, micro- and nanoseconds).
//! A precision that one of them shows (3, 6, 9) is that unit alone; any other
//! is held in the next finer unit, its values multiples of `10^-p` seconds, with
//! the precision in the field's metadata. Arithmetic and comparisons need no
//! more than the unit; the precision decides what is shown (`toTypeName`,
//! the digits of the fraction) and where values are cut to it (casts,
//! inserts, `toDateTime64`). Where DataFusion drops the metadata (its own
//! operators, such as `+ INTERVAL`), a value shows its unit's digits.

use std::collections::HashMap;
use std::sync::Arc;

use datafusion::arrow::array::{Array, ArrayRef, AsArray, PrimitiveArray};
use datafusion::arrow::datatypes::{
    ArrowTimestampType, DataType, Field, TimeUnit, TimestampMicrosecondType,
    TimestampMillisecondType, TimestampNanosecondType, TimestampSecondType,
};

/// The metadata key holding a DateTime64's precision where its unit shows
/// another.
pub(super) const PRECISION_KEY: &str = "clickhouse.datetime64_precision";

/// The most digits of a second a DateTime64 keeps.
pub const MAX_DATETIME64_PRECISION: u8 = 9;

/// The Arrow unit a DateTime64 of `precision` digits is held in.
pub fn datetime64_unit(precision: u8) -> TimeUnit {
    debug_assert!(precision <= MAX_DATETIME64_PRECISION);
    match precision {
        0 => TimeUnit::Second,
        1..=3 => TimeUnit::Millisecond,
        4..=6 => TimeUnit::Microsecond,
        _ => TimeUnit::Nanosecond,
    }
}

/// The digits of a second `unit` counts.
pub fn unit_digits(unit: TimeUnit) -> u8 {
    match unit {
        TimeUnit::Second => 0,
        TimeUnit::Millisecond => 3,
        TimeUnit::Microsecond => 6,
        TimeUnit::Nanosecond => 9,
    }
}

/// The ticks of `unit` in one step of a DateTime64 of `precision` digits
/// (10 milliseconds for DateTime64(2)).
pub fn precision_step(unit: TimeUnit, precision: u8) -> i64 {
    debug_assert!(precision <= unit_digits(unit));
    10_i64.pow(u32::from(unit_digits(unit).saturating_sub(precision)))
}

/// The field metadata of a DateTime64 of `precision`: none where its unit
/// shows it (and where a second-counting field without it is a DateTime).
pub fn datetime64_metadata(precision: u8) -> HashMap<String, String> {
    match precision {
        3 | 6 | 9 => HashMap::new(),
        _ => HashMap::from([(PRECISION_KEY.to_string(), precision.to_string())]),
    }
}

/// The field metadata of a DateTime64 of `precision` that states it even
/// where its unit shows it: metadata merged from several fields (a union's
/// inputs) keeps every key one of them has, so each must say the same.
pub fn stated_precision_metadata(precision: u8) -> HashMap<String, String> {
    HashMap::from([(PRECISION_KEY.to_string(), precision.to_string())])
}

/// The precision `field`'s metadata gives a DateTime64 whose unit shows
/// another; `None` for any other field.
pub fn declared_precision(field: &Field) -> Option<u8> {
    let DataType::Timestamp(unit, _) = field.data_type() else {
        return None;
    };
    let precision: u8 = field.metadata().get(PRECISION_KEY)?.parse().ok()?;
    (precision <= unit_digits(*unit)).then_some(precision)
}

/// The digits of a second `field` shows: its declared precision, else its
/// unit's; `None` for a field that is not a DateTime or DateTime64.
pub fn shown_digits(field: &Field) -> Option<u8> {
    match field.data_type() {
        DataType::Timestamp(unit, _) => {
            Some(declared_precision(field).unwrap_or(unit_digits(*unit)))
        }
        _ => None,
    }
}

/// `values` cut to the precision `field` declares (toward the past, as
/// ClickHouse drops the digits past it); unchanged for any other field.
pub fn cut_to_precision(values: ArrayRef, field: &Field) -> ArrayRef {
    let (Some(precision), DataType::Timestamp(unit, _)) =
        (declared_precision(field), values.data_type())
    else {
        return values;
    };
    let step = precision_step(*unit, precision);
    if step == 1 {
        return values;
    }
    match unit {
        TimeUnit::Second => cut::<TimestampSecondType>(&values, step),
        TimeUnit::Millisecond => cut::<TimestampMillisecondType>(&values, step),
        TimeUnit::Microsecond => cut::<TimestampMicrosecondType>(&values, step),
        TimeUnit::Nanosecond => cut::<TimestampNanosecondType>(&values, step),
    }
}

fn cut<T: ArrowTimestampType>(values: &ArrayRef, step: i64) -> ArrayRef {
    let ticks: &PrimitiveArray<T> = values.as_primitive::<T>();
    let cut: PrimitiveArray<T> = ticks.unary(|tick| tick - tick.rem_euclid(step));
    Arc::new(cut.with_data_type(values.data_type().clone()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use datafusion::arrow::array::TimestampMillisecondArray;

    #[test]
    fn precisions_map_to_the_next_finer_unit() {
        assert_eq!(datetime64_unit(0), TimeUnit::Second);
        assert_eq!(datetime64_unit(2), TimeUnit::Millisecond);
        assert_eq!(datetime64_unit(4), TimeUnit::Microsecond);
        assert_eq!(datetime64_unit(7), TimeUnit::Nanosecond);
        assert!(datetime64_metadata(6).is_empty());
    }

    #[test]
    fn values_are_cut_toward_the_past() {
        let field = Field::new("d", DataType::Timestamp(TimeUnit::Millisecond, None), true)
            .with_metadata(datetime64_metadata(1));
        let values: ArrayRef = Arc::new(TimestampMillisecondArray::from(vec![
            Some(1_234),
            Some(-1_234),
            None,
        ]));
        let cut = cut_to_precision(values, &field);
        let cut = cut.as_primitive::<TimestampMillisecondType>();
        assert_eq!(cut.value(0), 1_200);
        assert_eq!(cut.value(1), -1_300);
        assert!(cut.is_null(2));
        assert_eq!(shown_digits(&field), Some(1));
    }
}
