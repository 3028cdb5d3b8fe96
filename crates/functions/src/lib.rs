//! ClickHouse functions for DataFusion.
//!
//! Where ClickHouse and DataFusion disagree on a function's result or type
//! (`count` is UInt64, `number % 10000` is UInt16, `uniq` is an adaptive
//! sketch), Strata registers its own implementation under ClickHouse's name so
//! queries return what ClickHouse users expect. Everything else comes from
//! DataFusion's built-in library.

pub mod aggregate;
pub mod arithmetic;
pub mod arrays;
pub mod asof;
pub mod big_int;
pub mod bitmaps;
pub mod bits;
pub mod calendar;
pub mod cast_not_null;
pub mod conversion;
pub mod date_format;
pub mod dates;
mod decimal_arithmetic;
mod decimal_conversion;
mod decimal_precise;
pub mod encodings;
pub mod fixed_strings;
pub mod geo;
pub mod hashing;
pub mod hex;
pub mod int_cast;
pub mod length;
pub mod misc;
pub mod numeric;
pub mod other;
pub mod strings;
pub mod throw_if;
pub mod tuples;
pub mod using_key;
pub mod uuids;
pub mod window;

use std::sync::Arc;

use datafusion::arrow::datatypes::{DataType, Field, FieldRef};
use datafusion::functions_aggregate::first_last::{first_value_udaf, last_value_udaf};
use datafusion::logical_expr::ReturnFieldArgs;
use datafusion::logical_expr::{AggregateUDF, ScalarUDF};

use aggregate::arg_min_max::ArgMinMax;
use aggregate::count::Count;
use aggregate::group_array::GroupArray;
use aggregate::uniq::{Uniq, UniqKind};
use arithmetic::{Arithmetic, ArithmeticOp, Negate};
use calendar::{Calendar, CalendarFunction};
use conversion::{CastByName, ConvertTo, EnumNumber};
use hashing::{HashFunction, HashKind};
use misc::{Clock, ClockFunction, ToTypeName};
use uuids::{GenerateUuid, ToUuid, Unparsable, UuidVersion};

/// Teaches the type parser the types only the function registry knows
/// (`AggregateFunction(...)`); call before reading any type name.
pub fn install_types() {
    strata_common::types::set_aggregate_state_type(aggregate::states::aggregate_function_of);
}

/// Scalar functions Strata adds or replaces.
pub fn scalar_functions() -> Vec<Arc<ScalarUDF>> {
    let mut functions: Vec<ScalarUDF> = Vec::new();
    for op in ArithmeticOp::ALL {
        functions.push(ScalarUDF::new_from_impl(Arithmetic::new(op)));
    }
    functions.push(ScalarUDF::new_from_impl(Negate::default()));
    for divide in [false, true] {
        functions.push(ScalarUDF::new_from_impl(
            decimal_precise::PreciseDecimal::new(divide),
        ));
    }
    for bitwise in big_int::BigBitwise::all() {
        functions.push(ScalarUDF::new_from_impl(bitwise));
    }
    for conversion in ConvertTo::all() {
        functions.push(ScalarUDF::new_from_impl(conversion));
    }
    functions.push(ScalarUDF::new_from_impl(CastByName::default()));
    functions.push(ScalarUDF::new_from_impl(
        cast_not_null::CastNotNull::default(),
    ));
    functions.push(ScalarUDF::new_from_impl(using_key::UsingKey::default()));
    functions.push(ScalarUDF::new_from_impl(EnumNumber::default()));
    functions.push(ScalarUDF::new_from_impl(uuids::UuidOrder::default()));
    for kind in HashKind::ALL {
        functions.push(ScalarUDF::new_from_impl(HashFunction::new(kind)));
    }
    functions.push(ScalarUDF::new_from_impl(ToTypeName::new(false)));
    functions.push(ScalarUDF::new_from_impl(ToTypeName::new(true)));
    functions.push(ScalarUDF::new_from_impl(misc::ToLowCardinality::default()));
    functions.push(ScalarUDF::new_from_impl(misc::SimpleAggregate::default()));
    functions.push(ScalarUDF::new_from_impl(misc::NullWhereNull::default()));
    for unparsable in [Unparsable::Fail, Unparsable::Null, Unparsable::Zero] {
        functions.push(ScalarUDF::new_from_impl(ToUuid::new(unparsable)));
    }
    for version in [UuidVersion::V4, UuidVersion::V7] {
        functions.push(ScalarUDF::new_from_impl(GenerateUuid::new(version)));
    }
    functions.push(ScalarUDF::new_from_impl(
        fixed_strings::ToFixedString::default(),
    ));
    for function in CalendarFunction::ALL {
        functions.push(ScalarUDF::new_from_impl(Calendar::new(function)));
    }
    functions.push(ScalarUDF::new_from_impl(
        date_format::FormatDateTime::default(),
    ));
    functions.push(ScalarUDF::new_from_impl(hex::Hex::default()));
    functions.push(ScalarUDF::new_from_impl(hex::Unhex::default()));
    for counting in [length::Counting::Length, length::Counting::LengthUtf8] {
        functions.push(ScalarUDF::new_from_impl(length::Length::new(counting)));
    }
    for negated in [false, true] {
        functions.push(ScalarUDF::new_from_impl(length::Empty::new(negated)));
    }
    functions.push(ScalarUDF::new_from_impl(throw_if::ThrowIf::default()));
    functions.push(ScalarUDF::new_from_impl(tuples::TupleElement::default()));
    functions.push(ScalarUDF::new_from_impl(
        aggregate::states::FinalizeAggregation::default(),
    ));
    functions.push(ScalarUDF::new_from_impl(
        aggregate::states::InitializeAggregation::default(),
    ));
    functions.push(ScalarUDF::new_from_impl(bits::BitCount::default()));
    functions.push(ScalarUDF::new_from_impl(bits::BitShift::new(true)));
    functions.push(ScalarUDF::new_from_impl(bits::BitShift::new(false)));
    functions.push(ScalarUDF::new_from_impl(ClockFunction::new(Clock::Today)));
    functions.push(ScalarUDF::new_from_impl(ClockFunction::new(Clock::Now)));
    functions.extend(strings::scalar_functions());
    functions.extend(numeric::scalar_functions());
    functions.extend(dates::scalar_functions());
    functions.extend(arrays::scalar_functions());
    functions.extend(encodings::scalar_functions());
    functions.extend(other::scalar_functions());
    functions.extend(asof::scalar_functions());
    tuples::register(&mut functions);
    bitmaps::functions::register(&mut functions);
    functions.extend(geo::scalar_functions());
    functions.into_iter().map(Arc::new).collect()
}

