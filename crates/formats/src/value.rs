//! Rendering one Arrow value as ClickHouse writes it in each text style.
//!
//! Output compatibility is judged byte for byte, so numbers, dates, NULLs and
//! string escaping follow ClickHouse exactly: floats in shortest round-trip form
//! with JavaScript-style exponents, `\N` for NULL in TSV and CSV, `\'` escapes in
//! TSV, doubled quotes in CSV, `\/` in JSON.

use std::fmt::Write;
use std::sync::Arc;

use chrono::{DateTime, NaiveDate};
use datafusion::arrow::array::{Array, ArrayRef, AsArray, StringArray, StringBuilder, StructArray};
use datafusion::arrow::datatypes::*;
use strata_common::ip_text::{format_ipv4, format_ipv6};
use strata_common::types::{
    BigInt, declared_precision, interval_type, is_ipv4, is_ipv6, is_uuid, unit_digits,
};
use strata_common::uuid_text::{UUID_TEXT_LEN, write_uuid};

/// How a value is written; each output format uses one style for top-level values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Style {
    /// TabSeparated: strings escaped with backslashes, NULL as `\N`.
    Escaped,
    /// Inside arrays and tuples, and in SQL: strings in single quotes, NULL as `NULL`.
    Quoted,
    /// CSV: strings and dates in double quotes, NULL as `\N`.
    Csv,
    /// JSON formats: strings JSON-escaped, NULL as `null`, non-finite floats as `null`.
    Json,
    /// Pretty and Vertical: strings as they are, NULL as `ᴺᵁᴸᴸ`.
    Raw,
}

/// Options that change how individual values look.
#[derive(Debug, Clone, Copy)]
pub struct ValueOptions {
    pub json_quote_64bit_integers: bool,
    /// `output_format_json_quote_denormals`: JSON writes nan and ±inf as
    /// quoted text rather than `null`.
    pub json_quote_denormals: bool,
    /// `date_time_output_format`: how a DateTime is written.
    pub date_time_style: DateTimeStyle,
    /// `bool_true_representation`, `bool_false_representation`: a Bool's
    /// text at the top level of TSV, CSV, Pretty and Vertical.
    pub bool_texts: [&'static str; 2],
    /// `format_tsv_null_representation`, `format_csv_null_representation`:
    /// a NULL's text at the top level of TSV and CSV.
    pub null_texts: NullTexts,
    /// `output_format_decimal_trailing_zeros`: a Decimal keeps the zeros
    /// that end its fraction (`1.500`).
    pub decimal_trailing_zeros: bool,
}

/// A NULL's text at the top level of TSV and of CSV.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NullTexts {
    pub tsv: &'static str,
    pub csv: &'static str,
}

impl Default for ValueOptions {
    fn default() -> Self {
        ValueOptions {
            json_quote_64bit_integers: false,
            json_quote_denormals: false,
            date_time_style: DateTimeStyle::Simple,
            bool_texts: ["false", "true"],
            null_texts: NullTexts {
                tsv: "\\N",
                csv: "\\N",
            },
            decimal_trailing_zeros: false,
        }
    }
}

/// How a DateTime is written (`date_time_output_format`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DateTimeStyle {
    /// `2020-10-14 21:00:00`, on the wall clock of its zone.
    Simple,
    /// `2020-10-14T21:00:00Z`, in UTC.
    Iso,
    /// `1602709200`: seconds since the epoch, with a DateTime64's fraction.
    UnixTimestamp,
}

impl DateTimeStyle {
    /// The style a `date_time_output_format` value names; `simple` for any other.
    pub fn named(name: &str) -> Self {
        match name {
            "iso" => DateTimeStyle::Iso,
            "unix_timestamp" => DateTimeStyle::UnixTimestamp,
            _ => DateTimeStyle::Simple,
        }
    }
}

impl ValueOptions {
    /// The options with Bools written as `false_text` and `true_text`.
    pub fn with_bool_texts(self, false_text: &str, true_text: &str) -> Self {
        ValueOptions {
            bool_texts: [interned(false_text), interned(true_text)],
            ..self
        }
    }

