//! IP address functions over ClickHouse's representations: an IPv4
//! address as a UInt32 (the `IPv4` type marks one), an IPv6 address as its
//! 16 bytes in a `FixedString(16)` (or the `IPv6` type). Text is read and
//! written by [`strata_common::ip_text`].

use std::fmt::Write;
use std::sync::Arc;

use datafusion::arrow::array::{
    Array, ArrayRef, AsArray, FixedSizeBinaryArray, FixedSizeBinaryBuilder, StringBuilder,
    StructArray, UInt8Array, UInt32Array,
};
use datafusion::arrow::buffer::NullBuffer;
use datafusion::arrow::compute::cast;
use datafusion::arrow::datatypes::{DataType, Field, Fields, UInt8Type, UInt32Type};
use datafusion::common::{Result, ScalarValue};
use strata_common::ErrorCode;
use strata_common::types::{ip_metadata, is_ipv4};

use strata_common::ip_text::{format_ipv6, mapped, parse_ipv4, parse_ipv6, parse_ipv6_text};

use super::udf::{Args, Call, Spec, as_binary, error, is_text};
use crate::int_cast::to_u64_wrapping;

/// What a text-to-address function does with text that is no address.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Bad {
    Fail,
    Default,
    Null,
}

pub(crate) static SPECS: &[Spec] = &[
    Spec {
        name: "IPv4NumToString",
        aliases: &["INET_NTOA"],
        typing: |args| ipv4_num_typing(args, DataType::Utf8),
        eval: |call| ipv4_to_string(call, false),
    },
    Spec {
        name: "IPv4NumToStringClassC",
        aliases: &[],
        typing: |args| ipv4_num_typing(args, DataType::Utf8),
        eval: |call| ipv4_to_string(call, true),
    },
    Spec {
        name: "IPv4StringToNum",
        aliases: &["INET_ATON"],
        typing: |args| parse_typing(args, DataType::UInt32, Bad::Fail),
        eval: |call| ipv4_from_string(call, Bad::Fail),
    },
    Spec {
        name: "IPv4StringToNumOrDefault",
        aliases: &[],
        typing: |args| parse_typing(args, DataType::UInt32, Bad::Default),
        eval: |call| ipv4_from_string(call, Bad::Default),
    },
    Spec {
        name: "IPv4StringToNumOrNull",
        aliases: &[],
        typing: |args| parse_typing(args, DataType::UInt32, Bad::Null),
        eval: |call| ipv4_from_string(call, Bad::Null),
    },
    Spec {
        name: "IPv6StringToNum",
        aliases: &["INET6_ATON"],
        typing: |args| parse_typing(args, DataType::FixedSizeBinary(16), Bad::Fail),
        eval: |call| ipv6_from_string(call, Bad::Fail),
    },
    Spec {
        name: "IPv6StringToNumOrDefault",
        aliases: &[],
        typing: |args| parse_typing(args, DataType::FixedSizeBinary(16), Bad::Default),
        eval: |call| ipv6_from_string(call, Bad::Default),
    },
    Spec {
        name: "IPv6StringToNumOrNull",
        aliases: &[],
        typing: |args| parse_typing(args, DataType::FixedSizeBinary(16), Bad::Null),
        eval: |call| ipv6_from_string(call, Bad::Null),
    },
    Spec {
        name: "IPv6NumToString",
        aliases: &["INET6_NTOA"],
        typing: ipv6_num_typing,
        eval: ipv6_to_string,
    },
    Spec {
        name: "IPv4ToIPv6",
        aliases: &[],
        typing: ipv4_to_ipv6_typing,
        eval: ipv4_to_ipv6,
    },
    Spec {
        name: "cutIPv6",
        aliases: &[],
        typing: cut_typing,
        eval: cut_ipv6,
    },
    Spec {
        name: "isIPv4String",
        aliases: &[],
        typing: |args| text_typing(args, DataType::UInt8),
        eval: |call| is_address(call, |t| parse_ipv4(t).is_some()),
    },
    Spec {
        name: "isIPv6String",
        aliases: &[],
        typing: |args| text_typing(args, DataType::UInt8),
        eval: |call| is_address(call, |t| parse_ipv6_text(t).is_some()),
    },
    Spec {
        name: "toIPv4",
        aliases: &[],
        typing: |args| address_typing(args, false, Bad::Fail),
        eval: |call| to_ipv4(call, Bad::Fail),
    },
    Spec {
        name: "toIPv4OrDefault",
        aliases: &["toIPv4OrZero"],
        typing: |args| address_typing(args, false, Bad::Default),
        eval: |call| to_ipv4(call, Bad::Default),
    },
    Spec {
        name: "toIPv4OrNull",
        aliases: &[],
        typing: |args| address_typing(args, false, Bad::Null),
        eval: |call| to_ipv4(call, Bad::Null),
    },
    Spec {
        name: "toIPv6",
        aliases: &[],
        typing: |args| address_typing(args, true, Bad::Fail),
        eval: |call| to_ipv6(call, Bad::Fail),
    },
    Spec {
        name: "toIPv6OrDefault",
        aliases: &["toIPv6OrZero"],
        typing: |args| address_typing(args, true, Bad::Default),
        eval: |call| to_ipv6(call, Bad::Default),
    },
    Spec {
        name: "toIPv6OrNull",
        aliases: &[],
        typing: |args| address_typing(args, true, Bad::Null),
        eval: |call| to_ipv6(call, Bad::Null),
    },
    Spec {
        name: "IPv4CIDRToRange",
        aliases: &[],
        typing: |args| cidr_typing(args, false),
        eval: |call| cidr_range(call, false),
    },
    Spec {
        name: "IPv6CIDRToRange",
        aliases: &[],
        typing: |args| cidr_typing(args, true),
        eval: |call| cidr_range(call, true),
    },
    Spec {
        name: "isIPAddressInRange",
        aliases: &[],
        typing: in_range_typing,
        eval: in_range,
    },
];

