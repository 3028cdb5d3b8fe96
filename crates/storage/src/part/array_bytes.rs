//! A column's granule as bytes: Arrow's own buffers, laid end to end.
//!
//! Writing the buffers as Arrow holds them serves every type the same way
//! (fixed-width, strings, nullable, arrays, dictionaries) and reads back
//! without parsing values one by one. Two changes: offsets (of strings and
//! arrays) are written as lengths, which repeat where offsets never do, so
//! the block codec above, which is where the size is won, compresses them
//! about as well as ClickHouse's length prefixes; and integer values are
//! written in the fewest bytes that hold a granule's values ([`Lanes`]).
//! Reading validates the layout, so bytes that passed the checksum yet are
//! not a valid array fail with an error instead of producing a broken array.

use datafusion::arrow::array::{ArrayData, MutableArrayData};
use datafusion::arrow::buffer::{Buffer, MutableBuffer};
use datafusion::arrow::datatypes::DataType;
use strata_common::error::{ErrorCode, Result, StrataError};

use super::lanes::Lanes;

/// Appends `data` as if copied to start at offset 0 with buffers cut to
/// its rows.
pub fn encode(data: &ArrayData, out: &mut Vec<u8>) {
    if encode_flat(data, out) {
        return;
    }
    let mut compact = MutableArrayData::new(vec![data], false, data.len());
    compact
        .try_extend(0, 0, data.len())
        .expect("a slice of one array fits in a copy of it");
    encode_compact(&compact.freeze(), out);
}

/// Writes a slice of a flat array without NULLs (fixed-width values or
/// strings, most of what tables hold) straight from its buffers, byte for
/// byte as [`encode_compact`] writes its copy; `false` for any other array.
fn encode_flat(data: &ArrayData, out: &mut Vec<u8>) -> bool {
    if data.null_count() > 0 || !data.child_data().is_empty() {
        return false;
    }
    let (start, len) = (data.offset(), data.len());
    match data.data_type() {
        DataType::Utf8 | DataType::Binary => {
            let offsets = &data.buffer::<i32>(0)[start..=start + len];
            let mut lengths = Vec::with_capacity(offsets.len() * 4);
            lengths.extend_from_slice(&0u32.to_le_bytes());
            for pair in offsets.windows(2) {
                lengths.extend_from_slice(&((pair[1] - pair[0]) as u32).to_le_bytes());
            }
            let values = &data.buffers()[1].as_slice()
                [offsets[0] as usize..offsets[offsets.len() - 1] as usize];
            put_u64(out, len as u64);
            out.push(0);
            put_u64(out, 2);
            put_bytes(out, &lengths);
            put_bytes(out, values);
        }
        data_type if data_type.is_primitive() => {
            let width = data_type
                .primitive_width()
                .expect("primitive types have a width");
            let values = &data.buffers()[0].as_slice()[start * width..(start + len) * width];
            let stored = Lanes::of(data_type).and_then(|lanes| lanes.narrowest(values));
            put_u64(out, len as u64);
            out.push(flags(false, stored));
            put_u64(out, 1);
            put_values(out, data_type, values, stored);
        }
        _ => return false,
    }
    put_u64(out, 0);
    true
}

fn encode_compact(data: &ArrayData, out: &mut Vec<u8>) {
    debug_assert_eq!(data.offset(), 0, "copied arrays start at offset 0");
    put_u64(out, data.len() as u64);
    let stored = match data.data_type().is_primitive() {
        true => Lanes::of(data.data_type())
            .and_then(|lanes| lanes.narrowest(data.buffers()[0].as_slice())),
        false => None,
    };
    match data.nulls() {
        Some(nulls) if nulls.null_count() > 0 => {
            out.push(flags(true, stored));
            let bits = nulls.inner().sliced();
            put_bytes(out, bits.as_slice());
        }
        _ => out.push(flags(false, stored)),
    }
    put_u64(out, data.buffers().len() as u64);
    for (index, buffer) in data.buffers().iter().enumerate() {
        match offset_width(data.data_type()) {
            Some(width) if index == 0 => put_bytes(out, &deltas(buffer.as_slice(), width)),
            None if index == 0 && data.data_type().is_primitive() => {
                put_values(out, data.data_type(), buffer.as_slice(), stored)
            }
            _ => put_bytes(out, buffer.as_slice()),
        }
    }
    put_u64(out, data.child_data().len() as u64);
    for child in data.child_data() {
        encode_compact(child, out);
    }
}