    pub fn with_null_texts(self, tsv: &str, csv: &str) -> Self {
        ValueOptions {
            null_texts: NullTexts {
                tsv: interned(tsv),
                csv: interned(csv),
            },
            ..self
        }
    }
}

/// `text` kept for the life of the process: few distinct texts are ever set,
/// and options stay `Copy`.
fn interned(text: &str) -> &'static str {
    static TEXTS: std::sync::Mutex<std::collections::BTreeSet<&'static str>> =
        std::sync::Mutex::new(std::collections::BTreeSet::new());
    let mut texts = TEXTS
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    match texts.get(text) {
        Some(kept) => kept,
        None => {
            let kept: &'static str = Box::leak(text.to_string().into_boxed_str());
            texts.insert(kept);
            kept
        }
    }
}

/// The canonical text of each UUID in `array`, a `FixedSizeBinary(16)`.
pub fn uuids_as_text(array: &dyn Array) -> ArrayRef {
    let uuids = array.as_fixed_size_binary();
    let mut text = String::new();
    let mut out = StringBuilder::with_capacity(uuids.len(), uuids.len() * UUID_TEXT_LEN);
    for uuid in uuids.iter() {
        match uuid {
            Some(bytes) => {
                text.clear();
                write_uuid(bytes, &mut text);
                out.append_value(&text);
            }
            None => out.append_null(),
        }
    }
    Arc::new(out.finish())
}

/// The text of each value of a column whose field says it is shown as text
/// (a UUID, an IPv4 or IPv6 address, a DateTime64 of a precision its unit
/// does not show), or `None` for any other column.
pub fn declared_as_text(
    field: &Field,
    array: &dyn Array,
    date_time_style: DateTimeStyle,
) -> Option<ArrayRef> {
    if is_uuid(field) {
        return Some(uuids_as_text(array));
    }
    if let (Some(precision), DataType::Timestamp(unit, zone)) =
        (declared_precision(field), field.data_type())
    {
        let moment = (*unit, zone.as_deref());
        let texts: StringArray = (0..array.len())
            .map(|row| {
                array
                    .is_valid(row)
                    .then(|| format_timestamp(array, row, moment, date_time_style, precision))
            })
            .collect();
        return Some(Arc::new(texts));
    }
    if let Some(interval) = interval_type(field) {
        return Some(interval_counts(interval, array));
    }
    let format: fn(&dyn Array, usize, &mut String) = if is_ipv4(field) {
        |array, row, text| format_ipv4(array.as_primitive::<UInt32Type>().value(row), text)
    } else if is_ipv6(field) {
        |array, row, text| {
            let bytes = array.as_fixed_size_binary().value(row);
            format_ipv6(bytes.try_into().expect("an IPv6 address is 16 bytes"), text)
        }
    } else {
        return None;
    };
    let mut text = String::new();
    let mut out = StringBuilder::with_capacity(array.len(), array.len() * 16);
    for row in 0..array.len() {
        if array.is_null(row) {
            out.append_null();
            continue;
        }
        text.clear();
        format(array, row, &mut text);
        out.append_value(&text);
    }
    Some(Arc::new(out.finish()))
}

/// An interval of one unit as ClickHouse shows it: the count of its unit.
fn interval_counts(interval: &str, array: &dyn Array) -> ArrayRef {
    const NANOS_PER_SECOND: i64 = 1_000_000_000;
    let count: fn(IntervalMonthDayNano) -> i64 = match interval {
        "IntervalYear" => |v| i64::from(v.months / 12),
        "IntervalQuarter" => |v| i64::from(v.months / 3),
        "IntervalMonth" => |v| i64::from(v.months),
        "IntervalWeek" => |v| i64::from(v.days / 7),
        "IntervalDay" => |v| i64::from(v.days),
        "IntervalHour" => |v| v.nanoseconds / (3600 * NANOS_PER_SECOND),
        "IntervalMinute" => |v| v.nanoseconds / (60 * NANOS_PER_SECOND),
        "IntervalSecond" => |v| v.nanoseconds / NANOS_PER_SECOND,
        "IntervalMillisecond" => |v| v.nanoseconds / 1_000_000,
        "IntervalMicrosecond" => |v| v.nanoseconds / 1_000,
        _ => |v| v.nanoseconds,
    };
    let values = array.as_primitive::<IntervalMonthDayNanoType>();
    let text: StringArray = values
        .iter()
        .map(|v| v.map(|v| count(v).to_string()))
        .collect();
    Arc::new(text)
}

