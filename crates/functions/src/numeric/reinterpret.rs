//! `reinterpretAs<Type>(x)` and `reinterpret(x, 'Type')`: a value's bytes
//! as ClickHouse lays them out in memory (little-endian numbers, Date as two
//! bytes of days, DateTime as four of seconds, strings as their bytes, a
//! UUID as two little-endian halves), read as another type: cut or padded
//! with zero bytes to its width. `reinterpretAsString` drops trailing zero
//! bytes; `toStringCutToZero` cuts a string at its first zero byte.

use std::sync::Arc;

use datafusion::arrow::array::{
    Array, ArrayRef, AsArray, BinaryArray, Date32Array, FixedSizeBinaryBuilder, PrimitiveArray,
    StringArray, TimestampSecondArray,
};
use datafusion::arrow::compute::kernels::cast;
use datafusion::arrow::datatypes::*;
use datafusion::common::{Result, ScalarValue};
use datafusion::logical_expr::{
    ColumnarValue, ReturnFieldArgs, ScalarFunctionArgs, ScalarUDF, ScalarUDFImpl, Signature,
    Volatility,
};
use strata_common::ErrorCode;
use strata_common::types::{
    BigInt, UUID_BYTES, field_type_name, is_uuid, parse_clickhouse_type, uuid_metadata,
};

use super::error;
use crate::hashing::is_null_at;

/// What the bytes become.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum Target {
    Type(DataType),
    Uuid,
    /// A FixedString as wide as the argument.
    FixedString,
    /// The type named by the constant second argument.
    Named,
}

