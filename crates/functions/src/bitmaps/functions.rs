//! The `bitmap*` functions: build, list, measure, combine and cut bitmaps.
//! Bitmaps combined must hold the same type; a bitmap's minimum over no
//! values is the largest UInt32 (UInt64 for 64-bit values) and its maximum
//! 0, as in ClickHouse.

use std::sync::Arc;

use datafusion::arrow::array::{Array, ArrayRef, AsArray, UInt8Array, UInt64Array};
use datafusion::arrow::datatypes::{DataType, FieldRef};
use datafusion::common::{DataFusionError, Result};
use datafusion::logical_expr::{
    ColumnarValue, ReturnFieldArgs, ScalarFunctionArgs, ScalarUDF, ScalarUDFImpl, Signature,
    Volatility,
};
use strata_common::types::clickhouse_type_name;
use strata_common::{ErrorCode, StrataError};

use crate::int_cast::to_i128;

use super::{
    Bitmap, bitmap_column, bitmap_type, element_type, lists_of, read_bitmaps, unsigned_values,
};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Op {
    Build,
    ToArray,
    Cardinality,
    Min,
    Max,
    Contains,
    HasAny,
    HasAll,
    And,
    Or,
    Xor,
    AndNot,
    AndCardinality,
    OrCardinality,
    XorCardinality,
    AndNotCardinality,
    SubsetInRange,
    SubsetLimit,
    SubBitmap,
    Transform,
}

impl Op {
    const ALL: [Op; 20] = [
        Op::Build,
        Op::ToArray,
        Op::Cardinality,
        Op::Min,
        Op::Max,
        Op::Contains,
        Op::HasAny,
        Op::HasAll,
        Op::And,
        Op::Or,
        Op::Xor,
        Op::AndNot,
        Op::AndCardinality,
        Op::OrCardinality,
        Op::XorCardinality,
        Op::AndNotCardinality,
        Op::SubsetInRange,
        Op::SubsetLimit,
        Op::SubBitmap,
        Op::Transform,
    ];

    fn name(self) -> &'static str {
        match self {
            Op::Build => "bitmapBuild",
            Op::ToArray => "bitmapToArray",
            Op::Cardinality => "bitmapCardinality",
            Op::Min => "bitmapMin",
            Op::Max => "bitmapMax",
            Op::Contains => "bitmapContains",
            Op::HasAny => "bitmapHasAny",
            Op::HasAll => "bitmapHasAll",
            Op::And => "bitmapAnd",
            Op::Or => "bitmapOr",
            Op::Xor => "bitmapXor",
            Op::AndNot => "bitmapAndnot",
            Op::AndCardinality => "bitmapAndCardinality",
            Op::OrCardinality => "bitmapOrCardinality",
            Op::XorCardinality => "bitmapXorCardinality",
            Op::AndNotCardinality => "bitmapAndnotCardinality",
            Op::SubsetInRange => "bitmapSubsetInRange",
            Op::SubsetLimit => "bitmapSubsetLimit",
            Op::SubBitmap => "subBitmap",
            Op::Transform => "bitmapTransform",
        }
    }

    fn arity(self) -> usize {
        match self {
            Op::Build | Op::ToArray | Op::Cardinality | Op::Min | Op::Max => 1,
            Op::SubsetInRange | Op::SubsetLimit | Op::SubBitmap | Op::Transform => 3,
            _ => 2,
        }
    }

    /// Whether the function takes two bitmaps.
    fn pairs(self) -> bool {
        self.arity() == 2 && self != Op::Contains
    }
}

#[derive(Debug, PartialEq, Eq, Hash)]
pub struct BitmapFunction {
    op: Op,
    signature: Signature,
}

pub fn register(functions: &mut Vec<ScalarUDF>) {
    for op in Op::ALL {
        functions.push(ScalarUDF::new_from_impl(BitmapFunction {
            op,
            signature: Signature::any(op.arity(), Volatility::Immutable),
        }));
    }
}

