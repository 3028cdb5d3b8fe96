//! N-gram similarity as ClickHouse measures it: `ngramDistance` and
//! `ngramSearch`, each also `CaseInsensitive`, `UTF8` and both.
//!
//! A gram is 4 bytes, or 3 code points in the UTF-8 forms, and grams are
//! counted by a 16-bit CRC-32C hash of them, as ClickHouse counts them, so
//! two grams whose hashes collide count as one gram here too. The distance
//! is the size of the symmetric difference of the two strings' grams over
//! both counts; the search score is the share of the needle's grams found in
//! the haystack. A string over 32 KiB is unlike anything (distance 1, score
//! 0). The case-insensitive forms fold case as ClickHouse does: ASCII
//! letters in the byte forms; in the UTF-8 forms, a bit of each byte that
//! separates the cases of ASCII and most Cyrillic letters.

use std::collections::HashMap;

use datafusion::arrow::array::ArrayRef;
use datafusion::arrow::datatypes::Float32Type;
use datafusion::common::Result;

use super::udf::{Call, Output, Param, Spec, number_rows};
use crate::hashing::crc32c_u64;

/// Longer strings are unlike any other.
const MAX_STRING_BYTES: usize = 1 << 15;

#[derive(Clone, Copy)]
struct Form {
    utf8: bool,
    case_insensitive: bool,
}

/// The 16-bit hashes of `text`'s grams in order.
fn gram_hashes(text: &[u8], form: Form) -> Vec<u16> {
    if form.utf8 {
        let points = code_points(text, form.case_insensitive);
        return points
            .windows(3)
            .map(|gram| {
                let first_two = (u64::from(gram[0]) << 32) | u64::from(gram[1]);
                crc32c_u64(gram[2], first_two) as u16
            })
            .collect();
    }
    let fold = |b: u8| match form.case_insensitive {
        true => b.to_ascii_lowercase(),
        false => b,
    };
    text.windows(4)
        .map(|gram| {
            let bytes = [fold(gram[0]), fold(gram[1]), fold(gram[2]), fold(gram[3])];
            crc32c_u64(u32::MAX, u64::from(u32::from_le_bytes(bytes))) as u16
        })
        .collect()
}

/// Each UTF-8 sequence's bytes as a little-endian number; a sequence cut
/// short by the end of the text keeps the bytes it has.
fn code_points(text: &[u8], case_insensitive: bool) -> Vec<u32> {
    let mut points = Vec::with_capacity(text.len());
    let mut at = 0;
    while at < text.len() {
        let length = sequence_length(text[at]).min(text.len() - at);
        let mut bytes = [0u8; 4];
        bytes[..length].copy_from_slice(&text[at..at + length]);
        let mut point = u32::from_le_bytes(bytes);
        if case_insensitive {
            point = fold_case(point, length);
        }
        points.push(point);
        at += length;
    }
    points
}

/// The length of the UTF-8 sequence a byte starts: its leading ones, and 1
/// for ASCII, a continuation byte or a byte no sequence starts with.
fn sequence_length(first: u8) -> usize {
    match first.leading_ones() {
        0 | 1 => 1,
        n @ 2..=4 => n as usize,
        _ => 1,
    }
}

/// Clears the bit that tells the cases of ASCII letters apart in each byte,
/// and the lowest bit of a multi-byte sequence's first byte.
fn fold_case(point: u32, length: usize) -> u32 {
    let mut mask = 1u32 << 5;
    if length >= 2 {
        mask |= 1 | (1 << (5 + 8));
    }
    if length >= 3 {
        mask |= 1 << (5 + 16);
    }
    if length >= 4 {
        mask |= 1 << (5 + 24);
    }
    point & !mask
}

/// How many of the haystack's grams the needle's do not cancel, and back:
/// the needle's grams, less each haystack gram that meets one of them, plus
/// (if `symmetric`) each that meets none; with both gram counts.
fn unmatched(haystack: &[u16], needle: &[u16], symmetric: bool) -> i64 {
    let mut counts: HashMap<u16, i64> = HashMap::with_capacity(needle.len());
    for &gram in needle {
        *counts.entry(gram).or_default() += 1;
    }
    let mut distance = needle.len() as i64;
    for gram in haystack {
        let count = counts.entry(*gram).or_default();
        if *count > 0 {
            distance -= 1;
        } else if symmetric {
            distance += 1;
        }
        *count -= 1;
    }
    distance
}

