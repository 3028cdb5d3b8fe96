//! Substring search as ClickHouse does it: `position` (and `locate`, whose
//! needle comes first), `countSubstrings`, the `multiSearch*` family and
//! `hasSubsequence`, each in four forms: bytes, ASCII case-insensitive,
//! UTF-8 (positions count code points) and UTF-8 case-insensitive.
//! Positions are 1-based UInt64, 0 when absent; an empty needle is found
//! where the search starts.

use std::borrow::Cow;

use datafusion::arrow::array::ArrayRef;
use datafusion::arrow::datatypes::{UInt8Type, UInt64Type};
use datafusion::common::Result;
use memchr::memmem;

use super::udf::{Call, Output, Param, Spec, number_rows, u64_list_rows};

/// How text is compared and positions counted.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mode {
    Bytes,
    AsciiCase,
    Utf8,
    Utf8Case,
}

impl Mode {
    fn counts_chars(self) -> bool {
        matches!(self, Mode::Utf8 | Mode::Utf8Case)
    }
}

/// Text as compared under `mode`: case-insensitive forms compare lower-case
/// text, changing letters one for one so positions stay where they were.
pub(crate) fn fold(bytes: &[u8], mode: Mode) -> Cow<'_, [u8]> {
    match mode {
        Mode::Bytes | Mode::Utf8 => Cow::Borrowed(bytes),
        Mode::AsciiCase => Cow::Owned(bytes.to_ascii_lowercase()),
        Mode::Utf8Case => {
            let text = String::from_utf8_lossy(bytes);
            let folded: String = text.chars().map(lower_char).collect();
            Cow::Owned(folded.into_bytes())
        }
    }
}

/// A code point's lower case where it is one code point, else itself.
pub(crate) fn lower_char(c: char) -> char {
    let mut lower = c.to_lowercase();
    match (lower.next(), lower.next()) {
        (Some(l), None) => l,
        _ => c,
    }
}

fn is_char_start(b: u8) -> bool {
    b & 0xC0 != 0x80
}

/// The byte offset of unit `unit` (0-based), if the text has that many.
fn offset_of(text: &[u8], unit: usize, mode: Mode) -> Option<usize> {
    if !mode.counts_chars() {
        return (unit <= text.len()).then_some(unit);
    }
    let mut starts = text
        .iter()
        .enumerate()
        .filter(|(_, b)| is_char_start(**b))
        .map(|(i, _)| i)
        .chain(std::iter::once(text.len()));
    starts.nth(unit)
}

/// The 1-based unit position of byte offset `offset`.
fn unit_position(text: &[u8], offset: usize, mode: Mode) -> u64 {
    if !mode.counts_chars() {
        return offset as u64 + 1;
    }
    text[..offset].iter().filter(|b| is_char_start(**b)).count() as u64 + 1
}

/// The 1-based start of `needle` in `hay` from unit `start` (1-based; 0 reads
/// as 1), or 0.
pub(crate) fn position(hay: &[u8], needle: &[u8], start: i64, mode: Mode) -> u64 {
    if start < 0 {
        return 0;
    }
    let (hay, needle) = (fold(hay, mode), fold(needle, mode));
    let Some(from) = offset_of(&hay, start.max(1) as usize - 1, mode) else {
        return 0;
    };
    match memmem::find(&hay[from..], &needle) {
        Some(i) => unit_position(&hay, from + i, mode),
        None => 0,
    }
}

/// Non-overlapping occurrences of `needle` from unit `start`.
fn count(hay: &[u8], needle: &[u8], start: i64, mode: Mode) -> u64 {
    if needle.is_empty() || start < 0 {
        return 0;
    }
    let (hay, needle) = (fold(hay, mode), fold(needle, mode));
    let Some(from) = offset_of(&hay, start.max(1) as usize - 1, mode) else {
        return 0;
    };
    memmem::find_iter(&hay[from..], &needle[..]).count() as u64
}

fn subsequence(hay: &[u8], needle: &[u8], mode: Mode) -> bool {
    let (hay, needle) = (fold(hay, mode), fold(needle, mode));
    let mut wanted = needle.iter().peekable();
    for b in hay.iter() {
        if wanted.peek() == Some(&b) {
            wanted.next();
        }
    }
    wanted.peek().is_none()
}