/// True for columns ClickHouse right-aligns in Pretty and Markdown: numbers
/// (not IPv4 addresses, stored as one), dates and times.
pub fn aligns_right(field: &Field) -> bool {
    let data_type = field.data_type();
    (data_type.is_numeric() || data_type.is_temporal()) && !is_ipv4(field)
}

/// How NULL is written in `style`.
fn null_text(style: Style, options: ValueOptions) -> &'static str {
    match style {
        Style::Escaped => options.null_texts.tsv,
        Style::Csv => options.null_texts.csv,
        Style::Quoted => "NULL",
        Style::Json => "null",
        Style::Raw => "ᴺᵁᴸᴸ",
    }
}

/// Appends row `row` of `array` to `out` in `style`.
pub fn write_value(
    array: &dyn Array,
    row: usize,
    style: Style,
    options: ValueOptions,
    out: &mut String,
) {
    if array.is_null(row) {
        out.push_str(null_text(style, options));
        return;
    }
    macro_rules! int {
        ($t:ty, $wide:expr) => {{
            let v = array.as_primitive::<$t>().value(row);
            if $wide && style == Style::Json && options.json_quote_64bit_integers {
                let _ = write!(out, "\"{v}\"");
            } else {
                let _ = write!(out, "{v}");
            }
        }};
    }
    macro_rules! float {
        ($t:ty) => {{
            let v = array.as_primitive::<$t>().value(row);
            write_float(
                v.is_finite().then(|| format!("{v:e}")),
                v.is_nan(),
                v.is_sign_negative(),
                (style, options.json_quote_denormals),
                out,
            );
        }};
    }
    match array.data_type() {
        DataType::Null => out.push_str(null_text(style, options)),
        DataType::Boolean => {
            let value = array.as_boolean().value(row);
            out.push_str(match style {
                Style::Escaped | Style::Csv | Style::Raw => options.bool_texts[value as usize],
                Style::Quoted | Style::Json if value => "true",
                Style::Quoted | Style::Json => "false",
            });
        }
        DataType::UInt8 => int!(UInt8Type, false),
        DataType::UInt16 => int!(UInt16Type, false),
        DataType::UInt32 => int!(UInt32Type, false),
        DataType::UInt64 => int!(UInt64Type, true),
        DataType::Int8 => int!(Int8Type, false),
        DataType::Int16 => int!(Int16Type, false),
        DataType::Int32 => int!(Int32Type, false),
        DataType::Int64 => int!(Int64Type, true),
        DataType::Float32 => float!(Float32Type),
        DataType::Float64 => float!(Float64Type),
        DataType::Utf8 => write_string(array.as_string::<i32>().value(row), style, out),
        DataType::LargeUtf8 => write_string(array.as_string::<i64>().value(row), style, out),
        DataType::Utf8View => write_string(array.as_string_view().value(row), style, out),
        DataType::Binary => write_string(
            &String::from_utf8_lossy(array.as_binary::<i32>().value(row)),
            style,
            out,
        ),
        DataType::FixedSizeBinary(_) => {
            let bytes = array.as_fixed_size_binary().value(row);
            write_string(&String::from_utf8_lossy(bytes), style, out)
        }
        DataType::Date32 => {
            let days = array.as_primitive::<Date32Type>().value(row);
            let date = NaiveDate::from_num_days_from_ce_opt(days + 719_163);
            let text = date
                .map(|d| d.format("%Y-%m-%d").to_string())
                .unwrap_or_else(|| days.to_string());
            write_quoted_text(&text, style, out);
        }
        DataType::Timestamp(unit, zone) => {
            let text = format_timestamp(
                array,
                row,
                (*unit, zone.as_deref()),
                options.date_time_style,
                unit_digits(*unit),
            );
            write_quoted_text(&text, style, out);
        }
        data_type if let Some(big) = BigInt::of(data_type) => {
            let v = match big {
                BigInt::Int128 => {
                    i256::from_i128(array.as_primitive::<Decimal128Type>().value(row))
                }
                _ => array.as_primitive::<Decimal256Type>().value(row),
            };
            // Quoted in JSON as 64-bit integers are, by the same setting.
            match style == Style::Json && options.json_quote_64bit_integers {
                true => {
                    let _ = write!(out, "\"{}\"", big.to_text(v));
                }
                false => out.push_str(&big.to_text(v)),
            }
        }
        DataType::Decimal128(_, scale) => {
            let v = array.as_primitive::<Decimal128Type>().value(row);
            out.push_str(&format_decimal(v, *scale, options.decimal_trailing_zeros));
        }
        DataType::Decimal256(_, scale) => {
            let v = array.as_primitive::<Decimal256Type>().value(row);
            let zeros = options.decimal_trailing_zeros;
            out.push_str(&format_decimal_text(&v.to_string(), *scale, zeros));
        }
        DataType::List(item) => {
            let list = array.as_list::<i32>();
            write_list(item, list.value(row).as_ref(), style, options, out);
        }
        DataType::LargeList(item) => {
            let list = array.as_list::<i64>();
            write_list(item, list.value(row).as_ref(), style, options, out);
        }
        DataType::Struct(fields) => {
            let s = array.as_struct();
            let nested = nested_style(style);
            // JSON writes a named tuple as an object (ClickHouse's
            // `output_format_json_named_tuples_as_objects`, on by default).
            let named = style == Style::Json && strata_common::types::is_named_tuple(fields);
            let (open, close) = match style {
                Style::Json if named => ('{', '}'),
                Style::Json => ('[', ']'),
                _ => ('(', ')'),
            };
            let mut text = String::new();
            text.push(open);
            for (i, (field, column)) in fields.iter().zip(s.columns()).enumerate() {
                if i > 0 {
                    text.push(',');
                }
                if named {
                    text.push_str(&crate::json::json_string(field.name()));
                    text.push(':');
                }
                write_element(field, column.as_ref(), row, nested, options, &mut text);
            }
            text.push(close);
            write_composite(&text, style, out);
        }
        DataType::Map(_, _) => write_map(array.as_map().value(row), style, options, out),
        DataType::Dictionary(_, _) => {
            let dict = array.as_any_dictionary();
            let key = dict.normalized_keys()[row];
            write_value(dict.values().as_ref(), key, style, options, out);
        }
        _ => {
            let formatter = datafusion::arrow::util::display::ArrayFormatter::try_new(
                array,
                &Default::default(),
            );
            match formatter {
                Ok(f) => write_string(&f.value(row).to_string(), style, out),
                Err(_) => out.push_str("?"),
            }
        }
    }
}