fn ipv4_num_typing(args: &Args, data_type: DataType) -> Result<Field> {
    args.arity(1, 1)?;
    args.require(0, |t| {
        matches!(t, DataType::UInt8 | DataType::UInt16 | DataType::UInt32)
    })?;
    Ok(args.propagate(data_type))
}

fn text_typing(args: &Args, data_type: DataType) -> Result<Field> {
    args.arity(1, 1)?;
    args.require(0, is_text)?;
    Ok(args.propagate(data_type))
}

/// Text to an address: unlike the checks, ClickHouse's parsers refuse a NULL literal.
fn parse_typing(args: &Args, data_type: DataType, bad: Bad) -> Result<Field> {
    if args.len() == 1 && args.data_type(0) == DataType::Null {
        return Err(args.illegal(0));
    }
    let field = text_typing(args, data_type)?;
    Ok(if bad == Bad::Null {
        field.with_nullable(true)
    } else {
        field
    })
}

/// `toIPv4` and `toIPv6`: text, an address of either type or (IPv4 only)
/// a number; the result is of the `IPv4` or `IPv6` type.
fn address_typing(args: &Args, v6: bool, bad: Bad) -> Result<Field> {
    args.arity(1, 1)?;
    let argument = &args.fields[0];
    let accepted = is_text(argument.data_type())
        || argument.data_type() == &DataType::Null
        || is_ipv4(argument)
        || (v6 && argument.data_type() == &DataType::FixedSizeBinary(16))
        || (!v6 && argument.data_type().is_integer());
    if !accepted {
        return Err(args.illegal(0));
    }
    let data_type = if v6 {
        DataType::FixedSizeBinary(16)
    } else {
        DataType::UInt32
    };
    let field = args.propagate(data_type).with_metadata(ip_metadata(v6));
    Ok(match bad {
        Bad::Null => field.with_nullable(true),
        _ => field,
    })
}

fn to_ipv4(call: &Call, bad: Bad) -> Result<ArrayRef> {
    ipv4s(&call.array(0)?, bad)
}

fn to_ipv6(call: &Call, bad: Bad) -> Result<ArrayRef> {
    ipv6s(&call.array(0)?, bad)
}