/// `position(haystack, needle[, start])`, or `locate(needle, haystack[, start])`
/// when `needle_first`.
fn eval_position(call: &Call, mode: Mode, needle_first: bool) -> Result<ArrayRef> {
    let (h, n) = if needle_first { (1, 0) } else { (0, 1) };
    let (hay, needle) = (call.text(h)?, call.text(n)?);
    let start = if call.len() > 2 {
        Some(call.int(2)?)
    } else {
        None
    };
    number_rows::<UInt64Type>(call, |row| {
        let from = start.as_ref().and_then(|s| s.get(row)).unwrap_or(1);
        let (h, n) = (
            hay.get(row).unwrap_or_default(),
            needle.get(row).unwrap_or_default(),
        );
        Ok(position(h, n, from, mode))
    })
}

fn eval_count(call: &Call, mode: Mode) -> Result<ArrayRef> {
    let (hay, needle) = (call.text(0)?, call.text(1)?);
    let start = if call.len() > 2 {
        Some(call.int(2)?)
    } else {
        None
    };
    number_rows::<UInt64Type>(call, |row| {
        let from = start.as_ref().and_then(|s| s.get(row)).unwrap_or(1);
        let (h, n) = (
            hay.get(row).unwrap_or_default(),
            needle.get(row).unwrap_or_default(),
        );
        Ok(count(h, n, from, mode))
    })
}

fn eval_subsequence(call: &Call, mode: Mode) -> Result<ArrayRef> {
    let (hay, needle) = (call.text(0)?, call.text(1)?);
    number_rows::<UInt8Type>(call, |row| {
        let (h, n) = (
            hay.get(row).unwrap_or_default(),
            needle.get(row).unwrap_or_default(),
        );
        Ok(u8::from(subsequence(h, n, mode)))
    })
}

/// Whether `hay` starts (or ends) with `part`, compared under `mode`.
fn affix(hay: &[u8], part: &[u8], mode: Mode, start: bool) -> bool {
    let (hay, part) = (fold(hay, mode), fold(part, mode));
    match start {
        true => hay.starts_with(&part),
        false => hay.ends_with(&part),
    }
}

fn eval_affix(call: &Call, mode: Mode, start: bool) -> Result<ArrayRef> {
    let (hay, part) = (call.text(0)?, call.text(1)?);
    number_rows::<UInt8Type>(call, |row| {
        let (h, p) = (
            hay.get(row).unwrap_or_default(),
            part.get(row).unwrap_or_default(),
        );
        Ok(u8::from(affix(h, p, mode, start)))
    })
}

/// Bytes that separate tokens: ASCII other than letters and digits.
fn separates(b: u8) -> bool {
    b.is_ascii() && !b.is_ascii_alphanumeric()
}

/// Whether `token` occurs in `hay` with separators (or the ends) around it.
fn has_token(hay: &[u8], token: &[u8], mode: Mode) -> bool {
    if token.is_empty() {
        return false;
    }
    let (hay, token) = (fold(hay, mode), fold(token, mode));
    memmem::find_iter(&hay, &token[..]).any(|at| {
        let before = at == 0 || separates(hay[at - 1]);
        let end = at + token.len();
        before && (end == hay.len() || separates(hay[end]))
    })
}

/// `hasToken(haystack, token)`; a token holding a separator fails, or is
/// NULL in the `OrNull` forms.
fn eval_has_token(call: &Call, mode: Mode, or_null: bool) -> Result<ArrayRef> {
    let (hay, token) = (call.text(0)?, call.text(1)?);
    let mut out = datafusion::arrow::array::UInt8Builder::with_capacity(call.rows);
    for row in 0..call.rows {
        let t = token.get(row).unwrap_or_default();
        if call.any_null(row) || (or_null && t.iter().copied().any(separates)) {
            out.append_null();
            continue;
        }
        if t.iter().copied().any(separates) {
            return Err(super::udf::failure(
                strata_common::ErrorCode::BAD_ARGUMENTS,
                "Needle must not contain whitespace or separator characters".into(),
            ));
        }
        out.append_value(u8::from(has_token(
            hay.get(row).unwrap_or_default(),
            t,
            mode,
        )));
    }
    Ok(std::sync::Arc::new(out.finish()))
}

/// What a `multiSearch*` function reports.
#[derive(Clone, Copy)]
enum Multi {
    AllPositions,
    FirstPosition,
    FirstIndex,
    Any,
}

