//! The hashes ClickHouse computes over any number of arguments of any type
//! (`sipHash64`, `murmurHash3_128`, `farmHash64`, ...), with its exact
//! results: a string hashes its bytes; a number hashes its little-endian
//! bytes, or, for the functions that hash numbers as integers, its bits
//! through `intHash64`; a UUID its two 64-bit halves; a tuple's elements
//! count as separate arguments; an array starts from the hash of its length
//! and folds in each element's hash. Each further argument's hash is
//! combined with the row's hash so far by the function's own rule, and a
//! NULL argument makes the row NULL. Without arguments every row gets one
//! fixed seed value.

use std::io::Cursor;
use std::sync::Arc;

use cityhash_102_rs::{U128, hash128_to_64};
use datafusion::arrow::array::{
    Array, ArrayRef, AsArray, FixedSizeBinaryBuilder, StructArray, UInt32Array, UInt64Array,
};
use datafusion::arrow::datatypes::{DataType, Field, UInt64Type};
use datafusion::common::Result;
use md5::Digest;
use strata_common::ErrorCode;
use strata_common::types::is_uuid;

use super::udf::{Args, Call, error};
use crate::hashing::{int_hash32, int_hash64, is_null_at, value_bytes};

/// What every row of a call without arguments hashes to.
const SEED: u128 = 0xe28d_bde7_fe22_e41c;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum AnyHash {
    HalfMd5,
    SipHash64,
    SipHash128,
    SipHash128Reference,
    FarmFingerprint64,
    FarmHash64,
    MetroHash64,
    MurmurHash2_32,
    MurmurHash2_64,
    GccMurmurHash,
    KafkaMurmurHash,
    MurmurHash3_32,
    MurmurHash3_64,
    MurmurHash3_128,
    WyHash64,
    Xxh3,
}

/// The SipHash key: zero for the unkeyed functions.
type Key = (u64, u64);

impl AnyHash {
    fn bits(self) -> u32 {
        match self {
            AnyHash::MurmurHash2_32 | AnyHash::KafkaMurmurHash | AnyHash::MurmurHash3_32 => 32,
            AnyHash::SipHash128 | AnyHash::SipHash128Reference | AnyHash::MurmurHash3_128 => 128,
            _ => 64,
        }
    }

    /// Whether numbers hash as `intHash64` of their bits rather than as bytes.
    fn int_hash_for_numbers(self) -> bool {
        matches!(
            self,
            AnyHash::FarmFingerprint64 | AnyHash::FarmHash64 | AnyHash::MetroHash64
        )
    }

    /// The hash of some bytes.
    fn apply(self, key: Key, bytes: &[u8]) -> u128 {
        match self {
            AnyHash::HalfMd5 => {
                let digest = md5::Md5::digest(bytes);
                u128::from(u64::from_be_bytes(digest[..8].try_into().expect("8 bytes")))
            }
            AnyHash::SipHash64 => u128::from(sip_hash64(key, bytes)),
            AnyHash::SipHash128 => sip_hash128(key, bytes, false),
            AnyHash::SipHash128Reference => sip_hash128(key, bytes, true),
            AnyHash::FarmFingerprint64 => u128::from(farmhash::fingerprint64(bytes)),
            AnyHash::FarmHash64 => u128::from(farmhash::hash64(bytes)),
            AnyHash::MetroHash64 => u128::from(metro_hash64(bytes)),
            AnyHash::MurmurHash2_32 => u128::from(murmur2_32(bytes, 0)),
            AnyHash::KafkaMurmurHash => u128::from(murmur2_32(bytes, 0x9747_b28c) & 0x7fff_ffff),
            AnyHash::MurmurHash2_64 => u128::from(murmur2_64(bytes)),
            AnyHash::GccMurmurHash => u128::from(gcc_murmur(bytes)),
            AnyHash::MurmurHash3_32 => {
                u128::from(murmur3::murmur3_32(&mut Cursor::new(bytes), 0).expect("in memory"))
            }
            AnyHash::MurmurHash3_64 => {
                let h = murmur3_128(bytes);
                u128::from(h as u64 ^ (h >> 64) as u64)
            }
            AnyHash::MurmurHash3_128 => murmur3_128(bytes),
            AnyHash::WyHash64 => u128::from(wy_hash64(bytes)),
            AnyHash::Xxh3 => u128::from(twox_hash::XxHash3_64::oneshot(bytes)),
        }
    }