fn ngram_distance(haystack: &[u8], needle: &[u8], form: Form) -> f32 {
    if haystack.len() > MAX_STRING_BYTES || needle.len() > MAX_STRING_BYTES {
        return 1.0;
    }
    let (haystack, needle) = (gram_hashes(haystack, form), gram_hashes(needle, form));
    let distance = unmatched(&haystack, &needle, true);
    distance as f32 / (haystack.len() + needle.len()).max(1) as f32
}

fn ngram_search(haystack: &[u8], needle: &[u8], form: Form) -> f32 {
    if haystack.len() > MAX_STRING_BYTES || needle.len() > MAX_STRING_BYTES {
        return 0.0;
    }
    let (haystack, needle) = (gram_hashes(haystack, form), gram_hashes(needle, form));
    let distance = unmatched(&haystack, &needle, false);
    1.0 - distance as f32 / needle.len().max(1) as f32
}

fn pairs(call: &Call, metric: fn(&[u8], &[u8], Form) -> f32, form: Form) -> Result<ArrayRef> {
    let (haystack, needle) = (call.text(0)?, call.text(1)?);
    number_rows::<Float32Type>(call, |row| {
        Ok(metric(
            haystack.get(row).unwrap_or_default(),
            needle.get(row).unwrap_or_default(),
            form,
        ))
    })
}

const fn spec(name: &'static str, eval: fn(&Call) -> Result<ArrayRef>) -> Spec {
    Spec {
        name,
        aliases: &[],
        params: &[Param::Text, Param::Text],
        required: 2,
        output: Output::Float32,
        eval,
    }
}

const BYTES: Form = Form {
    utf8: false,
    case_insensitive: false,
};
const BYTES_ANY_CASE: Form = Form {
    utf8: false,
    case_insensitive: true,
};
const UTF8: Form = Form {
    utf8: true,
    case_insensitive: false,
};
const UTF8_ANY_CASE: Form = Form {
    utf8: true,
    case_insensitive: true,
};

pub(crate) const SPECS: &[Spec] = &[
    spec("ngramDistance", |c| pairs(c, ngram_distance, BYTES)),
    spec("ngramDistanceCaseInsensitive", |c| {
        pairs(c, ngram_distance, BYTES_ANY_CASE)
    }),
    spec("ngramDistanceUTF8", |c| pairs(c, ngram_distance, UTF8)),
    spec("ngramDistanceCaseInsensitiveUTF8", |c| {
        pairs(c, ngram_distance, UTF8_ANY_CASE)
    }),
    spec("ngramSearch", |c| pairs(c, ngram_search, BYTES)),
    spec("ngramSearchCaseInsensitive", |c| {
        pairs(c, ngram_search, BYTES_ANY_CASE)
    }),
    spec("ngramSearchUTF8", |c| pairs(c, ngram_search, UTF8)),
    spec("ngramSearchCaseInsensitiveUTF8", |c| {
        pairs(c, ngram_search, UTF8_ANY_CASE)
    }),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equals_clickhouse() {
        // Values from ClickHouse 26.9 (chdb).
        assert_eq!(ngram_distance(b"abcd", b"abce", BYTES), 1.0);
        assert_eq!(ngram_distance(b"abcde", b"abcdf", BYTES), 0.5);
        assert_eq!(ngram_distance(b"", b"", BYTES), 0.0);
        assert_eq!(ngram_search(b"hello world", b"world", BYTES), 1.0);
        assert_eq!(ngram_search(b"abc", b"", BYTES), 1.0);
        assert_eq!(ngram_search(b"HELLO", b"ello", BYTES_ANY_CASE), 1.0);
        let cyrillic = ngram_distance("абвгдеёжз".as_bytes(), "гдеёзд".as_bytes(), UTF8);
        assert!((cyrillic - 0.636_363_6).abs() < 1e-6, "{cyrillic}");
        let folded = ngram_distance("ПРИВЕТ".as_bytes(), "привет".as_bytes(), UTF8_ANY_CASE);
        assert_eq!(folded, 0.0);
    }
}
