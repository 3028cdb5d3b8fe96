//! Bitmaps: sets of integers held as `groupBitmap`'s state,
//! `AggregateFunction(groupBitmap, T)`, made by `bitmapBuild`,
//! `groupBitmapState` and the bitmap operations, read by the `bitmap*`
//! functions ([`functions`]) and folded by `groupBitmapAnd|Or|Xor`.
//!
//! A state lists its values. ClickHouse keeps up to 32 values in the order
//! they came (its small set) and more as a roaring bitmap, in order of
//! their unsigned bits; [`Bitmap`] keeps the same two shapes, so that
//! `bitmapToArray` lists values in ClickHouse's order. A signed value is
//! ordered as the unsigned bits of its width, as in ClickHouse (Int8 -3 is
//! 253).

pub mod functions;

use std::sync::Arc;

use datafusion::arrow::array::{Array, ArrayRef, AsArray, ListArray, PrimitiveArray, StructArray};
use datafusion::arrow::buffer::OffsetBuffer;
use datafusion::arrow::datatypes::{
    DataType, Int8Type, Int16Type, Int32Type, Int64Type, UInt8Type, UInt16Type, UInt32Type,
    UInt64Type,
};
use datafusion::common::{DataFusionError, Result};
use strata_common::types::{aggregate_function_parts, clickhouse_type_name, parse_clickhouse_type};
use strata_common::{ErrorCode, StrataError};

/// Distinct values ClickHouse keeps in insertion order before a bitmap
/// becomes a roaring bitmap.
const SMALL_SET_SIZE: usize = 32;

const STATE_PREFIX: &str = "AggregateFunction(groupBitmap, ";

/// Folds of bitmaps whose states are bitmaps too.
pub const FOLDS: [&str; 3] = ["groupBitmapAnd", "groupBitmapOr", "groupBitmapXor"];

/// A set of integers as their unsigned bits, in ClickHouse's order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Bitmap {
    /// Insertion order while small; ascending and distinct once large.
    values: Vec<u64>,
    large: bool,
}

impl Bitmap {
    pub fn from_values(values: impl IntoIterator<Item = u64>) -> Self {
        let mut bitmap = Bitmap::default();
        let mut values = values.into_iter();
        while !bitmap.large {
            let Some(v) = values.next() else {
                return bitmap;
            };
            bitmap.add(v);
        }
        bitmap.values.extend(values);
        bitmap.normalize();
        bitmap
    }

    /// A large bitmap of ascending values, as ClickHouse's roaring bitmap.
    fn sorted(values: Vec<u64>) -> Self {
        let mut bitmap = Bitmap {
            values,
            large: true,
        };
        bitmap.normalize();
        bitmap
    }

    pub fn values(&self) -> &[u64] {
        &self.values
    }

