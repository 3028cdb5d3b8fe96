//! Hash functions with ClickHouse's exact results: `intHash32` (Thomas Wang's
//! 64-to-32-bit hash of the key xor a fixed salt), `intHash64` (the MurmurHash3
//! finalizer of the key xor a fixed salt), and over any number of arguments
//! `sipHash64` (SipHash-2-4 with a zero key over the value's bytes),
//! `cityHash64` (CityHash v1.0.2 of a string, `intHash64` of a number's
//! bits), `xxHash64` and `xxHash32` (of the value's bytes). Several
//! arguments' hashes are combined left to right as ClickHouse does; a
//! tuple's elements count as arguments of their own, an array is the hash of
//! its length combined with each element's, and a NULL inside either hashes
//! to a fixed value.

use std::hash::Hasher;
use std::sync::Arc;

use datafusion::arrow::array::{
    Array, ArrayRef, AsArray, OffsetSizeTrait, UInt32Array, UInt64Array,
};
use datafusion::arrow::buffer::{NullBuffer, OffsetBuffer};
use datafusion::arrow::datatypes::*;
use datafusion::common::{Result, exec_err};
use datafusion::logical_expr::{
    ColumnarValue, ReturnFieldArgs, ScalarFunctionArgs, ScalarUDFImpl, Signature, TypeSignature,
    Volatility,
};

use cityhash_102_rs::{U128, city_hash_64, hash128_to_64};
use twox_hash::{XxHash32, XxHash64};

use crate::int_cast::to_u64_wrapping;
use strata_common::types::BigInt;

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

/// CRC-32C of a u64's little-endian bytes from `start`, with no inversion
/// before or after, as the SSE4.2 `crc32` instruction computes it
/// (ClickHouse's `intHashCRC32` starts from all ones).
pub fn crc32c_u64(start: u32, value: u64) -> u32 {
    let mut crc = start;
    for byte in value.to_le_bytes() {
        crc ^= u32::from(byte);
        for _ in 0..8 {
            crc = (crc >> 1) ^ (0x82f6_3b78 & 0u32.wrapping_sub(crc & 1));
        }
    }
    crc
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
    CityHash64,
    XxHash64,
    XxHash32,
}

impl HashKind {
    pub const ALL: [HashKind; 6] = [
        HashKind::IntHash32,
        HashKind::IntHash64,
        HashKind::SipHash64,
        HashKind::CityHash64,
        HashKind::XxHash64,
        HashKind::XxHash32,
    ];

    /// Whether the function takes any number of arguments.
    fn is_variadic(self) -> bool {
        matches!(
            self,
            HashKind::CityHash64 | HashKind::SipHash64 | HashKind::XxHash64 | HashKind::XxHash32
        )
    }

    /// The hash of one value, `bytes` as `value_bytes` gives them.
    fn hash_bytes(self, data_type: &DataType, bytes: &[u8]) -> u64 {
        match self {
            HashKind::CityHash64 if is_text(data_type) => city_hash_64(bytes),
            // Wider than 64 bits, a number hashes as its bytes.
            HashKind::CityHash64 if bytes.len() > 8 => city_hash_64(bytes),
            // Numbers hash their bits, zero-extended, with intHash64.
            HashKind::CityHash64 => {
                let mut bits = [0u8; 8];
                bits[..bytes.len().min(8)].copy_from_slice(&bytes[..bytes.len().min(8)]);
                int_hash64(u64::from_le_bytes(bits))
            }
            HashKind::XxHash64 => XxHash64::oneshot(0, bytes),
            HashKind::XxHash32 => u64::from(XxHash32::oneshot(0, bytes)),
            HashKind::SipHash64 => sip_hash64(bytes),
            HashKind::IntHash32 | HashKind::IntHash64 => {
                unreachable!("integer hashes take the key, not bytes")
            }
        }
    }

    /// The hash ClickHouse gives a NULL inside an array or a tuple.
    fn null_hash(self) -> u64 {
        match self {
            HashKind::XxHash32 => 64_596_081,
            _ => 14_234_421_406_067_173_489,
        }
    }

    /// The hash of an array's length, which starts the array's hash.
    fn length_hash(self, length: usize) -> u64 {
        match self {
            HashKind::XxHash32 => u64::from(int_hash32(length as u64)),
            _ => int_hash64(length as u64),
        }
    }

    /// Sets `hash` to `next` where `first`, else combines them.
    fn fold_into(self, hash: &mut u64, next: u64, first: bool) {
        *hash = if first {
            next
        } else {
            self.combine(*hash, next)
        };
    }

    /// The hash of a row from the hash of its previous arguments and the next.
    fn combine(self, previous: u64, next: u64) -> u64 {
        match self {
            HashKind::XxHash32 => u64::from(int_hash32(previous) ^ next as u32),
            // SipHash of the two hashes' little-endian bytes.
            HashKind::SipHash64 => {
                let mut pair = [0u8; 16];
                pair[..8].copy_from_slice(&previous.to_le_bytes());
                pair[8..].copy_from_slice(&next.to_le_bytes());
                sip_hash64(&pair)
            }
            _ => hash128_to_64(U128::from((u128::from(next) << 64) | u128::from(previous))),
        }
    }
}

