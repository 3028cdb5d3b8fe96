//! `generateRandom('structure'[, seed[, max_string_length[,
//! max_array_length]]])`: an endless table of random rows of the
//! structure's columns, read until the query's LIMIT, as ClickHouse's.
//!
//! Values as ClickHouse draws them: numbers of every bit pattern (floats
//! included), strings of printable ASCII and arrays of a length uniform up
//! to their maximum (10 each by default), FixedStrings of any bytes,
//! `Date` over its whole range, `Date32` from 1900 to 2299, `DateTime`
//! and `DateTime64` over the 32-bit seconds, decimals of every digit the
//! precision allows, one value in 16 NULL in a Nullable column. A seed
//! repeats the rows (not ClickHouse's rows: the generator differs); NULL
//! or no seed draws one.

use std::sync::Arc;

use datafusion::arrow::array::{
    Array, ArrayRef, BooleanArray, Decimal128Array, Decimal256Array, FixedSizeBinaryArray,
    ListArray, MapArray, NullArray, PrimitiveArray, StringArray, StructArray, make_array,
};
use datafusion::arrow::buffer::{NullBuffer, OffsetBuffer};
use datafusion::arrow::datatypes::{
    DataType, Date32Type, Field, Float32Type, Float64Type, Int8Type, Int16Type, Int32Type,
    Int64Type, SchemaRef, TimeUnit, TimestampMicrosecondType, TimestampMillisecondType,
    TimestampNanosecondType, TimestampSecondType, UInt8Type, UInt16Type, UInt32Type, UInt64Type,
    i256,
};
use datafusion::arrow::record_batch::RecordBatch;
use datafusion::catalog::streaming::StreamingTable;
use datafusion::catalog::{TableFunctionArgs, TableFunctionImpl, TableProvider};
use datafusion::common::{Result, ScalarValue};
use datafusion::execution::{SendableRecordBatchStream, TaskContext};
use datafusion::logical_expr::Expr;
use datafusion::physical_plan::stream::RecordBatchStreamAdapter;
use datafusion::physical_plan::streaming::PartitionStream;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use strata_common::types::{enum_type, field_type_name};
use strata_common::{ErrorCode, StrataError};

use super::format_function::{target_of_structure, text_argument};

pub const NAME: &str = "generateRandom";

const DEFAULT_MAX_STRING_LENGTH: u64 = 10;
const DEFAULT_MAX_ARRAY_LENGTH: u64 = 10;
/// Rows per generated block.
const BLOCK_ROWS: usize = 8_192;
/// One value in this many of a Nullable column is NULL.
const NULL_ONE_IN: u32 = 16;
/// `Date32`'s range in days from 1970: 1900-01-01 to 2299-12-31.
const DATE32_DAYS: std::ops::RangeInclusive<i32> = -25_567..=120_529;

#[derive(Debug)]
pub struct GenerateRandom;

/// What a call asked for besides the columns.
#[derive(Debug, Clone, Copy)]
struct Limits {
    seed: u64,
    max_string_length: u64,
    max_array_length: u64,
}

impl TableFunctionImpl for GenerateRandom {
    fn call_with_args(&self, args: TableFunctionArgs) -> Result<Arc<dyn TableProvider>> {
        let exprs = args.exprs();
        let (structure, options) = match exprs.split_first() {
            Some(split) if exprs.len() <= 4 => split,
            Some(_) => {
                return Err(error(
                    ErrorCode::NUMBER_OF_ARGUMENTS_DOESNT_MATCH,
                    "requires at most four arguments: structure, random_seed, max_string_length, max_array_length",
                ));
            }
            None => {
                return Err(error(
                    ErrorCode::NUMBER_OF_ARGUMENTS_DOESNT_MATCH,
                    "needs the structure of its rows ('name Type, ...')",
                ));
            }
        };
        let structure = text_argument(NAME, structure).map_err(StrataError::into_datafusion)?;
        let target = target_of_structure(NAME, &String::from_utf8_lossy(&structure))
            .map_err(StrataError::into_datafusion)?;
        let number = |i: usize| options.get(i).map(number_argument).transpose();
        let limits = Limits {
            seed: number(0)?.flatten().unwrap_or_else(rand::random),
            max_string_length: number(1)?.flatten().unwrap_or(DEFAULT_MAX_STRING_LENGTH),
            max_array_length: number(2)?.flatten().unwrap_or(DEFAULT_MAX_ARRAY_LENGTH),
        };
        let schema = target.schema();
        for field in schema.fields() {
            random_column(field, 0, &mut StdRng::seed_from_u64(0), limits)?;
        }
        let partition = RandomRows {
            schema: Arc::clone(&schema),
            limits,
        };
        Ok(Arc::new(StreamingTable::try_new(
            schema,
            vec![Arc::new(partition)],
        )?))
    }
}

