//! Keys of fixed width packed into one machine word, for GROUP BY tables
//! and semi-join sets alike.
//!
//! Keys that are all integers, booleans, dates or timestamps fit side by side
//! in 64 or 128 bits: `(UInt8, UInt16, Nullable(Int32))` is 8 + 16 + 33 bits.
//! A table of such words compares and hashes one integer per row instead of
//! one value per column, and needs no per-key allocation. A NULL key sets a
//! bit of its own, so NULL and 0 stay apart. One non-NULL 32- or 64-bit key
//! is the packing of one column.

use std::sync::Arc;

use datafusion::arrow::array::{Array, ArrayRef, AsArray, BooleanArray, PrimitiveArray};
use datafusion::arrow::buffer::NullBuffer;
use datafusion::arrow::datatypes::{
    DataType, Date32Type, Date64Type, Int8Type, Int16Type, Int32Type, Int64Type, TimeUnit,
    TimestampMicrosecondType, TimestampMillisecondType, TimestampNanosecondType,
    TimestampSecondType, UInt8Type, UInt16Type, UInt32Type, UInt64Type,
};
use datafusion::common::{Result, internal_err};

/// A packed key: a machine word that hashes well enough for a hash table.
pub trait PackedWord: Copy + Eq + Default + Send + Sync + 'static {
    /// Bits in the word.
    const BITS: u32;
    fn hash(self) -> u64;
    /// `self` with `bits` placed at `shift`.
    fn with_bits(self, bits: u64, shift: u32) -> Self;
    /// The `width` bits at `shift` (`width` at most 64).
    fn bits_at(self, shift: u32, width: u32) -> u64;
}

/// The folded multiply: the 128-bit product's halves XORed, so every input
/// bit reaches the high bits, which pick the bucket, and the low ones, which
/// pick the cell.
#[inline]
fn folded_multiply(a: u64, b: u64) -> u64 {
    let product = u128::from(a) * u128::from(b);
    (product as u64) ^ ((product >> 64) as u64)
}

const HASH_SEED: u64 = 0x243f_6a88_85a3_08d3;
const HASH_MULTIPLIER: u64 = 0x9e37_79b9_7f4a_7c15;

impl PackedWord for u64 {
    const BITS: u32 = 64;

    #[inline]
    fn hash(self) -> u64 {
        folded_multiply(self ^ HASH_SEED, HASH_MULTIPLIER)
    }

    #[inline]
    fn with_bits(self, bits: u64, shift: u32) -> Self {
        self | (bits << shift)
    }

    #[inline]
    fn bits_at(self, shift: u32, width: u32) -> u64 {
        (self >> shift) & low_mask(width)
    }
}

impl PackedWord for u128 {
    const BITS: u32 = 128;

    #[inline]
    fn hash(self) -> u64 {
        folded_multiply(
            (self as u64) ^ HASH_SEED,
            ((self >> 64) as u64) ^ HASH_MULTIPLIER,
        )
    }

    #[inline]
    fn with_bits(self, bits: u64, shift: u32) -> Self {
        self | (u128::from(bits) << shift)
    }

    #[inline]
    fn bits_at(self, shift: u32, width: u32) -> u64 {
        ((self >> shift) as u64) & low_mask(width)
    }
}

fn low_mask(width: u32) -> u64 {
    debug_assert!((1..=64).contains(&width));
    u64::MAX >> (64 - width)
}

/// One key column's place in the word: its value bits at `shift`, and, when
/// it can be NULL, a NULL flag just above them.
#[derive(Debug, Clone, PartialEq, Eq)]
struct PackedColumn {
    data_type: DataType,
    nullable: bool,
    shift: u32,
    width: u32,
}

impl PackedColumn {
    fn bits(&self) -> u32 {
        self.width + u32::from(self.nullable)
    }
}

/// How a list of fixed-width key columns packs into one word.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FixedKeys {
    columns: Vec<PackedColumn>,
    bits: u32,
}

/// The word a packing needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WordWidth {
    Bits64,
    Bits128,
}

/// Value bits of a key type that packs, or `None`.
fn value_width(data_type: &DataType) -> Option<u32> {
    Some(match data_type {
        DataType::Boolean => 1,
        DataType::Int8 | DataType::UInt8 => 8,
        DataType::Int16 | DataType::UInt16 => 16,
        DataType::Int32 | DataType::UInt32 | DataType::Date32 => 32,
        DataType::Int64 | DataType::UInt64 | DataType::Date64 | DataType::Timestamp(_, _) => 64,
        _ => return None,
    })
}

