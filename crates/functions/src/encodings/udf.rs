//! The frame this family's functions share: a [`Spec`] names a function and
//! its aliases, types a call from its argument fields (checking them with
//! ClickHouse's error codes: 42 for the count, 43 for a type), and evaluates
//! it over a [`Call`], whose accessors read constant and column arguments
//! alike.

use std::hash::{Hash, Hasher};
use std::sync::Arc;

use datafusion::arrow::array::{Array, ArrayRef, AsArray, BinaryArray, UInt64Array};
use datafusion::arrow::compute::kernels::cast;
use datafusion::arrow::datatypes::{DataType, Field, FieldRef};
use datafusion::common::{Result, ScalarValue};
use datafusion::error::DataFusionError;
use datafusion::logical_expr::{
    ColumnarValue, ReturnFieldArgs, ScalarFunctionArgs, ScalarUDF, ScalarUDFImpl, Signature,
    TypeSignature, Volatility,
};
use strata_common::types::field_type_name;
use strata_common::{ErrorCode, StrataError};

use crate::int_cast::to_u64_wrapping;

/// One function: its names, its typing and its evaluation.
pub(crate) struct Spec {
    pub name: &'static str,
    pub aliases: &'static [&'static str],
    /// Checks a call's arguments and gives its result field.
    pub typing: fn(&Args) -> Result<Field>,
    pub eval: fn(&Call) -> Result<ArrayRef>,
}

impl std::fmt::Debug for Spec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name)
    }
}

/// A ClickHouse error as DataFusion carries it.
pub(crate) fn error(code: ErrorCode, message: impl Into<String>) -> DataFusionError {
    StrataError::new(code, message.into()).into_datafusion()
}

/// Whether a type is ClickHouse's String or FixedString.
pub(crate) fn is_text(data_type: &DataType) -> bool {
    match data_type {
        DataType::Utf8
        | DataType::LargeUtf8
        | DataType::Utf8View
        | DataType::Binary
        | DataType::LargeBinary
        | DataType::BinaryView
        | DataType::FixedSizeBinary(_) => true,
        DataType::Dictionary(_, value) => is_text(value),
        _ => false,
    }
}

/// The argument fields of a call being typed.
pub(crate) struct Args<'a> {
    pub name: &'static str,
    pub fields: &'a [FieldRef],
    scalars: &'a [Option<&'a ScalarValue>],
}

impl Args<'_> {
    pub(crate) fn len(&self) -> usize {
        self.fields.len()
    }

    /// Argument `i`'s type as ClickHouse sees it: planning types an integer
    /// literal Int64 before Strata narrows it, as ClickHouse does, to the
    /// smallest type that holds it.
    pub(crate) fn data_type(&self, i: usize) -> DataType {
        match self.scalar(i) {
            Some(ScalarValue::Int64(Some(v))) => strata_common::types::literal_integer_type(*v),
            _ => self.fields[i].data_type().clone(),
        }
    }

    /// Fails with code 42 unless `min..=max` arguments were passed.
    pub(crate) fn arity(&self, min: usize, max: usize) -> Result<()> {
        let passed = self.fields.len();
        if (min..=max).contains(&passed) {
            return Ok(());
        }
        let expected = match (min, max) {
            (min, max) if min == max => min.to_string(),
            (min, usize::MAX) => format!("at least {min}"),
            (min, max) => format!("{min} to {max}"),
        };
        Err(error(
            ErrorCode::NUMBER_OF_ARGUMENTS_DOESNT_MATCH,
            format!(
                "Number of arguments for function {} doesn't match: passed {passed}, should be {expected}",
                self.name
            ),
        ))
    }

    /// Code 43 for argument `i`.
    pub(crate) fn illegal(&self, i: usize) -> DataFusionError {
        error(
            ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
            format!(
                "Illegal type {} of argument {} of function {}",
                field_type_name(&Field::new(
                    "",
                    self.data_type(i),
                    self.fields[i].is_nullable()
                )),
                i + 1,
                self.name
            ),
        )
    }

    /// Fails with code 43 unless argument `i` is NULL or `accepts` its type.
    pub(crate) fn require(&self, i: usize, accepts: fn(&DataType) -> bool) -> Result<()> {
        let t = self.data_type(i);
        if t == DataType::Null || accepts(&t) {
            Ok(())
        } else {
            Err(self.illegal(i))
        }
    }

    /// Argument `i`'s value when it is a constant.
    pub(crate) fn scalar(&self, i: usize) -> Option<&ScalarValue> {
        self.scalars.get(i).copied().flatten()
    }

    /// Argument `i` as constant text, if it is one.
    pub(crate) fn constant_text(&self, i: usize) -> Option<String> {
        match self.scalar(i)? {
            ScalarValue::Utf8(Some(s))
            | ScalarValue::LargeUtf8(Some(s))
            | ScalarValue::Utf8View(Some(s)) => Some(s.clone()),
            _ => None,
        }
    }

    /// A result field that is nullable when any argument is.
    pub(crate) fn propagate(&self, data_type: DataType) -> Field {
        let nullable = self.fields.iter().any(|f| f.is_nullable());
        Field::new(self.name, data_type, nullable)
    }
}

