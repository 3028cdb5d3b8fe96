//! Text encodings of bytes as ClickHouse writes and reads them: base64
//! (standard, padded; URL-safe, unpadded, either read), base32 (RFC 4648,
//! padded), base58 (Bitcoin's alphabet); `bin`/`unbin` (eight digits a
//! byte, numbers as `hex` shows them); `char` (bytes from numbers, modulo
//! 256); CRC32 (zlib's), CRC32IEEE and CRC64 (ClickHouse's parameters).
//! Decoders fail with INCORRECT_DATA on bad input; their `try` forms give
//! an empty string.

use std::sync::Arc;

use base64::Engine;
use base64::engine::DecodePaddingMode;
use base64::engine::general_purpose::{GeneralPurpose, GeneralPurposeConfig, STANDARD};
use datafusion::arrow::array::{Array, ArrayRef, AsArray, BinaryBuilder};
use datafusion::arrow::compute::kernels::cast;
use datafusion::arrow::datatypes::{DataType, Float32Type, Float64Type, UInt32Type, UInt64Type};
use datafusion::common::Result;
use strata_common::ErrorCode;

use super::udf::{Call, Output, Param, Spec, byte_rows, failure, number_rows, text_rows};

/// URL-safe base64 read with or without padding, as ClickHouse reads it.
const URL_SAFE: GeneralPurpose = GeneralPurpose::new(
    &base64::alphabet::URL_SAFE,
    GeneralPurposeConfig::new()
        .with_encode_padding(false)
        .with_decode_padding_mode(DecodePaddingMode::Indifferent),
);

#[derive(Clone, Copy, PartialEq, Eq)]
enum Codec {
    Base64,
    Base64Url,
    Base32,
    Base58,
}

impl Codec {
    fn name(self) -> &'static str {
        match self {
            Codec::Base64 => "base64",
            Codec::Base64Url => "base64URL",
            Codec::Base32 => "base32",
            Codec::Base58 => "base58",
        }
    }

    fn encode(self, bytes: &[u8]) -> String {
        match self {
            Codec::Base64 => STANDARD.encode(bytes),
            Codec::Base64Url => URL_SAFE.encode(bytes),
            Codec::Base32 => data_encoding::BASE32.encode(bytes),
            Codec::Base58 => bs58::encode(bytes).into_string(),
        }
    }

    fn decode(self, text: &[u8]) -> Option<Vec<u8>> {
        match self {
            Codec::Base64 | Codec::Base64Url => {
                // Whitespace between the digits is skipped.
                let digits: Vec<u8> = text
                    .iter()
                    .copied()
                    .filter(|b| !b.is_ascii_whitespace())
                    .collect();
                let engine = if self == Codec::Base64 {
                    &STANDARD
                } else {
                    &URL_SAFE
                };
                engine.decode(digits).ok()
            }
            // Letters in either case, as ClickHouse decodes them.
            Codec::Base32 => data_encoding::BASE32
                .decode(&text.to_ascii_uppercase())
                .ok(),
            Codec::Base58 => bs58::decode(text).into_vec().ok(),
        }
    }
}

fn encode(call: &Call, codec: Codec) -> Result<ArrayRef> {
    let text = call.text(0)?;
    text_rows(call, |row, out| {
        out.extend_from_slice(codec.encode(text.get(row).unwrap_or_default()).as_bytes());
        Ok(Some(()))
    })
}

fn decode(call: &Call, codec: Codec, strict: bool) -> Result<ArrayRef> {
    let text = call.text(0)?;
    byte_rows(call, |row, out| {
        let value = text.get(row).unwrap_or_default();
        match codec.decode(value) {
            Some(bytes) => out.extend_from_slice(&bytes),
            None if strict => {
                return Err(failure(
                    ErrorCode::INCORRECT_DATA,
                    format!(
                        "Invalid {}Decode value ({}), cannot be decoded",
                        codec.name(),
                        String::from_utf8_lossy(value)
                    ),
                ));
            }
            None => {}
        }
        Ok(Some(()))
    })
}