/// Whether values inside an array, tuple or map with `field` are written
/// as text: the field, not the array, knows the bytes are a UUID or an
/// address (quoted, as ClickHouse writes them; an interval stays its bare
/// count).
fn shown_as_text(field: &Field) -> bool {
    is_uuid(field) || is_ipv4(field) || is_ipv6(field) || declared_precision(field).is_some()
}

/// Writes value `row` of `array`, an element of a tuple or map with `field`.
fn write_element(
    field: &Field,
    array: &dyn Array,
    row: usize,
    style: Style,
    options: ValueOptions,
    out: &mut String,
) {
    let text = shown_as_text(field)
        .then(|| declared_as_text(field, &array.slice(row, 1), options.date_time_style))
        .flatten();
    match text {
        Some(text) => write_value(text.as_ref(), 0, style, options, out),
        None => write_value(array, row, style, options, out),
    }
}

fn nested_style(style: Style) -> Style {
    if style == Style::Json {
        Style::Json
    } else {
        Style::Quoted
    }
}

fn write_list(
    item: &Field,
    values: &dyn Array,
    style: Style,
    options: ValueOptions,
    out: &mut String,
) {
    let nested = nested_style(style);
    let texts = shown_as_text(item)
        .then(|| declared_as_text(item, values, options.date_time_style))
        .flatten();
    let values = texts.as_deref().unwrap_or(values);
    let mut text = String::from("[");
    for i in 0..values.len() {
        if i > 0 {
            text.push(',');
        }
        write_value(values, i, nested, options, &mut text);
    }
    text.push(']');
    write_composite(&text, style, out);
}