#[derive(Debug)]
pub(crate) struct Udf {
    spec: &'static Spec,
    aliases: Vec<String>,
    signature: Signature,
}

impl PartialEq for Udf {
    fn eq(&self, other: &Self) -> bool {
        self.spec.name == other.spec.name
    }
}

impl Eq for Udf {}

impl Hash for Udf {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.spec.name.hash(state);
    }
}

/// The functions of a table of specs.
pub(crate) fn register(specs: &'static [Spec]) -> impl Iterator<Item = ScalarUDF> {
    specs.iter().map(|spec| {
        ScalarUDF::new_from_impl(Udf {
            spec,
            aliases: spec.aliases.iter().map(|a| a.to_string()).collect(),
            signature: Signature::one_of(
                vec![TypeSignature::Nullary, TypeSignature::VariadicAny],
                Volatility::Immutable,
            ),
        })
    })
}

impl ScalarUDFImpl for Udf {
    fn name(&self) -> &str {
        self.spec.name
    }

    fn aliases(&self) -> &[String] {
        &self.aliases
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn return_type(&self, arg_types: &[DataType]) -> Result<DataType> {
        let fields: Vec<FieldRef> = arg_types
            .iter()
            .map(|t| Arc::new(Field::new("", t.clone(), true)))
            .collect();
        let scalars = vec![None; fields.len()];
        let args = Args {
            name: self.spec.name,
            fields: &fields,
            scalars: &scalars,
        };
        Ok((self.spec.typing)(&args)?.data_type().clone())
    }

    fn return_field_from_args(&self, args: ReturnFieldArgs) -> Result<FieldRef> {
        let typed = Args {
            name: self.spec.name,
            fields: args.arg_fields,
            scalars: args.scalar_arguments,
        };
        Ok(Arc::new((self.spec.typing)(&typed)?))
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        let scalar = args
            .args
            .iter()
            .all(|a| matches!(a, ColumnarValue::Scalar(_)));
        let call = Call {
            name: self.spec.name,
            args: &args.args,
            fields: &args.arg_fields,
            result: &args.return_field,
            rows: if scalar { 1 } else { args.number_rows },
        };
        let out = (self.spec.eval)(&call)?;
        crate::columnar(out, scalar)
    }
}

/// One evaluation: the arguments and the number of rows to compute.
pub(crate) struct Call<'a> {
    pub name: &'static str,
    args: &'a [ColumnarValue],
    pub fields: &'a [FieldRef],
    pub result: &'a FieldRef,
    pub rows: usize,
}

impl Call<'_> {
    pub(crate) fn len(&self) -> usize {
        self.args.len()
    }

    /// Argument `i` as a column of every row.
    pub(crate) fn array(&self, i: usize) -> Result<ArrayRef> {
        self.args[i].to_array(self.rows)
    }

    /// Argument `i`'s value when it is a constant.
    pub(crate) fn scalar(&self, i: usize) -> Option<&ScalarValue> {
        match &self.args[i] {
            ColumnarValue::Scalar(s) => Some(s),
            ColumnarValue::Array(_) => None,
        }
    }

    /// Argument `i`, a String or FixedString, as bytes per row.
    pub(crate) fn bytes(&self, i: usize) -> Result<BinaryArray> {
        as_binary(&self.array(i)?)
    }

    /// Argument `i`, any integer, as UInt64 per row (wrapping).
    pub(crate) fn u64s(&self, i: usize) -> Result<UInt64Array> {
        let array = self.array(i)?;
        match array.data_type() {
            DataType::Null => Ok(UInt64Array::new_null(array.len())),
            _ => to_u64_wrapping(&array),
        }
    }
}

/// Any text column as bytes: String is read in place, the others converted.
pub(crate) fn as_binary(array: &ArrayRef) -> Result<BinaryArray> {
    Ok(match array.data_type() {
        DataType::Binary => array.as_binary::<i32>().clone(),
        DataType::Null => BinaryArray::new_null(array.len()),
        DataType::Utf8 => array.as_string::<i32>().clone().into(),
        t if cast::can_cast_types(t, &DataType::Binary) => cast::cast(array, &DataType::Binary)?
            .as_binary::<i32>()
            .clone(),
        _ => cast::cast(&cast::cast(array, &DataType::Utf8)?, &DataType::Binary)?
            .as_binary::<i32>()
            .clone(),
    })
}
