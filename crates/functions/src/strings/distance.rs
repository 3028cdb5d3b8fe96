//! String similarity as ClickHouse measures it: `editDistance` (Levenshtein
//! over bytes, over code points in the UTF-8 form), the optimal string
//! alignment form of Damerau-Levenshtein, Jaro and Jaro-Winkler over bytes,
//! `byteHammingDistance` (differing positions plus the length difference)
//! and the Jaccard index of the sets of bytes or code points. Edit
//! distances refuse strings over 65536 bytes, as ClickHouse does.

use std::collections::HashSet;

use datafusion::arrow::array::ArrayRef;
use datafusion::arrow::datatypes::{Float64Type, UInt64Type};
use datafusion::common::Result;
use strata_common::ErrorCode;

use super::udf::{Call, Output, Param, Spec, failure, number_rows};

const MAX_EDIT_LENGTH: usize = 65536;

fn pairs<T: datafusion::arrow::datatypes::ArrowPrimitiveType>(
    call: &Call,
    f: impl Fn(&[u8], &[u8]) -> Result<T::Native>,
) -> Result<ArrayRef> {
    let (a, b) = (call.text(0)?, call.text(1)?);
    number_rows::<T>(call, |row| {
        f(
            a.get(row).unwrap_or_default(),
            b.get(row).unwrap_or_default(),
        )
    })
}

fn check_length(name: &str, a: &[u8], b: &[u8]) -> Result<()> {
    if a.len() > MAX_EDIT_LENGTH || b.len() > MAX_EDIT_LENGTH {
        return Err(failure(
            ErrorCode::TOO_LARGE_STRING_SIZE,
            format!(
                "The string size is too big for function {name}, should be at most {MAX_EDIT_LENGTH}"
            ),
        ));
    }
    Ok(())
}

fn chars(text: &[u8]) -> Vec<char> {
    String::from_utf8_lossy(text).chars().collect()
}

fn edit_distance(call: &Call, utf8: bool) -> Result<ArrayRef> {
    pairs::<UInt64Type>(call, |a, b| {
        check_length(call.name, a, b)?;
        Ok(match utf8 {
            true => strsim::generic_levenshtein(&chars(a), &chars(b)),
            false => strsim::generic_levenshtein(&a.to_vec(), &b.to_vec()),
        } as u64)
    })
}

/// Optimal string alignment: adjacent transpositions count once, but no
/// substring is edited twice.
fn alignment_distance(a: &[u8], b: &[u8]) -> usize {
    let width = b.len() + 1;
    let mut d: Vec<usize> = (0..(a.len() + 1) * width).collect();
    for i in 0..=a.len() {
        d[i * width] = i;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut best = (d[(i - 1) * width + j] + 1)
                .min(d[i * width + j - 1] + 1)
                .min(d[(i - 1) * width + j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                best = best.min(d[(i - 2) * width + j - 2] + 1);
            }
            d[i * width + j] = best;
        }
    }
    d[a.len() * width + b.len()]
}

/// The matches of Jaro's measure (bytes equal within half the longer
/// length) and half the matched bytes out of order.
fn jaro_matches(a: &[u8], b: &[u8]) -> (usize, usize) {
    let window = (a.len().max(b.len()) / 2).saturating_sub(1);
    let mut taken = vec![false; b.len()];
    let mut matched = Vec::new();
    for (i, &x) in a.iter().enumerate() {
        let range = i.saturating_sub(window)..(i + window + 1).min(b.len());
        if let Some(j) = range.into_iter().find(|&j| !taken[j] && b[j] == x) {
            taken[j] = true;
            matched.push(x);
        }
    }
    let in_b = b.iter().zip(&taken).filter(|(_, t)| **t).map(|(y, _)| *y);
    let out_of_order = matched.iter().zip(in_b).filter(|(x, y)| **x != *y).count();
    (matched.len(), out_of_order / 2)
}