/// `CAST(x AS IPv4)`: as `toIPv4`.
pub(crate) fn cast_to_ipv4(input: &ArrayRef) -> Result<ArrayRef> {
    ipv4s(input, Bad::Fail)
}

/// `CAST(x AS IPv6)`: as `toIPv6`.
pub(crate) fn cast_to_ipv6(input: &ArrayRef) -> Result<ArrayRef> {
    ipv6s(input, Bad::Fail)
}

/// `input` (text or numbers) as IPv4 addresses; `bad` says what text that
/// is no address becomes.
fn ipv4s(input: &ArrayRef, bad: Bad) -> Result<ArrayRef> {
    if input.data_type().is_integer() {
        let numbers = to_u64_wrapping(input)?;
        return Ok(Arc::new(numbers.unary::<_, UInt32Type>(|n| n as u32)));
    }
    ipv4s_from_texts(input, bad)
}

/// `input` (text, an IPv6 or IPv4 address) as IPv6 addresses, as [`ipv4s`].
fn ipv6s(input: &ArrayRef, bad: Bad) -> Result<ArrayRef> {
    match input.data_type() {
        DataType::FixedSizeBinary(16) => Ok(Arc::clone(input)),
        DataType::UInt32 => mapped_ipv4s(input),
        _ => ipv6s_from_texts(input, bad),
    }
}

fn ipv4_to_string(call: &Call, class_c: bool) -> Result<ArrayRef> {
    let values = call.u64s(0)?;
    let mut out = StringBuilder::with_capacity(call.rows, call.rows * 15);
    let mut text = String::new();
    for value in values.iter() {
        let Some(value) = value else {
            out.append_null();
            continue;
        };
        let [a, b, c, d] = (value as u32).to_be_bytes();
        text.clear();
        if class_c {
            let _ = write!(text, "{a}.{b}.{c}.xxx");
        } else {
            let _ = write!(text, "{a}.{b}.{c}.{d}");
        }
        out.append_value(&text);
    }
    Ok(Arc::new(out.finish()))
}

fn ipv4_from_string(call: &Call, bad: Bad) -> Result<ArrayRef> {
    ipv4s_from_texts(&call.array(0)?, bad)
}

fn ipv4s_from_texts(texts: &ArrayRef, bad: Bad) -> Result<ArrayRef> {
    let texts = as_binary(texts)?;
    let mut out = Vec::with_capacity(texts.len());
    for text in texts.iter() {
        out.push(match text.map(|t| (t, parse_ipv4(t))) {
            None => None,
            Some((_, Some(v))) => Some(v),
            Some((_, None)) => match bad {
                Bad::Fail => return Err(error(ErrorCode::CANNOT_PARSE_IPV4, "Invalid IPv4 value")),
                Bad::Default => Some(0),
                Bad::Null => None,
            },
        });
    }
    Ok(Arc::new(UInt32Array::from(out)))
}

fn ipv6_from_string(call: &Call, bad: Bad) -> Result<ArrayRef> {
    ipv6s_from_texts(&call.array(0)?, bad)
}

fn ipv6s_from_texts(texts: &ArrayRef, bad: Bad) -> Result<ArrayRef> {
    let texts = as_binary(texts)?;
    let mut out = FixedSizeBinaryBuilder::with_capacity(texts.len(), 16);
    for text in texts.iter() {
        match text.map(parse_ipv6) {
            None => out.append_null(),
            Some(Some(bytes)) => out.append_value(bytes)?,
            Some(None) => match bad {
                Bad::Fail => return Err(error(ErrorCode::CANNOT_PARSE_IPV6, "Invalid IPv6 value")),
                Bad::Default => out.append_value([0u8; 16])?,
                Bad::Null => out.append_null(),
            },
        }
    }
    Ok(Arc::new(out.finish()))
}

fn ipv6_num_typing(args: &Args) -> Result<Field> {
    args.arity(1, 1)?;
    args.require(0, |t| t == &DataType::FixedSizeBinary(16))?;
    Ok(args.propagate(DataType::Utf8))
}

