//! Text as `parseDateTimeBestEffort` reads it: a moment in any of the
//! common shapes, not only ClickHouse's own.
//!
//! The text is read as words, numbers and separators. Accepted, in any
//! order where that makes sense:
//! - dates `YYYY-MM-DD` (`-`, `/` or `.` between the parts), `YYYY-MM`,
//!   `YYYY`, `YYYYMMDD`, `DD/MM/YYYY` (`MM/DD/YYYY` in the `US` forms; the
//!   other order where the first reading has no such month), two-digit
//!   years (below 70 in the 2000s);
//! - month names and their first three letters, weekday names (skipped);
//! - times `hh[:mm[:ss[.fraction]]]`, a `hhmmss` after a compact date, an
//!   hour alone after a full date, `AM` / `PM`;
//! - offsets `Z`, `UTC`, `GMT`, `MSK`, `±h`, `±hhmm`, `±hh:mm`;
//! - a Unix timestamp of 9 or 10 digits (with a fraction for DateTime64).
//!
//! What the text leaves out is the start of the current year: `Apr 20` is
//! April 20th of this year, `12` its January 12th, a time alone its
//! January 1st. Hours past 23 carry into the next day, as ClickHouse does.

use chrono::{Datelike, Duration, NaiveDate};

use super::text::{self, Text};

/// One piece of the text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Token<'a> {
    Number(&'a str),
    Word(&'a str),
    /// Any other character; runs of spaces are one `' '`.
    Mark(u8),
}

fn tokens(text: &str) -> Vec<Token<'_>> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut pos = 0;
    while pos < bytes.len() {
        let start = pos;
        let byte = bytes[pos];
        let run = |pos: &mut usize, test: fn(&u8) -> bool| {
            while *pos < bytes.len() && test(&bytes[*pos]) {
                *pos += 1;
            }
        };
        if byte.is_ascii_digit() {
            run(&mut pos, u8::is_ascii_digit);
            out.push(Token::Number(&text[start..pos]));
        } else if byte.is_ascii_alphabetic() {
            run(&mut pos, u8::is_ascii_alphabetic);
            out.push(Token::Word(&text[start..pos]));
        } else if byte.is_ascii_whitespace() {
            run(&mut pos, u8::is_ascii_whitespace);
            out.push(Token::Mark(b' '));
        } else {
            pos += 1;
            out.push(Token::Mark(byte));
        }
    }
    out
}

/// What the text has said so far.
#[derive(Debug, Default)]
struct Parts {
    year: Option<i32>,
    month: Option<u32>,
    day: Option<u32>,
    /// Seconds into the day and nanoseconds.
    time: Option<(i64, u32)>,
    /// `Some(true)` for PM.
    afternoon: Option<bool>,
    offset: Option<i32>,
}

impl Parts {
    fn has_date(&self) -> bool {
        self.year.is_some() && self.month.is_some() && self.day.is_some()
    }

    fn set<T>(slot: &mut Option<T>, value: T) -> Option<()> {
        if slot.is_some() {
            return None;
        }
        *slot = Some(value);
        Some(())
    }

    fn date(&mut self, year: i32, month: u32, day: u32) -> Option<()> {
        Parts::set(&mut self.year, year)?;
        Parts::set(&mut self.month, month)?;
        Parts::set(&mut self.day, day)
    }
}

/// The cursor over the tokens.
struct Reader<'a> {
    tokens: Vec<Token<'a>>,
    pos: usize,
    /// `MM/DD/YYYY` rather than `DD/MM/YYYY`.
    us: bool,
}

impl<'a> Reader<'a> {
    fn peek(&self, ahead: usize) -> Option<Token<'a>> {
        self.tokens.get(self.pos + ahead).copied()
    }

    fn next(&mut self) -> Option<Token<'a>> {
        let token = self.peek(0)?;
        self.pos += 1;
        Some(token)
    }

    fn eat(&mut self, mark: u8) -> bool {
        let found = self.peek(0) == Some(Token::Mark(mark));
        self.pos += usize::from(found);
        found
    }

    fn number(&mut self) -> Option<&'a str> {
        match self.peek(0)? {
            Token::Number(digits) => {
                self.pos += 1;
                Some(digits)
            }
            _ => None,
        }
    }
}

/// How a call reads text.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Reading {
    /// `MM/DD/YYYY` rather than `DD/MM/YYYY`.
    pub us: bool,
    /// For a DateTime64: a Unix timestamp may have a fraction.
    pub sub_second: bool,
    pub current_year: i32,
}