    pub fn len(&self) -> usize {
        self.values.len()
    }

    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }

    pub fn add(&mut self, v: u64) {
        if self.large {
            if let Err(at) = self.values.binary_search(&v) {
                self.values.insert(at, v);
            }
        } else if !self.values.contains(&v) {
            self.values.push(v);
            if self.values.len() > SMALL_SET_SIZE {
                self.large = true;
                self.normalize();
            }
        }
    }

    fn remove(&mut self, v: u64) -> bool {
        let at = match self.large {
            true => self.values.binary_search(&v).ok(),
            false => self.values.iter().position(|&x| x == v),
        };
        at.map(|at| self.values.remove(at)).is_some()
    }

    fn normalize(&mut self) {
        self.values.sort_unstable();
        self.values.dedup();
    }

    pub fn contains(&self, v: u64) -> bool {
        match self.large {
            true => self.values.binary_search(&v).is_ok(),
            false => self.values.contains(&v),
        }
    }

    pub fn min(&self) -> Option<u64> {
        self.values.iter().copied().min()
    }

    pub fn max(&self) -> Option<u64> {
        self.values.iter().copied().max()
    }

    /// The union: a small `other`'s values are added in its order.
    pub fn or(&mut self, other: &Bitmap) {
        if other.large {
            self.values.extend_from_slice(&other.values);
            self.large = true;
            self.normalize();
        } else {
            for &v in &other.values {
                self.add(v);
            }
        }
    }

    /// The intersection, small (in the small side's order) when either side is.
    pub fn and(&self, other: &Bitmap) -> Bitmap {
        let (kept, probe) = match (self.large, other.large) {
            (true, false) => (other, self),
            _ => (self, other),
        };
        Bitmap {
            values: kept
                .values
                .iter()
                .copied()
                .filter(|&v| probe.contains(v))
                .collect(),
            large: self.large && other.large,
        }
    }

    /// The values of `self` not in `other`, in `self`'s order.
    pub fn and_not(&self, other: &Bitmap) -> Bitmap {
        Bitmap {
            values: self
                .values
                .iter()
                .copied()
                .filter(|&v| !other.contains(v))
                .collect(),
            large: self.large,
        }
    }

    /// The symmetric difference, always ascending as ClickHouse's.
    pub fn xor(&self, other: &Bitmap) -> Bitmap {
        let mut values = self.and_not(other).values;
        values.extend(other.and_not(self).values);
        Bitmap::sorted(values)
    }

    /// The values in `[start, end)`, in this bitmap's order.
    pub fn in_range(&self, start: u64, end: u64) -> Bitmap {
        let kept = self
            .values
            .iter()
            .copied()
            .filter(|v| (start..end).contains(v));
        Bitmap::from_values(kept)
    }

    /// At most `limit` of the smallest values from `start` on.
    pub fn limited_from(&self, start: u64, limit: u64) -> Bitmap {
        let ascending = Bitmap::sorted(self.values.clone()).values;
        let from = ascending.into_iter().filter(|&v| v >= start);
        Bitmap::from_values(from.take(usize::try_from(limit).unwrap_or(usize::MAX)))
    }

    /// At most `limit` values after the `offset` smallest.
    pub fn slice(&self, offset: u64, limit: u64) -> Bitmap {
        let ascending = Bitmap::sorted(self.values.clone()).values;
        let skip = usize::try_from(offset).unwrap_or(usize::MAX);
        let take = usize::try_from(limit).unwrap_or(usize::MAX);
        Bitmap::from_values(ascending.into_iter().skip(skip).take(take))
    }

    /// Each `from[i]` present replaced by `to[i]`, in turn (so `1 -> 2, 2
    /// -> 3` takes 1 to 3), as a large bitmap as in ClickHouse.
    pub fn replaced(&self, from: &[u64], to: &[u64]) -> Bitmap {
        debug_assert_eq!(from.len(), to.len());
        let mut out = Bitmap::sorted(self.values.clone());
        for (&f, &t) in from.iter().zip(to) {
            if f != t && out.remove(f) {
                out.add(t);
            }
        }
        out
    }
}

/// The Arrow type of a bitmap of `element` values, as `groupBitmapState`
/// returns it.
pub fn bitmap_type(element: &DataType) -> Result<DataType> {
    let name = format!("{STATE_PREFIX}{})", clickhouse_type_name(element, false));
    parse_clickhouse_type(&name)
        .map(|t| t.data_type)
        .map_err(|e| e.into_datafusion())
}

/// The element type of a bitmap type, `groupBitmap`'s state (which the
/// folds' states are too).
pub fn element_type(data_type: &DataType) -> Option<DataType> {
    let (name, _) = aggregate_function_parts(data_type)?;
    parse_element(name.strip_prefix(STATE_PREFIX)?.strip_suffix(')')?)
}

fn parse_element(name: &str) -> Option<DataType> {
    let parsed = parse_clickhouse_type(name).ok()?.data_type;
    parsed.is_integer().then_some(parsed)
}

/// The list of values a bitmap column holds per row.
fn value_lists(column: &dyn Array) -> Result<&ListArray> {
    let outer = column.as_struct_opt().ok_or_else(|| not_a_bitmap(column))?;
    let inner = outer
        .column(0)
        .as_struct_opt()
        .ok_or_else(|| not_a_bitmap(column))?;
    inner
        .column(0)
        .as_list_opt::<i32>()
        .ok_or_else(|| not_a_bitmap(column))
}

fn not_a_bitmap(column: &dyn Array) -> DataFusionError {
    illegal(format!(
        "Expected a bitmap, got {}",
        clickhouse_type_name(column.data_type(), false)
    ))
}

/// Each row of a bitmap column as a [`Bitmap`]; a NULL row is empty.
pub fn read_bitmaps(column: &dyn Array) -> Result<Vec<Bitmap>> {
    let lists = value_lists(column)?;
    (0..lists.len())
        .map(|row| match lists.is_valid(row) && column.is_valid(row) {
            true => Ok(Bitmap::from_values(unsigned_values(&lists.value(row))?)),
            false => Ok(Bitmap::default()),
        })
        .collect()
}

/// The non-NULL integers of `array` as the unsigned bits of their width.
pub fn unsigned_values(array: &dyn Array) -> Result<Vec<u64>> {
    macro_rules! bits {
        ($t:ty, $u:ty) => {
            array
                .as_primitive::<$t>()
                .iter()
                .flatten()
                .map(|v| v as $u as u64)
                .collect()
        };
    }
    Ok(match array.data_type() {
        DataType::Int8 => bits!(Int8Type, u8),
        DataType::Int16 => bits!(Int16Type, u16),
        DataType::Int32 => bits!(Int32Type, u32),
        DataType::Int64 => bits!(Int64Type, u64),
        DataType::UInt8 => bits!(UInt8Type, u8),
        DataType::UInt16 => bits!(UInt16Type, u16),
        DataType::UInt32 => bits!(UInt32Type, u32),
        DataType::UInt64 => bits!(UInt64Type, u64),
        DataType::Null => Vec::new(),
        other => {
            return Err(illegal(format!(
                "Expected integers, got {}",
                clickhouse_type_name(other, false)
            )));
        }
    })
}

