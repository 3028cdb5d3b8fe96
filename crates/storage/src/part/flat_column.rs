//! Granules of a flat column (fixed-width values or strings, with or without
//! NULLs) decoded one after another into the buffers of one array.
//!
//! Decoding each granule into an array of its own and concatenating them
//! copied every value twice after decompression (into aligned buffers, then
//! into the whole); this copies each value once, from a decompressed block
//! that is still in cache. The bytes are those [`super::array_bytes`] writes.

use datafusion::arrow::array::{ArrayData, ArrayRef, BooleanBufferBuilder, make_array};
use datafusion::arrow::buffer::{MutableBuffer, NullBuffer};
use datafusion::arrow::datatypes::DataType;
use strata_common::error::{ErrorCode, Result, StrataError};

use super::array_bytes::{Flags, corrupted, take_byte, take_slice, take_u64};

/// How a flat type lays out its values.
#[derive(Debug, Clone, Copy)]
enum Layout {
    /// Values of this many bytes each.
    Fixed(usize),
    /// Offsets of 4 or 8 bytes, then the bytes of every value.
    Strings { offset_width: usize },
}

/// One array built from granules appended in order.
pub struct FlatColumn {
    data_type: DataType,
    layout: Layout,
    rows: usize,
    values: MutableBuffer,
    /// The strings' end offsets, after a first 0; empty for fixed widths.
    offsets: MutableBuffer,
    /// Created at the first granule with NULLs, with every earlier row valid.
    nulls: Option<BooleanBufferBuilder>,
    /// Whether every string appended is ASCII, so needs no UTF-8 check.
    ascii: bool,
}

impl FlatColumn {
    /// A builder for `rows` rows of `data_type` whose blocks decompress to
    /// `bytes` in all; None when the type is not flat.
    pub fn new(data_type: &DataType, rows: usize, bytes: usize) -> Option<FlatColumn> {
        let layout = match data_type {
            DataType::Utf8 | DataType::Binary => Layout::Strings { offset_width: 4 },
            DataType::LargeUtf8 | DataType::LargeBinary => Layout::Strings { offset_width: 8 },
            DataType::FixedSizeBinary(width) => Layout::Fixed(usize::try_from(*width).ok()?),
            t if t.is_primitive() => Layout::Fixed(t.primitive_width()?),
            _ => return None,
        };
        let (values, mut offsets) = match layout {
            Layout::Fixed(width) => (MutableBuffer::new(rows * width), MutableBuffer::new(0)),
            Layout::Strings { offset_width } => (
                MutableBuffer::new(bytes.saturating_sub(rows * offset_width)),
                MutableBuffer::new((rows + 1) * offset_width),
            ),
        };
        match layout {
            Layout::Strings { offset_width: 4 } => offsets.push(0i32),
            Layout::Strings { .. } => offsets.push(0i64),
            Layout::Fixed(_) => {}
        }
        Some(FlatColumn {
            data_type: data_type.clone(),
            layout,
            rows: 0,
            values,
            offsets,
            nulls: None,
            ascii: true,
        })
    }

    /// Appends the array encoded in `block`, which it must fill exactly;
    /// returns its row count.
    pub fn append(&mut self, block: &[u8]) -> Result<usize> {
        let mut position = 0;
        let rows = take_u64(block, &mut position)? as usize;
        let flags = Flags::read(take_byte(block, &mut position)?, &self.data_type)?;
        let null_bits = match flags.nulls {
            false => None,
            true => Some(take_slice(block, &mut position)?),
        };
        let buffers = take_u64(block, &mut position)?;
        match self.layout {
            Layout::Fixed(width) if buffers == 1 => {
                let values = take_slice(block, &mut position)?;
                let stored = flags.stored.map_or(width, |(_, stored)| stored);
                if Some(values.len()) != rows.checked_mul(stored) {
                    return Err(corrupted("fixed-width values are cut short"));
                }
                match flags.stored {
                    Some((lanes, stored)) => lanes.widen(values, stored, &mut self.values),
                    None => self.values.extend_from_slice(values),
                }
            }
            Layout::Strings { offset_width } if buffers == 2 => {
                let lengths = take_slice(block, &mut position)?;
                let values = take_slice(block, &mut position)?;
                self.append_strings(rows, offset_width, lengths, values)?;
            }
            _ => {
                return Err(corrupted(&format!(
                    "{buffers} buffers for {}",
                    self.data_type
                )));
            }
        }
        if take_u64(block, &mut position)? != 0 || position != block.len() {
            return Err(corrupted(&format!("a flat {} has more", self.data_type)));
        }
        self.append_nulls(rows, null_bits)?;
        self.rows += rows;
        Ok(rows)
    }

