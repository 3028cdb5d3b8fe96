//! Values of an input column made into the target column's type: text parsed,
//! typed values cast. The first value that does not convert fails the insert
//! with its row and column; a NULL in a column that cannot hold one becomes
//! the type's default value.

use std::sync::Arc;

use datafusion::arrow::array::Scalar;
use datafusion::arrow::array::{
    Array, ArrayRef, BooleanArray, Date32Array, FixedSizeBinaryBuilder, Int64Array,
    IntervalMonthDayNanoArray, ListArray, StringArray, UInt32Array, new_null_array,
};
use datafusion::arrow::buffer::{NullBuffer, OffsetBuffer};
use datafusion::arrow::compute::kernels::zip::zip;
use datafusion::arrow::compute::{CastOptions, cast_with_options, is_null};
use datafusion::arrow::datatypes::{DataType, Field, FieldRef, SchemaRef, TimeUnit};
use datafusion::arrow::record_batch::{RecordBatch, RecordBatchOptions};
use strata_common::ip_text::{parse_ipv4, parse_ipv6};
use strata_common::types::{
    BigInt, EnumType, UUID_BYTES, clickhouse_type_name, cut_to_precision, enum_type,
    field_default_value, field_type_name, interval_of_count, interval_type, is_ipv4, is_ipv6,
    is_uuid,
};
use strata_common::uuid_text::parse_uuid;
use strata_common::{ErrorCode, Result, StrataError};

use super::{InputTarget, at_row};

/// `values` (text or any Arrow type, NULL where a value is missing) as
/// `field`'s type; `first_row` numbers `values[0]` in the whole input.
pub(crate) fn to_target(
    values: &ArrayRef,
    field: &Field,
    column: usize,
    first_row: u64,
) -> Result<ArrayRef> {
    if let Some(enum_type) = enum_type(field) {
        return enum_names(&enum_type, values, field, first_row);
    }
    let converted = if values.data_type() == field.data_type() {
        Arc::clone(values)
    } else if let Some(texts) = as_texts(values)? {
        parse_texts(&texts, field)?
    } else {
        let options = CastOptions {
            safe: true,
            ..Default::default()
        };
        cast_with_options(values, field.data_type(), &options)?
    };
    if converted.null_count() > values.null_count() {
        let failed = (0..values.len())
            .find(|&i| values.is_valid(i) && converted.is_null(i))
            .expect("a value failed to convert");
        return Err(conversion_error(values, failed, field, column, first_row));
    }
    let converted = cut_to_precision(converted, field);
    if field.is_nullable() || converted.null_count() == 0 {
        return Ok(converted);
    }
    let zero = type_default(field.data_type())?;
    Ok(zip(&is_null(&converted)?, &Scalar::new(zero), &converted)?)
}

/// An enum column's names from names or numbers; NULL is the enum's
/// default where the column cannot hold it.
fn enum_names(
    enum_type: &EnumType,
    values: &ArrayRef,
    field: &Field,
    first_row: u64,
) -> Result<ArrayRef> {
    let texts = as_texts(values)?;
    let read = match &texts {
        Some(texts) => enum_type.names_from(texts),
        None => enum_type.names_from(values.as_ref()),
    };
    let names: ArrayRef = match read {
        Ok(names) => Arc::new(names),
        Err((index, error)) => {
            return Err(at_row(error.code, error.message, first_row + index as u64));
        }
    };
    if field.is_nullable() || names.null_count() == 0 {
        return Ok(names);
    }
    let default = field_default_value(field)?.to_scalar()?;
    Ok(zip(&is_null(&names)?, &default, &names)?)
}

fn as_texts(values: &ArrayRef) -> Result<Option<StringArray>> {
    Ok(match values.data_type() {
        DataType::Utf8 => Some(
            values
                .as_any()
                .downcast_ref::<StringArray>()
                .expect("Utf8 is a StringArray")
                .clone(),
        ),
        // Binary too: ClickHouse wrote strings to Arrow as Binary before 23.x.
        DataType::LargeUtf8
        | DataType::Utf8View
        | DataType::Binary
        | DataType::LargeBinary
        | DataType::BinaryView => {
            let cast = datafusion::arrow::compute::cast(values, &DataType::Utf8)?;
            Some(
                cast.as_any()
                    .downcast_ref::<StringArray>()
                    .expect("cast to Utf8 gives a StringArray")
                    .clone(),
            )
        }
        _ => None,
    })
}

