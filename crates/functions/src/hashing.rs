//! Hash functions with ClickHouse's exact results: `intHash32` (Thomas Wang's
//! 64-to-32-bit hash of the key xor a fixed salt), `intHash64` (the MurmurHash3
//! finalizer of the key xor a fixed salt) and `sipHash64` (SipHash-2-4 with a
//! zero key over the value's bytes).

use std::hash::Hasher;
use std::sync::Arc;

use datafusion::arrow::array::{Array, ArrayRef, AsArray, UInt64Array};
use datafusion::arrow::datatypes::*;
use datafusion::common::{Result, exec_err};
use datafusion::logical_expr::{
    ColumnarValue, ReturnFieldArgs, ScalarFunctionArgs, ScalarUDFImpl, Signature, Volatility,
};

use crate::int_cast::to_u64_wrapping;

pub fn int_hash32(key: u64) -> u32 {
    let mut key = key ^ 0x75d9_543d_e018_bf45;
    key = (!key).wrapping_add(key << 18);
    key ^= key.rotate_right(31);
    key = key.wrapping_mul(21);
    key ^= key.rotate_right(11);
    key = key.wrapping_add(key << 6);
    key ^= key.rotate_right(22);
    key as u32
}

pub fn int_hash64(key: u64) -> u64 {
    murmur_finalizer(key ^ 0x4cf2_d2ba_ae6d_a887)
}

/// The MurmurHash3 64-bit finalizer: `intHash64` without its salt, and
/// ClickHouse's hash of a number for `uniq`.
pub fn murmur_finalizer(mut x: u64) -> u64 {
    x ^= x >> 33;
    x = x.wrapping_mul(0xff51_afd7_ed55_8ccd);
    x ^= x >> 33;
    x = x.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    x ^ (x >> 33)
}

fn sip_hash64(bytes: &[u8]) -> u64 {
    let mut hasher = siphasher::sip::SipHasher24::new_with_keys(0, 0);
    hasher.write(bytes);
    hasher.finish()
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum HashKind {
    IntHash32,
    IntHash64,
    SipHash64,
}

#[derive(Debug, PartialEq, Eq, Hash)]
pub struct HashFunction {
    kind: HashKind,
    signature: Signature,
}

impl HashFunction {
    pub fn new(kind: HashKind) -> Self {
        HashFunction {
            kind,
            signature: Signature::any(1, Volatility::Immutable),
        }
    }
}

/// The bytes ClickHouse feeds SipHash for one value: little-endian for numbers.
fn value_bytes(array: &dyn Array, row: usize, out: &mut Vec<u8>) -> Result<()> {
    out.clear();
    macro_rules! le {
        ($t:ty) => {
            out.extend_from_slice(&array.as_primitive::<$t>().value(row).to_le_bytes())
        };
    }
    match array.data_type() {
        DataType::Utf8 => out.extend_from_slice(array.as_string::<i32>().value(row).as_bytes()),
        DataType::LargeUtf8 => {
            out.extend_from_slice(array.as_string::<i64>().value(row).as_bytes())
        }
        DataType::Utf8View => out.extend_from_slice(array.as_string_view().value(row).as_bytes()),
        DataType::Binary => out.extend_from_slice(array.as_binary::<i32>().value(row)),
        DataType::FixedSizeBinary(_) => {
            out.extend_from_slice(array.as_fixed_size_binary().value(row))
        }
        DataType::UInt8 => le!(UInt8Type),
        DataType::UInt16 => le!(UInt16Type),
        DataType::UInt32 => le!(UInt32Type),
        DataType::UInt64 => le!(UInt64Type),
        DataType::Int8 => le!(Int8Type),
        DataType::Int16 => le!(Int16Type),
        DataType::Int32 => le!(Int32Type),
        DataType::Int64 => le!(Int64Type),
        DataType::Float32 => le!(Float32Type),
        DataType::Float64 => le!(Float64Type),
        DataType::Date32 => out.extend_from_slice(
            &(array.as_primitive::<Date32Type>().value(row) as u16).to_le_bytes(),
        ),
        DataType::Timestamp(TimeUnit::Second, _) => out.extend_from_slice(
            &(array.as_primitive::<TimestampSecondType>().value(row) as u32).to_le_bytes(),
        ),
        other => return exec_err!("sipHash64 does not support arguments of type {other}"),
    }
    Ok(())
}

impl ScalarUDFImpl for HashFunction {
    fn name(&self) -> &str {
        match self.kind {
            HashKind::IntHash32 => "intHash32",
            HashKind::IntHash64 => "intHash64",
            HashKind::SipHash64 => "sipHash64",
        }
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn return_type(&self, _arg_types: &[DataType]) -> Result<DataType> {
        Ok(if self.kind == HashKind::IntHash32 {
            DataType::UInt32
        } else {
            DataType::UInt64
        })
    }

    fn return_field_from_args(&self, args: ReturnFieldArgs) -> Result<FieldRef> {
        crate::null_propagating_field(self, &args)
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        let scalar = matches!(args.args[0], ColumnarValue::Scalar(_));
        let input = args.args[0].to_array(args.number_rows)?;
        let out: ArrayRef = match self.kind {
            HashKind::IntHash32 | HashKind::IntHash64 => {
                if !input.data_type().is_integer() {
                    return exec_err!(
                        "Illegal type {} of argument of function {}",
                        input.data_type(),
                        self.name()
                    );
                }
                let keys = to_u64_wrapping(&input)?;
                if self.kind == HashKind::IntHash32 {
                    Arc::new(keys.unary::<_, UInt32Type>(int_hash32))
                } else {
                    Arc::new(keys.unary::<_, UInt64Type>(int_hash64))
                }
            }
            HashKind::SipHash64 => {
                let mut bytes = Vec::new();
                let mut hashes = Vec::with_capacity(input.len());
                for row in 0..input.len() {
                    if input.is_null(row) {
                        hashes.push(None);
                    } else {
                        value_bytes(input.as_ref(), row, &mut bytes)?;
                        hashes.push(Some(sip_hash64(&bytes)));
                    }
                }
                Arc::new(UInt64Array::from(hashes))
            }
        };
        crate::columnar(out, scalar)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hashes_match_clickhouse() {
        assert_eq!(int_hash32(1), 1_343_103_100);
        assert_eq!(int_hash64(1), 10_577_349_846_663_553_072);
        assert_eq!(int_hash64(0), 4_761_183_170_873_013_810);
        assert_eq!(sip_hash64(b"hello"), 10_142_490_492_830_962_361);
        assert_eq!(sip_hash64(&[1u8]), 7_385_293_435_322_750_976);
    }
}