/// `text` read as best it can be: None where it is not a moment.
pub(crate) fn parse(text: &str, reading: Reading) -> Option<Text> {
    let text = text.trim();
    if let Some(unix) = unix_timestamp(text, reading.sub_second) {
        return Some(unix);
    }
    let mut reader = Reader {
        tokens: tokens(text),
        pos: 0,
        us: reading.us,
    };
    let mut parts = Parts::default();
    while let Some(token) = reader.next() {
        match token {
            Token::Number(digits) => number(&mut reader, &mut parts, digits)?,
            Token::Word(word) => word_part(&mut parts, word)?,
            Token::Mark(b' ' | b',') => {}
            Token::Mark(sign @ (b'+' | b'-')) => offset(&mut reader, &mut parts, sign)?,
            Token::Mark(_) => return None,
        }
    }
    assemble(parts, reading.current_year)
}

/// Digits alone (9 or 10 of them a Unix timestamp, 13, 16 or 19 one in
/// milli-, micro- or nanoseconds, 8 a date, 14 a date and time), or a Unix
/// timestamp with a fraction where `sub_second`.
fn unix_timestamp(text: &str, sub_second: bool) -> Option<Text> {
    let (whole, fraction) = text.split_once('.').unwrap_or((text, ""));
    let all_digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    if whole.is_empty() || !all_digits(whole) || !all_digits(fraction) {
        return None;
    }
    // Milli-, micro- or nanoseconds since the epoch: ten digits of seconds.
    let ticks = matches!(whole.len(), 13 | 16 | 19) && fraction.is_empty();
    let (whole, fraction) = match ticks {
        true => whole.split_at(10),
        false => (whole, fraction),
    };
    match (whole.len(), fraction.is_empty()) {
        (8 | 9 | 10 | 14, true) => text::digits_only(whole),
        (9 | 10, false) if sub_second || ticks => {
            let seconds: i64 = whole.parse().ok()?;
            let at = chrono::DateTime::from_timestamp(seconds, 0)?.naive_utc();
            let nanos = fraction_nanos(fraction);
            Some(Text::Local {
                at,
                nanos,
                offset: Some(0),
            })
        }
        _ => None,
    }
}

/// Up to nine digits after a point, as nanoseconds.
fn fraction_nanos(digits: &str) -> u32 {
    let kept = &digits[..digits.len().min(9)];
    let value: u32 = kept.parse().unwrap_or(0);
    value * 10u32.pow(9 - kept.len() as u32)
}

fn number(reader: &mut Reader, parts: &mut Parts, digits: &str) -> Option<()> {
    if reader.peek(0) == Some(Token::Mark(b':')) {
        return time(reader, parts, digits);
    }
    let value: u32 = digits.parse().ok()?;
    match digits.len() {
        8 => compact_date(reader, parts, digits),
        4 => long_year(reader, parts, value),
        1 | 2 if separated_date(reader) => short_date(reader, parts, value),
        1 | 2 if month_follows(reader) => named_month_date(reader, parts, value),
        1 | 2 if parts.has_date() && parts.time.is_none() => {
            parts.time = Some((value as i64 * 3600, 0));
            Some(())
        }
        1 | 2 => Parts::set(&mut parts.day, value),
        _ => None,
    }
}

/// `YYYYMMDD`, then optionally `T` or a space and `hhmmss`.
fn compact_date(reader: &mut Reader, parts: &mut Parts, digits: &str) -> Option<()> {
    let field = |range: std::ops::Range<usize>| digits[range].parse::<u32>().ok();
    parts.date(field(0..4)? as i32, field(4..6)?, field(6..8)?)?;
    let separated = matches!(reader.peek(0), Some(Token::Word("T" | "t")));
    if let (true, Some(Token::Number(time))) = (separated, reader.peek(1))
        && time.len() == 6
    {
        reader.pos += 2;
        let field = |range: std::ops::Range<usize>| time[range].parse::<i64>().ok();
        let seconds = field(0..2)? * 3600 + field(2..4)? * 60 + field(4..6)?;
        parts.time = Some((seconds, 0));
    }
    Some(())
}

/// A year, and its month and day when `-`, `/` or `.` follow.
fn long_year(reader: &mut Reader, parts: &mut Parts, year: u32) -> Option<()> {
    Parts::set(&mut parts.year, year as i32)?;
    let Some(Token::Mark(separator @ (b'-' | b'/' | b'.'))) = reader.peek(0) else {
        return Some(());
    };
    reader.pos += 1;
    Parts::set(&mut parts.month, reader.number()?.parse().ok()?)?;
    if reader.eat(separator) {
        Parts::set(&mut parts.day, reader.number()?.parse().ok()?)?;
    }
    Some(())
}

/// Whether `/`, `.` or `-` and a number follow.
fn separated_date(reader: &Reader) -> bool {
    matches!(reader.peek(0), Some(Token::Mark(b'/' | b'.' | b'-')))
        && matches!(reader.peek(1), Some(Token::Number(_)))
}

