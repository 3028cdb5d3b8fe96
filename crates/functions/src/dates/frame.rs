//! The frame the second pass of date functions shares: a [`Kernel`] says
//! what a call returns for its argument types and constants ([`Shape`]),
//! and computes the result from the arguments as arrays ([`Call`]);
//! [`Udf`] turns it into a DataFusion function with ClickHouse's NULL
//! rules (a NULL constant makes the result NULL unless the kernel says
//! otherwise; a nullable argument makes the result nullable).

use std::fmt::Debug;
use std::hash::Hash;
use std::sync::Arc;

use datafusion::arrow::array::{Array, ArrayRef, AsArray, StringArray};
use datafusion::arrow::compute::cast;
use datafusion::arrow::datatypes::{DataType, Field, FieldRef, Int64Type, UInt64Type};
use datafusion::common::{Result, ScalarValue};
use datafusion::logical_expr::{
    ColumnarValue, ReturnFieldArgs, ScalarFunctionArgs, ScalarUDFImpl, Signature, Volatility,
};
use strata_common::types::{
    cut_to_precision, datetime64_metadata, datetime64_unit, declared_precision, field_type_name,
    unit_digits,
};

use super::args;

/// A call's result type.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Shape {
    pub data_type: DataType,
    /// Nullable whatever the arguments (the `OrNull` functions).
    pub always_nullable: bool,
    /// A Date32 rather than a Date (both are Arrow's Date32).
    pub date32: bool,
    /// The interval type (`IntervalDay`) an interval result counts.
    pub interval: Option<&'static str>,
    /// A DateTime64 result's precision (its unit may show more digits).
    pub precision: Option<u8>,
}

impl Shape {
    pub fn of(data_type: DataType) -> Shape {
        Shape {
            data_type,
            always_nullable: false,
            date32: false,
            interval: None,
            precision: None,
        }
    }

    /// A `DateTime64(precision[, zone])` result.
    pub fn datetime64(precision: u8, zone: Option<Arc<str>>) -> Shape {
        Shape {
            precision: Some(precision),
            ..Shape::of(DataType::Timestamp(datetime64_unit(precision), zone))
        }
    }

    pub fn null() -> Shape {
        Shape::of(DataType::Null)
    }

    pub fn date32() -> Shape {
        Shape {
            date32: true,
            ..Shape::of(DataType::Date32)
        }
    }

    pub fn or_null(self) -> Shape {
        Shape {
            always_nullable: true,
            ..self
        }
    }
}

/// What planning knows of a call's arguments.
pub(crate) struct Args<'a> {
    pub types: &'a [DataType],
    /// The constant arguments' values.
    pub values: &'a [Option<&'a ScalarValue>],
    /// Which arguments are Date32 rather than Date.
    pub date32: &'a [bool],
    /// The precision of each argument that is a DateTime64 whose unit shows
    /// another (a DateTime64(0) is held as a DateTime is).
    pub precisions: &'a [Option<u8>],
}

/// One call's arguments, every one as an array of the call's rows.
pub(crate) struct Call<'a> {
    pub arrays: Vec<ArrayRef>,
    pub types: Vec<DataType>,
    pub values: Vec<Option<&'a ScalarValue>>,
    pub date32: Vec<bool>,
    /// Whether each argument is Nullable: text in a Nullable(String) that
    /// does not parse converts to NULL rather than failing.
    pub nullable: Vec<bool>,
    pub output: &'a DataType,
}

/// Whether a field holds Date32 values rather than Date ones.
pub(crate) fn is_date32(field: &Field) -> bool {
    field.data_type() == &DataType::Date32 && field_type_name(field).contains("Date32")
}

/// What one function does.
pub(crate) trait Kernel: Debug + PartialEq + Eq + Hash + Send + Sync + 'static {
    fn name(&self) -> &'static str;

    fn aliases(&self) -> &'static [&'static str] {
        &[]
    }

    /// The result type.
    fn shape(&self, args: &Args) -> Result<Shape>;

    fn run(&self, call: &Call) -> Result<ArrayRef>;
}

#[derive(Debug, PartialEq, Eq, Hash)]
pub(crate) struct Udf<K: Kernel> {
    kernel: K,
    signature: Signature,
    aliases: Vec<String>,
}

impl<K: Kernel> Udf<K> {
    pub fn new(kernel: K) -> Self {
        let aliases = kernel.aliases().iter().map(|a| a.to_string()).collect();
        Udf {
            kernel,
            signature: Signature::variadic_any(Volatility::Immutable),
            aliases,
        }
    }
}

impl<K: Kernel> ScalarUDFImpl for Udf<K> {
    fn name(&self) -> &str {
        self.kernel.name()
    }

