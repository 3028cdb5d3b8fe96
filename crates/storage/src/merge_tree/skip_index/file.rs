//! The index file: the signature it was built for, then one tagged summary
//! per expression, arrays as LZ4 blocks.

use datafusion::arrow::array::{Array, ArrayRef, AsArray, UInt32Array, UInt64Array, make_array};
use datafusion::arrow::buffer::Buffer;
use datafusion::arrow::datatypes::DataType;
use strata_common::error::{ErrorCode, Result, StrataError};

use super::Summary;
use super::set::UNKNOWN_COUNT;
use crate::compression::{Codec, read_block, write_block};
use crate::part::array_bytes;
use crate::part::bounds;

const TAG_UNKNOWN: u8 = 0;
const TAG_MINMAX: u8 = 1;
const TAG_SET: u8 = 2;
const TAG_BLOOM: u8 = 3;

pub(super) fn encode_summary(summary: &Summary, out: &mut Vec<u8>) -> Result<()> {
    match summary {
        Summary::Unknown => out.push(TAG_UNKNOWN),
        Summary::MinMax(bounds) => {
            out.push(TAG_MINMAX);
            put_bytes(out, &bounds::encode(bounds)?);
        }
        Summary::Set { counts, values } => {
            out.push(TAG_SET);
            put_array(out, counts)?;
            put_array(out, values)?;
        }
        Summary::Bloom {
            hashes,
            starts,
            words,
        } => {
            out.push(TAG_BLOOM);
            out.extend_from_slice(&hashes.to_le_bytes());
            put_array(out, starts)?;
            put_array(out, words)?;
        }
    }
    Ok(())
}

pub(super) fn decode_summary(
    rest: &mut &[u8],
    data_type: &DataType,
    index_granules: usize,
) -> Result<Summary> {
    let (&tag, tail) = rest
        .split_first()
        .ok_or_else(|| corrupted("a summary is cut short"))?;
    *rest = tail;
    Ok(match tag {
        TAG_UNKNOWN => Summary::Unknown,
        TAG_MINMAX => {
            let bytes = get_bytes(rest)?;
            Summary::MinMax(bounds::decode(data_type, bytes, index_granules)?)
        }
        TAG_SET => {
            let counts: UInt32Array = get_array(rest, &DataType::UInt32)?.as_primitive().clone();
            let values = get_array(rest, data_type)?;
            let held = counts.values().iter().filter(|&&c| c != UNKNOWN_COUNT);
            if held.map(|&c| c as usize).sum::<usize>() != values.len() {
                return Err(corrupted("a set's granules do not add up to its values"));
            }
            Summary::Set { counts, values }
        }
        TAG_BLOOM => {
            let hashes = u32::from_le_bytes(take_bytes(rest, 4)?.try_into().expect("4 bytes"));
            let starts: UInt64Array = get_array(rest, &DataType::UInt64)?.as_primitive().clone();
            let words: UInt64Array = get_array(rest, &DataType::UInt64)?.as_primitive().clone();
            // Every granule has bits: a probe takes its hash modulo their count.
            let ordered = starts.values().windows(2).all(|w| w[0] < w[1]);
            if !ordered || starts.values().last().copied() != Some(words.len() as u64) {
                return Err(corrupted("a Bloom filter's granules do not fit its bits"));
            }
            Summary::Bloom {
                hashes,
                starts,
                words,
            }
        }
        _ => return Err(corrupted("an unknown summary kind")),
    })
}

pub(super) fn put_bytes(out: &mut Vec<u8>, bytes: &[u8]) {
    out.extend_from_slice(&(bytes.len() as u64).to_le_bytes());
    out.extend_from_slice(bytes);
}

fn take_bytes<'a>(rest: &mut &'a [u8], len: usize) -> Result<&'a [u8]> {
    if rest.len() < len {
        return Err(corrupted("the file is cut short"));
    }
    let (bytes, tail) = rest.split_at(len);
    *rest = tail;
    Ok(bytes)
}

pub(super) fn get_bytes<'a>(rest: &mut &'a [u8]) -> Result<&'a [u8]> {
    let len = u64::from_le_bytes(take_bytes(rest, 8)?.try_into().expect("8 bytes"));
    let len = usize::try_from(len).map_err(|_| corrupted("a length past memory"))?;
    take_bytes(rest, len)
}

fn put_array(out: &mut Vec<u8>, array: &dyn Array) -> Result<()> {
    let mut encoded = Vec::new();
    array_bytes::encode(&array.to_data(), &mut encoded);
    let mut block = Vec::new();
    write_block(Codec::Lz4, &encoded, &mut block)?;
    put_bytes(out, &block);
    Ok(())
}

fn get_array(rest: &mut &[u8], data_type: &DataType) -> Result<ArrayRef> {
    let (block, _) = read_block(get_bytes(rest)?)?;
    Ok(make_array(array_bytes::decode(
        data_type,
        &Buffer::from(block),
        &mut 0,
    )?))
}

pub(super) fn corrupted(what: &str) -> StrataError {
    StrataError::new(
        ErrorCode::CORRUPTED_DATA,
        format!("Corrupted skipping index: {what}"),
    )
}
