//! DateTime text as `toDateTime` and `toDateTime64` read it: a date
//! `YYYY-MM-DD` (any one non-digit between the parts, one-digit months and
//! days allowed) or `YYYYMMDD`, optionally followed by a space or `T` and a
//! time `hh[:mm[:ss]]` with an optional fraction, then optionally `Z` or an
//! offset `±hh[[:]mm]`; `YYYYMMDDhhmmss`; or a Unix timestamp of 9 or 10
//! digits. Hours past 23 carry into the next day; an impossible date is
//! an error.

use chrono::{Duration, NaiveDate, NaiveDateTime};
use datafusion::arrow::array::timezone::Tz;

/// A parsed DateTime text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Text {
    /// Seconds since the epoch.
    Unix(i64),
    /// A wall-clock time, its fraction of a second in nanoseconds, and the
    /// offset from UTC the text named, if any.
    Local {
        at: NaiveDateTime,
        nanos: u32,
        offset: Option<i32>,
    },
}

impl Text {
    /// The UTC second and nanoseconds, reading a wall-clock time without
    /// an offset in `zone`.
    pub fn instant(self, zone: Option<&Tz>) -> (i64, u32) {
        match self {
            Text::Unix(seconds) => (seconds, 0),
            Text::Local { at, nanos, offset } => {
                let utc = match offset {
                    Some(offset) => at.and_utc().timestamp() - offset as i64,
                    None => super::moments::local_to_utc(at, zone),
                };
                (utc, nanos)
            }
        }
    }
}

/// A cursor over the text's bytes.
struct Cursor<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl Cursor<'_> {
    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }

    /// Up to `most` digits (at least one) as a number.
    fn number(&mut self, most: usize) -> Option<u32> {
        let start = self.pos;
        while self.pos - start < most && self.peek().is_some_and(|b| b.is_ascii_digit()) {
            self.pos += 1;
        }
        if self.pos == start {
            return None;
        }
        std::str::from_utf8(&self.bytes[start..self.pos])
            .ok()?
            .parse()
            .ok()
    }

    fn eat(&mut self, byte: u8) -> bool {
        let found = self.peek() == Some(byte);
        self.pos += usize::from(found);
        found
    }

    fn skip_spaces(&mut self) {
        while self.peek().is_some_and(|b| b.is_ascii_whitespace()) {
            self.pos += 1;
        }
    }

    fn at_end(&self) -> bool {
        self.pos == self.bytes.len()
    }
}

pub(crate) fn parse(text: &str) -> Option<Text> {
    let text = text.trim();
    if !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit()) {
        return digits_only(text);
    }
    let mut cursor = Cursor {
        bytes: text.as_bytes(),
        pos: 0,
    };
    let date = date(&mut cursor)?;
    let (seconds, nanos) = if cursor.at_end() {
        (0, 0)
    } else {
        if !(cursor.eat(b' ') || cursor.eat(b'T')) {
            return None;
        }
        cursor.skip_spaces();
        time(&mut cursor)?
    };
    cursor.skip_spaces();
    let offset = offset(&mut cursor)?;
    cursor.skip_spaces();
    if !cursor.at_end() {
        return None;
    }
    let at = date.and_hms_opt(0, 0, 0)? + Duration::seconds(seconds);
    Some(Text::Local { at, nanos, offset })
}

pub(crate) fn digits_only(text: &str) -> Option<Text> {
    let number = |range: std::ops::Range<usize>| text[range].parse::<u32>().ok();
    let date = || NaiveDate::from_ymd_opt(number(0..4)? as i32, number(4..6)?, number(6..8)?);
    match text.len() {
        8 => Some(Text::Local {
            at: date()?.and_hms_opt(0, 0, 0)?,
            nanos: 0,
            offset: None,
        }),
        14 => {
            let seconds = number(8..10)? * 3600 + number(10..12)? * 60 + number(12..14)?;
            let at = date()?.and_hms_opt(0, 0, 0)? + Duration::seconds(seconds as i64);
            Some(Text::Local {
                at,
                nanos: 0,
                offset: None,
            })
        }
        9 | 10 => Some(Text::Unix(text.parse().ok()?)),
        _ => None,
    }
}

