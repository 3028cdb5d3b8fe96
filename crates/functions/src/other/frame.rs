//! The frame this family's functions share: a [`Spec`] names a function,
//! its aliases, how many arguments it takes, its volatility, how its result
//! field follows from the argument fields, and its evaluation. [`Udf`]
//! checks the argument count with ClickHouse's code (42) and hands typing
//! and evaluation what they need.

use std::hash::{Hash, Hasher};
use std::sync::Arc;

use datafusion::arrow::array::ArrayRef;
use datafusion::arrow::datatypes::{DataType, Field, FieldRef};
use datafusion::common::{Result, ScalarValue};
use datafusion::error::DataFusionError;
use datafusion::logical_expr::{
    ColumnarValue, ReturnFieldArgs, ScalarFunctionArgs, ScalarUDF, ScalarUDFImpl, Signature,
    TypeSignature, Volatility,
};
use strata_common::{ErrorCode, StrataError};

/// One function of the family.
pub(crate) struct Spec {
    pub name: &'static str,
    pub aliases: &'static [&'static str],
    /// The fewest and the most arguments a call may pass.
    pub args: (usize, usize),
    pub volatility: Volatility,
    pub typing: fn(&Typing) -> Result<Field>,
    pub eval: fn(&Call) -> Result<ColumnarValue>,
}

/// What typing a call knows: its argument fields and constant arguments.
pub(crate) struct Typing<'a> {
    pub name: &'static str,
    pub fields: &'a [FieldRef],
    scalars: &'a [Option<&'a ScalarValue>],
}

impl Typing<'_> {
    /// Argument `i`'s field with ClickHouse's type: planning types an
    /// integer literal Int64, ClickHouse the smallest type that holds it.
    pub(crate) fn field(&self, i: usize) -> Field {
        literal_typed(&self.fields[i], self.scalars.get(i).copied().flatten())
    }

    /// Argument `i`'s value, where it is a constant.
    pub(crate) fn scalar(&self, i: usize) -> Option<&ScalarValue> {
        self.scalars.get(i).copied().flatten()
    }

    /// A result of `data_type`, NULL exactly where an argument is.
    pub(crate) fn propagating(&self, data_type: DataType) -> Field {
        let nullable = self.fields.iter().any(|f| f.is_nullable());
        Field::new(self.name, data_type, nullable)
    }

    /// A result of `data_type` that is never NULL.
    pub(crate) fn plain(&self, data_type: DataType) -> Field {
        Field::new(self.name, data_type, false)
    }

    /// The same call typed over `fields`: a form of the function that
    /// reduces to another (a tuple of arrays read as a map).
    pub(crate) fn over<'b>(&'b self, fields: &'b [FieldRef]) -> Typing<'b> {
        Typing {
            name: self.name,
            fields,
            scalars: self.scalars,
        }
    }
}

/// An argument's field with ClickHouse's type: an integer literal's is
/// the smallest type that holds it, where planning typed it Int64.
pub(crate) fn literal_typed(field: &Field, scalar: Option<&ScalarValue>) -> Field {
    let field = field.clone();
    match scalar {
        Some(ScalarValue::Int64(Some(v))) => {
            field.with_data_type(strata_common::types::literal_integer_type(*v))
        }
        _ => field,
    }
}

/// One evaluation.
pub(crate) struct Call<'a> {
    pub name: &'static str,
    pub args: &'a [ColumnarValue],
    /// The arguments' fields, with the ClickHouse type their metadata names.
    pub fields: &'a [FieldRef],
    pub rows: usize,
    pub result: &'a Field,
}

impl Call<'_> {
    /// Whether every argument is a constant.
    pub(crate) fn all_constant(&self) -> bool {
        self.args
            .iter()
            .all(|a| matches!(a, ColumnarValue::Scalar(_)))
    }

    /// Argument `i` as a column of every row.
    pub(crate) fn column(&self, i: usize) -> Result<ArrayRef> {
        self.args[i].to_array(self.rows)
    }

    /// Argument `i` if it is a constant.
    pub(crate) fn constant(&self, i: usize) -> Option<&ScalarValue> {
        match &self.args[i] {
            ColumnarValue::Scalar(s) => Some(s),
            ColumnarValue::Array(_) => None,
        }
    }

    /// `out`, a column of every row, as a constant when every argument was one.
    pub(crate) fn output(&self, out: ArrayRef) -> Result<ColumnarValue> {
        if self.all_constant() && out.len() == 1 {
            return Ok(ColumnarValue::Scalar(ScalarValue::try_from_array(&out, 0)?));
        }
        Ok(ColumnarValue::Array(out))
    }
}

pub(crate) fn failure(code: ErrorCode, message: String) -> DataFusionError {
    StrataError::new(code, message).into_datafusion()
}

#[derive(Debug)]
pub(crate) struct Udf {
    spec: &'static Spec,
    aliases: Vec<String>,
    signature: Signature,
}

impl std::fmt::Debug for Spec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name)
    }
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
                spec.volatility,
            ),
        })
    })
}

impl Udf {
    fn check_count(&self, passed: usize) -> Result<()> {
        let (min, max) = self.spec.args;
        if (min..=max).contains(&passed) {
            return Ok(());
        }
        let expected = if min == max {
            min.to_string()
        } else {
            format!("from {min} to {max}")
        };
        Err(failure(
            ErrorCode::NUMBER_OF_ARGUMENTS_DOESNT_MATCH,
            format!(
                "Number of arguments for function {} doesn't match: passed {passed}, should be {expected}",
                self.spec.name
            ),
        ))
    }
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

    fn return_type(&self, _arg_types: &[DataType]) -> Result<DataType> {
        datafusion::common::internal_err!("{} is typed from its argument fields", self.spec.name)
    }

    fn return_field_from_args(&self, args: ReturnFieldArgs) -> Result<FieldRef> {
        self.check_count(args.arg_fields.len())?;
        let typing = Typing {
            name: self.spec.name,
            fields: args.arg_fields,
            scalars: args.scalar_arguments,
        };
        Ok(Arc::new((self.spec.typing)(&typing)?))
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        let call = Call {
            name: self.spec.name,
            args: &args.args,
            fields: &args.arg_fields,
            rows: args.number_rows,
            result: &args.return_field,
        };
        (self.spec.eval)(&call)
    }
}