    fn aliases(&self) -> &[String] {
        &self.aliases
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn return_type(&self, arg_types: &[DataType]) -> Result<DataType> {
        let values = vec![None; arg_types.len()];
        let date32 = vec![false; arg_types.len()];
        let precisions = vec![None; arg_types.len()];
        let args = Args {
            types: arg_types,
            values: &values,
            date32: &date32,
            precisions: &precisions,
        };
        Ok(self.kernel.shape(&args)?.data_type)
    }

    fn return_field_from_args(&self, args: ReturnFieldArgs) -> Result<FieldRef> {
        let types = crate::field_types(args.arg_fields);
        let date32: Vec<bool> = args.arg_fields.iter().map(|f| is_date32(f)).collect();
        let precisions: Vec<Option<u8>> = args
            .arg_fields
            .iter()
            .map(|f| declared_precision(f))
            .collect();
        let shape = self.kernel.shape(&Args {
            types: &types,
            values: args.scalar_arguments,
            date32: &date32,
            precisions: &precisions,
        })?;
        let nullable = shape.always_nullable
            || shape.data_type == DataType::Null
            || args.arg_fields.iter().any(|f| f.is_nullable());
        let field = if shape.date32 {
            strata_common::types::parse_clickhouse_type("Date32")
                .map_err(|e| e.into_datafusion())?
                .field(self.name())
        } else {
            Field::new(self.name(), shape.data_type.clone(), nullable)
        };
        let field = match shape.interval {
            Some(name) => field.with_metadata(strata_common::types::interval_metadata(name)),
            None => field,
        };
        let precision = shape
            .precision
            .or_else(|| kept_precision(self.name(), &shape.data_type, args.arg_fields));
        let field = match precision {
            Some(precision) => field.with_metadata(datetime64_metadata(precision)),
            None => field,
        };
        Ok(Arc::new(field.with_nullable(nullable)))
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        let output = args.return_field.data_type();
        if output == &DataType::Null {
            return Ok(ColumnarValue::Scalar(ScalarValue::Null));
        }
        let scalar = args
            .args
            .iter()
            .all(|a| matches!(a, ColumnarValue::Scalar(_)));
        let rows = if scalar { 1 } else { args.number_rows };
        let arrays = args
            .args
            .iter()
            .map(|a| a.to_array(rows))
            .collect::<Result<Vec<_>>>()?;
        let call = Call {
            arrays,
            types: crate::field_types(&args.arg_fields),
            values: args.args.iter().map(args::constant).collect(),
            date32: args.arg_fields.iter().map(|f| is_date32(f)).collect(),
            nullable: args.arg_fields.iter().map(|f| f.is_nullable()).collect(),
            output,
        };
        let result = cut_to_precision(self.kernel.run(&call)?, &args.return_field);
        crate::columnar(result, scalar)
    }
}

/// The precision a DateTime64 argument passes to a result held in its unit
/// (`toStartOfSecond`, `addDays`, `toTimeZone` keep `DateTime64(2)`); a
/// function of a finer unit than it (`addMilliseconds`) shows that unit's.
pub(crate) fn kept_precision(
    function: &str,
    result: &DataType,
    arguments: &[FieldRef],
) -> Option<u8> {
    let moment = arguments.first()?;
    let precision = declared_precision(moment)?;
    let DataType::Timestamp(unit, _) = result else {
        return None;
    };
    let function_digits = ["Milli", "Micro", "Nano"]
        .iter()
        .position(|part| function.contains(part))
        .map_or(0, |i| 3 * (i as u8 + 1));
    let same_unit = matches!(moment.data_type(), DataType::Timestamp(u, _) if u == unit);
    (same_unit && function_digits <= precision && precision < unit_digits(*unit))
        .then_some(precision)
}

/// Text arguments as Strings: a FixedString without its zero padding.
pub(crate) fn texts(array: &ArrayRef) -> Result<StringArray> {
    if let DataType::FixedSizeBinary(_) = array.data_type() {
        let fixed = array.as_fixed_size_binary();
        return Ok((0..fixed.len())
            .map(|row| {
                fixed.is_valid(row).then(|| {
                    let bytes = fixed.value(row);
                    let end = bytes.iter().rposition(|&b| b != 0).map_or(0, |e| e + 1);
                    String::from_utf8_lossy(&bytes[..end]).into_owned()
                })
            })
            .collect());
    }
    Ok(cast(array, &DataType::Utf8)?.as_string::<i32>().clone())
}

/// Integer arguments as i128, so UInt64 and Int64 both fit (NULL slots
/// read as 0).
pub(crate) fn integers(array: &ArrayRef) -> Result<Vec<i128>> {
    Ok(match array.data_type() {
        DataType::UInt64 => array
            .as_primitive::<UInt64Type>()
            .values()
            .iter()
            .map(|&v| v as i128)
            .collect(),
        _ => cast(array, &DataType::Int64)?
            .as_primitive::<Int64Type>()
            .values()
            .iter()
            .map(|&v| v as i128)
            .collect(),
    })
}