fn date(cursor: &mut Cursor) -> Option<NaiveDate> {
    let year = cursor.number(4)?;
    if cursor.pos != 4 {
        return None;
    }
    let separator = cursor.peek()?;
    let (month, day) = if separator.is_ascii_digit() {
        (cursor.number(2)?, cursor.number(2)?)
    } else {
        cursor.pos += 1;
        let month = cursor.number(2)?;
        if !cursor.eat(separator) {
            return None;
        }
        (month, cursor.number(2)?)
    };
    NaiveDate::from_ymd_opt(year as i32, month, day)
}

/// `hh[:mm[:ss]][.fraction]` as seconds into the day and nanoseconds.
fn time(cursor: &mut Cursor) -> Option<(i64, u32)> {
    let mut seconds = cursor.number(2)? as i64 * 3600;
    if cursor.eat(b':') {
        seconds += cursor.number(2)? as i64 * 60;
        if cursor.eat(b':') {
            seconds += cursor.number(2)? as i64;
        }
    }
    let mut nanos = 0u32;
    if cursor.eat(b'.') {
        let mut scale = 100_000_000;
        while let Some(digit) = cursor.peek().filter(u8::is_ascii_digit) {
            nanos += (digit - b'0') as u32 * scale;
            scale /= 10;
            cursor.pos += 1;
        }
    }
    Some((seconds, nanos))
}

/// `Z`, `±hh`, `±hhmm` or `±hh:mm`: Some(None) when there is none.
fn offset(cursor: &mut Cursor) -> Option<Option<i32>> {
    if cursor.eat(b'Z') {
        return Some(Some(0));
    }
    let sign = match cursor.peek() {
        Some(b'+') => 1,
        Some(b'-') => -1,
        _ => return Some(None),
    };
    cursor.pos += 1;
    let start = cursor.pos;
    let hours = cursor.number(2)? as i32;
    let one_digit = cursor.pos - start == 1;
    let minutes = if !one_digit && (cursor.eat(b':') || cursor.peek().is_some()) {
        cursor.number(2).unwrap_or(0) as i32
    } else {
        0
    };
    Some(Some(sign * (hours * 3600 + minutes * 60)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn utc(text: &str) -> Option<(i64, u32)> {
        parse(text).map(|t| t.instant(None))
    }

    #[test]
    fn reads_clickhouse_date_time_texts() {
        let ten = 1_704_103_200; // 2024-01-01 10:00:00 UTC
        assert_eq!(utc("2024-01-01 10:00:00"), Some((ten, 0)));
        assert_eq!(utc(" 2024/1/1T10:00 "), Some((ten, 0)));
        assert_eq!(utc("2024-01-01 10:00:00.5Z"), Some((ten, 500_000_000)));
        assert_eq!(utc("2024-01-01 13:00:00+03:00"), Some((ten, 0)));
        assert_eq!(utc("2024-01-01 13:30:00+0330"), Some((ten, 0)));
        assert_eq!(utc("2024-01-01 07:00:00-3"), Some((ten, 0)));
        assert_eq!(utc("20240101100000"), Some((ten, 0)));
        assert_eq!(utc("2024-01-01 34:00:00"), Some((ten + 86_400, 0)));
        assert_eq!(utc("1704103200"), Some((ten, 0)));
        assert_eq!(utc("20240101"), Some((ten - 36_000, 0)));
        for bad in [
            "2024-02-30",
            "2024-01-01x",
            "123",
            "12345678901",
            "",
            "2024-01",
        ] {
            assert_eq!(parse(bad), None, "{bad}");
        }
    }
}