/// The bytes of one value as `bin` and `hex` show them: an integer
/// big-endian without leading zero bytes, a float in memory order, text as is.
fn value_bytes(array: &ArrayRef) -> Result<Vec<Option<Vec<u8>>>> {
    let width = match array.data_type() {
        DataType::Int8 | DataType::UInt8 | DataType::Boolean => Some(1),
        DataType::Int16 | DataType::UInt16 => Some(2),
        DataType::Int32 | DataType::UInt32 => Some(4),
        DataType::Int64 | DataType::UInt64 => Some(8),
        _ => None,
    };
    let rows = 0..array.len();
    let valid = |row: usize| array.is_valid(row);
    Ok(match (width, array.data_type()) {
        (Some(width), _) => {
            let values = crate::int_cast::to_i64_wrapping(array)?;
            rows.map(|row| {
                valid(row).then(|| {
                    let bytes = values.value(row).to_be_bytes();
                    let value = &bytes[8 - width..];
                    let first = value.iter().position(|&b| b != 0).unwrap_or(width - 1);
                    value[first..].to_vec()
                })
            })
            .collect()
        }
        (_, DataType::Float32) => {
            let values = array.as_primitive::<Float32Type>();
            let bytes = |row| values.value(row).to_le_bytes().to_vec();
            rows.map(|row| valid(row).then(|| bytes(row))).collect()
        }
        (_, DataType::Float64) => {
            let values = array.as_primitive::<Float64Type>();
            let bytes = |row| values.value(row).to_le_bytes().to_vec();
            rows.map(|row| valid(row).then(|| bytes(row))).collect()
        }
        _ => {
            let values = cast::cast(array, &DataType::Binary)?;
            let values = values.as_binary::<i32>();
            values.iter().map(|v| v.map(<[u8]>::to_vec)).collect()
        }
    })
}

/// `bin(x)`: every byte as eight binary digits.
fn bin(call: &Call) -> Result<ArrayRef> {
    let mut out = datafusion::arrow::array::StringBuilder::new();
    for value in value_bytes(&call.expanded(0)?)? {
        match value {
            None => out.append_null(),
            Some(bytes) => {
                let digits: String = bytes.iter().map(|b| format!("{b:08b}")).collect();
                out.append_value(digits);
            }
        }
    }
    Ok(Arc::new(out.finish()))
}

/// `unbin(s)`: the bytes binary digits spell, read from the end in groups
/// of eight; a character other than 0 or 1 counts as its lowest bit.
fn unbin(call: &Call) -> Result<ArrayRef> {
    let text = call.text(0)?;
    byte_rows(call, |row, out| {
        let digits = text.get(row).unwrap_or_default();
        let head = digits.len() % 8;
        let mut groups: Vec<&[u8]> = Vec::new();
        if head > 0 {
            groups.push(&digits[..head]);
        }
        groups.extend(digits[head..].chunks(8));
        for group in groups {
            out.push(group.iter().fold(0u8, |byte, d| byte << 1 | (d & 1)));
        }
        Ok(Some(()))
    })
}

/// `char(n, ...)`: one byte per argument, each number modulo 256.
fn char_bytes(call: &Call) -> Result<ArrayRef> {
    let rows = call.rows;
    let numbers = (0..call.len())
        .map(|i| {
            let a = call.expanded(i)?;
            match a.data_type() {
                // A float's integer part.
                DataType::Float32 | DataType::Float64 => {
                    crate::int_cast::to_i64_wrapping(&cast::cast(&a, &DataType::Int64)?)
                }
                _ => crate::int_cast::to_i64_wrapping(&a),
            }
        })
        .collect::<Result<Vec<_>>>()?;
    let mut out = BinaryBuilder::with_capacity(rows, rows * numbers.len());
    let mut bytes = Vec::with_capacity(numbers.len());
    for row in 0..rows {
        if numbers.iter().any(|n| n.is_null(row)) {
            out.append_null();
            continue;
        }
        bytes.clear();
        bytes.extend(numbers.iter().map(|n| n.value(row) as u8));
        out.append_value(&bytes);
    }
    Ok(Arc::new(out.finish()))
}