impl FixedKeys {
    /// The packing of keys with these types and nullability, or `None` when
    /// some type does not pack or all need more than 128 bits.
    pub fn for_types(types: &[(DataType, bool)]) -> Option<Self> {
        let mut columns = Vec::with_capacity(types.len());
        let mut shift = 0;
        for (data_type, nullable) in types {
            let column = PackedColumn {
                data_type: data_type.clone(),
                nullable: *nullable,
                shift,
                width: value_width(data_type)?,
            };
            shift += column.bits();
            columns.push(column);
        }
        (!columns.is_empty() && shift <= u128::BITS).then_some(FixedKeys {
            columns,
            bits: shift,
        })
    }

    pub fn width(&self) -> WordWidth {
        if self.bits <= u64::BITS {
            WordWidth::Bits64
        } else {
            WordWidth::Bits128
        }
    }

    /// The method's name in EXPLAIN, after ClickHouse's: `key32` and `key64`
    /// for one column, `keys64` and `keys128` for a packing.
    pub fn method_name(&self) -> &'static str {
        match (self.columns.as_slice(), self.width()) {
            ([one], WordWidth::Bits64) if one.bits() <= 32 => "key32",
            ([_], WordWidth::Bits64) => "key64",
            (_, WordWidth::Bits64) => "keys64",
            (_, WordWidth::Bits128) => "keys128",
        }
    }

    /// Packs row `i` of the key columns into `words[i]`, `words` cleared first.
    pub fn pack<W: PackedWord>(&self, columns: &[ArrayRef], words: &mut Vec<W>) -> Result<()> {
        assert!(
            self.bits <= W::BITS,
            "{} bits packed in {}",
            self.bits,
            W::BITS
        );
        if columns.len() != self.columns.len() {
            return internal_err!(
                "{} key columns for a packing of {}",
                columns.len(),
                self.columns.len()
            );
        }
        let rows = columns.first().map_or(0, |c| c.len());
        words.clear();
        words.resize(rows, W::default());
        for (column, array) in self.columns.iter().zip(columns) {
            pack_column(column, array, words)?;
        }
        Ok(())
    }

    /// The key columns of `words`, in their order.
    pub fn unpack<W: PackedWord>(&self, words: &[W]) -> Result<Vec<ArrayRef>> {
        self.columns
            .iter()
            .map(|column| unpack_column(column, words))
            .collect()
    }
}

fn pack_column<W: PackedWord>(
    column: &PackedColumn,
    array: &ArrayRef,
    words: &mut [W],
) -> Result<()> {
    if array.data_type() != &column.data_type {
        return internal_err!(
            "a {} key column packed as {}",
            array.data_type(),
            column.data_type
        );
    }
    let nulls = array.logical_nulls();
    if nulls.as_ref().is_some_and(|n| n.null_count() > 0) && !column.nullable {
        return internal_err!("NULL in a key column planned as not nullable");
    }
    macro_rules! pack_primitive {
        ($arrow_type:ty, $to_bits:expr) => {{
            let values = array.as_primitive::<$arrow_type>().values();
            place(column, nulls.as_ref(), words, |row| $to_bits(values[row]))
        }};
    }
    match &column.data_type {
        DataType::Boolean => {
            let values = array.as_boolean().values();
            place(column, nulls.as_ref(), words, |row| {
                u64::from(values.value(row))
            })
        }
        DataType::Int8 => pack_primitive!(Int8Type, |v: i8| u64::from(v as u8)),
        DataType::UInt8 => pack_primitive!(UInt8Type, u64::from),
        DataType::Int16 => pack_primitive!(Int16Type, |v: i16| u64::from(v as u16)),
        DataType::UInt16 => pack_primitive!(UInt16Type, u64::from),
        DataType::Int32 => pack_primitive!(Int32Type, |v: i32| u64::from(v as u32)),
        DataType::Date32 => pack_primitive!(Date32Type, |v: i32| u64::from(v as u32)),
        DataType::UInt32 => pack_primitive!(UInt32Type, u64::from),
        DataType::Int64 => pack_primitive!(Int64Type, |v: i64| v as u64),
        DataType::Date64 => pack_primitive!(Date64Type, |v: i64| v as u64),
        DataType::UInt64 => pack_primitive!(UInt64Type, |v: u64| v),
        DataType::Timestamp(TimeUnit::Second, _) => {
            pack_primitive!(TimestampSecondType, |v: i64| v as u64)
        }
        DataType::Timestamp(TimeUnit::Millisecond, _) => {
            pack_primitive!(TimestampMillisecondType, |v: i64| v as u64)
        }
        DataType::Timestamp(TimeUnit::Microsecond, _) => {
            pack_primitive!(TimestampMicrosecondType, |v: i64| v as u64)
        }
        DataType::Timestamp(TimeUnit::Nanosecond, _) => {
            pack_primitive!(TimestampNanosecondType, |v: i64| v as u64)
        }
        other => return internal_err!("{other} keys do not pack"),
    }
    Ok(())
}