pub fn scalar_functions() -> Vec<ScalarUDF> {
    let fixed: [(&'static str, Target); 21] = [
        ("reinterpretAsUInt8", Target::Type(DataType::UInt8)),
        ("reinterpretAsUInt16", Target::Type(DataType::UInt16)),
        ("reinterpretAsUInt32", Target::Type(DataType::UInt32)),
        ("reinterpretAsUInt64", Target::Type(DataType::UInt64)),
        ("reinterpretAsInt8", Target::Type(DataType::Int8)),
        ("reinterpretAsInt16", Target::Type(DataType::Int16)),
        ("reinterpretAsInt32", Target::Type(DataType::Int32)),
        ("reinterpretAsInt64", Target::Type(DataType::Int64)),
        (
            "reinterpretAsInt128",
            Target::Type(BigInt::Int128.data_type()),
        ),
        (
            "reinterpretAsUInt128",
            Target::Type(BigInt::UInt128.data_type()),
        ),
        (
            "reinterpretAsInt256",
            Target::Type(BigInt::Int256.data_type()),
        ),
        (
            "reinterpretAsUInt256",
            Target::Type(BigInt::UInt256.data_type()),
        ),
        ("reinterpretAsFloat32", Target::Type(DataType::Float32)),
        ("reinterpretAsFloat64", Target::Type(DataType::Float64)),
        ("reinterpretAsDate", Target::Type(DataType::Date32)),
        (
            "reinterpretAsDateTime",
            Target::Type(DataType::Timestamp(TimeUnit::Second, None)),
        ),
        ("reinterpretAsString", Target::Type(DataType::Binary)),
        ("reinterpretAsFixedString", Target::FixedString),
        ("reinterpretAsUUID", Target::Uuid),
        ("reinterpret", Target::Named),
        ("toStringCutToZero", Target::Type(DataType::Utf8)),
    ];
    fixed
        .into_iter()
        .map(|(name, target)| {
            ScalarUDF::new_from_impl(Reinterpret {
                name,
                target,
                signature: super::any_arguments(Volatility::Immutable),
            })
        })
        .collect()
}

#[derive(Debug, PartialEq, Eq, Hash)]
struct Reinterpret {
    name: &'static str,
    target: Target,
    signature: Signature,
}

/// The width in bytes of a value of `field` in ClickHouse's memory, or
/// None for strings (their own length).
fn width(field: &Field) -> Result<Option<usize>> {
    Ok(Some(match field.data_type() {
        DataType::Null | DataType::Boolean | DataType::UInt8 | DataType::Int8 => 1,
        DataType::UInt16 | DataType::Int16 => 2,
        DataType::UInt32 | DataType::Int32 | DataType::Float32 => 4,
        DataType::UInt64 | DataType::Int64 | DataType::Float64 => 8,
        DataType::Date32 if field_type_name(field).contains("Date32") => 4,
        DataType::Date32 => 2,
        DataType::Timestamp(TimeUnit::Second, _) => 4,
        data_type if let Some(big) = BigInt::of(data_type) => usize::from(big.bytes()),
        DataType::Decimal128(p, _) if *p <= 9 => 4,
        DataType::Decimal128(p, _) if *p <= 18 => 8,
        DataType::Decimal128(..) => 16,
        DataType::FixedSizeBinary(n) => *n as usize,
        DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View | DataType::Binary => {
            return Ok(None);
        }
        other => {
            return Err(error(
                ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
                format!(
                    "Cannot reinterpret {} because only Numeric, String or FixedString can be reinterpreted",
                    strata_common::types::clickhouse_type_name(other, false)
                ),
            ));
        }
    }))
}

impl Reinterpret {
    fn arity(&self) -> usize {
        if self.target == Target::Named { 2 } else { 1 }
    }

    fn result_field(&self, args: &ReturnFieldArgs) -> Result<Field> {
        let argument = &args.arg_fields[0];
        let nullable = argument.is_nullable();
        let data_type = match &self.target {
            Target::Type(t) => t.clone(),
            Target::Uuid => {
                return Ok(
                    Field::new(self.name, DataType::FixedSizeBinary(UUID_BYTES), nullable)
                        .with_metadata(uuid_metadata()),
                );
            }
            Target::FixedString => match width(argument)? {
                Some(n) => DataType::FixedSizeBinary(n as i32),
                None => {
                    return Err(error(
                        ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
                        "Cannot reinterpret String as FixedString because it is not fixed size and contiguous in memory",
                    ));
                }
            },
            Target::Named => {
                let Some(Some(ScalarValue::Utf8(Some(name)))) = args.scalar_arguments.get(1) else {
                    return Err(error(
                        ErrorCode::ILLEGAL_COLUMN,
                        "Second argument of function reinterpret must be a constant string naming a type",
                    ));
                };
                let parsed = parse_clickhouse_type(name).map_err(|e| e.into_datafusion())?;
                return Ok(parsed.field(self.name).with_nullable(nullable));
            }
        };
        Ok(Field::new(self.name, data_type, nullable))
    }
}

impl ScalarUDFImpl for Reinterpret {
    fn name(&self) -> &str {
        self.name
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn return_type(&self, arg_types: &[DataType]) -> Result<DataType> {
        if arg_types.len() != self.arity() {
            return Err(super::arity_error(
                self.name,
                arg_types.len(),
                &self.arity().to_string(),
            ));
        }
        if self.name == "toStringCutToZero"
            && !matches!(
                arg_types[0],
                DataType::Utf8 | DataType::Binary | DataType::FixedSizeBinary(_) | DataType::Null
            )
        {
            return Err(super::illegal_type(self.name, &arg_types[0]));
        }
        Ok(match &self.target {
            Target::Type(t) => t.clone(),
            _ => DataType::Null,
        })
    }

    fn return_field_from_args(&self, args: ReturnFieldArgs) -> Result<FieldRef> {
        let types = crate::field_types(args.arg_fields);
        self.return_type(&types)?;
        width(&args.arg_fields[0])?;
        Ok(Arc::new(self.result_field(&args)?))
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        let scalar = matches!(args.args[0], ColumnarValue::Scalar(_));
        let values = args.args[0].to_array(crate::rows_to_evaluate(&args))?;
        let source = &args.arg_fields[0];
        let rows = memory_bytes(&values, source)?;
        let result = args.return_field.data_type().clone();
        let out = if self.name == "toStringCutToZero" {
            let texts: StringArray = rows
                .iter()
                .map(|b| {
                    b.as_ref().map(|b| {
                        let end = b.iter().position(|&c| c == 0).unwrap_or(b.len());
                        String::from_utf8_lossy(&b[..end]).into_owned()
                    })
                })
                .collect();
            Arc::new(texts) as ArrayRef
        } else if self.target == Target::Uuid || is_uuid(&args.return_field) {
            uuids(&rows)?
        } else {
            from_bytes(&rows, &result, width(source)?.is_some())?
        };
        crate::columnar(out, scalar)
    }
}

/// Each row's bytes as ClickHouse holds the value in memory.
fn memory_bytes(values: &ArrayRef, field: &Field) -> Result<Vec<Option<Vec<u8>>>> {
    let size = width(field)?;
    let uuid = is_uuid(field);
    let values = &match values.data_type() {
        DataType::Boolean => cast::cast(values, &DataType::UInt8)?,
        _ => Arc::clone(values),
    };
    let mut out = Vec::with_capacity(values.len());
    let mut bytes = Vec::new();
    for row in 0..values.len() {
        if is_null_at(values.as_ref(), row) {
            out.push(None);
            continue;
        }
        if let DataType::Decimal128(..) = values.data_type() {
            bytes = values
                .as_primitive::<Decimal128Type>()
                .value(row)
                .to_le_bytes()
                .to_vec();
        } else {
            crate::hashing::value_bytes(values.as_ref(), row, &mut bytes)?;
        }
        if uuid {
            // Strata keeps a UUID's bytes in text order; ClickHouse two
            // little-endian halves.
            bytes[..8].reverse();
            bytes[8..].reverse();
        }
        if let Some(size) = size {
            bytes.resize(size, 0);
        }
        out.push(Some(bytes.clone()));
    }
    Ok(out)
}

fn padded<const N: usize>(bytes: &[u8]) -> [u8; N] {
    let mut out = [0u8; N];
    let n = bytes.len().min(N);
    out[..n].copy_from_slice(&bytes[..n]);
    out
}

fn from_bytes(rows: &[Option<Vec<u8>>], result: &DataType, fixed_width: bool) -> Result<ArrayRef> {
    macro_rules! number {
        ($t:ty, $n:expr) => {
            Arc::new(
                rows.iter()
                    .map(|b| {
                        b.as_ref().map(|b| {
                            <<$t as ArrowPrimitiveType>::Native>::from_le_bytes(padded::<$n>(b))
                        })
                    })
                    .collect::<PrimitiveArray<$t>>(),
            ) as ArrayRef
        };
    }
    Ok(match result {
        data_type if let Some(big) = BigInt::of(data_type) => big.array(rows.iter().map(|b| {
            let b = b.as_ref()?;
            Some(match big {
                BigInt::Int128 => i256::from_i128(i128::from_le_bytes(padded::<16>(b))),
                BigInt::UInt128 => i256::from_parts(u128::from_le_bytes(padded::<16>(b)), 0),
                _ => i256::from_le_bytes(padded::<32>(b)),
            })
        })),
        DataType::UInt8 => number!(UInt8Type, 1),
        DataType::UInt16 => number!(UInt16Type, 2),
        DataType::UInt32 => number!(UInt32Type, 4),
        DataType::UInt64 => number!(UInt64Type, 8),
        DataType::Int8 => number!(Int8Type, 1),
        DataType::Int16 => number!(Int16Type, 2),
        DataType::Int32 => number!(Int32Type, 4),
        DataType::Int64 => number!(Int64Type, 8),
        DataType::Float32 => number!(Float32Type, 4),
        DataType::Float64 => number!(Float64Type, 8),
        DataType::Date32 => Arc::new(
            rows.iter()
                .map(|b| {
                    b.as_ref()
                        .map(|b| i32::from(u16::from_le_bytes(padded::<2>(b))))
                })
                .collect::<Date32Array>(),
        ),
        DataType::Timestamp(TimeUnit::Second, zone) => Arc::new(
            rows.iter()
                .map(|b| {
                    b.as_ref()
                        .map(|b| i64::from(u32::from_le_bytes(padded::<4>(b))))
                })
                .collect::<TimestampSecondArray>()
                .with_timezone_opt(zone.clone()),
        ),
        DataType::FixedSizeBinary(n) => {
            let mut out = FixedSizeBinaryBuilder::with_capacity(rows.len(), *n);
            for row in rows {
                match row {
                    Some(b) => {
                        let mut b = b.clone();
                        b.resize(*n as usize, 0);
                        out.append_value(&b)?;
                    }
                    None => out.append_null(),
                }
            }
            Arc::new(out.finish())
        }
        DataType::Binary | DataType::Utf8 => {
            let texts: BinaryArray = rows
                .iter()
                .map(|b| {
                    b.as_ref().map(|b| {
                        // Numbers lose their high zero bytes; strings stay whole.
                        let end = if fixed_width {
                            b.iter().rposition(|&c| c != 0).map_or(0, |last| last + 1)
                        } else {
                            b.len()
                        };
                        b[..end].to_vec()
                    })
                })
                .collect();
            cast::cast(&texts, result)?
        }
        other => {
            return Err(error(
                ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
                format!(
                    "Cannot reinterpret as {}",
                    strata_common::types::clickhouse_type_name(other, false)
                ),
            ));
        }
    })
}

fn uuids(rows: &[Option<Vec<u8>>]) -> Result<ArrayRef> {
    let mut out = FixedSizeBinaryBuilder::with_capacity(rows.len(), UUID_BYTES);
    for row in rows {
        match row {
            Some(b) => {
                let mut b = padded::<16>(b);
                b[..8].reverse();
                b[8..].reverse();
                out.append_value(b)?;
            }
            None => out.append_null(),
        }
    }
    Ok(Arc::new(out.finish()))
}