/// Each needle's position in `hay`; nothing matches in an empty haystack.
fn positions(hay: &[u8], needles: &[&[u8]], mode: Mode) -> Vec<u64> {
    if hay.is_empty() {
        return vec![0; needles.len()];
    }
    needles.iter().map(|n| position(hay, n, 1, mode)).collect()
}

fn eval_multi(call: &Call, mode: Mode, multi: Multi) -> Result<ArrayRef> {
    let (hay, needles) = (call.text(0)?, call.text_lists(1)?);
    let found = |row: usize| {
        let needles = needles.get(row).unwrap_or_default();
        positions(hay.get(row).unwrap_or_default(), &needles, mode)
    };
    match multi {
        Multi::AllPositions => u64_list_rows(call, |row, out| {
            out.extend(found(row));
            Ok(())
        }),
        Multi::FirstPosition => number_rows::<UInt64Type>(call, |row| {
            Ok(found(row).into_iter().filter(|&p| p > 0).min().unwrap_or(0))
        }),
        Multi::FirstIndex => number_rows::<UInt64Type>(call, |row| {
            let first = found(row).iter().position(|&p| p > 0);
            Ok(first.map_or(0, |i| i as u64 + 1))
        }),
        Multi::Any => {
            number_rows::<UInt8Type>(call, |row| Ok(u8::from(found(row).iter().any(|&p| p > 0))))
        }
    }
}

const fn spec(
    name: &'static str,
    params: &'static [Param],
    required: usize,
    output: Output,
    eval: fn(&Call) -> Result<ArrayRef>,
) -> Spec {
    Spec {
        name,
        aliases: &[],
        params,
        required,
        output,
        eval,
    }
}

const SEARCH: &[Param] = &[Param::Text, Param::Text, Param::Int];
const PAIR: &[Param] = &[Param::Text, Param::Text];
const MULTI: &[Param] = &[Param::Text, Param::TextArray];

use Mode::{AsciiCase, Bytes, Utf8, Utf8Case};
use Multi::{AllPositions, Any, FirstIndex, FirstPosition};
use Output::{UInt8, UInt64, UInt64List};