    /// The hash of a row from its hash so far and the next argument's.
    fn combine(self, key: Key, previous: u128, next: u128) -> u128 {
        match self {
            AnyHash::MurmurHash2_32 | AnyHash::KafkaMurmurHash | AnyHash::MurmurHash3_32 => {
                u128::from(int_hash32(previous as u64) as u64 ^ next as u64)
            }
            AnyHash::MurmurHash2_64 | AnyHash::GccMurmurHash | AnyHash::MurmurHash3_64 => {
                u128::from(int_hash64(previous as u64) ^ next as u64)
            }
            AnyHash::FarmHash64 | AnyHash::MetroHash64 | AnyHash::Xxh3 => {
                u128::from(hash128_to_64(U128::from((next << 64) | previous)))
            }
            AnyHash::FarmFingerprint64 => u128::from(fingerprint128(previous as u64, next as u64)),
            // The rest hash the two hashes' little-endian bytes.
            _ => {
                let width = (self.bits() / 8) as usize;
                let mut bytes = [0u8; 32];
                bytes[..width].copy_from_slice(&previous.to_le_bytes()[..width]);
                bytes[width..2 * width].copy_from_slice(&next.to_le_bytes()[..width]);
                self.apply(key, &bytes[..2 * width])
            }
        }
    }

    /// The hash an array's elements are folded into: that of its length.
    fn length_hash(self, length: usize) -> u128 {
        match self.bits() {
            64 => u128::from(int_hash64(length as u64)),
            _ => u128::from(int_hash32(length as u64)),
        }
    }
}

fn sip_hash64(key: Key, bytes: &[u8]) -> u64 {
    use std::hash::Hasher;
    let mut hasher = siphasher::sip::SipHasher24::new_with_keys(key.0, key.1);
    hasher.write(bytes);
    hasher.finish()
}

/// SipHash-2-4 with a 128-bit result: the reference algorithm, or
/// ClickHouse's own `sipHash128`, which finishes as the 64-bit hash does
/// and splits the state into its two halves.
fn sip_hash128(key: Key, bytes: &[u8], reference: bool) -> u128 {
    let mut v = [
        key.0 ^ 0x736f_6d65_7073_6575,
        key.1 ^ 0x646f_7261_6e64_6f6d,
        key.0 ^ 0x6c79_6765_6e65_7261,
        key.1 ^ 0x7465_6462_7974_6573,
    ];
    if reference {
        v[1] ^= 0xee;
    }
    let mut chunks = bytes.chunks_exact(8);
    for chunk in &mut chunks {
        sip_compress(
            &mut v,
            u64::from_le_bytes(chunk.try_into().expect("8 bytes")),
        );
    }
    let mut last = [0u8; 8];
    last[..chunks.remainder().len()].copy_from_slice(chunks.remainder());
    last[7] = bytes.len() as u8;
    sip_compress(&mut v, u64::from_le_bytes(last));
    if !reference {
        v[2] ^= 0xff;
        sip_rounds(&mut v, 4);
        return u128::from(v[0] ^ v[1]) | (u128::from(v[2] ^ v[3]) << 64);
    }
    v[2] ^= 0xee;
    sip_rounds(&mut v, 4);
    let low = v[0] ^ v[1] ^ v[2] ^ v[3];
    v[1] ^= 0xdd;
    sip_rounds(&mut v, 4);
    let high = v[0] ^ v[1] ^ v[2] ^ v[3];
    u128::from(low) | (u128::from(high) << 64)
}

fn sip_round(v: &mut [u64; 4]) {
    v[0] = v[0].wrapping_add(v[1]);
    v[1] = v[1].rotate_left(13) ^ v[0];
    v[0] = v[0].rotate_left(32);
    v[2] = v[2].wrapping_add(v[3]);
    v[3] = v[3].rotate_left(16) ^ v[2];
    v[0] = v[0].wrapping_add(v[3]);
    v[3] = v[3].rotate_left(21) ^ v[0];
    v[2] = v[2].wrapping_add(v[1]);
    v[1] = v[1].rotate_left(17) ^ v[2];
    v[2] = v[2].rotate_left(32);
}

fn sip_compress(v: &mut [u64; 4], word: u64) {
    v[3] ^= word;
    sip_rounds(v, 2);
    v[0] ^= word;
}

fn sip_rounds(v: &mut [u64; 4], rounds: usize) {
    for _ in 0..rounds {
        sip_round(v);
    }
}