    /// The strings of one granule: `lengths` (the first one the offset of the
    /// first string in `values`) rebased onto the values appended so far.
    fn append_strings(
        &mut self,
        rows: usize,
        offset_width: usize,
        lengths: &[u8],
        values: &[u8],
    ) -> Result<()> {
        if rows == 0 && lengths.len() <= offset_width {
            return Ok(());
        }
        if lengths.len() != (rows + 1) * offset_width {
            return Err(corrupted("string lengths are cut short"));
        }
        let limit = match offset_width {
            4 => i32::MAX as u64,
            _ => i64::MAX as u64,
        };
        let length = |chunk: &[u8]| match offset_width {
            4 => u64::from(u32::from_le_bytes(chunk.try_into().expect("4 bytes"))),
            _ => u64::from_le_bytes(chunk.try_into().expect("8 bytes")),
        };
        let mut chunks = lengths.chunks_exact(offset_width);
        let first = length(chunks.next().expect("rows + 1 lengths"));
        let base = self.values.len() as u64;
        let mut end = base;
        for chunk in chunks {
            end += length(chunk);
            match offset_width {
                4 => self.offsets.push(end as i32),
                _ => self.offsets.push(end as i64),
            }
        }
        let used = usize::try_from(first)
            .ok()
            .and_then(|first| Some(first..first.checked_add((end - base) as usize)?))
            .and_then(|range| values.get(range))
            .ok_or_else(|| corrupted("string lengths pass the values"))?;
        if end > limit {
            return Err(StrataError::new(
                ErrorCode::TOO_LARGE_STRING_SIZE,
                format!(
                    "The strings of {} rows of a {} column pass {limit} bytes",
                    self.rows + rows,
                    self.data_type
                ),
            ));
        }
        if matches!(self.data_type, DataType::Utf8 | DataType::LargeUtf8) {
            self.ascii &= used.is_ascii();
        }
        self.values.extend_from_slice(used);
        Ok(())
    }

    fn append_nulls(&mut self, rows: usize, bits: Option<&[u8]>) -> Result<()> {
        let Some(bits) = bits else {
            if let Some(nulls) = &mut self.nulls {
                nulls.append_n(rows, true);
            }
            return Ok(());
        };
        if bits.len() < rows.div_ceil(8) {
            return Err(corrupted("a null bitmap is cut short"));
        }
        let earlier = self.rows;
        let nulls = self.nulls.get_or_insert_with(|| {
            let mut nulls = BooleanBufferBuilder::new(earlier + rows);
            nulls.append_n(earlier, true);
            nulls
        });
        nulls.append_packed_range(0..rows, bits);
        Ok(())
    }

