//! Functions of a tuple's shape: `tupleNames`, `tupleToNameValuePairs`,
//! `tupleConcat`, `flattenTuple` and `untuple`. An unnamed tuple's elements are named
//! by position (`'1'`, `'2'`, ...), as ClickHouse names them.

use std::sync::Arc;

use datafusion::arrow::array::{Array, ArrayRef, AsArray, ListArray, StringArray, StructArray};
use datafusion::arrow::buffer::OffsetBuffer;
use datafusion::arrow::compute::interleave;
use datafusion::arrow::datatypes::{DataType, Field, FieldRef, Fields};
use datafusion::common::Result;
use datafusion::logical_expr::type_coercion::binary::comparison_coercion;
use datafusion::logical_expr::{ColumnarValue, ScalarUDF, Volatility};
use strata_common::ErrorCode;
use strata_common::types::{clickhouse_type_name, is_named_tuple};

use super::element::element;
use crate::other::frame::{Call, Spec, Typing, failure, register};

pub(crate) fn scalar_functions() -> impl Iterator<Item = ScalarUDF> {
    register(SPECS)
}

static SPECS: &[Spec] = &[
    Spec {
        name: "tupleNames",
        aliases: &[],
        args: (1, 1),
        volatility: Volatility::Immutable,
        typing: |t| {
            tuple_fields(
                t,
                0,
                "First argument for function tupleNames must be a Tuple",
            )?;
            Ok(t.plain(string_list()))
        },
        eval: names,
    },
    Spec {
        name: "tupleToNameValuePairs",
        aliases: &[],
        args: (1, 1),
        volatility: Volatility::Immutable,
        typing: |t| Ok(t.plain(pairs_type(&uniform_element(t)?))),
        eval: name_value_pairs,
    },
    Spec {
        name: "tupleConcat",
        aliases: &[],
        args: (1, usize::MAX),
        volatility: Volatility::Immutable,
        typing: |t| {
            let mut fields = Vec::new();
            for i in 0..t.fields.len() {
                fields.extend(
                    tuple_fields(t, i, "Argument of function tupleConcat must be a Tuple")?
                        .iter()
                        .cloned(),
                );
            }
            Ok(t.plain(DataType::Struct(positional(fields))))
        },
        eval: concat,
    },
    Spec {
        name: "flattenTuple",
        aliases: &[],
        args: (1, 1),
        volatility: Volatility::Immutable,
        typing: |t| {
            let fields = tuple_fields(t, 0, "Argument for function 'flattenTuple' must be Tuple")?;
            if !is_named_tuple(&fields) {
                let type_name = clickhouse_type_name(t.fields[0].data_type(), false);
                let message = format!(
                    "Tuple argument for function 'flattenTuple' must be named. Got '{type_name}'"
                );
                return Err(failure(ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT, message));
            }
            let mut flat = Vec::new();
            flatten_fields(&fields, "", &mut flat);
            Ok(t.plain(DataType::Struct(flat.into())))
        },
        eval: flatten,
    },
    Spec {
        name: "untuple",
        aliases: &[],
        args: (1, 1),
        volatility: Volatility::Immutable,
        // The tuple itself: the SQL front makes a select list's call its
        // elements, where the plan knows them.
        typing: |t| {
            let field = t.field(0);
            if !matches!(field.data_type(), DataType::Struct(_)) {
                let type_name = clickhouse_type_name(field.data_type(), field.is_nullable());
                let message = format!(
                    "Function 'untuple' argument must have compound type. Actual type {type_name}."
                );
                return Err(failure(ErrorCode::UNSUPPORTED_METHOD, message));
            }
            Ok(field.with_name("untuple"))
        },
        eval: |call| Ok(call.args[0].clone()),
    },
];

/// Argument `i`'s elements, which must be a tuple's.
fn tuple_fields(t: &Typing, i: usize, message: &str) -> Result<Fields> {
    match t.fields[i].data_type() {
        DataType::Struct(fields) => Ok(fields.clone()),
        other => Err(failure(
            ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
            format!("{message}, got {}", clickhouse_type_name(other, false)),
        )),
    }
}

/// Element `i`'s name: its own in a named tuple, its position otherwise.
fn element_name(fields: &Fields, i: usize) -> String {
    match is_named_tuple(fields) {
        true => fields[i].name().clone(),
        false => (i + 1).to_string(),
    }
}

/// `fields` renamed by position, an unnamed tuple's.
fn positional(fields: Vec<FieldRef>) -> Fields {
    fields
        .iter()
        .enumerate()
        .map(|(i, f)| f.as_ref().clone().with_name((i + 1).to_string()))
        .collect()
}

fn string_list() -> DataType {
    DataType::List(Arc::new(Field::new("item", DataType::Utf8, false)))
}

fn pair_fields(value: &Field) -> Fields {
    Fields::from(vec![
        Field::new("1", DataType::Utf8, false),
        value.clone().with_name("2"),
    ])
}

fn pairs_type(value: &Field) -> DataType {
    let pair = Field::new("item", DataType::Struct(pair_fields(value)), false);
    DataType::List(Arc::new(pair))
}