fn conversion_error(
    values: &ArrayRef,
    index: usize,
    field: &Field,
    column: usize,
    first_row: u64,
) -> StrataError {
    let type_name = field_type_name(field);
    let shown = match as_texts(values) {
        Ok(Some(texts)) => texts.value(index).to_string(),
        _ => datafusion::arrow::util::display::array_value_to_string(values, index)
            .unwrap_or_default(),
    };
    let row = first_row + index as u64;
    if let DataType::FixedSizeBinary(width) = field.data_type()
        && !is_uuid(field)
        && !is_ipv6(field)
        && shown.len() > *width as usize
    {
        return at_row(
            ErrorCode::TOO_LARGE_STRING_SIZE,
            format!(
                "Too large value for {type_name} in column {column}, name: {}",
                field.name()
            ),
            row,
        );
    }
    let shown: String = shown.chars().take(100).collect();
    at_row(
        ErrorCode::CANNOT_PARSE_INPUT_ASSERTION_FAILED,
        format!(
            "Cannot parse input: text \"{shown}\" is not like {type_name}\nRow {row}: Column {column}, name: {}, type: {type_name}, ERROR: text \"{shown}\" is not like {type_name}",
            field.name()
        ),
        row,
    )
}

/// Parses text into `field`'s type; a value that does not parse becomes NULL.
fn parse_texts(texts: &StringArray, field: &Field) -> Result<ArrayRef> {
    let data_type = field.data_type();
    match data_type {
        DataType::Utf8 => Ok(Arc::new(texts.clone())),
        DataType::FixedSizeBinary(_) if is_uuid(field) => Ok(parse_uuids(texts)?),
        DataType::UInt32 if is_ipv4(field) => {
            let parsed: UInt32Array = texts
                .iter()
                .map(|t| t.and_then(|t| parse_ipv4(t.as_bytes())))
                .collect();
            Ok(Arc::new(parsed))
        }
        DataType::FixedSizeBinary(_) if is_ipv6(field) => {
            let mut builder = FixedSizeBinaryBuilder::with_capacity(texts.len(), 16);
            for text in texts.iter() {
                match text.and_then(|t| parse_ipv6(t.as_bytes())) {
                    Some(address) => builder.append_value(address)?,
                    None => builder.append_null(),
                }
            }
            Ok(Arc::new(builder.finish()))
        }
        DataType::Interval(_) if let Some(name) = interval_type(field) => {
            // An interval is written as its count of its unit.
            let parsed: IntervalMonthDayNanoArray = texts
                .iter()
                .map(|t| {
                    let count = t?.parse::<i64>().ok()?;
                    interval_of_count(name, count)
                })
                .collect();
            Ok(Arc::new(parsed))
        }
        data_type if let Some(big) = BigInt::of(data_type) => {
            Ok(big.array(texts.iter().map(|t| t.and_then(|t| big.parse(t)))))
        }
        DataType::FixedSizeBinary(width) => Ok(parse_fixed_strings(texts, *width)?),
        DataType::List(item) => parse_arrays(texts, item),
        DataType::Date32 => {
            let parsed = cast_safely(texts, data_type)?;
            if parsed.null_count() == texts.null_count() {
                return Ok(parsed);
            }
            // ClickHouse also reads `2017/1/2`: any separators, one-digit parts.
            let loose: Date32Array = texts.iter().map(|t| t.and_then(loose_date)).collect();
            Ok(zip(&is_null(&parsed)?, &loose, &parsed)?)
        }
        DataType::Timestamp(unit, _) => {
            let parsed = cast_safely(texts, data_type)?;
            if parsed.null_count() == texts.null_count() {
                return Ok(parsed);
            }
            // ClickHouse also reads a DateTime written as Unix seconds.
            let per_second = match unit {
                TimeUnit::Second => 1,
                TimeUnit::Millisecond => 1_000,
                TimeUnit::Microsecond => 1_000_000,
                TimeUnit::Nanosecond => 1_000_000_000,
            };
            let seconds: Int64Array = texts
                .iter()
                .map(|text| {
                    text.filter(|t| !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit()))
                        .and_then(|t| t.parse::<i64>().ok())
                        .and_then(|s| s.checked_mul(per_second))
                })
                .collect();
            let from_seconds = cast_safely(&seconds, data_type)?;
            Ok(zip(&is_null(&parsed)?, &from_seconds, &parsed)?)
        }
        _ => cast_safely(texts, data_type),
    }
}