impl ScalarUDFImpl for BitmapFunction {
    fn name(&self) -> &str {
        self.op.name()
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn return_type(&self, args: &[DataType]) -> Result<DataType> {
        let element = self.element(args)?;
        Ok(match self.op {
            Op::Build
            | Op::And
            | Op::Or
            | Op::Xor
            | Op::AndNot
            | Op::SubsetInRange
            | Op::SubsetLimit
            | Op::SubBitmap
            | Op::Transform => bitmap_type(&element)?,
            Op::ToArray => DataType::new_list(element, false),
            Op::Contains | Op::HasAny | Op::HasAll => DataType::UInt8,
            _ => DataType::UInt64,
        })
    }

    fn return_field_from_args(&self, args: ReturnFieldArgs) -> Result<FieldRef> {
        crate::null_propagating_field(self, &args)
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        let scalar = args
            .args
            .iter()
            .all(|a| matches!(a, ColumnarValue::Scalar(_)));
        let rows = crate::rows_to_evaluate(&args);
        let columns = args
            .args
            .iter()
            .map(|a| a.to_array(rows))
            .collect::<Result<Vec<ArrayRef>>>()?;
        let types: Vec<DataType> = columns.iter().map(|c| c.data_type().clone()).collect();
        let element = self.element(&types)?;
        self.check_arguments(&types, &element)?;
        let out = match self.op {
            Op::Build => bitmap_column(&built(&columns[0])?, &element)?,
            _ => self.evaluate(&columns, &element)?,
        };
        crate::columnar(out, scalar)
    }
}

impl BitmapFunction {
    /// The element type of the bitmaps the call makes or reads, after
    /// checking its arguments' types.
    fn element(&self, args: &[DataType]) -> Result<DataType> {
        let name = self.name();
        if self.op == Op::Build {
            return match &args[0] {
                DataType::List(item) if item.data_type().is_integer() => {
                    Ok(item.data_type().clone())
                }
                // DataFusion first types `[number, 1]` so; the final typing is UInt64.
                DataType::List(item) if item.data_type() == &DataType::Decimal128(20, 0) => {
                    Ok(DataType::UInt64)
                }
                other => Err(illegal(format!(
                    "Unexpected type {} of argument of function {name}",
                    clickhouse_type_name(other, false)
                ))),
            };
        }
        let element = element_type(&args[0]).ok_or_else(|| {
            illegal(format!(
                "First argument for function {name} must be a bitmap but it has type {}",
                clickhouse_type_name(&args[0], false)
            ))
        })?;
        Ok(element)
    }

    /// The arguments after the first bitmap, checked once literals have
    /// their final types (a planned `5` is first an Int64, `[1]` an
    /// Array(Int64)).
    fn check_arguments(&self, args: &[DataType], element: &DataType) -> Result<()> {
        let name = self.name();
        if self.op.pairs() {
            match element_type(&args[1]) {
                Some(other) if other == *element => {}
                Some(other) => {
                    return Err(illegal(format!(
                        "The nested type in bitmaps must be the same, but one is {}, and the other is {}",
                        clickhouse_type_name(element, false),
                        clickhouse_type_name(&other, false)
                    )));
                }
                None => {
                    return Err(illegal(format!(
                        "Second argument for function {name} must be a bitmap but it has type {}",
                        clickhouse_type_name(&args[1], false)
                    )));
                }
            }
        }
        match self.op {
            Op::Contains if !args[1].is_integer() => Err(illegal(format!(
                "Second argument for function {name} must be an integer but it has type {}",
                clickhouse_type_name(&args[1], false)
            ))),
            Op::SubsetInRange | Op::SubsetLimit | Op::SubBitmap
                if !(args[1].is_unsigned_integer() && args[2].is_unsigned_integer()) =>
            {
                let wrong = if args[1].is_unsigned_integer() {
                    &args[2]
                } else {
                    &args[1]
                };
                Err(illegal(format!(
                    "The second and third arguments for function {name} must be one of [UInt8, UInt16, UInt32, UInt64] but one of them has type {}",
                    clickhouse_type_name(wrong, false)
                )))
            }
            Op::Transform => {
                for t in &args[1..] {
                    let integers =
                        matches!(t, DataType::List(item) if item.data_type().is_integer());
                    if !integers {
                        return Err(illegal(format!(
                            "The second and third arguments for function {name} must be arrays of integers, got {}",
                            clickhouse_type_name(t, false)
                        )));
                    }
                }
                Ok(())
            }
            _ => Ok(()),
        }
    }