/// Aggregate functions Strata adds or replaces.
pub fn aggregate_functions() -> Vec<Arc<AggregateUDF>> {
    let mut functions = vec![
        AggregateUDF::new_from_impl(Count::default()),
        AggregateUDF::new_from_impl(Uniq::new(UniqKind::Uniq)),
        // ClickHouse's uniqCombined64 hashes to 64 bits, as Strata's uniqCombined does.
        AggregateUDF::new_from_impl(Uniq::new(UniqKind::UniqCombined))
            .with_aliases(["uniqCombined64"]),
        AggregateUDF::new_from_impl(Uniq::new(UniqKind::UniqHll12)),
        AggregateUDF::new_from_impl(Uniq::new(UniqKind::UniqExact)),
        AggregateUDF::new_from_impl(ArgMinMax::new(false)),
        AggregateUDF::new_from_impl(ArgMinMax::new(true)),
        AggregateUDF::new_from_impl(ArgMinMax::pair(false)),
        AggregateUDF::new_from_impl(ArgMinMax::pair(true)),
        AggregateUDF::new_from_impl(GroupArray::default()),
        // `any` skips NULLs (the SQL rewrite asks so); the `_respect_nulls`
        // forms keep DataFusion's default, which does not.
        first_value_udaf().as_ref().clone().with_aliases([
            "any",
            "any_respect_nulls",
            "anyRespectNulls",
            "anyValueRespectNulls",
            "any_value_respect_nulls",
            "firstValueRespectNulls",
            "first_value_respect_nulls",
        ]),
        last_value_udaf().as_ref().clone().with_aliases([
            "anyLast",
            "anyLast_respect_nulls",
            "anyLastRespectNulls",
            "lastValueRespectNulls",
            "last_value_respect_nulls",
        ]),
    ];
    functions.extend(aggregate::functions());
    functions.into_iter().map(Arc::new).collect()
}

/// The result field of a function that is NULL exactly when an argument is,
/// so non-NULL inputs give a non-Nullable ClickHouse type.
pub(crate) fn null_propagating_field(
    udf: &dyn datafusion::logical_expr::ScalarUDFImpl,
    args: &ReturnFieldArgs,
) -> datafusion::common::Result<FieldRef> {
    let types = crate::field_types(args.arg_fields);
    let nullable = args.arg_fields.iter().any(|f| f.is_nullable());
    Ok(Arc::new(Field::new(
        udf.name(),
        udf.return_type(&types)?,
        nullable,
    )))
}

/// Rows to turn a function's arguments into: one where every argument is a
/// scalar evaluated over no rows (DataFusion evaluates an `IN` list's
/// constants so), whose result [`columnar`] takes from the first row.
pub(crate) fn rows_to_evaluate(args: &datafusion::logical_expr::ScalarFunctionArgs) -> usize {
    let scalars = args
        .args
        .iter()
        .all(|a| matches!(a, datafusion::logical_expr::ColumnarValue::Scalar(_)));
    if args.number_rows == 0 && scalars {
        1
    } else {
        args.number_rows
    }
}

/// The data types of a call's argument fields.
pub(crate) fn field_types(fields: &[FieldRef]) -> Vec<DataType> {
    fields.iter().map(|f| f.data_type().clone()).collect()
}

/// A function's result: a scalar when every argument was a scalar, else an array.
pub(crate) fn columnar(
    out: datafusion::arrow::array::ArrayRef,
    scalar: bool,
) -> datafusion::common::Result<datafusion::logical_expr::ColumnarValue> {
    use datafusion::logical_expr::ColumnarValue;
    if scalar {
        Ok(ColumnarValue::Scalar(
            datafusion::common::ScalarValue::try_from_array(&out, 0)?,
        ))
    } else {
        Ok(ColumnarValue::Array(out))
    }
}