/// Days since the epoch of a date written `YYYY<sep>M[M]<sep>D[D]`, each
/// separator one character that is not a digit.
fn loose_date(text: &str) -> Option<i32> {
    let text = text.trim();
    let (year, rest) = text.split_at_checked(4)?;
    let rest = rest.strip_prefix(|c: char| !c.is_ascii_digit())?;
    let (month, day) = rest.split_once(|c: char| !c.is_ascii_digit())?;
    let number = |digits: &str, most: usize| {
        let valid =
            (1..=most).contains(&digits.len()) && digits.bytes().all(|b| b.is_ascii_digit());
        valid.then(|| digits.parse::<u32>().ok()).flatten()
    };
    let date = chrono::NaiveDate::from_ymd_opt(
        number(year, 4)? as i32,
        number(month, 2)?,
        number(day, 2)?,
    )?;
    let epoch = chrono::NaiveDate::from_ymd_opt(1970, 1, 1).expect("the epoch is a date");
    i32::try_from((date - epoch).num_days()).ok()
}

fn cast_safely(values: &dyn Array, data_type: &DataType) -> Result<ArrayRef> {
    let options = CastOptions {
        safe: true,
        ..Default::default()
    };
    Ok(cast_with_options(values, data_type, &options)?)
}

/// UUIDs in their text form.
fn parse_uuids(texts: &StringArray) -> Result<ArrayRef> {
    let mut builder = FixedSizeBinaryBuilder::with_capacity(texts.len(), UUID_BYTES);
    for text in texts.iter() {
        match text.and_then(|t| parse_uuid(t.as_bytes())) {
            Some(uuid) => builder.append_value(uuid)?,
            None => builder.append_null(),
        }
    }
    Ok(Arc::new(builder.finish()))
}

/// FixedString(N): the bytes, zero-padded to N.
fn parse_fixed_strings(texts: &StringArray, width: i32) -> Result<ArrayRef> {
    let width_bytes = width as usize;
    let mut builder = FixedSizeBinaryBuilder::with_capacity(texts.len(), width);
    let mut padded = vec![0u8; width_bytes];
    for text in texts.iter() {
        let bytes = text.map(str::as_bytes);
        match bytes {
            Some(b) if b.len() <= width_bytes => {
                padded.fill(0);
                padded[..b.len()].copy_from_slice(b);
                builder.append_value(&padded)?;
            }
            _ => builder.append_null(),
        }
    }
    Ok(Arc::new(builder.finish()))
}

/// Texts of ClickHouse's array literals (`[1, 2]`, `[['a'], []]`) as the
/// List type `item` is the element of; NULL where a text is not one. What
/// `CAST('[1,2]' AS Array(UInt8))` reads.
pub fn parse_array_texts(texts: &StringArray, item: &FieldRef) -> Result<ArrayRef> {
    parse_arrays(texts, item)
}

/// `Array(T)` from `[v1, v2, ...]`: elements may be quoted with ' or ", and
/// nested arrays are parsed by the element type in turn.
fn parse_arrays(texts: &StringArray, item: &FieldRef) -> Result<ArrayRef> {
    let mut offsets = vec![0i32];
    let mut elements: Vec<Option<String>> = Vec::new();
    let mut row_ok = Vec::with_capacity(texts.len());
    for text in texts.iter() {
        let start = elements.len();
        let ok = match text {
            Some(t) => split_array_literal(t, &mut elements).is_some(),
            None => false,
        };
        if !ok {
            elements.truncate(start);
        }
        row_ok.push(ok);
        offsets.push(elements.len() as i32);
    }
    let element_texts: StringArray = elements.iter().map(|e| e.as_deref()).collect();
    let values = parse_texts(&element_texts, item)?;
    // A row fails when one of its elements did not parse. A NULL element
    // where the element type cannot hold one is the type's default, as
    // ClickHouse reads it (`input_format_null_as_default`).
    for (row, ok) in row_ok.iter_mut().enumerate() {
        let range = offsets[row] as usize..offsets[row + 1] as usize;
        if range
            .clone()
            .any(|i| element_texts.is_valid(i) && values.is_null(i))
        {
            *ok = false;
        }
    }
    let values = if item.is_nullable() || values.null_count() == 0 {
        values
    } else {
        // NULL elements, and those of failed rows (NULL rows themselves).
        zip(
            &is_null(&values)?,
            &Scalar::new(type_default(item.data_type())?),
            &values,
        )?
    };
    Ok(Arc::new(ListArray::try_new(
        Arc::clone(item),
        OffsetBuffer::new(offsets.into()),
        values,
        Some(NullBuffer::from(row_ok)),
    )?))
}