    fn evaluate(&self, columns: &[ArrayRef], element: &DataType) -> Result<ArrayRef> {
        let bitmaps = read_bitmaps(columns[0].as_ref())?;
        let wide = matches!(element, DataType::Int64 | DataType::UInt64);
        let counts = |f: &dyn Fn(&Bitmap) -> u64| -> ArrayRef {
            Arc::new(UInt64Array::from_iter_values(bitmaps.iter().map(f)))
        };
        Ok(match self.op {
            Op::ToArray => Arc::new(lists_of(&bitmaps, element, false)?),
            Op::Cardinality => counts(&|b| b.len() as u64),
            Op::Min => {
                let none = if wide { u64::MAX } else { u64::from(u32::MAX) };
                counts(&|b| b.min().unwrap_or(none))
            }
            Op::Max => counts(&|b| b.max().unwrap_or(0)),
            Op::Contains => {
                // The value's bits as a UInt64, as ClickHouse reads it: Int64 -3
                // is found in a bitmap of Int64, Int8 -3 not in one of Int8 (253).
                let bits = |v: i128| v as u64;
                let wanted = to_i128(&columns[1])?;
                let hit = bitmaps
                    .iter()
                    .zip(wanted)
                    .map(|(b, v)| u8::from(v.is_some_and(|v| b.contains(bits(v)))));
                Arc::new(UInt8Array::from_iter_values(hit))
            }
            Op::SubsetInRange | Op::SubsetLimit | Op::SubBitmap => {
                let (a, b) = (to_i128(&columns[1])?, to_i128(&columns[2])?);
                let cut = bitmaps
                    .iter()
                    .zip(a.into_iter().zip(b))
                    .map(|(bitmap, (a, b))| {
                        let (a, b) = (unsigned(a), unsigned(b));
                        match self.op {
                            Op::SubsetInRange => bitmap.in_range(a, b),
                            Op::SubsetLimit => bitmap.limited_from(a, b),
                            _ => bitmap.slice(a, b),
                        }
                    });
                bitmap_column(&cut.collect::<Vec<_>>(), element)?
            }
            Op::Transform => bitmap_column(&transformed(&bitmaps, columns)?, element)?,
            _ => self.combine(&bitmaps, &read_bitmaps(columns[1].as_ref())?, element)?,
        })
    }

    /// The functions of two bitmaps.
    fn combine(&self, left: &[Bitmap], right: &[Bitmap], element: &DataType) -> Result<ArrayRef> {
        let pairs = left.iter().zip(right);
        let set = |f: fn(&Bitmap, &Bitmap) -> Bitmap| pairs.clone().map(move |(a, b)| f(a, b));
        let union = |a: &Bitmap, b: &Bitmap| {
            let mut u = a.clone();
            u.or(b);
            u
        };
        let count = |f: fn(&Bitmap, &Bitmap) -> Bitmap| -> ArrayRef {
            Arc::new(UInt64Array::from_iter_values(
                set(f).map(|b| b.len() as u64),
            ))
        };
        let flag = |f: fn(&Bitmap, &Bitmap) -> bool| -> ArrayRef {
            Arc::new(UInt8Array::from_iter_values(
                pairs.clone().map(|(a, b)| u8::from(f(a, b))),
            ))
        };
        let bitmaps =
            |f: fn(&Bitmap, &Bitmap) -> Bitmap| bitmap_column(&set(f).collect::<Vec<_>>(), element);
        Ok(match self.op {
            Op::HasAny => flag(|a, b| b.values().iter().any(|&v| a.contains(v))),
            Op::HasAll => flag(|a, b| b.values().iter().all(|&v| a.contains(v))),
            Op::And => bitmaps(Bitmap::and)?,
            Op::Or => bitmaps(union)?,
            Op::Xor => bitmaps(Bitmap::xor)?,
            Op::AndNot => bitmaps(Bitmap::and_not)?,
            Op::AndCardinality => count(Bitmap::and),
            Op::OrCardinality => count(union),
            Op::XorCardinality => count(Bitmap::xor),
            Op::AndNotCardinality => count(Bitmap::and_not),
            other => unreachable!("{other:?} takes one bitmap"),
        })
    }
}

/// `bitmapBuild`'s bitmaps, one per array.
fn built(arrays: &ArrayRef) -> Result<Vec<Bitmap>> {
    let lists = arrays.as_list::<i32>();
    (0..lists.len())
        .map(|row| match lists.is_valid(row) {
            true => Ok(Bitmap::from_values(unsigned_values(&lists.value(row))?)),
            false => Ok(Bitmap::default()),
        })
        .collect()
}

fn transformed(bitmaps: &[Bitmap], columns: &[ArrayRef]) -> Result<Vec<Bitmap>> {
    let (from, to) = (columns[1].as_list::<i32>(), columns[2].as_list::<i32>());
    bitmaps
        .iter()
        .enumerate()
        .map(|(row, bitmap)| {
            let from = unsigned_values(&from.value(row))?;
            let to = unsigned_values(&to.value(row))?;
            if from.len() != to.len() {
                return Err(StrataError::new(
                    ErrorCode::BAD_ARGUMENTS,
                    "From array size and to array size mismatch",
                )
                .into_datafusion());
            }
            Ok(bitmap.replaced(&from, &to))
        })
        .collect()
}

fn unsigned(v: Option<i128>) -> u64 {
    v.map_or(0, |v| u64::try_from(v).unwrap_or(u64::MAX))
}

fn illegal(message: String) -> DataFusionError {
    StrataError::new(ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT, message).into_datafusion()
}