/// Jaro similarity over bytes (Jaro-Winkler adds a bonus for a common
/// prefix of up to 4 bytes above 0.7); ClickHouse gives the other string's
/// length when one is empty, and sums in its own order.
fn jaro(a: &[u8], b: &[u8], winkler: bool) -> f64 {
    if a.is_empty() || b.is_empty() {
        return (a.len() + b.len()) as f64;
    }
    let (m, t) = jaro_matches(a, b);
    if m == 0 {
        return 0.0;
    }
    let m = m as f64;
    let similarity = (1.0 / 3.0) * (m / a.len() as f64 + m / b.len() as f64 + (m - t as f64) / m);
    if !winkler || similarity <= 0.7 {
        return similarity;
    }
    let prefix = a.iter().zip(b).take(4).take_while(|(x, y)| x == y).count();
    similarity + prefix as f64 * 0.1 * (1.0 - similarity)
}

fn hamming(a: &[u8], b: &[u8]) -> u64 {
    let differing = a.iter().zip(b).filter(|(x, y)| x != y).count();
    (differing + a.len().abs_diff(b.len())) as u64
}

fn jaccard<T: Eq + std::hash::Hash>(a: HashSet<T>, b: HashSet<T>) -> f64 {
    let union = a.union(&b).count();
    if union == 0 {
        return 0.0;
    }
    a.intersection(&b).count() as f64 / union as f64
}

const TWO: &[Param] = &[Param::Text, Param::Text];

const fn spec(
    name: &'static str,
    aliases: &'static [&'static str],
    output: Output,
    eval: fn(&Call) -> Result<ArrayRef>,
) -> Spec {
    Spec {
        name,
        aliases,
        params: TWO,
        required: 2,
        output,
        eval,
    }
}

pub(crate) const SPECS: &[Spec] = &[
    spec(
        "editDistance",
        &["levenshteinDistance"],
        Output::UInt64,
        |c| edit_distance(c, false),
    ),
    spec(
        "editDistanceUTF8",
        &["levenshteinDistanceUTF8"],
        Output::UInt64,
        |c| edit_distance(c, true),
    ),
    spec("damerauLevenshteinDistance", &[], Output::UInt64, |c| {
        pairs::<UInt64Type>(c, |a, b| {
            check_length(c.name, a, b)?;
            Ok(alignment_distance(a, b) as u64)
        })
    }),
    spec("jaroSimilarity", &[], Output::Float64, |c| {
        pairs::<Float64Type>(c, |a, b| Ok(jaro(a, b, false)))
    }),
    spec("jaroWinklerSimilarity", &[], Output::Float64, |c| {
        pairs::<Float64Type>(c, |a, b| Ok(jaro(a, b, true)))
    }),
    spec(
        "byteHammingDistance",
        &["mismatches"],
        Output::UInt64,
        |c| pairs::<UInt64Type>(c, |a, b| Ok(hamming(a, b))),
    ),
    spec("stringJaccardIndex", &[], Output::Float64, |c| {
        pairs::<Float64Type>(c, |a, b| {
            Ok(jaccard(a.iter().collect(), b.iter().collect()))
        })
    }),
    spec("stringJaccardIndexUTF8", &[], Output::Float64, |c| {
        pairs::<Float64Type>(c, |a, b| {
            Ok(jaccard(
                chars(a).into_iter().collect(),
                chars(b).into_iter().collect(),
            ))
        })
    }),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distances_match_clickhouse() {
        assert_eq!(alignment_distance(b"ca", b"abc"), 3);
        assert_eq!(alignment_distance(b"abcd", b"acbd"), 1);
        assert_eq!(hamming(b"karolin", b"kathrin"), 3);
        assert_eq!(hamming(b"ab", b"abc"), 1);
        assert_eq!(jaro(b"ab", b"", false), 2.0);
        assert!((jaro(b"martha", b"marhta", true) - 0.9611111111111111).abs() < 1e-12);
    }
}
