//! `substring` (`substr`, `mid`, `byteSlice`), `left`, `right` and their
//! UTF-8 forms, as ClickHouse cuts: offsets are 1-based, a negative offset
//! counts from the end, offset 0 gives an empty string, a negative length
//! stops that many units before the end. The plain forms count bytes, the
//! UTF-8 forms code points.

use std::ops::Range;

use datafusion::arrow::array::ArrayRef;
use datafusion::common::Result;

use super::udf::{Call, Output, Param, Spec, text_rows};

const CUT: &[Param] = &[Param::Text, Param::Int, Param::Int];
const SIDE: &[Param] = &[Param::Text, Param::Int];

pub(crate) const SPECS: &[Spec] = &[
    Spec {
        name: "substring",
        aliases: &["substr", "mid", "byteSlice"],
        params: CUT,
        required: 2,
        output: Output::Text,
        eval: |call| cut(call, Unit::Byte, Side::Window),
    },
    Spec {
        name: "substringUTF8",
        aliases: &[],
        params: CUT,
        required: 2,
        output: Output::Text,
        eval: |call| cut(call, Unit::Char, Side::Window),
    },
    Spec {
        name: "left",
        aliases: &[],
        params: SIDE,
        required: 2,
        output: Output::Text,
        eval: |call| cut(call, Unit::Byte, Side::Left),
    },
    Spec {
        name: "right",
        aliases: &[],
        params: SIDE,
        required: 2,
        output: Output::Text,
        eval: |call| cut(call, Unit::Byte, Side::Right),
    },
    Spec {
        name: "leftUTF8",
        aliases: &[],
        params: SIDE,
        required: 2,
        output: Output::Text,
        eval: |call| cut(call, Unit::Char, Side::Left),
    },
    Spec {
        name: "rightUTF8",
        aliases: &[],
        params: SIDE,
        required: 2,
        output: Output::Text,
        eval: |call| cut(call, Unit::Char, Side::Right),
    },
];

#[derive(Clone, Copy)]
enum Unit {
    Byte,
    Char,
}

#[derive(Clone, Copy)]
enum Side {
    Window,
    Left,
    Right,
}

/// The units `[start, end)` that `substring(s, offset, length)` keeps of a
/// value `len` units long.
fn window(len: usize, offset: i64, length: Option<i64>) -> Range<usize> {
    let len = len as i64;
    let start = match offset {
        0 => return 0..0,
        o if o > 0 => o - 1,
        o => len.saturating_add(o),
    };
    let end = match length {
        None => len,
        Some(l) if l >= 0 => start.saturating_add(l),
        Some(l) => len.saturating_add(l),
    };
    let clip = |x: i64| x.clamp(0, len) as usize;
    clip(start)..clip(end).max(clip(start))
}

/// The units `left(s, n)` or `right(s, n)` keep.
fn side(len: usize, n: i64, side: Side) -> Range<usize> {
    let count = n.unsigned_abs().min(len as u64) as usize;
    match (side, n >= 0) {
        (Side::Left, true) => 0..count,
        (Side::Left, false) => 0..len - count,
        (_, true) => len - count..len,
        (_, false) => count..len,
    }
}

/// The byte range of code points `range` of `text`.
fn char_bytes(text: &str, range: Range<usize>) -> Range<usize> {
    let mut bounds = text
        .char_indices()
        .map(|(i, _)| i)
        .chain(std::iter::once(text.len()));
    let start = bounds.nth(range.start).unwrap_or(text.len());
    let end = match range.end - range.start {
        0 => start,
        n => bounds.nth(n - 1).unwrap_or(text.len()),
    };
    start..end
}

fn cut(call: &Call, unit: Unit, kind: Side) -> Result<ArrayRef> {
    let text = call.text(0)?;
    let first = call.int(1)?;
    let second = if call.len() > 2 {
        Some(call.int(2)?)
    } else {
        None
    };
    text_rows(call, |row, out| {
        let bytes = text.get(row).unwrap_or_default();
        let n = first.get(row).unwrap_or_default();
        let length = second.as_ref().and_then(|s| s.get(row));
        let units = |len: usize| match kind {
            Side::Window => window(len, n, length),
            _ => side(len, n, kind),
        };
        match unit {
            Unit::Byte => out.extend_from_slice(&bytes[units(bytes.len())]),
            Unit::Char => {
                let text = String::from_utf8_lossy(bytes);
                let range = char_bytes(&text, units(text.chars().count()));
                out.extend_from_slice(&text.as_bytes()[range]);
            }
        }
        Ok(Some(()))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windows_follow_clickhouse() {
        assert_eq!(window(5, -10, None), 0..5);
        assert_eq!(window(5, -10, Some(3)), 0..0);
        assert_eq!(window(5, -10, Some(7)), 0..2);
        assert_eq!(window(5, -2, Some(-1)), 3..4);
        assert_eq!(window(5, 10, Some(-1)), 5..5);
        assert_eq!(window(5, 0, Some(3)), 0..0);
        assert_eq!(side(5, -4, Side::Left), 0..1);
        assert_eq!(side(5, -10, Side::Right), 5..5);
        assert_eq!(side(5, 7, Side::Right), 0..5);
    }

    #[test]
    fn code_points_map_to_bytes() {
        assert_eq!(char_bytes("añbc", 1..3), 1..4);
        assert_eq!(char_bytes("añbc", 4..4), 5..5);
    }
}
