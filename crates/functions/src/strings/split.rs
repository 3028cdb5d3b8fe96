//! Splitting strings into arrays as ClickHouse does: `splitByChar`,
//! `splitByString` (an empty separator splits into characters),
//! `splitByWhitespace` and `splitByNonAlpha` (runs of separators, no empty
//! pieces), `alphaTokens` (runs of ASCII letters), `ngrams` (code-point
//! n-grams), `tokens` (the text index's tokenizers) and `reverseBySeparator`. An optional `max_substrings` above 0
//! keeps only the first pieces.

use datafusion::arrow::array::ArrayRef;
use datafusion::common::Result;
use strata_common::ErrorCode;

use super::udf::{Call, Ints, Output, Param, Spec, failure, text_list_rows, text_rows};

/// The optional `max_substrings` argument at `i`.
pub(crate) struct Limit(Option<Ints>);

impl Limit {
    /// The number of pieces to keep at `row`, if limited.
    pub(crate) fn get(&self, row: usize) -> Option<usize> {
        let n = self.0.as_ref()?.get(row)?;
        (n > 0).then_some(n as usize)
    }
}

pub(crate) fn limit(call: &Call, i: usize) -> Result<Limit> {
    Ok(Limit(if call.len() > i {
        Some(call.int(i)?)
    } else {
        None
    }))
}

/// Pieces of `text` between runs of bytes where `separates` holds.
fn tokens(text: &[u8], separates: impl Fn(u8) -> bool) -> Vec<Vec<u8>> {
    text.split(|&b| separates(b))
        .filter(|piece| !piece.is_empty())
        .map(<[u8]>::to_vec)
        .collect()
}

fn split_by(call: &Call, separates: fn(u8) -> bool) -> Result<ArrayRef> {
    let text = call.text(0)?;
    let limit = limit(call, 1)?;
    text_list_rows(call, |row, out| {
        out.extend(tokens(text.get(row).unwrap_or_default(), separates));
        if let Some(n) = limit.get(row) {
            out.truncate(n);
        }
        Ok(())
    })
}

/// The bytes of each UTF-8 character (a stray byte is one of its own).
pub(crate) fn char_slices(text: &[u8]) -> Vec<&[u8]> {
    let mut out = Vec::new();
    let mut start = 0;
    for i in 1..=text.len() {
        if i == text.len() || text[i] & 0xC0 != 0x80 {
            out.push(&text[start..i]);
            start = i;
        }
    }
    out
}

fn characters(text: &[u8]) -> Vec<Vec<u8>> {
    char_slices(text).into_iter().map(<[u8]>::to_vec).collect()
}

/// `splitByChar(separator, s)` (one byte) or `splitByString(separator, s)`.
fn split_by_separator(call: &Call, one_byte: bool) -> Result<ArrayRef> {
    let separator = call.text(0)?;
    let text = call.text(1)?;
    let limit = limit(call, 2)?;
    text_list_rows(call, |row, out| {
        let separator = separator.get(row).unwrap_or_default();
        if one_byte && separator.len() != 1 {
            return Err(failure(
                ErrorCode::BAD_ARGUMENTS,
                "Illegal separator for function splitByChar. Must be exactly one byte".into(),
            ));
        }
        let text = text.get(row).unwrap_or_default();
        if separator.is_empty() {
            out.extend(characters(text));
        } else {
            let mut rest = text;
            while let Some(at) = memchr::memmem::find(rest, separator) {
                out.push(rest[..at].to_vec());
                rest = &rest[at + separator.len()..];
            }
            out.push(rest.to_vec());
        }
        if let Some(n) = limit.get(row) {
            out.truncate(n);
        }
        Ok(())
    })
}

fn ngrams(call: &Call) -> Result<ArrayRef> {
    let text = call.text(0)?;
    let size = call.int(1)?;
    text_list_rows(call, |row, out| {
        let n = size.get(row).unwrap_or_default();
        push_ngrams(text.get(row).unwrap_or_default(), n, out)
    })
}

/// The code-point n-grams of `text`, or BAD_ARGUMENTS for `n` below 1.
fn push_ngrams(text: &[u8], n: i64, out: &mut Vec<Vec<u8>>) -> Result<()> {
    if n < 1 {
        return Err(failure(
            ErrorCode::BAD_ARGUMENTS,
            format!(
                "Incorrect parameter of tokenizer 'ngrams': ngram length must be at least 1, but got {n}"
            ),
        ));
    }
    let chars: Vec<char> = String::from_utf8_lossy(text).chars().collect();
    for gram in chars.windows(n as usize) {
        out.push(gram.iter().collect::<String>().into_bytes());
    }
    Ok(())
}

/// The n-gram length of `tokens(s, 'ngrams')` without one.
const DEFAULT_NGRAM_LENGTH: i64 = 3;