const CRC32_IEEE: crc::Algorithm<u32> = crc::Algorithm {
    width: 32,
    poly: 0x04C1_1DB7,
    init: 0,
    refin: true,
    refout: true,
    xorout: 0,
    // The crate's check values document an algorithm; they are not used.
    check: 0,
    residue: 0,
};

const CRC64: crc::Algorithm<u64> = crc::Algorithm {
    width: 64,
    poly: 0x42F0_E1EB_A9EA_3693,
    init: 0,
    refin: true,
    refout: true,
    xorout: 0,
    check: 0,
    residue: 0,
};

fn crc32(call: &Call, algorithm: &'static crc::Algorithm<u32>) -> Result<ArrayRef> {
    let text = call.text(0)?;
    let crc = crc::Crc::<u32>::new(algorithm);
    number_rows::<UInt32Type>(call, |row| {
        Ok(crc.checksum(text.get(row).unwrap_or_default()))
    })
}

fn crc64(call: &Call) -> Result<ArrayRef> {
    let text = call.text(0)?;
    let crc = crc::Crc::<u64>::new(&CRC64);
    number_rows::<UInt64Type>(call, |row| {
        Ok(crc.checksum(text.get(row).unwrap_or_default()))
    })
}

const fn spec(
    name: &'static str,
    aliases: &'static [&'static str],
    output: Output,
    eval: fn(&Call) -> Result<ArrayRef>,
) -> Spec {
    Spec {
        name,
        aliases,
        params: &[Param::Text],
        required: 1,
        output,
        eval,
    }
}

use Codec::{Base32, Base58, Base64, Base64Url};
use Output::{Bytes, Text};

pub(crate) const SPECS: &[Spec] = &[
    spec("base64Encode", &["TO_BASE64"], Text, |c| encode(c, Base64)),
    spec("base64Decode", &["FROM_BASE64"], Bytes, |c| {
        decode(c, Base64, true)
    }),
    spec("tryBase64Decode", &[], Bytes, |c| decode(c, Base64, false)),
    spec("base64URLEncode", &[], Text, |c| encode(c, Base64Url)),
    spec("base64URLDecode", &[], Bytes, |c| {
        decode(c, Base64Url, true)
    }),
    spec("tryBase64URLDecode", &[], Bytes, |c| {
        decode(c, Base64Url, false)
    }),
    spec("base32Encode", &[], Text, |c| encode(c, Base32)),
    spec("base32Decode", &[], Bytes, |c| decode(c, Base32, true)),
    spec("tryBase32Decode", &[], Bytes, |c| decode(c, Base32, false)),
    spec("base58Encode", &[], Text, |c| encode(c, Base58)),
    spec("base58Decode", &[], Bytes, |c| decode(c, Base58, true)),
    spec("tryBase58Decode", &[], Bytes, |c| decode(c, Base58, false)),
    spec("unbin", &[], Bytes, unbin),
    spec("CRC32", &[], Output::UInt32, |c| {
        crc32(c, &crc::CRC_32_ISO_HDLC)
    }),
    spec("CRC32IEEE", &[], Output::UInt32, |c| crc32(c, &CRC32_IEEE)),
    spec("CRC64", &[], Output::UInt64, crc64),
    Spec {
        params: &[Param::Value],
        ..spec("bin", &[], Text, bin)
    },
    Spec {
        params: &[Param::Number; 64],
        ..spec("char", &[], Bytes, char_bytes)
    },
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn checksums_match_clickhouse() {
        assert_eq!(
            crc::Crc::<u32>::new(&crc::CRC_32_ISO_HDLC).checksum(b"abc"),
            891568578
        );
        assert_eq!(
            crc::Crc::<u32>::new(&CRC32_IEEE).checksum(b"abc"),
            3395655888
        );
        assert_eq!(
            crc::Crc::<u64>::new(&CRC64).checksum(b"abc"),
            14276787454831668577
        );
    }

    #[test]
    fn base64_needs_padding_but_not_the_url_form() {
        assert_eq!(Base64.decode(b"YQ=="), Some(b"a".to_vec()));
        assert_eq!(Base64.decode(b"YQ"), None);
        assert_eq!(Base64Url.decode(b"YQ"), Some(b"a".to_vec()));
        assert_eq!(Base64Url.encode(b"a"), "YQ");
    }
}