/// Whether `/`, `.` or `-` and a month's name follow (`05-Mar-2024`).
fn month_follows(reader: &Reader) -> bool {
    matches!(reader.peek(0), Some(Token::Mark(b'/' | b'.' | b'-')))
        && matches!(reader.peek(1), Some(Token::Word(word)) if month_number(word).is_some())
}

/// `DD-Mon[-YYYY]` (or with `/` or `.`), from its day.
fn named_month_date(reader: &mut Reader, parts: &mut Parts, day: u32) -> Option<()> {
    let (Some(Token::Mark(separator)), Some(Token::Word(month))) = (reader.next(), reader.next())
    else {
        return None;
    };
    Parts::set(&mut parts.day, day)?;
    Parts::set(&mut parts.month, month_number(month)?)?;
    if reader.eat(separator) {
        Parts::set(&mut parts.year, full_year(reader.number()?)?)?;
    }
    Some(())
}

/// `DD/MM/YYYY` or `MM/DD/YYYY` (the year optional), from its first number.
fn short_date(reader: &mut Reader, parts: &mut Parts, first: u32) -> Option<()> {
    let Some(Token::Mark(separator)) = reader.next() else {
        return None;
    };
    let second: u32 = reader.number()?.parse().ok()?;
    let year = match reader.eat(separator) {
        true => Some(reader.number()?),
        false => None,
    };
    let (mut day, mut month) = if reader.us {
        (second, first)
    } else {
        (first, second)
    };
    if month > 12 && day <= 12 {
        std::mem::swap(&mut day, &mut month);
    }
    Parts::set(&mut parts.day, day)?;
    Parts::set(&mut parts.month, month)?;
    if let Some(year) = year {
        Parts::set(&mut parts.year, full_year(year)?)?;
    }
    Some(())
}

/// A four-digit year, or a two-digit one in 1970-2069.
fn full_year(digits: &str) -> Option<i32> {
    let year: i32 = digits.parse().ok()?;
    match digits.len() {
        4 => Some(year),
        1 | 2 if year < 70 => Some(2000 + year),
        1 | 2 => Some(1900 + year),
        _ => None,
    }
}

/// `hh:mm[:ss][.fraction]`, from its hour.
fn time(reader: &mut Reader, parts: &mut Parts, hour: &str) -> Option<()> {
    let field = |digits: &str| (digits.len() <= 2).then(|| digits.parse::<i64>().ok())?;
    let mut seconds = field(hour)? * 3600;
    reader.eat(b':');
    seconds += field(reader.number()?)? * 60;
    if reader.eat(b':') {
        seconds += field(reader.number()?)?;
    }
    let mut nanos = 0;
    if reader.peek(0) == Some(Token::Mark(b'.'))
        && let Some(Token::Number(fraction)) = reader.peek(1)
    {
        reader.pos += 2;
        nanos = fraction_nanos(fraction);
    }
    Parts::set(&mut parts.time, (seconds, nanos))
}

const MONTHS: [&str; 12] = [
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
];

const WEEKDAYS: [&str; 7] = [
    "monday",
    "tuesday",
    "wednesday",
    "thursday",
    "friday",
    "saturday",
    "sunday",
];

/// Whether `word` is `name` or its start of at least three letters.
fn abbreviates(word: &str, name: &str) -> bool {
    word.len() >= 3 && name.starts_with(word)
}

/// The number of the month `word` names or abbreviates.
fn month_number(word: &str) -> Option<u32> {
    let lower = word.to_ascii_lowercase();
    let month = MONTHS.iter().position(|m| abbreviates(&lower, m))?;
    Some(month as u32 + 1)
}

fn word_part(parts: &mut Parts, word: &str) -> Option<()> {
    if let Some(month) = month_number(word) {
        return Parts::set(&mut parts.month, month);
    }
    let lower = word.to_ascii_lowercase();
    if WEEKDAYS.iter().any(|d| abbreviates(&lower, d)) {
        return Some(());
    }
    match lower.as_str() {
        "t" => Some(()),
        "am" | "pm" if parts.time.is_some() => Parts::set(&mut parts.afternoon, lower == "pm"),
        "z" | "utc" | "gmt" => Parts::set(&mut parts.offset, 0),
        "msk" => Parts::set(&mut parts.offset, 3 * 3600),
        _ => None,
    }
}

/// `±h`, `±hh`, `±hhmm` or `±hh:mm` after a time.
fn offset(reader: &mut Reader, parts: &mut Parts, sign: u8) -> Option<()> {
    parts.time?;
    let digits = reader.number()?;
    let (hours, mut minutes) = match digits.len() {
        1 | 2 => (digits.parse::<i32>().ok()?, 0),
        4 => (digits[..2].parse().ok()?, digits[2..].parse().ok()?),
        _ => return None,
    };
    if digits.len() <= 2 && reader.eat(b':') {
        minutes = reader.number()?.parse().ok()?;
    }
    let seconds = hours * 3600 + minutes * 60;
    Parts::set(
        &mut parts.offset,
        if sign == b'-' { -seconds } else { seconds },
    )
}