/// Whether `array`'s value at `row` is NULL, NULL-typed arrays included
/// (they have no null buffer).
pub(crate) fn is_null_at(array: &dyn Array, row: usize) -> bool {
    array.data_type() == &DataType::Null || array.is_null(row)
}

pub(crate) fn is_text(data_type: &DataType) -> bool {
    matches!(
        data_type,
        DataType::Utf8
            | DataType::LargeUtf8
            | DataType::Utf8View
            | DataType::Binary
            | DataType::FixedSizeBinary(_)
    )
}

#[derive(Debug, PartialEq, Eq, Hash)]
pub struct HashFunction {
    kind: HashKind,
    signature: Signature,
}

impl HashFunction {
    pub fn new(kind: HashKind) -> Self {
        let signature = if kind.is_variadic() {
            Signature::one_of(
                vec![TypeSignature::Nullary, TypeSignature::VariadicAny],
                Volatility::Immutable,
            )
        } else {
            Signature::any(1, Volatility::Immutable)
        };
        HashFunction { kind, signature }
    }
}

/// The bytes ClickHouse feeds SipHash for one value: little-endian for numbers.
pub(crate) fn value_bytes(array: &dyn Array, row: usize, out: &mut Vec<u8>) -> Result<()> {
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
        // A big integer's bytes in its own width (a UInt128 is stored in 256 bits).
        data_type if let Some(big) = BigInt::of(data_type) => {
            let bytes = match big {
                BigInt::Int128 => array
                    .as_primitive::<Decimal128Type>()
                    .value(row)
                    .to_le_bytes()
                    .to_vec(),
                _ => array
                    .as_primitive::<Decimal256Type>()
                    .value(row)
                    .to_le_bytes()
                    .to_vec(),
            };
            out.extend_from_slice(&bytes[..usize::from(big.bytes())]);
        }
        other => return exec_err!("Hash functions do not support arguments of type {other} yet"),
    }
    Ok(())
}