    /// The array of every granule appended.
    pub fn finish(self) -> Result<ArrayRef> {
        let buffers = match self.layout {
            Layout::Fixed(_) => vec![self.values.into()],
            Layout::Strings { .. } => vec![self.offsets.into(), self.values.into()],
        };
        let builder = ArrayData::builder(self.data_type.clone())
            .len(self.rows)
            .buffers(buffers)
            .nulls(self.nulls.map(|mut nulls| NullBuffer::new(nulls.finish())));
        let checked = match self.layout {
            Layout::Fixed(_) => true,
            Layout::Strings { .. } => self.ascii,
        };
        let data = match checked {
            // SAFETY: every granule's values were checked to be `rows` of
            // the width, or ASCII strings with offsets that never decrease
            // and stay within the values, so the array is valid.
            true => unsafe { builder.build_unchecked() },
            false => builder
                .build()
                .map_err(|e| corrupted(&format!("not a valid {}: {e}", self.data_type)))?,
        };
        Ok(make_array(data))
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use datafusion::arrow::array::{
        Array, BinaryArray, Decimal128Array, FixedSizeBinaryArray, Int32Array, LargeStringArray,
        StringArray,
    };

    use super::*;
    use crate::part::array_bytes;

    /// The granules of `array` cut at `cuts`, through the flat builder.
    fn rebuilt(array: &ArrayRef, cuts: &[usize]) -> Result<ArrayRef> {
        let mut flat = FlatColumn::new(array.data_type(), array.len(), 0).expect("a flat type");
        let mut start = 0;
        for &end in cuts.iter().chain([&array.len()]) {
            let mut block = Vec::new();
            array_bytes::encode(&array.slice(start, end - start).to_data(), &mut block);
            assert_eq!(flat.append(&block)?, end - start);
            start = end;
        }
        flat.finish()
    }

    #[test]
    fn granules_concatenate_to_the_array_they_were_cut_from() {
        let arrays: Vec<ArrayRef> = vec![
            Arc::new(Int32Array::from(vec![
                Some(1),
                Some(2),
                None,
                Some(4),
                Some(5),
            ])),
            Arc::new(Int32Array::from(vec![1, 2, 3, 4, 5])),
            Arc::new(
                Decimal128Array::from(vec![1, -2, 3, 4, 10i128.pow(30)])
                    .with_precision_and_scale(38, 2)
                    .unwrap(),
            ),
            Arc::new(StringArray::from(vec![
                Some("a"),
                Some(""),
                None,
                Some("ünï"),
                Some("ccc"),
            ])),
            Arc::new(StringArray::from(vec!["a", "bb", "", "dddd", "e"])),
            Arc::new(LargeStringArray::from(vec!["a", "bb", "", "dddd", "e"])),
            Arc::new(BinaryArray::from(vec![
                &b"\xff"[..],
                b"",
                b"\x00",
                b"a",
                b"\x80",
            ])),
            Arc::new(
                FixedSizeBinaryArray::try_from_iter(
                    vec![[1u8, 2], [3, 4], [5, 6], [7, 8], [9, 0]].into_iter(),
                )
                .unwrap(),
            ),
        ];
        for array in &arrays {
            for cuts in [&[][..], &[1], &[2, 3], &[1, 2, 3, 4], &[0, 5]] {
                let rebuilt = rebuilt(array, cuts).unwrap();
                assert_eq!(rebuilt.as_ref(), array.as_ref(), "{cuts:?}");
                rebuilt.to_data().validate_full().unwrap();
            }
        }
    }

    #[test]
    fn nested_and_boolean_columns_are_not_flat() {
        assert!(FlatColumn::new(&DataType::Boolean, 1, 1).is_none());
        let list = DataType::new_list(DataType::Int32, true);
        assert!(FlatColumn::new(&list, 1, 1).is_none());
    }

    #[test]
    fn damaged_granules_fail_cleanly() {
        let array: ArrayRef = Arc::new(StringArray::from(vec!["é", "e", "abc"]));
        let mut block = Vec::new();
        array_bytes::encode(&array.to_data(), &mut block);
        for cut in 0..block.len() {
            let mut flat = FlatColumn::new(&DataType::Utf8, 3, 0).unwrap();
            assert_eq!(
                flat.append(&block[..cut]).unwrap_err().code,
                ErrorCode::CORRUPTED_DATA
            );
        }
        let mut flat = FlatColumn::new(&DataType::Int64, 3, 0).unwrap();
        assert!(flat.append(&block).is_err());
        // A length that splits "é" passes every bound and fails as UTF-8.
        let first_length = 8 + 1 + 8 + 8 + 4;
        block[first_length] = 1;
        block[first_length + 4] = 2;
        let mut flat = FlatColumn::new(&DataType::Utf8, 3, 0).unwrap();
        flat.append(&block).unwrap();
        assert_eq!(flat.finish().unwrap_err().code, ErrorCode::CORRUPTED_DATA);
        // Lengths past the values.
        block[first_length] = 200;
        let mut flat = FlatColumn::new(&DataType::Utf8, 3, 0).unwrap();
        assert!(flat.append(&block).is_err());
    }
}