/// `{'k':1}`; JSON keys are always strings, so there `{"k":1}` and `{"1":2}`.
fn write_map(entries: StructArray, style: Style, options: ValueOptions, out: &mut String) {
    let nested = nested_style(style);
    let (keys, values) = (entries.column(0), entries.column(1));
    let (key_field, value_field) = (&entries.fields()[0], &entries.fields()[1]);
    let mut text = String::from("{");
    let mut key = String::new();
    for i in 0..entries.len() {
        if i > 0 {
            text.push(',');
        }
        if style == Style::Json {
            key.clear();
            write_element(key_field, keys.as_ref(), i, Style::Raw, options, &mut key);
            write_json_string(&key, &mut text);
        } else {
            write_element(key_field, keys.as_ref(), i, nested, options, &mut text);
        }
        text.push(':');
        write_element(value_field, values.as_ref(), i, nested, options, &mut text);
    }
    text.push('}');
    write_composite(&text, style, out);
}

/// Arrays, tuples and maps are written in quoted style (whose strings are already
/// escaped); CSV then quotes the whole text as one field.
fn write_composite(text: &str, style: Style, out: &mut String) {
    match style {
        Style::Csv => write_csv_string(text, out),
        Style::Escaped | Style::Quoted | Style::Json | Style::Raw => out.push_str(text),
    }
}

/// Dates and times are bare in TSV and Pretty, quoted elsewhere.
fn write_quoted_text(text: &str, style: Style, out: &mut String) {
    match style {
        Style::Escaped | Style::Raw => out.push_str(text),
        Style::Quoted => {
            out.push('\'');
            out.push_str(text);
            out.push('\'');
        }
        Style::Csv | Style::Json => {
            out.push('"');
            out.push_str(text);
            out.push('"');
        }
    }
}

fn write_string(s: &str, style: Style, out: &mut String) {
    match style {
        Style::Escaped => escape_tsv(s, out),
        Style::Raw => out.push_str(s),
        Style::Quoted => {
            out.push('\'');
            escape_tsv(s, out);
            out.push('\'');
        }
        Style::Csv => write_csv_string(s, out),
        Style::Json => write_json_string(s, out),
    }
}

pub(crate) fn escape_tsv(s: &str, out: &mut String) {
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\0' => out.push_str("\\0"),
            '\x08' => out.push_str("\\b"),
            '\x0c' => out.push_str("\\f"),
            '\'' => out.push_str("\\'"),
            c => out.push(c),
        }
    }
}

fn write_csv_string(s: &str, out: &mut String) {
    out.push('"');
    for c in s.chars() {
        if c == '"' {
            out.push('"');
        }
        out.push(c);
    }
    out.push('"');
}

