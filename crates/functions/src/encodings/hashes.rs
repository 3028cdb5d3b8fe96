//! ClickHouse's hash functions beyond `crate::hashing`: the cryptographic
//! digests of a string as a `FixedString(N)` (`MD5`, `SHA256`, ...), the
//! hashes over any arguments (see [`super::any_hash`]), the Java-style
//! string hashes (`javaHash`, `hiveHash`, `javaHashUTF16LE`) and
//! `jumpConsistentHash`.

use std::sync::Arc;

use datafusion::arrow::array::{Array, ArrayRef, FixedSizeBinaryBuilder, Int32Array};
use datafusion::arrow::datatypes::{DataType, Field, Int32Type};
use datafusion::common::Result;
use sha2::Digest;
use strata_common::ErrorCode;

use super::any_hash::{self, AnyHash};
use super::udf::{Args, Call, Spec, error, is_text};
use crate::hashing::value_bytes;

/// A digest of a string, `N` bytes long.
fn digest_typing(args: &Args, width: i32) -> Result<Field> {
    args.arity(1, 1)?;
    args.require(0, is_text)?;
    Ok(args.propagate(DataType::FixedSizeBinary(width)))
}

fn digest_eval(call: &Call, width: i32, digest: fn(&[u8]) -> Vec<u8>) -> Result<ArrayRef> {
    let input = call.bytes(0)?;
    let mut out = FixedSizeBinaryBuilder::with_capacity(call.rows, width);
    for value in input.iter() {
        match value {
            Some(bytes) => out.append_value(digest(bytes))?,
            None => out.append_null(),
        }
    }
    Ok(Arc::new(out.finish()))
}

fn digest_of<D: Digest>(bytes: &[u8]) -> Vec<u8> {
    D::digest(bytes).to_vec()
}

macro_rules! digest {
    ($name:literal, $width:literal, $digest:ty) => {
        Spec {
            name: $name,
            aliases: &[],
            typing: |args| digest_typing(args, $width),
            eval: |call| digest_eval(call, $width, digest_of::<$digest>),
        }
    };
}

macro_rules! any_hash {
    ($name:literal, $kind:ident) => {
        any_hash!($name, $kind, false)
    };
    ($name:literal, $kind:ident, $keyed:literal) => {
        Spec {
            name: $name,
            aliases: &[],
            typing: |args| any_hash::typing(args, AnyHash::$kind),
            eval: |call| any_hash::eval(call, AnyHash::$kind, $keyed),
        }
    };
}

pub(crate) static SPECS: &[Spec] = &[
    digest!("MD4", 16, md4::Md4),
    digest!("MD5", 16, md5::Md5),
    digest!("SHA1", 20, sha1::Sha1),
    digest!("SHA224", 28, sha2::Sha224),
    digest!("SHA256", 32, sha2::Sha256),
    digest!("SHA384", 48, sha2::Sha384),
    digest!("SHA512", 64, sha2::Sha512),
    digest!("SHA512_256", 32, sha2::Sha512_256),
    digest!("RIPEMD160", 20, ripemd::Ripemd160),
    digest!("keccak256", 32, sha3::Keccak256),
    any_hash!("halfMD5", HalfMd5),
    any_hash!("sipHash64Keyed", SipHash64, true),
    any_hash!("sipHash128", SipHash128),
    any_hash!("sipHash128Keyed", SipHash128, true),
    any_hash!("sipHash128Reference", SipHash128Reference),
    any_hash!("sipHash128ReferenceKeyed", SipHash128Reference, true),
    any_hash!("farmFingerprint64", FarmFingerprint64),
    any_hash!("farmHash64", FarmHash64),
    any_hash!("metroHash64", MetroHash64),
    any_hash!("murmurHash2_32", MurmurHash2_32),
    any_hash!("murmurHash2_64", MurmurHash2_64),
    any_hash!("gccMurmurHash", GccMurmurHash),
    any_hash!("kafkaMurmurHash", KafkaMurmurHash),
    any_hash!("murmurHash3_32", MurmurHash3_32),
    any_hash!("murmurHash3_64", MurmurHash3_64),
    any_hash!("murmurHash3_128", MurmurHash3_128),
    any_hash!("wyHash64", WyHash64),
    any_hash!("xxh3", Xxh3),
    Spec {
        name: "javaHash",
        aliases: &[],
        typing: |args| java_typing(args),
        eval: |call| java_eval(call, JavaHash::Java),
    },
    Spec {
        name: "hiveHash",
        aliases: &[],
        typing: |args| java_typing(args),
        eval: |call| java_eval(call, JavaHash::Hive),
    },
    Spec {
        name: "javaHashUTF16LE",
        aliases: &[],
        typing: |args| java_typing(args),
        eval: |call| java_eval(call, JavaHash::Utf16),
    },
    Spec {
        name: "jumpConsistentHash",
        aliases: &[],
        typing: jump_typing,
        eval: jump_eval,
    },
];

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum JavaHash {
    /// Java's `String.hashCode` over signed bytes; signed integers as Java's boxed ones.
    Java,
    /// Hive's: Java's over the bytes of any value, kept non-negative.
    Hive,
    /// Java's over UTF-16LE code units.
    Utf16,
}