fn ipv6_to_string(call: &Call) -> Result<ArrayRef> {
    let input = call.array(0)?;
    let values = input.as_fixed_size_binary_opt();
    let mut out = StringBuilder::with_capacity(call.rows, call.rows * 20);
    let mut text = String::new();
    for row in 0..call.rows {
        let Some(values) = values.filter(|v| v.is_valid(row)) else {
            out.append_null();
            continue;
        };
        text.clear();
        format_ipv6(values.value(row).try_into().expect("16 bytes"), &mut text);
        out.append_value(&text);
    }
    Ok(Arc::new(out.finish()))
}

fn ipv4_to_ipv6_typing(args: &Args) -> Result<Field> {
    args.arity(1, 1)?;
    args.require(0, |t| t == &DataType::UInt32)?;
    // An IPv4 address gives an IPv6 one, a plain number its 16 bytes.
    let field = args.propagate(DataType::FixedSizeBinary(16));
    Ok(match is_ipv4(&args.fields[0]) {
        true => field.with_metadata(ip_metadata(true)),
        false => field,
    })
}

fn ipv4_to_ipv6(call: &Call) -> Result<ArrayRef> {
    mapped_ipv4s(&call.array(0)?)
}

fn mapped_ipv4s(input: &ArrayRef) -> Result<ArrayRef> {
    let mut out = FixedSizeBinaryBuilder::with_capacity(input.len(), 16);
    match input.as_primitive_opt::<UInt32Type>() {
        Some(values) => {
            for value in values.iter() {
                match value {
                    Some(v) => out.append_value(mapped(v))?,
                    None => out.append_null(),
                }
            }
        }
        None => (0..input.len()).for_each(|_| out.append_null()),
    }
    Ok(Arc::new(out.finish()))
}

fn cut_typing(args: &Args) -> Result<Field> {
    args.arity(3, 3)?;
    args.require(0, |t| t == &DataType::FixedSizeBinary(16))?;
    for i in 1..3 {
        args.require(i, |t| t.is_unsigned_integer())?;
        match args.scalar(i).map(|s| s.cast_to(&DataType::UInt64)) {
            Some(Ok(ScalarValue::UInt64(Some(n)))) if n <= 16 => {}
            Some(_) => {
                return Err(error(
                    ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
                    format!(
                        "Illegal value for argument {} {} of function cutIPv6",
                        i + 1,
                        args.data_type(i)
                    ),
                ));
            }
            None => {
                return Err(error(
                    ErrorCode::ILLEGAL_COLUMN,
                    format!("Argument at index {i} for function cutIPv6 must be constant"),
                ));
            }
        }
    }
    Ok(args.propagate(DataType::Utf8))
}

/// The address with its last bytes zeroed (the IPv4 count of them when it
/// is IPv4-mapped), as text.
fn cut_ipv6(call: &Call) -> Result<ArrayRef> {
    let count = |i| match call.scalar(i).map(|s| s.cast_to(&DataType::UInt64)) {
        Some(Ok(ScalarValue::UInt64(Some(n)))) => n as usize,
        _ => 0,
    };
    let (cut6, cut4) = (count(1), count(2));
    let input = call.array(0)?;
    let values = input.as_fixed_size_binary_opt();
    let mut out = StringBuilder::with_capacity(call.rows, call.rows * 20);
    let mut text = String::new();
    for row in 0..call.rows {
        let Some(values) = values.filter(|v| v.is_valid(row)) else {
            out.append_null();
            continue;
        };
        let mut bytes: [u8; 16] = values.value(row).try_into().expect("16 bytes");
        let is_v4 = bytes[..10].iter().all(|&b| b == 0) && bytes[10..12] == [0xff, 0xff];
        let cut = if is_v4 { cut4 } else { cut6 };
        bytes[16 - cut..].fill(0);
        text.clear();
        format_ipv6(&bytes, &mut text);
        out.append_value(&text);
    }
    Ok(Arc::new(out.finish()))
}