/// Reads one array of `data_type` from `block` at `*position`, advancing
/// it. Buffers are slices of `block`, not copies, where their alignment
/// allows.
pub fn decode(data_type: &DataType, block: &Buffer, position: &mut usize) -> Result<ArrayData> {
    let len = take_u64(block, position)? as usize;
    let Flags { nulls, stored } = Flags::read(take_byte(block, position)?, data_type)?;
    let nulls = match nulls {
        false => None,
        true => Some(take_bytes(block, position)?),
    };
    let buffer_count = take_u64(block, position)? as usize;
    let mut buffers = Vec::with_capacity(buffer_count.min(4));
    let mut offsets_in_order = false;
    for index in 0..buffer_count {
        let raw = take_bytes(block, position)?;
        match (offset_width(data_type), stored) {
            (Some(width), _) if index == 0 => {
                let (offsets, in_order) = running_sums(&raw, width)?;
                offsets_in_order = in_order;
                buffers.push(Buffer::from(offsets));
            }
            (None, Some((lanes, stored))) if index == 0 => {
                if !raw.len().is_multiple_of(stored) {
                    return Err(corrupted("narrowed values are cut short"));
                }
                let mut wide = MutableBuffer::new(raw.len() / stored * data_type_width(data_type));
                lanes.widen(&raw, stored, &mut wide);
                buffers.push(wide.into());
            }
            _ => buffers.push(raw),
        }
    }
    let child_types = child_types(data_type);
    let child_count = take_u64(block, position)? as usize;
    if child_count != child_types.len() {
        return Err(corrupted(&format!(
            "{child_count} child arrays for {data_type}, which has {}",
            child_types.len()
        )));
    }
    let children = child_types
        .iter()
        .map(|child| decode(child, block, position))
        .collect::<Result<Vec<_>>>()?;
    if nulls
        .as_ref()
        .is_some_and(|bits| bits.len() < len.div_ceil(8))
    {
        return Err(corrupted("a null bitmap is cut short"));
    }
    let builder = ArrayData::builder(data_type.clone())
        .len(len)
        .null_bit_buffer(nulls)
        .buffers(buffers)
        .child_data(children)
        .align_buffers(true);
    // SAFETY: the array is returned only once it is known valid: as ASCII
    // strings with sound offsets, or by Arrow's full check.
    let data = unsafe { builder.build_unchecked() };
    if !(offsets_in_order && ascii_strings(&data)) {
        data.validate_data()
            .map_err(|e| corrupted(&format!("not a valid {data_type} array: {e}")))?;
    }
    Ok(data)
}

/// Whether `data`, a string array whose offsets never decrease, is valid
/// with all-ASCII text. Arrow's full check of every string's UTF-8
/// boundaries is a large part of a string scan; ASCII text has a boundary
/// after every byte, so offsets within the values are all it needs.
fn ascii_strings(data: &ArrayData) -> bool {
    if !matches!(data.data_type(), DataType::Utf8 | DataType::LargeUtf8) || data.validate().is_err()
    {
        return false;
    }
    let values = data.buffers()[1].as_slice();
    let last = match data.data_type() {
        DataType::Utf8 => data.buffer::<i32>(0).last().map(|&o| o as usize),
        _ => data.buffer::<i64>(0).last().map(|&o| o as usize),
    };
    last.is_some_and(|last| last <= values.len()) && values.is_ascii()
}

/// Bytes per offset where the first buffer of `data_type` holds offsets.
fn offset_width(data_type: &DataType) -> Option<usize> {
    match data_type {
        DataType::Utf8 | DataType::Binary | DataType::List(_) => Some(4),
        DataType::LargeUtf8 | DataType::LargeBinary | DataType::LargeList(_) => Some(8),
        _ => None,
    }
}

/// Offsets as each one's difference from the one before (the first as is).
fn deltas(offsets: &[u8], width: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(offsets.len());
    match width {
        4 => {
            let mut previous = 0u32;
            for chunk in offsets.chunks_exact(4) {
                let value = u32::from_le_bytes(chunk.try_into().expect("4 bytes"));
                out.extend_from_slice(&value.wrapping_sub(previous).to_le_bytes());
                previous = value;
            }
        }
        _ => {
            let mut previous = 0u64;
            for chunk in offsets.chunks_exact(8) {
                let value = u64::from_le_bytes(chunk.try_into().expect("8 bytes"));
                out.extend_from_slice(&value.wrapping_sub(previous).to_le_bytes());
                previous = value;
            }
        }
    }
    out
}

