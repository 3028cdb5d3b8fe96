//! UUID conversions: `UUIDStringToNum`, `UUIDNumToString`, `UUIDToNum`
//! (16 bytes in text order, or with the first three groups byte-swapped for
//! variant 2, Microsoft's GUID layout), `UUIDv7ToDateTime` (the
//! millisecond timestamp of a version 7 UUID, the epoch for any other) and
//! `toUUIDOrDefault`. `UUIDStringToNum` reads the 36-character form
//! without checking its digits and gives zeros for text of another length.

use std::sync::Arc;

use datafusion::arrow::array::{
    Array, ArrayRef, AsArray, FixedSizeBinaryBuilder, StringBuilder, TimestampMillisecondArray,
};
use datafusion::arrow::datatypes::{DataType, Field, TimeUnit};
use datafusion::common::{Result, ScalarValue};
use strata_common::ErrorCode;
use strata_common::types::{UUID_BYTES, field_type_name, is_uuid, uuid_metadata};
use strata_common::uuid_text::{parse_uuid, write_uuid};

use super::udf::{Args, Call, Spec, error, is_text};

pub(crate) static SPECS: &[Spec] = &[
    Spec {
        name: "UUIDStringToNum",
        aliases: &[],
        typing: |args| variant_typing(args, is_text, DataType::FixedSizeBinary(16)),
        eval: string_to_num,
    },
    Spec {
        name: "UUIDNumToString",
        aliases: &[],
        typing: |args| {
            variant_typing(
                args,
                |t| t == &DataType::FixedSizeBinary(16),
                DataType::Utf8,
            )
        },
        eval: num_to_string,
    },
    Spec {
        name: "UUIDToNum",
        aliases: &[],
        typing: uuid_to_num_typing,
        eval: uuid_to_num,
    },
    Spec {
        name: "UUIDv7ToDateTime",
        aliases: &[],
        typing: v7_typing,
        eval: v7_to_date_time,
    },
    Spec {
        name: "toUUIDOrDefault",
        aliases: &[],
        typing: or_default_typing,
        eval: or_default,
    },
];

/// The byte order of a variant: 1 keeps text order, 2 swaps the first
/// three groups.
fn reorder(bytes: &mut [u8; 16], variant: u64) {
    if variant == 2 {
        bytes[..4].reverse();
        bytes[4..6].reverse();
        bytes[6..8].reverse();
    }
}

fn variant_typing(args: &Args, first: fn(&DataType) -> bool, out: DataType) -> Result<Field> {
    args.arity(1, 2)?;
    args.require(0, first)?;
    if args.len() == 2 {
        args.require(1, |t| t.is_integer())?;
        if args.scalar(1).is_none() {
            return Err(error(
                ErrorCode::ILLEGAL_COLUMN,
                format!(
                    "Argument at index 1 for function {} must be constant",
                    args.name
                ),
            ));
        }
    }
    Ok(args.propagate(out))
}

/// The call's constant variant: 1 unless given; code 69 for another.
fn variant(call: &Call) -> Result<u64> {
    if call.len() < 2 {
        return Ok(1);
    }
    let value = match call.scalar(1).map(|s| s.cast_to(&DataType::Int64)) {
        Some(Ok(ScalarValue::Int64(Some(v)))) => v,
        _ => 1,
    };
    match value {
        1 | 2 => Ok(value as u64),
        other => Err(error(
            ErrorCode::ARGUMENT_OUT_OF_BOUND,
            format!("Expected UUID variant, got {other}"),
        )),
    }
}

/// A hex digit as ClickHouse's table reads it: 0xFF for a non-digit.
fn hex_value(c: u8) -> u8 {
    (c as char).to_digit(16).map_or(0xff, |d| d as u8)
}

fn uuid_bytes_of_text(text: &[u8]) -> [u8; 16] {
    let mut bytes = [0u8; 16];
    if text.len() != 36 {
        return bytes;
    }
    let digits: Vec<u8> = text
        .iter()
        .enumerate()
        .filter(|(i, _)| ![8, 13, 18, 23].contains(i))
        .map(|(_, &c)| hex_value(c))
        .collect();
    for (i, pair) in digits.chunks_exact(2).enumerate() {
        bytes[i] = pair[0].wrapping_mul(16).wrapping_add(pair[1]);
    }
    bytes
}

fn string_to_num(call: &Call) -> Result<ArrayRef> {
    let variant = variant(call)?;
    let texts = call.bytes(0)?;
    let mut out = FixedSizeBinaryBuilder::with_capacity(call.rows, 16);
    for text in texts.iter() {
        match text {
            Some(text) => {
                let mut bytes = uuid_bytes_of_text(text);
                reorder(&mut bytes, variant);
                out.append_value(bytes)?;
            }
            None => out.append_null(),
        }
    }
    Ok(Arc::new(out.finish()))
}