impl ScalarUDFImpl for HashFunction {
    fn name(&self) -> &str {
        match self.kind {
            HashKind::IntHash32 => "intHash32",
            HashKind::IntHash64 => "intHash64",
            HashKind::SipHash64 => "sipHash64",
            HashKind::CityHash64 => "cityHash64",
            HashKind::XxHash64 => "xxHash64",
            HashKind::XxHash32 => "xxHash32",
        }
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn return_type(&self, _arg_types: &[DataType]) -> Result<DataType> {
        Ok(
            if matches!(self.kind, HashKind::IntHash32 | HashKind::XxHash32) {
                DataType::UInt32
            } else {
                DataType::UInt64
            },
        )
    }

    fn return_field_from_args(&self, args: ReturnFieldArgs) -> Result<FieldRef> {
        crate::null_propagating_field(self, &args)
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        if args.args.is_empty() {
            // ClickHouse's fixed hash of no arguments, at the output's width.
            let seed = 0xe28d_bde7_fe22_e41c_u64;
            let out: ArrayRef = match self.kind {
                HashKind::XxHash32 => Arc::new(UInt32Array::from_value(seed as u32, 1)),
                _ => Arc::new(UInt64Array::from_value(seed, 1)),
            };
            return crate::columnar(out, true);
        }
        let scalar = args
            .args
            .iter()
            .all(|a| matches!(a, ColumnarValue::Scalar(_)));
        let out: ArrayRef = match self.kind {
            HashKind::IntHash32 | HashKind::IntHash64 => {
                let input = args.args[0].to_array(crate::rows_to_evaluate(&args))?;
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
            _ => {
                let inputs = args
                    .args
                    .iter()
                    .zip(&args.arg_fields)
                    .map(|(a, field)| {
                        let values = a.to_array(crate::rows_to_evaluate(&args))?;
                        enum_numbers(values, field)
                    })
                    .collect::<Result<Vec<_>>>()?;
                let hashes = self.hash_rows(&inputs)?;
                if self.kind == HashKind::XxHash32 {
                    Arc::new(hashes.unary::<_, UInt32Type>(|h| h as u32))
                } else {
                    Arc::new(hashes)
                }
            }
        };
        crate::columnar(out, scalar)
    }
}

impl HashFunction {
    /// Each row's hash of all `inputs`, NULL where any of them is.
    fn hash_rows(&self, inputs: &[ArrayRef]) -> Result<UInt64Array> {
        let rows = inputs.first().map_or(0, |a| a.len());
        if inputs.iter().any(|a| a.data_type() == &DataType::Null) {
            return Ok(UInt64Array::new_null(rows));
        }
        let mut hashes = vec![0u64; rows];
        for (i, input) in inputs.iter().enumerate() {
            self.fold(input.as_ref(), &mut hashes, i == 0)?;
        }
        let nulls = inputs.iter().fold(None, |nulls, input| {
            NullBuffer::union(nulls.as_ref(), input.logical_nulls().as_ref())
        });
        Ok(UInt64Array::new(hashes.into(), nulls))
    }

    /// Folds each row of `column` into `hashes`: its hash where `first`,
    /// else combined with the hash there.
    fn fold(&self, column: &dyn Array, hashes: &mut [u64], first: bool) -> Result<()> {
        match column.data_type() {
            DataType::Struct(_) => {
                for (i, element) in column.as_struct().columns().iter().enumerate() {
                    self.fold(element.as_ref(), hashes, first && i == 0)?;
                }
                Ok(())
            }
            DataType::List(_) => {
                let list = column.as_list::<i32>();
                self.fold_lists(list.values().as_ref(), list.offsets(), hashes, first)
            }
            DataType::LargeList(_) => {
                let list = column.as_list::<i64>();
                self.fold_lists(list.values().as_ref(), list.offsets(), hashes, first)
            }
            DataType::FixedSizeList(_, size) => {
                let size = *size as usize;
                let list = column.as_fixed_size_list();
                let bounds = |row: usize| {
                    let start = list.value_offset(row) as usize;
                    (start, start + size)
                };
                self.fold_arrays(list.values().as_ref(), bounds, hashes, first)
            }
            // A map hashes as ClickHouse stores it: an array of (key, value).
            DataType::Map(_, _) => {
                let map = column.as_map();
                self.fold_lists(map.entries(), map.offsets(), hashes, first)
            }
            _ => self.fold_values(column, hashes, first),
        }
    }

    /// Folds arrays whose elements are `elements[offsets[row]..offsets[row + 1]]`.
    fn fold_lists<O: OffsetSizeTrait>(
        &self,
        elements: &dyn Array,
        offsets: &OffsetBuffer<O>,
        hashes: &mut [u64],
        first: bool,
    ) -> Result<()> {
        let bounds = |row: usize| (offsets[row].as_usize(), offsets[row + 1].as_usize());
        self.fold_arrays(elements, bounds, hashes, first)
    }

    /// Folds arrays whose elements are `elements[bounds(row)]`.
    fn fold_arrays(
        &self,
        elements: &dyn Array,
        bounds: impl Fn(usize) -> (usize, usize),
        hashes: &mut [u64],
        first: bool,
    ) -> Result<()> {
        let mut element_hashes = vec![0u64; elements.len()];
        self.fold(elements, &mut element_hashes, true)?;
        for (row, hash) in hashes.iter_mut().enumerate() {
            let (start, end) = bounds(row);
            self.kind
                .fold_into(hash, self.kind.length_hash(end - start), first);
            for &element in &element_hashes[start..end] {
                *hash = self.kind.combine(*hash, element);
            }
        }
        Ok(())
    }

    /// Folds a column of single values.
    fn fold_values(&self, column: &dyn Array, hashes: &mut [u64], first: bool) -> Result<()> {
        let mut bytes = Vec::new();
        for (row, hash) in hashes.iter_mut().enumerate() {
            let next = if is_null_at(column, row) {
                self.kind.null_hash()
            } else {
                value_bytes(column, row, &mut bytes)?;
                self.kind.hash_bytes(column.data_type(), &bytes)
            };
            self.kind.fold_into(hash, next, first);
        }
        Ok(())
    }
}

/// An enum column as its elements' numbers (Int8 or Int16), which is what
/// ClickHouse hashes; any other column as it is.
pub(crate) fn enum_numbers(values: ArrayRef, field: &Field) -> Result<ArrayRef> {
    let Some(enum_type) = strata_common::types::enum_type(field) else {
        return Ok(values);
    };
    let names = datafusion::arrow::compute::cast(&values, &DataType::Utf8)?;
    let numbers: ArrayRef = Arc::new(enum_type.numbers_of(names.as_string::<i32>()));
    let width = match enum_type.is_wide() {
        true => DataType::Int16,
        false => DataType::Int8,
    };
    Ok(datafusion::arrow::compute::cast(&numbers, &width)?)
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
        let (one, two) = (sip_hash64(&[1u8]), sip_hash64(&[2u8]));
        assert_eq!(
            HashKind::SipHash64.combine(one, two),
            13_747_979_201_178_469_747
        );
        let text = DataType::Utf8;
        assert_eq!(
            HashKind::CityHash64.hash_bytes(&text, b"a"),
            2_603_192_927_274_642_682
        );
        assert_eq!(
            HashKind::CityHash64.hash_bytes(&DataType::UInt8, &[1]),
            10_577_349_846_663_553_072
        );
        let (a, b) = (
            HashKind::XxHash64.hash_bytes(&text, b"a"),
            HashKind::XxHash64.hash_bytes(&text, b"b"),
        );
        assert_eq!(a, 15_154_266_338_359_012_955);
        assert_eq!(HashKind::XxHash64.combine(a, b), 14_756_808_377_901_732_262);
        let (a, b) = (
            HashKind::XxHash32.hash_bytes(&text, b"a"),
            HashKind::XxHash32.hash_bytes(&text, b"b"),
        );
        assert_eq!(HashKind::XxHash32.combine(a, b), 1_353_805_580);
    }
}