/// Unsigned bits back as integers of `element`.
pub fn values_array(values: &[u64], element: &DataType) -> Result<ArrayRef> {
    macro_rules! typed {
        ($t:ty, $n:ty) => {
            Arc::new(PrimitiveArray::<$t>::from_iter_values(
                values.iter().map(|&v| v as $n),
            )) as ArrayRef
        };
    }
    Ok(match element {
        DataType::Int8 => typed!(Int8Type, i8),
        DataType::Int16 => typed!(Int16Type, i16),
        DataType::Int32 => typed!(Int32Type, i32),
        DataType::Int64 => typed!(Int64Type, i64),
        DataType::UInt8 => typed!(UInt8Type, u8),
        DataType::UInt16 => typed!(UInt16Type, u16),
        DataType::UInt32 => typed!(UInt32Type, u32),
        DataType::UInt64 => typed!(UInt64Type, u64),
        other => {
            return Err(illegal(format!(
                "Bitmaps hold integers, not {}",
                clickhouse_type_name(other, false)
            )));
        }
    })
}

/// Each bitmap's values as a list of `element` per row, its items typed
/// Nullable as in a state (`nullable`) or not as in a result.
pub fn lists_of(bitmaps: &[Bitmap], element: &DataType, nullable: bool) -> Result<ListArray> {
    let all: Vec<u64> = bitmaps
        .iter()
        .flat_map(|b| b.values().iter().copied())
        .collect();
    let item = Arc::new(datafusion::arrow::datatypes::Field::new(
        "item",
        element.clone(),
        nullable,
    ));
    Ok(ListArray::new(
        item,
        OffsetBuffer::from_lengths(bitmaps.iter().map(Bitmap::len)),
        values_array(&all, element)?,
        None,
    ))
}

/// A column of bitmaps of `element` values, in [`bitmap_type`]'s type.
pub fn bitmap_column(bitmaps: &[Bitmap], element: &DataType) -> Result<ArrayRef> {
    let data_type = bitmap_type(element)?;
    let (_, state) = aggregate_function_parts(&data_type).expect("a bitmap type is a state");
    let lists = lists_of(bitmaps, element, true)?;
    debug_assert_eq!(state[0].data_type(), lists.data_type());
    let inner = StructArray::new(state.clone(), vec![Arc::new(lists)], None);
    let DataType::Struct(outer) = &data_type else {
        unreachable!("a state type is a struct");
    };
    Ok(Arc::new(StructArray::new(
        outer.clone(),
        vec![Arc::new(inner)],
        None,
    )))
}

fn illegal(message: String) -> DataFusionError {
    StrataError::new(ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT, message).into_datafusion()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_bitmaps_keep_insertion_order_and_large_ones_sort() {
        let small = Bitmap::from_values([5, 1, 3, 1]);
        assert_eq!(small.values(), &[5, 1, 3]);
        let large = Bitmap::from_values((0..40).rev());
        assert_eq!(large.values(), (0..40).collect::<Vec<_>>().as_slice());
        assert!(large.contains(39) && !large.contains(40));
    }

    #[test]
    fn set_operations_follow_clickhouse_shapes() {
        let a = Bitmap::from_values([5, 1, 3]);
        let b = Bitmap::from_values([4, 2, 1]);
        let mut union = a.clone();
        union.or(&b);
        assert_eq!(union.values(), &[5, 1, 3, 4, 2]);
        assert_eq!(a.xor(&b).values(), &[2, 3, 4, 5]);
        assert_eq!(a.and_not(&b).values(), &[5, 3]);
        let large = Bitmap::from_values(0..100);
        assert_eq!(large.and(&a).values(), &[5, 1, 3]);
        assert_eq!(a.and(&large).values(), &[5, 1, 3]);
        let c = Bitmap::from_values([3, 1, 2]);
        assert_eq!(c.replaced(&[1, 2], &[2, 3]).values(), &[3]);
        let d = Bitmap::from_values([9, 3, 1, 5]);
        assert_eq!(d.in_range(2, 10).values(), &[9, 3, 5]);
        assert_eq!(d.limited_from(2, 2).values(), &[3, 5]);
        assert_eq!(d.slice(1, 2).values(), &[3, 5]);
    }
}
