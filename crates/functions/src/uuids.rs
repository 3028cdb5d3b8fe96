//! UUID functions: `toUUID`, `toUUIDOrNull`, `toUUIDOrZero`, `generateUUIDv4` and
//! `generateUUIDv7`.
//!
//! `toUUID` also takes 16 bytes (a `FixedString(16)`) as a UUID: the SQL
//! front end gives a UUID back its type that way where a DataFusion function
//! returned its bytes without it.
//!
//! Their results carry the `arrow.uuid` field metadata, which is what makes a
//! `FixedSizeBinary(16)` a UUID to the rest of Strata (see
//! `strata_common::types`).

use std::sync::Arc;

use datafusion::arrow::array::{Array, ArrayRef, AsArray, BinaryBuilder, FixedSizeBinaryBuilder};
use datafusion::arrow::compute::kernels::cast;
use datafusion::arrow::datatypes::*;
use datafusion::common::Result;
use datafusion::logical_expr::{
    ColumnarValue, ReturnFieldArgs, ScalarFunctionArgs, ScalarUDFImpl, Signature, TypeSignature,
    Volatility,
};
use rand::RngCore;
use strata_common::types::{UUID_BYTES, field_type_name, uuid_metadata};
use strata_common::uuid_text::{not_a_uuid, parse_uuid};
use strata_common::{ErrorCode, StrataError};

use crate::columnar;

/// What `toUUID` does with text that is not a UUID.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Unparsable {
    Fail,
    Null,
    Zero,
}

#[derive(Debug, PartialEq, Eq, Hash)]
pub struct ToUuid {
    unparsable: Unparsable,
    signature: Signature,
}

impl ToUuid {
    pub fn new(unparsable: Unparsable) -> Self {
        ToUuid {
            unparsable,
            signature: Signature::any(1, Volatility::Immutable),
        }
    }
}

fn uuid_field(name: &str, nullable: bool) -> FieldRef {
    Arc::new(
        Field::new(name, DataType::FixedSizeBinary(UUID_BYTES), nullable)
            .with_metadata(uuid_metadata()),
    )
}

fn is_text(data_type: &DataType) -> bool {
    matches!(
        data_type,
        DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View | DataType::Null
    )
}