/// The moment the parts name, the rest taken from the current year's start.
fn assemble(parts: Parts, current_year: i32) -> Option<Text> {
    let said_something = parts.year.is_some()
        || parts.month.is_some()
        || parts.day.is_some()
        || parts.time.is_some();
    if !said_something {
        return None;
    }
    let date = NaiveDate::from_ymd_opt(
        parts.year.unwrap_or(current_year),
        parts.month.unwrap_or(1),
        parts.day.unwrap_or(1),
    )?;
    let (mut seconds, nanos) = parts.time.unwrap_or((0, 0));
    if let Some(afternoon) = parts.afternoon {
        let hour = seconds / 3600;
        if !(1..=12).contains(&hour) {
            return None;
        }
        // 12 AM is midnight, 12 PM noon.
        let shift = match (afternoon, hour == 12) {
            (false, true) => -12,
            (true, false) => 12,
            _ => 0,
        };
        seconds += shift * 3600;
    }
    let at = date.and_hms_opt(0, 0, 0)? + Duration::seconds(seconds);
    Some(Text::Local {
        at,
        nanos,
        offset: parts.offset,
    })
}

/// The current year, on UTC's calendar.
pub(crate) fn current_year() -> i32 {
    chrono::Utc::now().year()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The UTC moment of `text` as `YYYY-MM-DD hh:mm:ss[.nanos]`.
    fn read(text: &str, us: bool) -> Option<String> {
        let reading = Reading {
            us,
            sub_second: true,
            current_year: 2026,
        };
        let (seconds, nanos) = parse(text, reading)?.instant(None);
        let at = chrono::DateTime::from_timestamp(seconds, nanos)?.naive_utc();
        Some(match nanos {
            0 => at.format("%Y-%m-%d %H:%M:%S").to_string(),
            _ => at.format("%Y-%m-%d %H:%M:%S%.f").to_string(),
        })
    }

    #[test]
    fn reads_the_common_shapes() {
        for (text, expected) in [
            ("2024-01-02 03:04:05", "2024-01-02 03:04:05"),
            ("2024-01-02T03:04:05.123+02:00", "2024-01-02 01:04:05.123"),
            ("20240102", "2024-01-02 00:00:00"),
            ("20240102T030405", "2024-01-02 03:04:05"),
            ("1704164645", "2024-01-02 03:04:05"),
            ("1704164645.5", "2024-01-02 03:04:05.500"),
            ("Tue, 02 Jan 2024 03:04:05 GMT", "2024-01-02 03:04:05"),
            ("Mon Jan  2 03:04:05 2024", "2024-01-02 03:04:05"),
            ("January 2 2024 3:04 PM", "2024-01-02 15:04:00"),
            ("12:00 AM", "2026-01-01 00:00:00"),
            ("02/01/2024", "2024-01-02 00:00:00"),
            ("05-Mar-2024 10:00", "2024-03-05 10:00:00"),
            ("5.Mar.24", "2024-03-05 00:00:00"),
            ("31/12/24", "2024-12-31 00:00:00"),
            ("12/31/2024", "2024-12-31 00:00:00"),
            ("17.4.2021 12:00:00", "2021-04-17 12:00:00"),
            ("2024-01", "2024-01-01 00:00:00"),
            ("2024 Jan 2", "2024-01-02 00:00:00"),
            ("Apr 20", "2026-04-20 00:00:00"),
            ("12", "2026-01-12 00:00:00"),
            ("2024-01-02 03", "2024-01-02 03:00:00"),
            ("2024-01-02 25:00:00", "2024-01-03 01:00:00"),
            ("2024-01-02 03:04:05 MSK", "2024-01-02 00:04:05"),
            ("2024-01-02T03:04:05.5-0130", "2024-01-02 04:34:05.500"),
            ("2024-01-02 03:04:05+3", "2024-01-02 00:04:05"),
        ] {
            assert_eq!(read(text, false).as_deref(), Some(expected), "{text}");
        }
        assert_eq!(
            read("02/01/2024", true).as_deref(),
            Some("2024-02-01 00:00:00")
        );
    }

    #[test]
    fn refuses_what_is_not_a_moment() {
        for text in [
            "garbage",
            "2024-13-01",
            "2024-02-30",
            "0",
            "123",
            "1234567",
            "20240102 0304",
            "2024-01-02 03:04:05,123",
            "2024-01-02 03:04:05 EST",
            "",
        ] {
            assert_eq!(read(text, false), None, "{text}");
        }
    }
}