fn is_address(call: &Call, valid: fn(&[u8]) -> bool) -> Result<ArrayRef> {
    let texts = call.bytes(0)?;
    Ok(Arc::new(
        texts
            .iter()
            .map(|t| t.map(|t| u8::from(valid(t))))
            .collect::<UInt8Array>(),
    ))
}

/// `IPv4CIDRToRange(address, prefix)` and the IPv6 form: an address of the
/// family (or its plain UInt32 / FixedString(16)) and a UInt8 prefix length.
fn cidr_typing(args: &Args, v6: bool) -> Result<Field> {
    args.arity(2, 2)?;
    if v6 {
        args.require(0, |t| t == &DataType::FixedSizeBinary(16))?;
    } else {
        args.require(0, |t| t == &DataType::UInt32)?;
    }
    args.require(1, |t| t == &DataType::UInt8)?;
    Ok(args.propagate(DataType::Struct(range_fields(v6))))
}

/// A range's first and last address, as a `Tuple(IPv4, IPv4)` or of IPv6.
fn range_fields(v6: bool) -> Fields {
    let data_type = if v6 {
        DataType::FixedSizeBinary(16)
    } else {
        DataType::UInt32
    };
    let address =
        |name: &str| Field::new(name, data_type.clone(), false).with_metadata(ip_metadata(v6));
    Fields::from(vec![address("1"), address("2")])
}

/// The block of addresses sharing the first `prefix` bits of each address;
/// a prefix past the address's width is the address alone.
fn cidr_range(call: &Call, v6: bool) -> Result<ArrayRef> {
    let prefixes = cast(&call.array(1)?, &DataType::UInt8)?;
    let prefixes = prefixes.as_primitive::<UInt8Type>();
    let (width, address_type) = match v6 {
        true => (128, DataType::FixedSizeBinary(16)),
        false => (32, DataType::UInt32),
    };
    let addresses = cast(&call.array(0)?, &address_type)?;
    let values = (0..addresses.len()).map(|row| match v6 {
        true => u128::from_be_bytes(
            addresses
                .as_fixed_size_binary()
                .value(row)
                .try_into()
                .unwrap_or_default(),
        ),
        false => u128::from(addresses.as_primitive::<UInt32Type>().value(row)),
    });
    let mut low = Vec::with_capacity(addresses.len());
    let mut high = Vec::with_capacity(addresses.len());
    for (value, &prefix) in values.zip(prefixes.values()) {
        let host_bits = width - u32::from(prefix).min(width);
        let hosts = u128::MAX
            .checked_shr(128 - host_bits)
            .filter(|_| host_bits > 0)
            .unwrap_or(0);
        low.push(value & !hosts);
        high.push(value | hosts);
    }
    let column = |values: Vec<u128>| -> Result<ArrayRef> {
        Ok(match v6 {
            true => Arc::new(FixedSizeBinaryArray::try_from_iter(
                values.into_iter().map(u128::to_be_bytes),
            )?),
            false => Arc::new(UInt32Array::from_iter_values(
                values.into_iter().map(|v| v as u32),
            )),
        })
    };
    let nulls = NullBuffer::union(addresses.nulls(), prefixes.nulls());
    Ok(Arc::new(StructArray::try_new(
        range_fields(v6),
        vec![column(low)?, column(high)?],
        nulls,
    )?))
}

fn in_range_typing(args: &Args) -> Result<Field> {
    args.arity(2, 2)?;
    let text = |t: &DataType| is_text(t) && !matches!(t, DataType::FixedSizeBinary(_));
    if !text(&args.data_type(0)) || !text(&args.data_type(1)) {
        return Err(error(
            ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
            format!(
                "The first argument of function {} must be one of: String, IPv4, IPv6, Nullable(String), Nullable(IPv4), or Nullable(IPv6) and the second argument must be String. Type of the first argument: {}, type of the second argument: {}",
                args.name,
                strata_common::types::field_type_name(&args.fields[0]),
                strata_common::types::field_type_name(&args.fields[1])
            ),
        ));
    }
    Ok(Field::new(args.name, DataType::UInt8, false))
}