/// A non-negative integer argument, or None for NULL.
fn number_argument(expr: &Expr) -> Result<Option<u64>> {
    match expr {
        Expr::Literal(value, _) if value.is_null() => Ok(None),
        Expr::Literal(value, _) => match value.cast_to(&DataType::UInt64) {
            Ok(ScalarValue::UInt64(Some(n))) if value.data_type().is_integer() => Ok(Some(n)),
            _ => Err(error(
                ErrorCode::BAD_ARGUMENTS,
                &format!("takes a non-negative integer or NULL there, got {value}"),
            )),
        },
        other => Err(error(
            ErrorCode::BAD_ARGUMENTS,
            &format!("takes a constant there, got {other}"),
        )),
    }
}

fn error(code: ErrorCode, why: &str) -> datafusion::error::DataFusionError {
    StrataError::new(code, format!("Table function '{NAME}' {why}")).into_datafusion()
}

#[derive(Debug)]
struct RandomRows {
    schema: SchemaRef,
    limits: Limits,
}

impl PartitionStream for RandomRows {
    fn schema(&self) -> &SchemaRef {
        &self.schema
    }

    fn execute(&self, _ctx: Arc<TaskContext>) -> SendableRecordBatchStream {
        let (schema, limits) = (Arc::clone(&self.schema), self.limits);
        let mut rng = StdRng::seed_from_u64(limits.seed);
        let blocks = std::iter::repeat_with(move || {
            let columns = schema
                .fields()
                .iter()
                .map(|f| random_column(f, BLOCK_ROWS, &mut rng, limits))
                .collect::<Result<Vec<_>>>()?;
            Ok(RecordBatch::try_new(Arc::clone(&schema), columns)?)
        });
        Box::pin(RecordBatchStreamAdapter::new(
            Arc::clone(&self.schema),
            futures::stream::iter(blocks),
        ))
    }
}

/// `rows` random values of `field`'s type, one in [`NULL_ONE_IN`] NULL
/// where the field is Nullable.
fn random_column(field: &Field, rows: usize, rng: &mut StdRng, limits: Limits) -> Result<ArrayRef> {
    let values = random_values(field, rows, rng, limits)?;
    if !field.is_nullable() || matches!(field.data_type(), DataType::Null) {
        return Ok(values);
    }
    let valid: NullBuffer = (0..rows)
        .map(|_| rng.random_range(0..NULL_ONE_IN) != 0)
        .collect();
    Ok(make_array(
        values
            .into_data()
            .into_builder()
            .nulls(Some(valid))
            .build()?,
    ))
}