/// Appends the elements of an array literal; `None` if it is malformed.
fn split_array_literal(text: &str, out: &mut Vec<Option<String>>) -> Option<()> {
    let bytes = text.trim().as_bytes();
    if bytes.first() != Some(&b'[') || bytes.last() != Some(&b']') {
        return None;
    }
    let inner = &text.trim()[1..bytes.len() - 1];
    let chars: Vec<char> = inner.chars().collect();
    let mut pos = 0;
    let skip_ws = |pos: &mut usize| {
        while *pos < chars.len() && chars[*pos].is_whitespace() {
            *pos += 1;
        }
    };
    skip_ws(&mut pos);
    if pos == chars.len() {
        return Some(());
    }
    loop {
        skip_ws(&mut pos);
        let first = *chars.get(pos)?;
        if first == '\'' || first == '"' {
            let mut value = String::new();
            pos += 1;
            loop {
                let c = *chars.get(pos)?;
                pos += 1;
                match c {
                    '\\' => {
                        let escaped = *chars.get(pos)?;
                        pos += 1;
                        value.push(match escaped {
                            'n' => '\n',
                            't' => '\t',
                            'r' => '\r',
                            '0' => '\0',
                            other => other,
                        });
                    }
                    c if c == first => {
                        if chars.get(pos) == Some(&first) {
                            value.push(first);
                            pos += 1;
                        } else {
                            break;
                        }
                    }
                    c => value.push(c),
                }
            }
            out.push(Some(value));
        } else {
            let start = pos;
            let mut depth = 0usize;
            let mut quote: Option<char> = None;
            while pos < chars.len() {
                let c = chars[pos];
                match quote {
                    Some(_) if c == '\\' => pos += 1,
                    Some(q) if c == q => quote = None,
                    Some(_) => {}
                    None => match c {
                        '\'' | '"' => quote = Some(c),
                        '[' | '(' => depth += 1,
                        ']' | ')' => depth = depth.checked_sub(1)?,
                        ',' if depth == 0 => break,
                        _ => {}
                    },
                }
                pos += 1;
            }
            if quote.is_some() || depth != 0 {
                return None;
            }
            let raw: String = chars[start..pos.min(chars.len())].iter().collect();
            let raw = raw.trim();
            if raw.is_empty() {
                return None;
            }
            out.push((!raw.eq_ignore_ascii_case("null")).then(|| raw.to_string()));
        }
        skip_ws(&mut pos);
        match chars.get(pos) {
            None => return Some(()),
            Some(',') => pos += 1,
            Some(_) => return None,
        }
    }
}

/// The value ClickHouse gives a column when none was written: zero, the
/// empty string, the epoch, the empty array.
fn type_default(data_type: &DataType) -> Result<ArrayRef> {
    let text = match data_type {
        DataType::Utf8 | DataType::FixedSizeBinary(_) => "",
        DataType::Boolean => "false",
        DataType::Date32 | DataType::Date64 => "1970-01-01",
        DataType::Timestamp(..) => "1970-01-01T00:00:00",
        DataType::List(_) => "[]",
        t if t.is_numeric() => "0",
        other => {
            return Err(StrataError::new(
                ErrorCode::NOT_IMPLEMENTED,
                format!(
                    "Columns of type {} cannot be read from input formats yet",
                    clickhouse_type_name(other, false)
                ),
            ));
        }
    };
    let zero = parse_texts(
        &StringArray::from(vec![text]),
        &Field::new("", data_type.clone(), false),
    )?;
    assert_eq!(zero.null_count(), 0, "a type's default value parses");
    Ok(zero)
}

/// `batch` as a block of `schema`, the target's: its columns matched to the
/// target's by name and converted, a column it lacks taking the target
/// column's default; `first_row` numbers its first row in the whole input.
pub(crate) fn block_by_name(
    target: &InputTarget,
    schema: &SchemaRef,
    batch: &RecordBatch,
    first_row: u64,
) -> Result<RecordBatch> {
    let rows = batch.num_rows();
    let mut arrays: Vec<ArrayRef> = Vec::new();
    let mut masks: Vec<ArrayRef> = Vec::new();
    for (index, field) in target.fields.iter().enumerate() {
        let source = batch.column_by_name(field.name());
        let values = match source {
            Some(values) => Arc::clone(values),
            None => missing_column(field, rows),
        };
        arrays.push(to_target(&values, field, index, first_row)?);
        if target.has_default[index] {
            let omitted: BooleanArray = match source {
                Some(_) if field.is_nullable() => vec![false; rows].into(),
                Some(values) => (0..rows).map(|i| Some(values.is_null(i))).collect(),
                None => vec![true; rows].into(),
            };
            masks.push(Arc::new(omitted));
        }
    }
    arrays.extend(masks);
    // A target of no columns (Parquet read for its row count) keeps the rows.
    let options = RecordBatchOptions::new().with_row_count(Some(rows));
    Ok(RecordBatch::try_new_with_options(
        Arc::clone(schema),
        arrays,
        &options,
    )?)
}

/// An all-NULL column, for a column the data does not have at all.
pub(crate) fn missing_column(field: &Field, rows: usize) -> ArrayRef {
    new_null_array(field.data_type(), rows)
}