/// MurmurHash3 x64 128 as a number whose little-endian bytes are the digest.
fn murmur3_128(bytes: &[u8]) -> u128 {
    murmur3::murmur3_x64_128(&mut Cursor::new(bytes), 0).expect("in memory")
}

/// Austin Appleby's MurmurHash2, 32 bits.
fn murmur2_32(bytes: &[u8], seed: u32) -> u32 {
    const M: u32 = 0x5bd1_e995;
    let mut h = seed ^ bytes.len() as u32;
    let mut chunks = bytes.chunks_exact(4);
    for chunk in &mut chunks {
        let mut k = u32::from_le_bytes(chunk.try_into().expect("4 bytes"));
        k = k.wrapping_mul(M);
        k ^= k >> 24;
        h = h.wrapping_mul(M) ^ k.wrapping_mul(M);
    }
    let tail = chunks.remainder();
    if !tail.is_empty() {
        for (i, &b) in tail.iter().enumerate() {
            h ^= u32::from(b) << (8 * i);
        }
        h = h.wrapping_mul(M);
    }
    h ^= h >> 13;
    h = h.wrapping_mul(M);
    h ^ (h >> 15)
}

const MURMUR64_M: u64 = 0xc6a4_a793_5bd1_e995;

/// MurmurHash64A.
fn murmur2_64(bytes: &[u8]) -> u64 {
    let mut h = (bytes.len() as u64).wrapping_mul(MURMUR64_M);
    let mut chunks = bytes.chunks_exact(8);
    for chunk in &mut chunks {
        let mut k = u64::from_le_bytes(chunk.try_into().expect("8 bytes"));
        k = k.wrapping_mul(MURMUR64_M);
        k ^= k >> 47;
        h = (h ^ k.wrapping_mul(MURMUR64_M)).wrapping_mul(MURMUR64_M);
    }
    let tail = chunks.remainder();
    if !tail.is_empty() {
        h ^= little_endian(tail);
        h = h.wrapping_mul(MURMUR64_M);
    }
    h ^= h >> 47;
    h = h.wrapping_mul(MURMUR64_M);
    h ^ (h >> 47)
}

/// libstdc++'s `_Hash_bytes` with the seed ClickHouse gives it.
fn gcc_murmur(bytes: &[u8]) -> u64 {
    let shift_mix = |v: u64| v ^ (v >> 47);
    let mut h = 0xc70f_6907_u64 ^ (bytes.len() as u64).wrapping_mul(MURMUR64_M);
    let mut chunks = bytes.chunks_exact(8);
    for chunk in &mut chunks {
        let k = u64::from_le_bytes(chunk.try_into().expect("8 bytes"));
        h ^= shift_mix(k.wrapping_mul(MURMUR64_M)).wrapping_mul(MURMUR64_M);
        h = h.wrapping_mul(MURMUR64_M);
    }
    let tail = chunks.remainder();
    if !tail.is_empty() {
        h = (h ^ little_endian(tail)).wrapping_mul(MURMUR64_M);
    }
    shift_mix(shift_mix(h).wrapping_mul(MURMUR64_M))
}

fn little_endian(tail: &[u8]) -> u64 {
    tail.iter()
        .enumerate()
        .fold(0, |acc, (i, &b)| acc | (u64::from(b) << (8 * i)))
}