fn random_values(field: &Field, rows: usize, rng: &mut StdRng, limits: Limits) -> Result<ArrayRef> {
    macro_rules! bits {
        ($t:ty) => {
            Arc::new(PrimitiveArray::<$t>::from_iter_values(
                (0..rows).map(|_| rng.random()),
            ))
        };
    }
    let timezone = |tz: &Option<Arc<str>>| tz.clone();
    Ok(match field.data_type() {
        DataType::Null => Arc::new(NullArray::new(rows)),
        DataType::Boolean => Arc::new(BooleanArray::from_iter(
            (0..rows).map(|_| Some(rng.random::<bool>())),
        )),
        DataType::Int8 => bits!(Int8Type),
        DataType::Int16 => bits!(Int16Type),
        DataType::Int32 => bits!(Int32Type),
        DataType::Int64 => bits!(Int64Type),
        DataType::UInt8 => bits!(UInt8Type),
        DataType::UInt16 => bits!(UInt16Type),
        DataType::UInt32 => bits!(UInt32Type),
        DataType::UInt64 => bits!(UInt64Type),
        DataType::Float32 => Arc::new(PrimitiveArray::<Float32Type>::from_iter_values(
            (0..rows).map(|_| f32::from_bits(rng.random())),
        )),
        DataType::Float64 => Arc::new(PrimitiveArray::<Float64Type>::from_iter_values(
            (0..rows).map(|_| f64::from_bits(rng.random())),
        )),
        DataType::Utf8 => text(field, rows, rng, limits),
        DataType::FixedSizeBinary(width) => {
            let bytes: Vec<u8> = (0..rows * *width as usize).map(|_| rng.random()).collect();
            Arc::new(FixedSizeBinaryArray::new(*width, bytes.into(), None))
        }
        DataType::Date32 => {
            let days = match field_type_name(field).as_str() {
                "Date32" => DATE32_DAYS,
                _ => 0..=i32::from(u16::MAX),
            };
            Arc::new(PrimitiveArray::<Date32Type>::from_iter_values(
                (0..rows).map(|_| rng.random_range(days.clone())),
            ))
        }
        DataType::Timestamp(unit, tz) => {
            let per_second: i64 = match unit {
                TimeUnit::Second => 1,
                TimeUnit::Millisecond => 1_000,
                TimeUnit::Microsecond => 1_000_000,
                TimeUnit::Nanosecond => 1_000_000_000,
            };
            let ticks = (0..rows).map(|_| {
                i64::from(rng.random::<u32>()) * per_second + rng.random_range(0..per_second)
            });
            let ticks: Vec<i64> = ticks.collect();
            match unit {
                TimeUnit::Second => Arc::new(
                    PrimitiveArray::<TimestampSecondType>::from(ticks)
                        .with_timezone_opt(timezone(tz)),
                ),
                TimeUnit::Millisecond => Arc::new(
                    PrimitiveArray::<TimestampMillisecondType>::from(ticks)
                        .with_timezone_opt(timezone(tz)),
                ),
                TimeUnit::Microsecond => Arc::new(
                    PrimitiveArray::<TimestampMicrosecondType>::from(ticks)
                        .with_timezone_opt(timezone(tz)),
                ),
                TimeUnit::Nanosecond => Arc::new(
                    PrimitiveArray::<TimestampNanosecondType>::from(ticks)
                        .with_timezone_opt(timezone(tz)),
                ),
            }
        }
        DataType::Decimal128(precision, scale) => {
            let bound = 10i128.pow(u32::from(*precision)) - 1;
            let values = (0..rows).map(|_| rng.random_range(-bound..=bound));
            Arc::new(
                Decimal128Array::from_iter_values(values)
                    .with_precision_and_scale(*precision, *scale)?,
            )
        }
        DataType::Decimal256(precision, scale) => {
            // Decimals past 38 digits draw from the 38 digits an i128 holds.
            let bound = 10i128.pow(u32::from((*precision).min(38))) - 1;
            let values = (0..rows).map(|_| i256::from_i128(rng.random_range(-bound..=bound)));
            Arc::new(
                Decimal256Array::from_iter_values(values)
                    .with_precision_and_scale(*precision, *scale)?,
            )
        }
        DataType::List(item) => {
            let (offsets, total) = lengths(rows, limits.max_array_length, rng);
            let values = random_column(item, total, rng, limits)?;
            Arc::new(ListArray::try_new(Arc::clone(item), offsets, values, None)?)
        }
        DataType::Map(entries, sorted) => {
            let (offsets, total) = lengths(rows, limits.max_array_length, rng);
            let entries_array = random_values(entries, total, rng, limits)?;
            let DataType::Struct(_) = entries.data_type() else {
                return Err(unsupported(field));
            };
            let entries_array = entries_array
                .as_any()
                .downcast_ref::<StructArray>()
                .cloned()
                .ok_or_else(|| unsupported(field))?;
            Arc::new(MapArray::try_new(
                Arc::clone(entries),
                offsets,
                entries_array,
                None,
                *sorted,
            )?)
        }
        DataType::Struct(fields) => {
            let children = fields
                .iter()
                .map(|f| random_column(f, rows, rng, limits))
                .collect::<Result<Vec<_>>>()?;
            Arc::new(StructArray::try_new(fields.clone(), children, None)?)
        }
        DataType::Dictionary(_, value) => {
            let plain = random_values(
                &Field::new("v", value.as_ref().clone(), false),
                rows,
                rng,
                limits,
            )?;
            datafusion::arrow::compute::cast(&plain, field.data_type())?
        }
        _ => return Err(unsupported(field)),
    })
}

/// Random strings: an enum's names, or printable ASCII up to the maximum length.
fn text(field: &Field, rows: usize, rng: &mut StdRng, limits: Limits) -> ArrayRef {
    if let Some(enum_type) = enum_type(field) {
        let names: Vec<&str> = enum_type.names().collect();
        return Arc::new(StringArray::from_iter_values(
            (0..rows).map(|_| names[rng.random_range(0..names.len())]),
        ));
    }
    Arc::new(StringArray::from_iter_values((0..rows).map(|_| {
        let length = rng.random_range(0..=limits.max_string_length);
        (0..length)
            .map(|_| char::from(rng.random_range(b' '..=b'~')))
            .collect::<String>()
    })))
}

/// Offsets of `rows` lists of random lengths up to `max`, and their total.
fn lengths(rows: usize, max: u64, rng: &mut StdRng) -> (OffsetBuffer<i32>, usize) {
    let lengths: Vec<usize> = (0..rows)
        .map(|_| rng.random_range(0..=max) as usize)
        .collect();
    let total = lengths.iter().sum();
    (OffsetBuffer::from_lengths(lengths), total)
}

fn unsupported(field: &Field) -> datafusion::error::DataFusionError {
    StrataError::new(
        ErrorCode::NOT_IMPLEMENTED,
        format!(
            "Table function '{NAME}' does not draw values of type {}",
            field_type_name(field)
        ),
    )
    .into_datafusion()
}