/// An address as IPv4 or IPv6 bytes.
fn parse_address(text: &[u8]) -> Option<Vec<u8>> {
    parse_ipv4(text)
        .map(|v| v.to_be_bytes().to_vec())
        .or_else(|| parse_ipv6_text(text).map(|b| b.to_vec()))
}

fn cannot_parse(message: String) -> datafusion::error::DataFusionError {
    error(ErrorCode::CANNOT_PARSE_TEXT, message)
}

/// Whether `address` lies in `cidr`; addresses of the other family do not.
fn address_in_range(address: &[u8], cidr: &[u8]) -> Result<bool> {
    let lossy = |t: &[u8]| String::from_utf8_lossy(t).into_owned();
    let address = parse_address(address).ok_or_else(|| {
        cannot_parse(format!(
            "Neither IPv4 nor IPv6 address: '{}'",
            lossy(address)
        ))
    })?;
    let slash = cidr
        .iter()
        .position(|&b| b == b'/')
        .ok_or_else(|| cannot_parse(format!("The text does not contain '/': {}", lossy(cidr))))?;
    let network = parse_address(&cidr[..slash]).ok_or_else(|| {
        cannot_parse(format!(
            "Neither IPv4 nor IPv6 address: '{}'",
            lossy(&cidr[..slash])
        ))
    })?;
    let bits = std::str::from_utf8(&cidr[slash + 1..])
        .ok()
        .and_then(|b| b.parse::<usize>().ok())
        .filter(|&b| b <= network.len() * 8)
        .ok_or_else(|| {
            cannot_parse(format!(
                "The CIDR has a malformed prefix bits: {}",
                lossy(cidr)
            ))
        })?;
    if address.len() != network.len() {
        return Ok(false);
    }
    let (whole, rest) = (bits / 8, bits % 8);
    let mask = (0xffu16 << (8 - rest)) as u8;
    Ok(address[..whole] == network[..whole]
        && (rest == 0 || (address[whole] & mask) == (network[whole] & mask)))
}

fn in_range(call: &Call) -> Result<ArrayRef> {
    let addresses = call.bytes(0)?;
    let ranges = call.bytes(1)?;
    let mut out = Vec::with_capacity(call.rows);
    for row in 0..call.rows {
        out.push(if addresses.is_null(row) || ranges.is_null(row) {
            0
        } else {
            u8::from(address_in_range(addresses.value(row), ranges.value(row))?)
        });
    }
    Ok(Arc::new(UInt8Array::from(out)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(address: &str) -> String {
        let mut out = String::new();
        format_ipv6(&parse_ipv6(address.as_bytes()).unwrap(), &mut out);
        out
    }

    #[test]
    fn writes_ipv6_as_clickhouse_does() {
        assert_eq!(text("2001:db8:0:0:1:0:0:1"), "2001:db8::1:0:0:1");
        assert_eq!(text("1:0:0:2:0:0:0:3"), "1:0:0:2::3");
        assert_eq!(text("::ffff:1.2.3.4"), "::ffff:1.2.3.4");
        assert_eq!(text("::1.2.3.4"), "::1.2.3.4");
        assert_eq!(text("::0.0.1.2"), "::102");
        assert_eq!(text("::1"), "::1");
        assert_eq!(text("::"), "::");
        assert_eq!(text("1::"), "1::");
        assert_eq!(text("0:0:0:0:0:1:0:0"), "::1:0:0");
        assert_eq!(text("::ffff:0:0"), "::ffff:0.0.0.0");
        assert_eq!(text("1.2.3.4"), "::ffff:1.2.3.4");
    }

    #[test]
    fn tests_ranges() {
        assert!(address_in_range(b"127.0.0.1", b"127.0.0.0/8").unwrap());
        assert!(!address_in_range(b"128.0.0.1", b"127.0.0.0/8").unwrap());
        assert!(!address_in_range(b"1.2.3.4", b"::ffff:0:0/96").unwrap());
        assert!(address_in_range(b"1.2.3.4", b"1.2.3.255/24").unwrap());
        assert!(address_in_range(b"1.1.1.1", b"1.1.1.1/33").is_err());
    }
}