/// `tokens(s[, tokenizer[, parameter]])`, the text index's tokenizers as a
/// function: `splitByNonAlpha` (the default), `ngrams` (length, default 3),
/// `splitByString` (separators, default `[' ']`, empty pieces dropped) and
/// `array` (the whole text, one token).
fn tokens_of(call: &Call) -> Result<ArrayRef> {
    let text = call.text(0)?;
    let tokenizer = match call.len() > 1 {
        true => call.text(1)?.get(0).unwrap_or_default().to_vec(),
        false => b"splitByNonAlpha".to_vec(),
    };
    let unknown = || {
        failure(
            ErrorCode::BAD_ARGUMENTS,
            format!(
                "Unknown tokenizer: '{}'",
                String::from_utf8_lossy(&tokenizer)
            ),
        )
    };
    match tokenizer.as_slice() {
        b"splitByNonAlpha" | b"array" if call.len() > 2 => Err(unknown()),
        b"splitByNonAlpha" => text_list_rows(call, |row, out| {
            out.extend(tokens(text.get(row).unwrap_or_default(), is_non_alpha));
            Ok(())
        }),
        b"array" => text_list_rows(call, |row, out| {
            out.push(text.get(row).unwrap_or_default().to_vec());
            Ok(())
        }),
        b"ngrams" => {
            let size = match call.len() > 2 {
                true => Some(call.int(2)?),
                false => None,
            };
            text_list_rows(call, |row, out| {
                let n = size
                    .as_ref()
                    .map_or(Some(DEFAULT_NGRAM_LENGTH), |s| s.get(row));
                push_ngrams(
                    text.get(row).unwrap_or_default(),
                    n.unwrap_or_default(),
                    out,
                )
            })
        }
        b"splitByString" => {
            let separators = match call.len() > 2 {
                true => Some(call.text_lists(2)?),
                false => None,
            };
            text_list_rows(call, |row, out| {
                let separators = match &separators {
                    Some(lists) => lists.get(row).unwrap_or_default(),
                    None => vec![b" ".as_slice()],
                };
                out.extend(split_by_any(text.get(row).unwrap_or_default(), &separators));
                Ok(())
            })
        }
        _ => Err(unknown()),
    }
}

/// The non-empty pieces of `text` between any of `separators`, the first
/// listed winning where several match at one place.
fn split_by_any(text: &[u8], separators: &[&[u8]]) -> Vec<Vec<u8>> {
    let mut pieces = Vec::new();
    let (mut start, mut at) = (0, 0);
    while at < text.len() {
        let found = separators
            .iter()
            .find(|s| !s.is_empty() && text[at..].starts_with(s));
        match found {
            Some(separator) => {
                if at > start {
                    pieces.push(text[start..at].to_vec());
                }
                at += separator.len();
                start = at;
            }
            None => at += 1,
        }
    }
    if text.len() > start {
        pieces.push(text[start..].to_vec());
    }
    pieces
}

/// `reverseBySeparator(s[, separator])`: the pieces between separators
/// (default `.`; bytes when empty) in reverse order.
fn reverse_by_separator(call: &Call) -> Result<ArrayRef> {
    let text = call.text(0)?;
    let separator = if call.len() > 1 {
        Some(call.text(1)?)
    } else {
        None
    };
    text_rows(call, |row, out| {
        let separator = separator.as_ref().and_then(|s| s.get(row)).unwrap_or(b".");
        let text = text.get(row).unwrap_or_default();
        // An empty separator splits between bytes, as ClickHouse does.
        if separator.is_empty() {
            out.extend(text.iter().rev());
            return Ok(Some(()));
        }
        let mut pieces = Vec::new();
        let mut rest = text;
        while let Some(at) = memchr::memmem::find(rest, separator) {
            pieces.push(&rest[..at]);
            rest = &rest[at + separator.len()..];
        }
        pieces.push(rest);
        out.extend_from_slice(&pieces.into_iter().rev().collect::<Vec<_>>().join(separator));
        Ok(Some(()))
    })
}

fn is_whitespace(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\x0B' | b'\x0C' | b'\r')
}

/// ASCII punctuation, whitespace and control bytes; other bytes of UTF-8
/// text belong to tokens.
fn is_non_alpha(b: u8) -> bool {
    b.is_ascii() && !b.is_ascii_alphanumeric()
}

const LIMITED: &[Param] = &[Param::Text, Param::Int];
const SEPARATED: &[Param] = &[Param::Text, Param::Text, Param::Int];

pub(crate) const SPECS: &[Spec] = &[
    Spec {
        name: "splitByChar",
        aliases: &[],
        params: SEPARATED,
        required: 2,
        output: Output::TextList,
        eval: |c| split_by_separator(c, true),
    },
    Spec {
        name: "splitByString",
        aliases: &[],
        params: SEPARATED,
        required: 2,
        output: Output::TextList,
        eval: |c| split_by_separator(c, false),
    },
    Spec {
        name: "splitByWhitespace",
        aliases: &[],
        params: LIMITED,
        required: 1,
        output: Output::TextList,
        eval: |c| split_by(c, is_whitespace),
    },
    Spec {
        name: "splitByNonAlpha",
        aliases: &[],
        params: LIMITED,
        required: 1,
        output: Output::TextList,
        eval: |c| split_by(c, is_non_alpha),
    },
    Spec {
        name: "alphaTokens",
        aliases: &["splitByAlpha"],
        params: LIMITED,
        required: 1,
        output: Output::TextList,
        eval: |c| split_by(c, |b| !b.is_ascii_alphabetic()),
    },
    Spec {
        name: "ngrams",
        aliases: &[],
        params: LIMITED,
        required: 2,
        output: Output::TextList,
        eval: ngrams,
    },
    Spec {
        name: "tokens",
        aliases: &[],
        params: &[Param::Text, Param::Text, Param::Any],
        required: 1,
        output: Output::TextList,
        eval: tokens_of,
    },
    Spec {
        name: "reverseBySeparator",
        aliases: &[],
        params: &[Param::Text, Param::Text],
        required: 1,
        output: Output::Text,
        eval: reverse_by_separator,
    },
];