fn num_to_string(call: &Call) -> Result<ArrayRef> {
    let variant = variant(call)?;
    let input = call.array(0)?;
    let values = input.as_fixed_size_binary_opt();
    let mut out = StringBuilder::with_capacity(call.rows, call.rows * 36);
    let mut text = String::new();
    for row in 0..call.rows {
        let Some(values) = values.filter(|v| v.is_valid(row)) else {
            out.append_null();
            continue;
        };
        let mut bytes: [u8; 16] = values.value(row).try_into().expect("16 bytes");
        reorder(&mut bytes, variant);
        text.clear();
        write_uuid(&bytes, &mut text);
        out.append_value(&text);
    }
    Ok(Arc::new(out.finish()))
}

fn require_uuid(args: &Args) -> Result<()> {
    if args.data_type(0) == DataType::Null || is_uuid(&args.fields[0]) {
        return Ok(());
    }
    Err(error(
        ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
        format!(
            "Illegal type {} of first argument of function {}, expected UUID",
            strata_common::types::field_type_name(&args.fields[0]),
            args.name
        ),
    ))
}

fn uuid_to_num_typing(args: &Args) -> Result<Field> {
    args.arity(1, 2)?;
    require_uuid(args)?;
    variant_typing(args, |_| true, DataType::FixedSizeBinary(16))
}

fn uuid_to_num(call: &Call) -> Result<ArrayRef> {
    let variant = variant(call)?;
    let input = call.array(0)?;
    let values = input.as_fixed_size_binary_opt();
    let mut out = FixedSizeBinaryBuilder::with_capacity(call.rows, 16);
    for row in 0..call.rows {
        match values.filter(|v| v.is_valid(row)) {
            Some(values) => {
                let mut bytes: [u8; 16] = values.value(row).try_into().expect("16 bytes");
                reorder(&mut bytes, variant);
                out.append_value(bytes)?;
            }
            None => out.append_null(),
        }
    }
    Ok(Arc::new(out.finish()))
}

fn v7_typing(args: &Args) -> Result<Field> {
    args.arity(1, 2)?;
    require_uuid(args)?;
    let zone = if args.len() == 2 {
        match args.constant_text(1) {
            Some(zone) => Some(Arc::from(zone.as_str())),
            None => return Err(args.illegal(1)),
        }
    } else {
        None
    };
    Ok(Field::new(
        args.name,
        DataType::Timestamp(TimeUnit::Millisecond, zone),
        args.fields[0].is_nullable(),
    ))
}

fn v7_to_date_time(call: &Call) -> Result<ArrayRef> {
    let input = call.array(0)?;
    let values = input.as_fixed_size_binary_opt();
    let millis: TimestampMillisecondArray = (0..call.rows)
        .map(|row| {
            let bytes = values.filter(|v| v.is_valid(row))?.value(row);
            let is_v7 = bytes[6] >> 4 == 7;
            let mut stamp = [0u8; 8];
            stamp[2..].copy_from_slice(&bytes[..6]);
            Some(if is_v7 { i64::from_be_bytes(stamp) } else { 0 })
        })
        .collect();
    let zone = match call.result.data_type() {
        DataType::Timestamp(_, zone) => zone.clone(),
        _ => None,
    };
    Ok(Arc::new(millis.with_timezone_opt(zone)))
}

fn or_default_typing(args: &Args) -> Result<Field> {
    args.arity(1, 2)?;
    args.require(0, is_text)?;
    if args.len() == 2 && !is_uuid(&args.fields[1]) {
        return Err(error(
            ErrorCode::BAD_ARGUMENTS,
            format!(
                "Default value type should be same as cast type. Expected UUID. Actual {}",
                field_type_name(&args.fields[1])
            ),
        ));
    }
    Ok(
        Field::new(args.name, DataType::FixedSizeBinary(UUID_BYTES), false)
            .with_metadata(uuid_metadata()),
    )
}

/// The UUID the text holds, else the default (the second argument's value
/// on that row, or zeros).
fn or_default(call: &Call) -> Result<ArrayRef> {
    let texts = call.bytes(0)?;
    let defaults = if call.len() == 2 {
        Some(call.array(1)?)
    } else {
        None
    };
    let defaults = defaults.as_ref().map(|d| d.as_fixed_size_binary());
    let mut out = FixedSizeBinaryBuilder::with_capacity(call.rows, UUID_BYTES);
    for row in 0..call.rows {
        let parsed = texts
            .is_valid(row)
            .then(|| parse_uuid(texts.value(row)))
            .flatten();
        match (parsed, defaults) {
            (Some(bytes), _) => out.append_value(bytes)?,
            (None, Some(d)) if d.is_valid(row) => out.append_value(d.value(row))?,
            (None, _) => out.append_value([0u8; 16])?,
        }
    }
    Ok(Arc::new(out.finish()))
}