/// MetroHash64 in its first variant (`metrohash64_1`) with seed 0, which no
/// crate provides (the `metrohash` crate has the second).
fn metro_hash64(bytes: &[u8]) -> u64 {
    const K: [u64; 4] = [0xC83A_91E1, 0x8648_DBDB, 0x7BDE_C03B, 0x2F58_70A5];
    let word = |p: &[u8]| u64::from_le_bytes(p[..8].try_into().expect("8 bytes"));
    let mut h = K[2].wrapping_mul(K[0]).wrapping_add(bytes.len() as u64);
    let mut p = bytes;
    if p.len() >= 32 {
        let mut v = [h; 4];
        while p.len() >= 32 {
            for i in 0..4 {
                let lane = v[i].wrapping_add(word(&p[8 * i..]).wrapping_mul(K[i]));
                v[i] = lane.rotate_right(29).wrapping_add(v[(i + 2) % 4]);
            }
            p = &p[32..];
        }
        let mix = |a: u64, b: u64, c: u64, k: u64, l: u64| {
            a.wrapping_add(b)
                .wrapping_mul(k)
                .wrapping_add(c)
                .rotate_right(33)
                .wrapping_mul(l)
        };
        v[2] ^= mix(v[0], v[3], v[1], K[0], K[1]);
        v[3] ^= mix(v[1], v[2], v[0], K[1], K[0]);
        v[0] ^= mix(v[0], v[2], v[3], K[0], K[1]);
        v[1] ^= mix(v[1], v[3], v[2], K[1], K[0]);
        h = h.wrapping_add(v[0] ^ v[1]);
    }
    if p.len() >= 16 {
        let mut v0 = h
            .wrapping_add(word(p).wrapping_mul(K[0]))
            .rotate_right(33)
            .wrapping_mul(K[1]);
        let mut v1 = h
            .wrapping_add(word(&p[8..]).wrapping_mul(K[1]))
            .rotate_right(33)
            .wrapping_mul(K[2]);
        v0 ^= v0.wrapping_mul(K[0]).rotate_right(35).wrapping_add(v1);
        v1 ^= v1.wrapping_mul(K[3]).rotate_right(35).wrapping_add(v0);
        h = h.wrapping_add(v1);
        p = &p[16..];
    }
    for (width, rotation) in [(8, 33), (4, 15), (2, 13), (1, 25)] {
        if p.len() >= width {
            h = h.wrapping_add(little_endian(&p[..width]).wrapping_mul(K[3]));
            h ^= h.rotate_right(rotation).wrapping_mul(K[1]);
            p = &p[width..];
        }
    }
    h ^= h.rotate_right(33);
    h = h.wrapping_mul(K[0]);
    h ^ h.rotate_right(33)
}

/// wyhash (its third final version) with seed 0 and the default secret.
fn wy_hash64(bytes: &[u8]) -> u64 {
    const SECRET: [u64; 4] = [
        0xa076_1d64_78bd_642f,
        0xe703_7ed1_a0b4_28db,
        0x8ebc_6af0_9c88_c6e3,
        0x5899_65cc_7537_4cc3,
    ];
    wyhash::final3::wyhash(bytes, 0, SECRET)
}

/// FarmHash's `Fingerprint` of a 128-bit value, low half first.
fn fingerprint128(low: u64, high: u64) -> u64 {
    const K_MUL: u64 = 0x9ddf_ea08_eb38_2d69;
    let mut a = (low ^ high).wrapping_mul(K_MUL);
    a ^= a >> 47;
    let mut b = (high ^ a).wrapping_mul(K_MUL);
    b ^= b >> 44;
    b = b.wrapping_mul(K_MUL);
    b ^= b >> 41;
    b.wrapping_mul(K_MUL)
}

/// The result field: UInt32, UInt64 or FixedString(16) by the hash's width.
pub(crate) fn typing(args: &Args, kind: AnyHash) -> Result<Field> {
    let data_type = match kind.bits() {
        32 => DataType::UInt32,
        64 => DataType::UInt64,
        _ => DataType::FixedSizeBinary(16),
    };
    Ok(args.propagate(data_type))
}

/// Each row's hash of all the arguments (after the key, for a keyed call).
pub(crate) fn eval(call: &Call, kind: AnyHash, keyed: bool) -> Result<ArrayRef> {
    // A keyed call without arguments, key included, hashes nothing with the zero key.
    let keyed = keyed && call.len() > 0;
    let first = usize::from(keyed);
    let keys = if keyed {
        keys(call)?
    } else {
        vec![(0, 0); call.rows]
    };
    let mut hashes: Vec<Option<u128>> = vec![(call.len() == first).then_some(SEED); call.rows];
    let mut valid = vec![true; call.rows];
    let mut buffer = Vec::new();
    for i in first..call.len() {
        let array = crate::hashing::enum_numbers(call.array(i)?, &call.fields[i])?;
        let uuid = is_uuid(&call.fields[i]);
        let mut hasher = Hasher {
            kind,
            buffer: &mut buffer,
        };
        for row in 0..call.rows {
            if !valid[row] || is_null_at(array.as_ref(), row) {
                valid[row] = false;
                continue;
            }
            hashes[row] = hasher.feed(keys[row], &array, row, uuid, hashes[row])?;
        }
    }
    let hashes = hashes.into_iter().zip(valid).map(|(h, v)| h.filter(|_| v));
    output(kind, hashes)
}