/// The inverse of [`deltas`].
/// Also says whether the sums stay within the offsets' signed type, which,
/// lengths being unsigned, makes them non-decreasing and non-negative.
fn running_sums(lengths: &[u8], width: usize) -> Result<(Vec<u8>, bool)> {
    if !lengths.len().is_multiple_of(width) {
        return Err(corrupted("offsets are cut short"));
    }
    let mut out = vec![0u8; lengths.len()];
    let mut total = 0u128;
    match width {
        4 => {
            let mut sum = 0u32;
            for (from, to) in lengths.chunks_exact(4).zip(out.chunks_exact_mut(4)) {
                let length = u32::from_le_bytes(from.try_into().expect("4 bytes"));
                total += u128::from(length);
                sum = sum.wrapping_add(length);
                to.copy_from_slice(&sum.to_le_bytes());
            }
            Ok((out, total <= i32::MAX as u128))
        }
        _ => {
            let mut sum = 0u64;
            for (from, to) in lengths.chunks_exact(8).zip(out.chunks_exact_mut(8)) {
                let length = u64::from_le_bytes(from.try_into().expect("8 bytes"));
                total += u128::from(length);
                sum = sum.wrapping_add(length);
                to.copy_from_slice(&sum.to_le_bytes());
            }
            Ok((out, total <= i64::MAX as u128))
        }
    }
}

/// The types of the child arrays Arrow keeps for `data_type`.
fn child_types(data_type: &DataType) -> Vec<DataType> {
    match data_type {
        DataType::List(field) | DataType::LargeList(field) | DataType::FixedSizeList(field, _) => {
            vec![field.data_type().clone()]
        }
        DataType::Struct(fields) => fields.iter().map(|f| f.data_type().clone()).collect(),
        DataType::Map(field, _) => vec![field.data_type().clone()],
        DataType::Dictionary(_, values) => vec![values.as_ref().clone()],
        _ => Vec::new(),
    }
}

/// The byte after an array's length: bit 0 says it has a null bitmap, the
/// high four bits the bytes each value is stored in where they are fewer
/// than the type's ([`Lanes`]; 0: as Arrow holds them).
fn flags(nulls: bool, stored: Option<usize>) -> u8 {
    u8::from(nulls) | (stored.unwrap_or(0) as u8) << 4
}

/// The flags of an array of `data_type`, read.
pub(super) struct Flags {
    pub nulls: bool,
    /// The lanes and the bytes each value is stored in, when fewer.
    pub stored: Option<(Lanes, usize)>,
}

impl Flags {
    pub(super) fn read(byte: u8, data_type: &DataType) -> Result<Flags> {
        let nulls = match byte & 0x0f {
            0 => false,
            1 => true,
            other => return Err(corrupted(&format!("null flag {other}"))),
        };
        let stored = match (byte >> 4) as usize {
            0 => None,
            stored => match Lanes::of(data_type) {
                Some(lanes) if lanes.stores_in(stored) => Some((lanes, stored)),
                _ => {
                    return Err(corrupted(&format!(
                        "values of {data_type} stored in {stored} bytes"
                    )));
                }
            },
        };
        Ok(Flags { nulls, stored })
    }
}

/// Writes `values` of `data_type` in `stored` bytes each, or as they are.
fn put_values(out: &mut Vec<u8>, data_type: &DataType, values: &[u8], stored: Option<usize>) {
    match stored.zip(Lanes::of(data_type)) {
        Some((stored, lanes)) => {
            put_u64(
                out,
                (values.len() / data_type_width(data_type) * stored) as u64,
            );
            lanes.narrow(values, stored, out);
        }
        None => put_bytes(out, values),
    }
}

fn data_type_width(data_type: &DataType) -> usize {
    data_type
        .primitive_width()
        .expect("narrowed values are primitive")
}

fn put_u64(out: &mut Vec<u8>, value: u64) {
    out.extend_from_slice(&value.to_le_bytes());
}

fn put_bytes(out: &mut Vec<u8>, bytes: &[u8]) {
    put_u64(out, bytes.len() as u64);
    out.extend_from_slice(bytes);
}

pub(super) fn take_byte(block: &[u8], position: &mut usize) -> Result<u8> {
    let byte = *block
        .get(*position)
        .ok_or_else(|| corrupted("an array is cut short"))?;
    *position += 1;
    Ok(byte)
}

pub(super) fn take_u64(block: &[u8], position: &mut usize) -> Result<u64> {
    let Some(head) = block
        .get(*position..)
        .and_then(|rest| rest.first_chunk::<8>())
    else {
        return Err(corrupted("an array is cut short"));
    };
    *position += 8;
    Ok(u64::from_le_bytes(*head))
}

/// The buffer at `*position`, written as its length and its bytes.
pub(super) fn take_slice<'a>(block: &'a [u8], position: &mut usize) -> Result<&'a [u8]> {
    let len = take_u64(block, position)?;
    let bytes = usize::try_from(len)
        .ok()
        .and_then(|len| block.get(*position..)?.get(..len))
        .ok_or_else(|| corrupted("an array buffer is cut short"))?;
    *position += bytes.len();
    Ok(bytes)
}

/// [`take_slice`] as a slice of `block`, not a copy.
fn take_bytes(block: &Buffer, position: &mut usize) -> Result<Buffer> {
    let len = take_slice(block, position)?.len();
    Ok(block.slice_with_length(*position - len, len))
}

