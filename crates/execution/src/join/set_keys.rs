//! The keys of a semi or anti join as values a hash set holds and a spill
//! block stores: fixed-width keys packed into one 64- or 128-bit word (the
//! packing GROUP BY uses), any other keys as Arrow's row format bytes.

use std::hash::{BuildHasher, Hash, Hasher};

use datafusion::arrow::array::ArrayRef;
use datafusion::arrow::row::{RowConverter, SortField};
use datafusion::common::{Result, internal_err};

use crate::fixed_keys::{FixedKeys, PackedWord};

/// How one side's key columns become set keys; both sides use the same.
pub enum KeyEncoder {
    Packed(FixedKeys),
    Rows(RowConverter),
}

impl KeyEncoder {
    pub fn rows(fields: Vec<SortField>) -> Result<Self> {
        Ok(KeyEncoder::Rows(RowConverter::new(fields)?))
    }
}

/// A key in a set: hashable for the partition it belongs to, sized for the
/// memory account, and storable as bytes.
pub trait SetKey: Hash + Eq + Clone + Send + Sync + Sized + 'static {
    /// Picks the key's partition; independent of the set's own hash.
    fn partition_hash(&self) -> u64;
    /// Heap bytes the key owns beyond its slot in a table.
    fn heap_bytes(&self) -> usize;
    fn encode(keys: &[Self], out: &mut Vec<u8>);
    fn decode(bytes: &[u8]) -> Result<Vec<Self>>;
    /// The keys of rows of `columns`, one per row.
    fn extract(encoder: &KeyEncoder, columns: &[ArrayRef]) -> Result<Vec<Self>>;
}

fn packed<W: PackedWord>(encoder: &KeyEncoder, columns: &[ArrayRef]) -> Result<Vec<W>> {
    let KeyEncoder::Packed(keys) = encoder else {
        return internal_err!("word keys need a packing");
    };
    let mut words = Vec::new();
    keys.pack(columns, &mut words)?;
    Ok(words)
}

impl SetKey for u64 {
    fn partition_hash(&self) -> u64 {
        PackedWord::hash(*self)
    }

    fn heap_bytes(&self) -> usize {
        0
    }

    fn encode(keys: &[Self], out: &mut Vec<u8>) {
        out.reserve(keys.len() * 8);
        for key in keys {
            out.extend_from_slice(&key.to_le_bytes());
        }
    }

    fn decode(bytes: &[u8]) -> Result<Vec<Self>> {
        if !bytes.len().is_multiple_of(8) {
            return internal_err!("a block of 64-bit keys holds {} bytes", bytes.len());
        }
        Ok(bytes
            .chunks_exact(8)
            .map(|c| u64::from_le_bytes(c.try_into().expect("8 bytes")))
            .collect())
    }

    fn extract(encoder: &KeyEncoder, columns: &[ArrayRef]) -> Result<Vec<Self>> {
        packed(encoder, columns)
    }
}

impl SetKey for u128 {
    fn partition_hash(&self) -> u64 {
        PackedWord::hash(*self)
    }

    fn heap_bytes(&self) -> usize {
        0
    }

    fn encode(keys: &[Self], out: &mut Vec<u8>) {
        out.reserve(keys.len() * 16);
        for key in keys {
            out.extend_from_slice(&key.to_le_bytes());
        }
    }

    fn decode(bytes: &[u8]) -> Result<Vec<Self>> {
        if !bytes.len().is_multiple_of(16) {
            return internal_err!("a block of 128-bit keys holds {} bytes", bytes.len());
        }
        Ok(bytes
            .chunks_exact(16)
            .map(|c| u128::from_le_bytes(c.try_into().expect("16 bytes")))
            .collect())
    }

    fn extract(encoder: &KeyEncoder, columns: &[ArrayRef]) -> Result<Vec<Self>> {
        packed(encoder, columns)
    }
}