/// Each row's key: a Tuple(UInt64, UInt64) argument.
fn keys(call: &Call) -> Result<Vec<Key>> {
    let array = call.array(0)?;
    let bad = |message: &str| error(ErrorCode::BAD_ARGUMENTS, message.to_string());
    let DataType::Struct(fields) = array.data_type() else {
        return Err(bad("The key must be of type Tuple(UInt64, UInt64)"));
    };
    if fields.len() != 2 {
        return Err(bad("The key must be of type Tuple(UInt64, UInt64)"));
    }
    for (field, place) in fields.iter().zip(["1st", "2nd"]) {
        if field.data_type() != &DataType::UInt64 {
            return Err(bad(&format!(
                "The {place} element of the key tuple is not of type UInt64"
            )));
        }
    }
    let tuple: &StructArray = array.as_struct();
    let k0 = tuple.column(0).as_primitive::<UInt64Type>();
    let k1 = tuple.column(1).as_primitive::<UInt64Type>();
    Ok((0..call.rows)
        .map(|row| (k0.value(row), k1.value(row)))
        .collect())
}

fn output(kind: AnyHash, hashes: impl Iterator<Item = Option<u128>>) -> Result<ArrayRef> {
    Ok(match kind.bits() {
        32 => Arc::new(hashes.map(|h| h.map(|h| h as u32)).collect::<UInt32Array>()),
        64 => Arc::new(hashes.map(|h| h.map(|h| h as u64)).collect::<UInt64Array>()),
        _ => {
            let mut out = FixedSizeBinaryBuilder::new(16);
            for hash in hashes {
                match hash {
                    Some(h) => out.append_value(h.to_le_bytes())?,
                    None => out.append_null(),
                }
            }
            Arc::new(out.finish())
        }
    })
}

/// Hashes values of one argument.
struct Hasher<'a> {
    kind: AnyHash,
    buffer: &'a mut Vec<u8>,
}

impl Hasher<'_> {
    /// The row's hash after the value at `row`: a tuple's elements one by
    /// one, any other value as one hash.
    fn feed(
        &mut self,
        key: Key,
        array: &ArrayRef,
        row: usize,
        uuid: bool,
        so_far: Option<u128>,
    ) -> Result<Option<u128>> {
        if let DataType::Struct(fields) = array.data_type() {
            let mut hash = so_far;
            for (column, field) in array.as_struct().columns().iter().zip(fields) {
                hash = self.feed(key, column, row, is_uuid(field), hash)?;
            }
            return Ok(hash);
        }
        let next = self.value(key, array, row, uuid)?;
        Ok(Some(match so_far {
            Some(previous) => self.kind.combine(key, previous, next),
            None => next,
        }))
    }

    fn value(&mut self, key: Key, array: &ArrayRef, row: usize, uuid: bool) -> Result<u128> {
        let kind = self.kind;
        match array.data_type() {
            DataType::List(item) => {
                let list = array.as_list::<i32>();
                let items = list.value(row);
                let mut hash = kind.length_hash(items.len());
                for i in 0..items.len() {
                    let element = self.feed(key, &items, i, is_uuid(item), None)?;
                    hash = kind.combine(key, hash, element.unwrap_or(SEED));
                }
                Ok(hash)
            }
            DataType::Boolean => Ok(self.number(key, u64::from(array.as_boolean().value(row)), 1)),
            t if kind.int_hash_for_numbers() && !crate::hashing::is_text(t) => {
                value_bytes(array.as_ref(), row, self.buffer)?;
                let mut bits = [0u8; 8];
                let n = self.buffer.len().min(8);
                bits[..n].copy_from_slice(&self.buffer[..n]);
                Ok(u128::from(int_hash64(u64::from_le_bytes(bits))))
            }
            _ => {
                value_bytes(array.as_ref(), row, self.buffer)?;
                if uuid {
                    // ClickHouse keeps a UUID as two little-endian 64-bit halves.
                    self.buffer[..8].reverse();
                    self.buffer[8..].reverse();
                }
                Ok(kind.apply(key, self.buffer))
            }
        }
    }

    /// The hash of an unsigned number `width` bytes wide.
    fn number(&self, key: Key, value: u64, width: usize) -> u128 {
        if self.kind.int_hash_for_numbers() {
            u128::from(int_hash64(value))
        } else {
            self.kind.apply(key, &value.to_le_bytes()[..width])
        }
    }
}
