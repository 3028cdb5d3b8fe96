//! `bloom_filter([p])`: a Bloom filter of each index granule's values,
//! sized for a false-positive rate `p`, probed by a stable hash.

use std::collections::HashSet;
use std::hash::Hasher;
use std::ops::Range;

use datafusion::arrow::array::{Array, ArrayRef, AsArray, UInt64Array};
use datafusion::arrow::datatypes::DataType;
use twox_hash::XxHash64;

use super::Summary;

/// Bits per value of a Bloom filter with false-positive rate `p` and the
/// number of hash probes that suits it.
fn bloom_shape(p: f64) -> (f64, u32) {
    let p = p.clamp(1e-6, 0.5);
    let bits_per_value = -p.ln() / (std::f64::consts::LN_2 * std::f64::consts::LN_2);
    let hashes = (bits_per_value * std::f64::consts::LN_2).round().max(1.0) as u32;
    (bits_per_value, hashes)
}

pub(super) fn build_bloom(
    values: &ArrayRef,
    ranges: &[Range<usize>],
    false_positive: f64,
) -> Summary {
    let Some(hashes) = value_hashes(values) else {
        return Summary::Unknown;
    };
    let (bits_per_value, probes) = bloom_shape(false_positive);
    let mut starts = vec![0u64];
    let mut words: Vec<u64> = Vec::new();
    for range in ranges {
        let distinct: HashSet<u64> = hashes[range.clone()].iter().flatten().copied().collect();
        let bits = ((distinct.len() as f64 * bits_per_value).ceil() as usize).max(64);
        let first = words.len();
        words.resize(first + bits.div_ceil(64), 0);
        let filter = &mut words[first..];
        let bits = filter.len() * 64;
        for hash in distinct {
            for bit in probes_of(hash, probes, bits) {
                filter[bit / 64] |= 1 << (bit % 64);
            }
        }
        starts.push(words.len() as u64);
    }
    Summary::Bloom {
        hashes: probes,
        starts: UInt64Array::from(starts),
        words: UInt64Array::from(words),
    }
}

/// Index granules whose filter may hold one of `values`: null there,
/// false elsewhere.
pub(super) fn bloom_contains(
    probes: u32,
    starts: &UInt64Array,
    words: &UInt64Array,
    wanted: &ArrayRef,
) -> Option<Vec<Option<bool>>> {
    let words = words.values();
    let starts = starts.values();
    let wanted: Vec<u64> = value_hashes(wanted)?.into_iter().flatten().collect();
    Some(
        starts
            .windows(2)
            .map(|w| {
                let filter = &words[w[0] as usize..w[1] as usize];
                let bits = filter.len() * 64;
                let maybe = wanted.iter().any(|&hash| {
                    probes_of(hash, probes, bits)
                        .all(|bit| filter[bit / 64] & (1 << (bit % 64)) != 0)
                });
                (!maybe).then_some(false)
            })
            .collect(),
    )
}

/// The bits a value's hash sets: double hashing of its two halves.
pub(super) fn probes_of(hash: u64, probes: u32, bits: usize) -> impl Iterator<Item = usize> {
    let (h1, h2) = (hash & 0xffff_ffff, (hash >> 32) | 1);
    (0..u64::from(probes))
        .map(move |i| (h1.wrapping_add(i.wrapping_mul(h2)) % bits as u64) as usize)
}

/// A stable hash of each value (its bytes as stored: text as UTF-8, numbers
/// little-endian), or `None` for types without one. NULL has none.
fn value_hashes(values: &ArrayRef) -> Option<Vec<Option<u64>>> {
    let hash = |bytes: &[u8]| {
        let mut hasher = XxHash64::with_seed(0);
        hasher.write(bytes);
        hasher.finish()
    };
    let hashes = match values.data_type() {
        DataType::Utf8 => values
            .as_string::<i32>()
            .iter()
            .map(|v| v.map(|s| hash(s.as_bytes())))
            .collect(),
        DataType::LargeUtf8 => values
            .as_string::<i64>()
            .iter()
            .map(|v| v.map(|s| hash(s.as_bytes())))
            .collect(),
        DataType::Binary => values
            .as_binary::<i32>()
            .iter()
            .map(|v| v.map(hash))
            .collect(),
        DataType::FixedSizeBinary(_) => values
            .as_fixed_size_binary()
            .iter()
            .map(|v| v.map(hash))
            .collect(),
        data_type if data_type.is_primitive() => {
            let width = data_type.primitive_width()?;
            let data = values.to_data();
            let bytes = &data.buffers()[0].as_slice()[data.offset() * width..];
            (0..values.len())
                .map(|i| {
                    values
                        .is_valid(i)
                        .then(|| hash(&bytes[i * width..(i + 1) * width]))
                })
                .collect()
        }
        _ => return None,
    };
    Some(hashes)
}