/// ORs each row's value bits (or, for NULL, only the NULL flag) into its word.
#[inline]
fn place<W: PackedWord>(
    column: &PackedColumn,
    nulls: Option<&NullBuffer>,
    words: &mut [W],
    bits: impl Fn(usize) -> u64,
) {
    match nulls {
        Some(nulls) if nulls.null_count() > 0 => {
            let null_shift = column.shift + column.width;
            for (row, word) in words.iter_mut().enumerate() {
                *word = if nulls.is_valid(row) {
                    word.with_bits(bits(row), column.shift)
                } else {
                    word.with_bits(1, null_shift)
                };
            }
        }
        _ => {
            for (row, word) in words.iter_mut().enumerate() {
                *word = word.with_bits(bits(row), column.shift);
            }
        }
    }
}

/// Rebuilds a key column from the value bits, sign-extended for signed types.
fn unpack_column<W: PackedWord>(column: &PackedColumn, words: &[W]) -> Result<ArrayRef> {
    let nulls = column.nullable.then(|| {
        NullBuffer::from_iter(
            words
                .iter()
                .map(|w| w.bits_at(column.shift + column.width, 1) == 0),
        )
    });
    let values = words.iter().map(|w| w.bits_at(column.shift, column.width));
    let unused = 64 - column.width;
    let signed = |v: u64| ((v << unused) as i64) >> unused;
    macro_rules! unpack_primitive {
        ($arrow_type:ty, $from_bits:expr) => {
            Arc::new(PrimitiveArray::<$arrow_type>::new(
                values.map($from_bits).collect(),
                nulls,
            )) as ArrayRef
        };
    }
    Ok(match &column.data_type {
        DataType::Boolean => Arc::new(BooleanArray::new(values.map(|v| v == 1).collect(), nulls)),
        DataType::Int8 => unpack_primitive!(Int8Type, |v| signed(v) as i8),
        DataType::UInt8 => unpack_primitive!(UInt8Type, |v| v as u8),
        DataType::Int16 => unpack_primitive!(Int16Type, |v| signed(v) as i16),
        DataType::UInt16 => unpack_primitive!(UInt16Type, |v| v as u16),
        DataType::Int32 => unpack_primitive!(Int32Type, |v| signed(v) as i32),
        DataType::Date32 => unpack_primitive!(Date32Type, |v| signed(v) as i32),
        DataType::UInt32 => unpack_primitive!(UInt32Type, |v| v as u32),
        DataType::Int64 => unpack_primitive!(Int64Type, signed),
        DataType::Date64 => unpack_primitive!(Date64Type, signed),
        DataType::UInt64 => unpack_primitive!(UInt64Type, |v| v),
        DataType::Timestamp(unit, zone) => {
            let values: Vec<i64> = values.map(signed).collect();
            let zone = zone.clone();
            match unit {
                TimeUnit::Second => Arc::new(
                    PrimitiveArray::<TimestampSecondType>::new(values.into(), nulls)
                        .with_timezone_opt(zone),
                ),
                TimeUnit::Millisecond => Arc::new(
                    PrimitiveArray::<TimestampMillisecondType>::new(values.into(), nulls)
                        .with_timezone_opt(zone),
                ),
                TimeUnit::Microsecond => Arc::new(
                    PrimitiveArray::<TimestampMicrosecondType>::new(values.into(), nulls)
                        .with_timezone_opt(zone),
                ),
                TimeUnit::Nanosecond => Arc::new(
                    PrimitiveArray::<TimestampNanosecondType>::new(values.into(), nulls)
                        .with_timezone_opt(zone),
                ),
            }
        }
        other => return internal_err!("{other} keys do not pack"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use datafusion::arrow::array::{
        Date32Array, Int8Array, Int16Array, Int32Array, Int64Array, TimestampNanosecondArray,
        UInt8Array, UInt16Array, UInt32Array, UInt64Array,
    };

    fn round_trip<W: PackedWord + std::fmt::Debug>(columns: Vec<ArrayRef>) -> Vec<W> {
        let types: Vec<(DataType, bool)> = columns
            .iter()
            .map(|c| (c.data_type().clone(), c.null_count() > 0))
            .collect();
        let keys = FixedKeys::for_types(&types).expect("these types pack");
        let mut words = Vec::new();
        keys.pack::<W>(&columns, &mut words).unwrap();
        let unpacked = keys.unpack(&words).unwrap();
        for (before, after) in columns.iter().zip(&unpacked) {
            assert_eq!(before, after);
        }
        words
    }

    #[test]
    fn every_type_round_trips_at_its_limits() {
        let columns: Vec<ArrayRef> = vec![
            Arc::new(BooleanArray::from(vec![true, false, true])),
            Arc::new(Int8Array::from(vec![i8::MIN, i8::MAX, 0])),
            Arc::new(UInt8Array::from(vec![u8::MAX, 0, 1])),
            Arc::new(Int16Array::from(vec![i16::MIN, -1, i16::MAX])),
            Arc::new(UInt16Array::from(vec![0, u16::MAX, 7])),
        ];
        round_trip::<u64>(columns);
        let columns: Vec<ArrayRef> = vec![
            Arc::new(Int32Array::from(vec![i32::MIN, i32::MAX, -1])),
            Arc::new(UInt32Array::from(vec![u32::MAX, 0, 5])),
            Arc::new(Date32Array::from(vec![-719_162, 0, 2_932_896])),
        ];
        round_trip::<u128>(columns);
        let columns: Vec<ArrayRef> = vec![
            Arc::new(Int64Array::from(vec![i64::MIN, i64::MAX, -1])),
            Arc::new(
                TimestampNanosecondArray::from(vec![i64::MIN, 0, i64::MAX]).with_timezone("UTC"),
            ),
        ];
        round_trip::<u128>(columns);
        round_trip::<u64>(vec![Arc::new(UInt64Array::from(vec![u64::MAX, 0, 1]))]);
    }

    #[test]
    fn null_and_zero_stay_apart() {
        let words = round_trip::<u64>(vec![
            Arc::new(Int32Array::from(vec![Some(0), None, Some(-1)])),
            Arc::new(UInt8Array::from(vec![None, Some(0), Some(255)])),
        ]);
        assert_eq!(words.len(), 3);
        assert!(words[0] != words[1]);
        let words = round_trip::<u128>(vec![Arc::new(Int64Array::from(vec![Some(0), None]))]);
        assert!(words[0] != words[1]);
    }

    #[test]
    fn the_word_is_chosen_by_the_bits_needed() {
        let keys = |types: &[(DataType, bool)]| FixedKeys::for_types(types).unwrap();
        let one = keys(&[(DataType::UInt64, false)]);
        assert_eq!(
            (one.width(), one.method_name()),
            (WordWidth::Bits64, "key64")
        );
        let int32 = keys(&[(DataType::Int32, false)]);
        assert_eq!(int32.method_name(), "key32");
        let nullable = keys(&[(DataType::UInt64, true)]);
        assert_eq!(nullable.method_name(), "keys128");
        let pair = keys(&[(DataType::UInt32, true), (DataType::UInt16, false)]);
        assert_eq!(pair.method_name(), "keys64");
        assert!(FixedKeys::for_types(&[(DataType::Utf8, false)]).is_none());
        assert!(
            FixedKeys::for_types(&[(DataType::Int64, true), (DataType::Int64, true)]).is_none()
        );
    }

    #[test]
    fn hashes_of_neighbouring_keys_spread_over_buckets() {
        let mut seen = [0usize; 256];
        for key in 0u64..25_600 {
            seen[(key.hash() >> 56) as usize] += 1;
        }
        assert!(seen.iter().all(|&n| (50..=150).contains(&n)), "{seen:?}");
        let mut seen = [0usize; 256];
        for key in 0u128..25_600 {
            seen[((key << 70).hash() >> 56) as usize] += 1;
        }
        assert!(seen.iter().all(|&n| (50..=150).contains(&n)), "{seen:?}");
    }
}