pub(crate) const SPECS: &[Spec] = &[
    spec("position", SEARCH, 2, UInt64, |c| {
        eval_position(c, Bytes, false)
    }),
    Spec {
        aliases: &["instr"],
        ..spec("positionCaseInsensitive", SEARCH, 2, UInt64, |c| {
            eval_position(c, AsciiCase, false)
        })
    },
    spec("positionUTF8", SEARCH, 2, UInt64, |c| {
        eval_position(c, Utf8, false)
    }),
    spec("positionCaseInsensitiveUTF8", SEARCH, 2, UInt64, |c| {
        eval_position(c, Utf8Case, false)
    }),
    spec("locate", SEARCH, 2, UInt64, |c| {
        eval_position(c, Bytes, true)
    }),
    spec("countSubstrings", SEARCH, 2, UInt64, |c| {
        eval_count(c, Bytes)
    }),
    spec("countSubstringsCaseInsensitive", SEARCH, 2, UInt64, |c| {
        eval_count(c, AsciiCase)
    }),
    spec(
        "countSubstringsCaseInsensitiveUTF8",
        SEARCH,
        2,
        UInt64,
        |c| eval_count(c, Utf8Case),
    ),
    spec("hasSubsequence", PAIR, 2, UInt8, |c| {
        eval_subsequence(c, Bytes)
    }),
    spec("hasSubsequenceCaseInsensitive", PAIR, 2, UInt8, |c| {
        eval_subsequence(c, AsciiCase)
    }),
    spec("hasSubsequenceUTF8", PAIR, 2, UInt8, |c| {
        eval_subsequence(c, Utf8)
    }),
    spec("hasSubsequenceCaseInsensitiveUTF8", PAIR, 2, UInt8, |c| {
        eval_subsequence(c, Utf8Case)
    }),
    spec("multiSearchAllPositions", MULTI, 2, UInt64List, |c| {
        eval_multi(c, Bytes, AllPositions)
    }),
    spec(
        "multiSearchAllPositionsCaseInsensitive",
        MULTI,
        2,
        UInt64List,
        |c| eval_multi(c, AsciiCase, AllPositions),
    ),
    spec("multiSearchAllPositionsUTF8", MULTI, 2, UInt64List, |c| {
        eval_multi(c, Utf8, AllPositions)
    }),
    spec(
        "multiSearchAllPositionsCaseInsensitiveUTF8",
        MULTI,
        2,
        UInt64List,
        |c| eval_multi(c, Utf8Case, AllPositions),
    ),
    spec("multiSearchFirstPosition", MULTI, 2, UInt64, |c| {
        eval_multi(c, Bytes, FirstPosition)
    }),
    spec(
        "multiSearchFirstPositionCaseInsensitive",
        MULTI,
        2,
        UInt64,
        |c| eval_multi(c, AsciiCase, FirstPosition),
    ),
    spec("multiSearchFirstPositionUTF8", MULTI, 2, UInt64, |c| {
        eval_multi(c, Utf8, FirstPosition)
    }),
    spec(
        "multiSearchFirstPositionCaseInsensitiveUTF8",
        MULTI,
        2,
        UInt64,
        |c| eval_multi(c, Utf8Case, FirstPosition),
    ),
    spec("multiSearchFirstIndex", MULTI, 2, UInt64, |c| {
        eval_multi(c, Bytes, FirstIndex)
    }),
    spec(
        "multiSearchFirstIndexCaseInsensitive",
        MULTI,
        2,
        UInt64,
        |c| eval_multi(c, AsciiCase, FirstIndex),
    ),
    spec("multiSearchFirstIndexUTF8", MULTI, 2, UInt64, |c| {
        eval_multi(c, Utf8, FirstIndex)
    }),
    spec(
        "multiSearchFirstIndexCaseInsensitiveUTF8",
        MULTI,
        2,
        UInt64,
        |c| eval_multi(c, Utf8Case, FirstIndex),
    ),
    spec("startsWithUTF8", PAIR, 2, UInt8, |c| {
        eval_affix(c, Utf8, true)
    }),
    spec("endsWithUTF8", PAIR, 2, UInt8, |c| {
        eval_affix(c, Utf8, false)
    }),
    spec("startsWithCaseInsensitive", PAIR, 2, UInt8, |c| {
        eval_affix(c, AsciiCase, true)
    }),
    spec("endsWithCaseInsensitive", PAIR, 2, UInt8, |c| {
        eval_affix(c, AsciiCase, false)
    }),
    spec("startsWithCaseInsensitiveUTF8", PAIR, 2, UInt8, |c| {
        eval_affix(c, Utf8Case, true)
    }),
    spec("endsWithCaseInsensitiveUTF8", PAIR, 2, UInt8, |c| {
        eval_affix(c, Utf8Case, false)
    }),
    spec("hasToken", PAIR, 2, UInt8, |c| {
        eval_has_token(c, Bytes, false)
    }),
    spec("hasTokenCaseInsensitive", PAIR, 2, UInt8, |c| {
        eval_has_token(c, AsciiCase, false)
    }),
    spec("hasTokenOrNull", PAIR, 2, Output::UInt8OrNull, |c| {
        eval_has_token(c, Bytes, true)
    }),
    spec(
        "hasTokenCaseInsensitiveOrNull",
        PAIR,
        2,
        Output::UInt8OrNull,
        |c| eval_has_token(c, AsciiCase, true),
    ),
    spec("multiSearchAny", MULTI, 2, UInt8, |c| {
        eval_multi(c, Bytes, Any)
    }),
    spec("multiSearchAnyCaseInsensitive", MULTI, 2, UInt8, |c| {
        eval_multi(c, AsciiCase, Any)
    }),
    spec("multiSearchAnyUTF8", MULTI, 2, UInt8, |c| {
        eval_multi(c, Utf8, Any)
    }),
    spec("multiSearchAnyCaseInsensitiveUTF8", MULTI, 2, UInt8, |c| {
        eval_multi(c, Utf8Case, Any)
    }),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_count_units_from_the_start() {
        assert_eq!(position(b"abcabc", b"bc", 3, Bytes), 5);
        assert_eq!(position(b"abc", b"", 4, Bytes), 4);
        assert_eq!(position(b"abc", b"", 5, Bytes), 0);
        assert_eq!(position("añbñ".as_bytes(), "ñ".as_bytes(), 3, Utf8), 4);
        assert_eq!(position("АБВ".as_bytes(), "б".as_bytes(), 1, Utf8Case), 2);
        assert_eq!(position("İ".as_bytes(), b"i", 1, Utf8Case), 0);
        assert_eq!(count(b"aaaa", b"aa", 1, Bytes), 2);
    }
}