pub(super) fn corrupted(what: &str) -> StrataError {
    StrataError::new(ErrorCode::CORRUPTED_DATA, format!("Corrupted data: {what}"))
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use datafusion::arrow::array::{
        Array, ArrayRef, DictionaryArray, FixedSizeBinaryArray, Int64Array, ListArray, StringArray,
        TimestampSecondArray,
    };
    use datafusion::arrow::datatypes::{Int32Type, Int64Type};

    use super::*;

    fn round_trip(array: ArrayRef) {
        let mut bytes = Vec::new();
        encode(&array.to_data(), &mut bytes);
        let block = Buffer::from(bytes);
        let mut position = 0;
        let read = decode(array.data_type(), &block, &mut position).unwrap();
        assert_eq!(position, block.len());
        assert_eq!(
            datafusion::arrow::array::make_array(read).as_ref(),
            array.as_ref()
        );
    }

    #[test]
    fn every_layout_round_trips_including_slices() {
        let strings: ArrayRef = Arc::new(StringArray::from(vec![
            Some("a"),
            None,
            Some("ccc"),
            Some(""),
            Some("ünïcödé"),
        ]));
        let ints: ArrayRef = Arc::new(Int64Array::from(vec![Some(i64::MIN), None, Some(i64::MAX)]));
        let list: ArrayRef = Arc::new(ListArray::from_iter_primitive::<Int64Type, _, _>(vec![
            Some(vec![Some(1), None]),
            None,
            Some(vec![]),
        ]));
        let dictionary: ArrayRef = Arc::new(
            vec![Some("x"), None, Some("y"), Some("x")]
                .into_iter()
                .collect::<DictionaryArray<Int32Type>>(),
        );
        let fixed: ArrayRef = Arc::new(
            FixedSizeBinaryArray::try_from_iter(vec![[1u8, 2], [3, 4], [5, 6]].into_iter())
                .unwrap(),
        );
        let dates: ArrayRef =
            Arc::new(TimestampSecondArray::from(vec![0, 86_400]).with_timezone("UTC"));
        for array in [strings, ints, list, dictionary, fixed, dates] {
            round_trip(Arc::clone(&array));
            round_trip(array.slice(1, array.len() - 1));
        }
    }

    #[test]
    fn flat_arrays_are_written_as_their_copies_are() {
        let arrays: Vec<ArrayRef> = vec![
            Arc::new(StringArray::from(vec!["a", "", "ccc", "dddd", "ünï"])),
            Arc::new(Int64Array::from(vec![1, -2, 3, i64::MAX, 0])),
            Arc::new(TimestampSecondArray::from(vec![0, 86_400, 1, 2, 3]).with_timezone("UTC")),
        ];
        for array in arrays {
            for (start, len) in [(0, 5), (1, 3), (4, 1), (2, 0)] {
                let slice = array.slice(start, len).to_data();
                let mut flat = Vec::new();
                assert!(encode_flat(&slice, &mut flat));
                let mut compact = MutableArrayData::new(vec![&slice], false, len);
                compact.try_extend(0, 0, len).unwrap();
                let mut copied = Vec::new();
                encode_compact(&compact.freeze(), &mut copied);
                assert_eq!(flat, copied, "{} {start}+{len}", array.data_type());
            }
        }
    }

    #[test]
    fn a_slice_writes_only_its_rows() {
        let array = Int64Array::from_iter_values(0..10_000);
        let mut bytes = Vec::new();
        encode(&array.slice(0, 10).to_data(), &mut bytes);
        assert!(bytes.len() < 200, "{} bytes for 10 rows", bytes.len());
    }

    #[test]
    fn damaged_layouts_fail_cleanly() {
        let array = StringArray::from(vec!["abc", "de"]);
        let mut bytes = Vec::new();
        encode(&array.to_data(), &mut bytes);
        for cut in 0..bytes.len() {
            let block = Buffer::from(&bytes[..cut]);
            assert_eq!(
                decode(&DataType::Utf8, &block, &mut 0).unwrap_err().code,
                ErrorCode::CORRUPTED_DATA
            );
        }
        assert!(decode(&DataType::Int64, &Buffer::from(bytes.clone()), &mut 0).is_err());
        // Lengths past the values, and a multi-byte character split by a
        // length: both fail, whichever way the strings are checked.
        let first_length = 8 + 1 + 8 + 8 + 4;
        bytes[first_length] = 200;
        assert!(decode(&DataType::Utf8, &Buffer::from(bytes), &mut 0).is_err());
        let mut bytes = Vec::new();
        encode(&StringArray::from(vec!["é", "e"]).to_data(), &mut bytes);
        bytes[first_length] = 1;
        bytes[first_length + 4] = 2;
        assert!(decode(&DataType::Utf8, &Buffer::from(bytes), &mut 0).is_err());
    }
}