/// The one element type `tupleToNameValuePairs` requires. Numbers of
/// different types take their common type: while the plan is typed, a
/// literal's type may not yet be ClickHouse's (`(number, number * 2)`).
fn uniform_element(t: &Typing) -> Result<Field> {
    let fields = tuple_fields(
        t,
        0,
        "First argument for function tupleToNameValuePairs must be a Tuple",
    )?;
    let illegal = |message: &str| failure(ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT, message.into());
    let Some(first) = fields.first() else {
        return Err(illegal(
            "The argument tuple for function tupleToNameValuePairs must not be empty",
        ));
    };
    let mut common = first.data_type().clone();
    for field in fields.iter().skip(1) {
        let next = field.data_type();
        common = match (&common, next) {
            (a, b) if a == b => common,
            (a, b) if a.is_numeric() && b.is_numeric() => {
                comparison_coercion(a, b).ok_or_else(|| illegal(ONE_TYPE))?
            }
            _ => return Err(illegal(ONE_TYPE)),
        };
    }
    let nullable = fields.iter().any(|f| f.is_nullable());
    Ok(Field::new("2", common, nullable))
}

const ONE_TYPE: &str =
    "The argument tuple for function tupleToNameValuePairs must contain just one type";

/// Each row's list of `width` items, taken in order from `items`.
fn lists(item: FieldRef, width: usize, rows: usize, items: ArrayRef) -> ListArray {
    let offsets = OffsetBuffer::from_lengths(std::iter::repeat_n(width, rows));
    ListArray::new(item, offsets, items, None)
}

fn names(call: &Call) -> Result<ColumnarValue> {
    let DataType::Struct(fields) = call.fields[0].data_type() else {
        unreachable!("typing checked a tuple")
    };
    let rows = call.column(0)?.len();
    let row: Vec<String> = (0..fields.len()).map(|i| element_name(fields, i)).collect();
    let items: StringArray = (0..rows).flat_map(|_| row.iter().map(Some)).collect();
    let item = Arc::new(Field::new("item", DataType::Utf8, false));
    call.output(Arc::new(lists(item, row.len(), rows, Arc::new(items))))
}

fn name_value_pairs(call: &Call) -> Result<ColumnarValue> {
    let tuple = call.column(0)?;
    let DataType::Struct(fields) = tuple.data_type() else {
        unreachable!("typing checked a tuple")
    };
    let DataType::List(pair) = call.result.data_type() else {
        unreachable!("typed as a list of pairs")
    };
    let DataType::Struct(pair_fields) = pair.data_type() else {
        unreachable!("typed as a list of pairs")
    };
    let (width, rows) = (fields.len(), tuple.len());
    let value_type = pair_fields[1].data_type();
    let children = (0..width)
        .map(|i| {
            Ok(datafusion::arrow::compute::cast(
                &element(&tuple, i)?,
                value_type,
            )?)
        })
        .collect::<Result<Vec<_>>>()?;
    let children: Vec<&dyn Array> = children.iter().map(|c| c.as_ref()).collect();
    let order: Vec<(usize, usize)> = (0..rows)
        .flat_map(|r| (0..width).map(move |i| (i, r)))
        .collect();
    let values = interleave(&children, &order)?;
    let row: Vec<String> = (0..width).map(|i| element_name(fields, i)).collect();
    let names: StringArray = (0..rows).flat_map(|_| row.iter().map(Some)).collect();
    let pairs = StructArray::try_new(pair_fields.clone(), vec![Arc::new(names), values], None)?;
    call.output(Arc::new(lists(
        Arc::clone(pair),
        width,
        rows,
        Arc::new(pairs),
    )))
}

fn concat(call: &Call) -> Result<ColumnarValue> {
    let DataType::Struct(fields) = call.result.data_type() else {
        unreachable!("typed as a tuple")
    };
    let mut columns = Vec::with_capacity(fields.len());
    for i in 0..call.args.len() {
        let tuple = call.column(i)?;
        let width = tuple.as_struct().num_columns();
        for position in 0..width {
            columns.push(element(&tuple, position)?);
        }
    }
    let rows = call.column(0)?.len();
    let out: ArrayRef = match fields.is_empty() {
        true => Arc::new(StructArray::new_empty_fields(rows, None)),
        false => Arc::new(StructArray::try_new(fields.clone(), columns, None)?),
    };
    call.output(out)
}

/// The leaves of `fields`, named by their path from the outer tuple.
fn flatten_fields(fields: &Fields, prefix: &str, out: &mut Vec<FieldRef>) {
    for (i, field) in fields.iter().enumerate() {
        let name = format!("{prefix}{}", element_name(fields, i));
        match field.data_type() {
            DataType::Struct(inner) => flatten_fields(inner, &format!("{name}."), out),
            _ => out.push(Arc::new(field.as_ref().clone().with_name(name))),
        }
    }
}

/// The leaf columns of a tuple column, in the order of [`flatten_fields`].
fn flatten_columns(tuple: &ArrayRef, out: &mut Vec<ArrayRef>) -> Result<()> {
    for position in 0..tuple.as_struct().num_columns() {
        let child = element(tuple, position)?;
        match child.data_type() {
            DataType::Struct(_) => flatten_columns(&child, out)?,
            _ => out.push(child),
        }
    }
    Ok(())
}

fn flatten(call: &Call) -> Result<ColumnarValue> {
    let DataType::Struct(fields) = call.result.data_type() else {
        unreachable!("typed as a tuple")
    };
    let tuple = call.column(0)?;
    let mut columns = Vec::with_capacity(fields.len());
    flatten_columns(&tuple, &mut columns)?;
    let out: ArrayRef = match fields.is_empty() {
        true => Arc::new(StructArray::new_empty_fields(tuple.len(), None)),
        false => Arc::new(StructArray::try_new(fields.clone(), columns, None)?),
    };
    call.output(out)
}