/// A row-format key: any column types, compared as bytes.
pub type RowKey = Box<[u8]>;

impl SetKey for RowKey {
    fn partition_hash(&self) -> u64 {
        let mut hasher = SetHasher(0x51_7c_c1_b7_27_22_0a_95);
        hasher.write(self);
        PackedWord::hash(hasher.0)
    }

    fn heap_bytes(&self) -> usize {
        // The allocation and the box's own pointer and length.
        self.len() + 16
    }

    fn encode(keys: &[Self], out: &mut Vec<u8>) {
        for key in keys {
            out.extend_from_slice(&(key.len() as u32).to_le_bytes());
            out.extend_from_slice(key);
        }
    }

    fn decode(mut bytes: &[u8]) -> Result<Vec<Self>> {
        let mut keys = Vec::new();
        while !bytes.is_empty() {
            let Some((length, rest)) = bytes.split_first_chunk::<4>() else {
                return internal_err!("a block of row keys ends inside a length");
            };
            let length = u32::from_le_bytes(*length) as usize;
            if rest.len() < length {
                return internal_err!("a block of row keys ends inside a key");
            }
            keys.push(rest[..length].into());
            bytes = &rest[length..];
        }
        Ok(keys)
    }

    fn extract(encoder: &KeyEncoder, columns: &[ArrayRef]) -> Result<Vec<Self>> {
        let KeyEncoder::Rows(converter) = encoder else {
            return internal_err!("row keys need a row converter");
        };
        let rows = converter.convert_columns(columns)?;
        Ok(rows.iter().map(|row| row.as_ref().into()).collect())
    }
}

/// The hash of the sets themselves. It mixes differently from
/// [`SetKey::partition_hash`], whose top bits are equal for every key of a
/// partition and would crowd a table that used them.
#[derive(Debug, Default, Clone, Copy)]
pub struct SetHasher(u64);

const SET_MULTIPLIER: u64 = 0xd6e8_feb8_6659_fd93;

impl Hasher for SetHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for chunk in &mut chunks {
            self.write_u64(u64::from_le_bytes(chunk.try_into().expect("8 bytes")));
        }
        let mut tail = [0u8; 8];
        tail[..chunks.remainder().len()].copy_from_slice(chunks.remainder());
        self.write_u64(u64::from_le_bytes(tail) ^ bytes.len() as u64);
    }

    fn write_u64(&mut self, value: u64) {
        let product = u128::from(self.0 ^ value) * u128::from(SET_MULTIPLIER);
        self.0 = (product as u64) ^ ((product >> 64) as u64);
    }

    fn write_u128(&mut self, value: u128) {
        self.write_u64(value as u64);
        self.write_u64((value >> 64) as u64);
    }

    fn write_usize(&mut self, value: usize) {
        self.write_u64(value as u64);
    }
}

#[derive(Debug, Default, Clone, Copy)]
pub struct BuildSetHasher;

impl BuildHasher for BuildSetHasher {
    type Hasher = SetHasher;

    fn build_hasher(&self) -> SetHasher {
        SetHasher(0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_round_trip_through_blocks() {
        let words: Vec<u64> = vec![0, 1, u64::MAX, 42];
        let mut bytes = Vec::new();
        u64::encode(&words, &mut bytes);
        assert_eq!(u64::decode(&bytes).unwrap(), words);

        let wide: Vec<u128> = vec![0, u128::MAX, 1 << 100];
        let mut bytes = Vec::new();
        u128::encode(&wide, &mut bytes);
        assert_eq!(u128::decode(&bytes).unwrap(), wide);

        let rows: Vec<RowKey> = vec![b"".to_vec().into(), b"abc".to_vec().into()];
        let mut bytes = Vec::new();
        RowKey::encode(&rows, &mut bytes);
        assert_eq!(RowKey::decode(&bytes).unwrap(), rows);
        assert!(RowKey::decode(&bytes[..bytes.len() - 1]).is_err());
    }
}
