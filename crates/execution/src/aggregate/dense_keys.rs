//! Key types small enough to index an array directly: each value has a slot,
//! and NULL has one more after them.

use std::sync::Arc;

use datafusion::arrow::array::{
    Array, ArrayRef, AsArray, BooleanArray, Int8Array, Int16Array, UInt8Array, UInt16Array,
};
use datafusion::arrow::datatypes::{DataType, Int8Type, Int16Type, UInt8Type, UInt16Type};
use datafusion::common::{Result, internal_err};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DenseKeys {
    Boolean,
    UInt8,
    Int8,
    UInt16,
    Int16,
}

impl DenseKeys {
    pub fn for_type(data_type: &DataType) -> Option<Self> {
        Some(match data_type {
            DataType::Boolean => DenseKeys::Boolean,
            DataType::UInt8 => DenseKeys::UInt8,
            DataType::Int8 => DenseKeys::Int8,
            DataType::UInt16 => DenseKeys::UInt16,
            DataType::Int16 => DenseKeys::Int16,
            _ => return None,
        })
    }

    /// Slots for non-NULL values.
    pub fn value_slots(self) -> usize {
        match self {
            DenseKeys::Boolean => 2,
            DenseKeys::UInt8 | DenseKeys::Int8 => 1 << 8,
            DenseKeys::UInt16 | DenseKeys::Int16 => 1 << 16,
        }
    }

    pub fn null_slot(self) -> usize {
        self.value_slots()
    }

    /// Every slot, NULL's included.
    pub fn slots(self) -> usize {
        self.value_slots() + 1
    }

    /// The method's name in EXPLAIN.
    pub fn method_name(self) -> &'static str {
        match self {
            DenseKeys::Boolean => "dense1",
            DenseKeys::UInt8 | DenseKeys::Int8 => "dense8",
            DenseKeys::UInt16 | DenseKeys::Int16 => "dense16",
        }
    }

    /// Writes the slot of each key into `slots` (cleared first).
    pub fn slots_of(self, keys: &ArrayRef, slots: &mut Vec<usize>) -> Result<()> {
        slots.clear();
        match (self, keys.data_type()) {
            (DenseKeys::Boolean, DataType::Boolean) => {
                let values = keys.as_boolean();
                slots.extend((0..values.len()).map(|i| usize::from(values.value(i))));
            }
            (DenseKeys::UInt8, DataType::UInt8) => slots.extend(
                keys.as_primitive::<UInt8Type>()
                    .values()
                    .iter()
                    .map(|&v| v as usize),
            ),
            (DenseKeys::Int8, DataType::Int8) => slots.extend(
                keys.as_primitive::<Int8Type>()
                    .values()
                    .iter()
                    .map(|&v| (v as u8 ^ 0x80) as usize),
            ),
            (DenseKeys::UInt16, DataType::UInt16) => slots.extend(
                keys.as_primitive::<UInt16Type>()
                    .values()
                    .iter()
                    .map(|&v| v as usize),
            ),
            (DenseKeys::Int16, DataType::Int16) => slots.extend(
                keys.as_primitive::<Int16Type>()
                    .values()
                    .iter()
                    .map(|&v| (v as u16 ^ 0x8000) as usize),
            ),
            (_, other) => return internal_err!("{self:?} keys given a {other} column"),
        }
        if let Some(nulls) = keys.nulls().filter(|n| n.null_count() > 0) {
            let null_slot = self.null_slot();
            for i in (0..keys.len()).filter(|&i| nulls.is_null(i)) {
                slots[i] = null_slot;
            }
        }
        Ok(())
    }

    /// The key column for `slots`, in their order; the NULL slot gives NULL.
    pub fn keys_of(self, slots: &[usize]) -> ArrayRef {
        let null_slot = self.null_slot();
        let value = |slot: usize| (slot != null_slot).then_some(slot);
        match self {
            DenseKeys::Boolean => Arc::new(BooleanArray::from_iter(
                slots.iter().map(|&s| value(s).map(|s| s == 1)),
            )),
            DenseKeys::UInt8 => Arc::new(UInt8Array::from_iter(
                slots.iter().map(|&s| value(s).map(|s| s as u8)),
            )),
            DenseKeys::Int8 => Arc::new(Int8Array::from_iter(
                slots
                    .iter()
                    .map(|&s| value(s).map(|s| (s as u8 ^ 0x80) as i8)),
            )),
            DenseKeys::UInt16 => Arc::new(UInt16Array::from_iter(
                slots.iter().map(|&s| value(s).map(|s| s as u16)),
            )),
            DenseKeys::Int16 => Arc::new(Int16Array::from_iter(
                slots
                    .iter()
                    .map(|&s| value(s).map(|s| (s as u16 ^ 0x8000) as i16)),
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slots_round_trip_at_the_type_limits_and_null() {
        let cases: Vec<(DenseKeys, ArrayRef)> = vec![
            (
                DenseKeys::UInt8,
                Arc::new(UInt8Array::from(vec![Some(0), Some(255), None])),
            ),
            (
                DenseKeys::Int8,
                Arc::new(Int8Array::from(vec![Some(-128), Some(127), None, Some(0)])),
            ),
            (
                DenseKeys::UInt16,
                Arc::new(UInt16Array::from(vec![Some(65535), None, Some(0)])),
            ),
            (
                DenseKeys::Int16,
                Arc::new(Int16Array::from(vec![Some(i16::MIN), Some(i16::MAX), None])),
            ),
            (
                DenseKeys::Boolean,
                Arc::new(BooleanArray::from(vec![Some(true), None, Some(false)])),
            ),
        ];
        for (keys, array) in cases {
            let mut slots = Vec::new();
            keys.slots_of(&array, &mut slots).unwrap();
            assert!(slots.iter().all(|&s| s < keys.slots()));
            assert_eq!(slots.iter().filter(|&&s| s == keys.null_slot()).count(), 1);
            assert_eq!(&keys.keys_of(&slots), &array, "{keys:?}");
        }
    }

    #[test]
    fn signed_keys_keep_their_order_in_slots() {
        let array: ArrayRef = Arc::new(Int16Array::from(vec![-5, -1, 0, 3]));
        let mut slots = Vec::new();
        DenseKeys::Int16.slots_of(&array, &mut slots).unwrap();
        assert!(slots.windows(2).all(|w| w[0] < w[1]));
    }
}