/// One argument of a string, a number or a date: several cannot be combined,
/// nor can the elements of an array or a tuple.
fn java_typing(args: &Args) -> Result<Field> {
    let nested = args.len() == 1 && args.data_type(0).is_nested();
    if nested && args.name == "javaHashUTF16LE" {
        return Err(error(
            ErrorCode::BAD_ARGUMENTS,
            "Arguments for javaHashUTF16LE must be in the form of UTF-16",
        ));
    }
    if args.len() > 1 || nested {
        let which = if args.name == "hiveHash" {
            "Hive"
        } else {
            "Java"
        };
        return Err(error(
            ErrorCode::NOT_IMPLEMENTED,
            format!("{which} hash is not combineable for multiple arguments"),
        ));
    }
    args.arity(1, 1)?;
    args.require(0, |t| is_text(t) || t.is_numeric() || t.is_temporal())?;
    Ok(args.propagate(DataType::Int32))
}

fn java_bytes(bytes: &[u8]) -> i32 {
    bytes.iter().fold(0i32, |h, &b| {
        h.wrapping_mul(31).wrapping_add(i32::from(b as i8))
    })
}

fn java_eval(call: &Call, kind: JavaHash) -> Result<ArrayRef> {
    let array = call.array(0)?;
    if kind == JavaHash::Java && array.data_type().is_integer() {
        return java_integers(&array);
    }
    let mut buffer = Vec::new();
    let mut out = Vec::with_capacity(call.rows);
    for row in 0..call.rows {
        if crate::hashing::is_null_at(array.as_ref(), row) {
            out.push(None);
            continue;
        }
        value_bytes(array.as_ref(), row, &mut buffer)?;
        out.push(Some(match kind {
            JavaHash::Java => java_bytes(&buffer),
            JavaHash::Hive => java_bytes(&buffer) & 0x7fff_ffff,
            JavaHash::Utf16 => utf16_hash(&buffer)?,
        }));
    }
    Ok(Arc::new(Int32Array::from(out)))
}

fn utf16_hash(bytes: &[u8]) -> Result<i32> {
    if bytes.len() % 2 != 0 {
        return Err(error(
            ErrorCode::BAD_ARGUMENTS,
            "Arguments for javaHashUTF16LE must be in the form of UTF-16",
        ));
    }
    Ok(bytes.chunks_exact(2).fold(0i32, |h, unit| {
        h.wrapping_mul(31)
            .wrapping_add(i32::from(u16::from_le_bytes([unit[0], unit[1]])))
    }))
}

/// Java's hash of a boxed Byte, Short, Integer (the value) or Long (its
/// halves xored); ClickHouse refuses unsigned integers.
fn java_integers(array: &ArrayRef) -> Result<ArrayRef> {
    let wide = matches!(array.data_type(), DataType::Int64);
    if !matches!(
        array.data_type(),
        DataType::Int8 | DataType::Int16 | DataType::Int32 | DataType::Int64
    ) {
        return Err(error(
            ErrorCode::NOT_IMPLEMENTED,
            "Unsigned types are not supported",
        ));
    }
    let values = crate::int_cast::to_i64_wrapping(array)?;
    let hashes = values.unary::<_, Int32Type>(|v| {
        if wide {
            (v ^ ((v as u64) >> 32) as i64) as i32
        } else {
            v as i32
        }
    });
    Ok(Arc::new(hashes))
}

fn jump_typing(args: &Args) -> Result<Field> {
    args.arity(2, 2)?;
    for i in 0..2 {
        args.require(i, |t| t.is_integer())?;
    }
    Ok(args.propagate(DataType::Int32))
}

/// Lamping and Veach's jump consistent hash of a key into `buckets`.
fn jump_hash(mut key: u64, buckets: i64) -> i32 {
    let (mut b, mut j) = (-1i64, 0i64);
    while j < buckets {
        b = j;
        key = key.wrapping_mul(2_862_933_555_777_941_757).wrapping_add(1);
        j = ((b + 1) as f64 * ((1u64 << 31) as f64 / ((key >> 33) + 1) as f64)) as i64;
    }
    b as i32
}

fn jump_eval(call: &Call) -> Result<ArrayRef> {
    if call.scalar(1).is_none() {
        return Err(error(
            ErrorCode::ILLEGAL_COLUMN,
            "Argument at index 1 for function jumpConsistentHash must be constant",
        ));
    }
    let keys = call.u64s(0)?;
    let buckets = crate::int_cast::to_i64_wrapping(&call.array(1)?)?;
    let mut out = Vec::with_capacity(call.rows);
    for row in 0..call.rows {
        if keys.is_null(row) || buckets.is_null(row) {
            out.push(None);
            continue;
        }
        let n = buckets.value(row);
        if n <= 0 || n > i64::from(i32::MAX) {
            return Err(error(
                ErrorCode::BAD_ARGUMENTS,
                "The second argument of function jumpConsistentHash (number of buckets) must be positive number",
            ));
        }
        out.push(Some(jump_hash(keys.value(row), n)));
    }
    Ok(Arc::new(Int32Array::from(out)))
}