impl ScalarUDFImpl for ToUuid {
    fn name(&self) -> &str {
        match self.unparsable {
            Unparsable::Fail => "toUUID",
            Unparsable::Null => "toUUIDOrNull",
            Unparsable::Zero => "toUUIDOrZero",
        }
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn return_type(&self, _arg_types: &[DataType]) -> Result<DataType> {
        Ok(DataType::FixedSizeBinary(UUID_BYTES))
    }

    fn return_field_from_args(&self, args: ReturnFieldArgs) -> Result<FieldRef> {
        let input = &args.arg_fields[0];
        let bytes = input.data_type() == &DataType::FixedSizeBinary(UUID_BYTES);
        if !bytes && !is_text(input.data_type()) {
            return Err(StrataError::new(
                ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
                format!(
                    "Illegal type {} of argument of function {}: a UUID is read from a String or FixedString(16)",
                    field_type_name(input),
                    self.name()
                ),
            )
            .into_datafusion());
        }
        let nullable = input.is_nullable() || self.unparsable == Unparsable::Null;
        Ok(uuid_field(self.name(), nullable))
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        if args.arg_fields[0].data_type() == &DataType::FixedSizeBinary(UUID_BYTES) {
            return Ok(args.args[0].clone());
        }
        let scalar = matches!(args.args[0], ColumnarValue::Scalar(_));
        let input = args.args[0].to_array(crate::rows_to_evaluate(&args))?;
        columnar(uuids_from_texts(&input, self.unparsable)?, scalar)
    }
}

/// `_uuidOrder(u)`: a UUID's 16 bytes with its halves swapped. Their byte
/// order is ClickHouse's order of UUIDs, which compares the low 64 bits
/// first and then the high; Strata's plan rewrites put it where UUIDs are
/// sorted or ordered against each other. The bytes are a `Binary`, which
/// nothing takes for a UUID that lost its type.
#[derive(Debug, PartialEq, Eq, Hash)]
pub struct UuidOrder {
    signature: Signature,
}

impl Default for UuidOrder {
    fn default() -> Self {
        UuidOrder {
            signature: Signature::any(1, Volatility::Immutable),
        }
    }
}

impl UuidOrder {
    pub const NAME: &'static str = "_uuidOrder";
}

impl ScalarUDFImpl for UuidOrder {
    fn name(&self) -> &str {
        Self::NAME
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn return_type(&self, _: &[DataType]) -> Result<DataType> {
        Ok(DataType::Binary)
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        let scalar = matches!(args.args[0], ColumnarValue::Scalar(_));
        let input = args.args[0].to_array(crate::rows_to_evaluate(&args))?;
        let uuids = input.as_fixed_size_binary();
        let mut out = BinaryBuilder::with_capacity(uuids.len(), uuids.len() * UUID_BYTES as usize);
        let half = UUID_BYTES as usize / 2;
        for row in 0..uuids.len() {
            if uuids.is_null(row) {
                out.append_null();
                continue;
            }
            let bytes = uuids.value(row);
            let mut swapped = [0u8; UUID_BYTES as usize];
            swapped[..half].copy_from_slice(&bytes[half..]);
            swapped[half..].copy_from_slice(&bytes[..half]);
            out.append_value(swapped);
        }
        columnar(Arc::new(out.finish()), scalar)
    }
}

/// The UUIDs `texts` write, a text that is none handled as `unparsable` says.
pub(crate) fn uuids_from_texts(texts: &ArrayRef, unparsable: Unparsable) -> Result<ArrayRef> {
    let texts = cast::cast(texts, &DataType::Utf8)?;
    let texts = texts.as_string::<i32>();
    let mut out = FixedSizeBinaryBuilder::with_capacity(texts.len(), UUID_BYTES);
    for text in texts.iter() {
        let Some(text) = text else {
            out.append_null();
            continue;
        };
        match (parse_uuid(text.as_bytes()), unparsable) {
            (Some(bytes), _) => out.append_value(bytes)?,
            (None, Unparsable::Fail) => return Err(not_a_uuid(text).into_datafusion()),
            (None, Unparsable::Null) => out.append_null(),
            (None, Unparsable::Zero) => out.append_value([0u8; UUID_BYTES as usize])?,
        }
    }
    Ok(Arc::new(out.finish()))
}

/// Which UUIDs `generateUUIDv*` makes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum UuidVersion {
    /// Random.
    V4,
    /// A millisecond timestamp, then a counter and random bits: UUIDs sort
    /// in the order they were made, within this process too.
    V7,
}

/// `generateUUIDv4([x])`, `generateUUIDv7([x])`: a new UUID per row. The
/// argument is ignored; it only keeps several calls in one query apart, as
/// in ClickHouse.
#[derive(Debug, PartialEq, Eq, Hash)]
pub struct GenerateUuid {
    version: UuidVersion,
    signature: Signature,
}

impl GenerateUuid {
    pub fn new(version: UuidVersion) -> Self {
        GenerateUuid {
            version,
            signature: Signature::one_of(
                vec![TypeSignature::Nullary, TypeSignature::Any(1)],
                Volatility::Volatile,
            ),
        }
    }
}

impl ScalarUDFImpl for GenerateUuid {
    fn name(&self) -> &str {
        match self.version {
            UuidVersion::V4 => "generateUUIDv4",
            UuidVersion::V7 => "generateUUIDv7",
        }
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn return_type(&self, _arg_types: &[DataType]) -> Result<DataType> {
        Ok(DataType::FixedSizeBinary(UUID_BYTES))
    }

    fn return_field_from_args(&self, _args: ReturnFieldArgs) -> Result<FieldRef> {
        Ok(uuid_field(self.name(), false))
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        let rows = args.number_rows;
        let mut out = FixedSizeBinaryBuilder::with_capacity(rows, UUID_BYTES);
        match self.version {
            UuidVersion::V4 => {
                // One draw from the thread's generator for the whole batch: a
                // system call per UUID would cost more than everything else.
                let mut random = vec![0u8; rows * UUID_BYTES as usize];
                rand::rng().fill_bytes(&mut random);
                for chunk in random.chunks_exact(UUID_BYTES as usize) {
                    let bytes: [u8; 16] = chunk.try_into().expect("chunks of 16 bytes");
                    out.append_value(uuid::Builder::from_random_bytes(bytes).as_uuid().as_bytes())?;
                }
            }
            UuidVersion::V7 => {
                for _ in 0..rows {
                    out.append_value(uuid::Uuid::now_v7().as_bytes())?;
                }
            }
        }
        Ok(ColumnarValue::Array(Arc::new(out.finish())))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn generated(version: UuidVersion) -> Vec<uuid::Uuid> {
        let udf = GenerateUuid::new(version);
        let args = ScalarFunctionArgs {
            args: vec![],
            arg_fields: vec![],
            number_rows: 1000,
            return_field: uuid_field(udf.name(), false),
            config_options: Arc::new(Default::default()),
        };
        let ColumnarValue::Array(out) = udf.invoke_with_args(args).unwrap() else {
            panic!("an array per batch");
        };
        let out = out.as_fixed_size_binary();
        (0..out.len())
            .map(|row| uuid::Uuid::from_slice(out.value(row)).unwrap())
            .collect()
    }

    #[test]
    fn generated_uuids_are_version_4_and_distinct() {
        let uuids = generated(UuidVersion::V4);
        let distinct: std::collections::HashSet<_> = uuids.iter().collect();
        assert_eq!(distinct.len(), uuids.len());
        assert!(uuids.iter().all(|u| u.get_version_num() == 4));
    }

    #[test]
    fn version_7_uuids_sort_in_the_order_they_were_made() {
        let uuids = generated(UuidVersion::V7);
        assert!(uuids.iter().all(|u| u.get_version_num() == 7));
        assert!(uuids.windows(2).all(|pair| pair[0] < pair[1]));
    }
}