pub fn write_json_string(s: &str, out: &mut String) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '/' => out.push_str("\\/"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\x08' => out.push_str("\\b"),
            '\x0c' => out.push_str("\\f"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

/// `scientific` is Rust's shortest round-trip form (`1.5e22`), or None when not finite.
fn write_float(
    scientific: Option<String>,
    is_nan: bool,
    negative: bool,
    (style, quote_denormals): (Style, bool),
    out: &mut String,
) {
    let text = match (is_nan, negative) {
        (true, _) => "nan",
        (false, true) => "-inf",
        (false, false) => "inf",
    };
    match scientific {
        Some(sci) => out.push_str(&float_text(&sci)),
        None if style == Style::Json && quote_denormals => {
            out.push('"');
            out.push_str(text);
            out.push('"');
        }
        None if style == Style::Json => out.push_str("null"),
        None => out.push_str(text),
    }
}

/// Lays out shortest round-trip digits as ClickHouse does: plain decimal notation
/// for exponents from -6 to 20, `1e21` / `1e-7` style beyond.
fn float_text(scientific: &str) -> String {
    let (mantissa, exponent) = scientific
        .split_once('e')
        .expect("{:e} always has an exponent");
    let exponent: i32 = exponent.parse().expect("valid exponent");
    let negative = mantissa.starts_with('-');
    let digits: String = mantissa.chars().filter(|c| c.is_ascii_digit()).collect();
    let mut text = String::new();
    if negative {
        text.push('-');
    }
    if digits == "0" {
        text.push('0');
        return text;
    }
    if exponent >= 21 || exponent < -6 {
        text.push_str(&digits[..1]);
        if digits.len() > 1 {
            text.push('.');
            text.push_str(&digits[1..]);
        }
        let _ = write!(text, "e{exponent}");
    } else if exponent >= 0 {
        let point = exponent as usize + 1;
        if digits.len() <= point {
            text.push_str(&digits);
            text.extend(std::iter::repeat_n('0', point - digits.len()));
        } else {
            text.push_str(&digits[..point]);
            text.push('.');
            text.push_str(&digits[point..]);
        }
    } else {
        text.push_str("0.");
        text.extend(std::iter::repeat_n('0', (-exponent - 1) as usize));
        text.push_str(&digits);
    }
    text
}

/// A DateTime as ClickHouse writes it in `style`: by default on the wall
/// clock of its time zone.
fn format_timestamp(
    array: &dyn Array,
    row: usize,
    (unit, zone): (TimeUnit, Option<&str>),
    style: DateTimeStyle,
    shown_digits: u8,
) -> String {
    let (raw, per_second, digits) = match unit {
        TimeUnit::Second => (array.as_primitive::<TimestampSecondType>().value(row), 1, 0),
        TimeUnit::Millisecond => (
            array.as_primitive::<TimestampMillisecondType>().value(row),
            1_000,
            3,
        ),
        TimeUnit::Microsecond => (
            array.as_primitive::<TimestampMicrosecondType>().value(row),
            1_000_000,
            6,
        ),
        TimeUnit::Nanosecond => (
            array.as_primitive::<TimestampNanosecondType>().value(row),
            1_000_000_000,
            9,
        ),
    };
    // A DateTime64 of a precision its unit does not show drops the
    // digits past it (they are zeros).
    let shown_digits = usize::from(shown_digits);
    let hidden = 10_i64.pow((digits - shown_digits) as u32);
    let (raw, per_second, digits) = (raw / hidden, per_second / hidden, shown_digits);
    if style == DateTimeStyle::UnixTimestamp {
        let sign = if raw < 0 { "-" } else { "" };
        let (whole, fraction) = (
            raw.unsigned_abs() / per_second as u64,
            raw.unsigned_abs() % per_second as u64,
        );
        return match digits {
            0 => format!("{sign}{whole}"),
            _ => format!("{sign}{whole}.{fraction:0digits$}"),
        };
    }
    let seconds = raw.div_euclid(per_second);
    let fraction = raw.rem_euclid(per_second);
    let Some(time) = DateTime::from_timestamp(seconds, 0) else {
        return raw.to_string();
    };
    let zone = zone.and_then(|name| name.parse::<datafusion::arrow::array::timezone::Tz>().ok());
    let (layout, zone) = match style {
        DateTimeStyle::Iso => ("%Y-%m-%dT%H:%M:%S", None),
        _ => ("%Y-%m-%d %H:%M:%S", zone),
    };
    let mut text = match zone {
        Some(zone) => time.with_timezone(&zone).format(layout).to_string(),
        None => time.format(layout).to_string(),
    };
    if digits > 0 {
        let _ = write!(text, ".{fraction:0digits$}");
    }
    if style == DateTimeStyle::Iso {
        text.push('Z');
    }
    text
}

fn format_decimal(value: i128, scale: i8, trailing_zeros: bool) -> String {
    format_decimal_text(&value.to_string(), scale, trailing_zeros)
}

/// A Decimal from its integer's text: the point `scale` digits from the
/// end, trailing zeros of the fraction dropped unless `trailing_zeros`, as
/// ClickHouse shows it.
fn format_decimal_text(integer: &str, scale: i8, trailing_zeros: bool) -> String {
    if scale <= 0 {
        return integer.to_string();
    }
    let (sign, digits) = match integer.strip_prefix('-') {
        Some(digits) => ("-", digits),
        None => ("", integer),
    };
    let scale = scale as usize;
    let padded = format!("{digits:0>width$}", width = scale + 1);
    let (whole, fraction) = padded.split_at(padded.len() - scale);
    if trailing_zeros {
        return format!("{sign}{whole}.{fraction}");
    }
    match fraction.trim_end_matches('0') {
        "" => format!("{sign}{whole}"),
        fraction => format!("{sign}{whole}.{fraction}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f64_text(v: f64) -> String {
        let mut out = String::new();
        write_float(
            v.is_finite().then(|| format!("{v:e}")),
            v.is_nan(),
            v.is_sign_negative(),
            (Style::Escaped, false),
            &mut out,
        );
        out
    }

    #[test]
    fn floats_follow_clickhouse() {
        let cases = [
            (1.5, "1.5"),
            (1.0 / 3.0, "0.3333333333333333"),
            (1e9, "1000000000"),
            (1e100, "1e100"),
            (-0.0, "-0"),
            (0.1 + 0.2, "0.30000000000000004"),
            (1e-5, "0.00001"),
            (1e-6, "0.000001"),
            (1e-7, "1e-7"),
            (1e-8, "1e-8"),
            (1.5e-10, "1.5e-10"),
            (1.5e22, "1.5e22"),
            (1e20, "100000000000000000000"),
            (12345678901234567890.0, "12345678901234567000"),
            (5e-324, "5e-324"),
            (f64::NAN, "nan"),
            (f64::INFINITY, "inf"),
            (f64::NEG_INFINITY, "-inf"),
        ];
        for (value, expected) in cases {
            assert_eq!(f64_text(value), expected, "{value:e}");
        }
    }

    #[test]
    fn strings_are_escaped_per_style() {
        let mut out = String::new();
        write_string("a'b\tc\\d\ne", Style::Escaped, &mut out);
        assert_eq!(out, "a\\'b\\tc\\\\d\\ne");
        out.clear();
        write_string("a\"b,c", Style::Csv, &mut out);
        assert_eq!(out, "\"a\"\"b,c\"");
        out.clear();
        write_string("é/ü\u{1}\"", Style::Json, &mut out);
        assert_eq!(out, "\"é\\/ü\\u0001\\\"\"");
    }

    #[test]
    fn json_denormals_are_null_or_quoted() {
        let json = |v: f64, quote: bool| {
            let mut out = String::new();
            write_float(
                None,
                v.is_nan(),
                v.is_sign_negative(),
                (Style::Json, quote),
                &mut out,
            );
            out
        };
        assert_eq!(json(f64::NAN, false), "null");
        assert_eq!(json(f64::NAN, true), "\"nan\"");
        assert_eq!(json(f64::INFINITY, true), "\"inf\"");
        assert_eq!(json(f64::NEG_INFINITY, true), "\"-inf\"");
    }

    #[test]
    fn decimals_drop_trailing_zeros() {
        assert_eq!(format_decimal(1500, 3, false), "1.5");
        assert_eq!(format_decimal(-1500, 3, false), "-1.5");
        assert_eq!(format_decimal(2000, 3, false), "2");
        assert_eq!(format_decimal(5, 2, false), "0.05");
        assert_eq!(format_decimal(2000, 3, true), "2.000");
        assert_eq!(format_decimal(-5, 2, true), "-0.05");
    }
}
