//! ClickHouse's JSON functions over JSON text: `JSONExtract*(json,
//! path..., ['Type'])`, `JSONHas`, `JSONLength`, `JSONType`, `JSONKey`,
//! `JSONArrayLength`, `isValidJSON`, their `CaseInsensitive` variants, and
//! the path functions in [`path`] and the fast field functions in
//! [`simple`]. A path step is a key (a String) or a 1-based index (an
//! integer, negative from the end; an index into an object takes its
//! n-th member). Invalid JSON or a missing value gives the result's
//! default; a NULL argument gives NULL.

mod convert;
mod dom;
mod path;
mod simple;

use datafusion::arrow::array::{Array, ArrayRef, BinaryArray, Int64Array};
use datafusion::arrow::datatypes::{DataType, Field};
use datafusion::common::{Result, ScalarValue};
use strata_common::ErrorCode;

use super::udf::{Args, Call, Spec, error, is_text};
use convert::{Mode, Target, Val, build};
use dom::{Json, parse, text_of, write_raw};

/// What a function takes from the value its path leads to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Op {
    Has,
    Length,
    Type,
    Key,
    Int,
    UInt,
    Float,
    Bool,
    String,
    Raw,
    ArrayRaw,
    Keys,
    KeysAndValuesRaw,
    /// `JSONExtract(..., 'Type')`.
    Extract,
    /// `JSONExtractKeysAndValues(..., 'Type')`.
    KeysAndValues,
}

impl Op {
    /// Whether the last argument names the result's type.
    fn typed(self) -> bool {
        matches!(self, Op::Extract | Op::KeysAndValues)
    }

    /// The result's type, `typed` being the type the call names.
    fn target(self, typed: Option<Target>) -> Target {
        let text = || Target::String;
        let pair = |value: Target| Target::Tuple(vec![(None, Target::String), (None, value)]);
        match self {
            Op::Has | Op::Bool => Target::Int {
                bits: 8,
                signed: false,
            },
            Op::Length | Op::UInt => Target::Int {
                bits: 64,
                signed: false,
            },
            Op::Int => Target::Int {
                bits: 64,
                signed: true,
            },
            Op::Float => Target::Float64,
            Op::Type | Op::Key | Op::String | Op::Raw => text(),
            Op::ArrayRaw | Op::Keys => Target::Array(Box::new(text())),
            Op::KeysAndValuesRaw => Target::Array(Box::new(pair(text()))),
            Op::Extract => typed.expect("a typed call"),
            Op::KeysAndValues => Target::Array(Box::new(pair(typed.expect("a typed call")))),
        }
    }
}

macro_rules! json {
    ($name:literal, $op:ident, $ci:literal) => {
        Spec {
            name: $name,
            aliases: &[],
            typing: |args| typing(args, Op::$op),
            eval: |call| eval(call, Op::$op, $ci),
        }
    };
}

pub(crate) static SPECS: &[Spec] = &[
    json!("JSONHas", Has, false),
    json!("JSONLength", Length, false),
    json!("JSONType", Type, false),
    json!("JSONKey", Key, false),
    json!("JSONExtractInt", Int, false),
    json!("JSONExtractUInt", UInt, false),
    json!("JSONExtractFloat", Float, false),
    json!("JSONExtractBool", Bool, false),
    json!("JSONExtractString", String, false),
    json!("JSONExtractRaw", Raw, false),
    json!("JSONExtractArrayRaw", ArrayRaw, false),
    json!("JSONExtractKeys", Keys, false),
    json!("JSONExtractKeysAndValuesRaw", KeysAndValuesRaw, false),
    json!("JSONExtract", Extract, false),
    json!("JSONExtractKeysAndValues", KeysAndValues, false),
    json!("JSONExtractIntCaseInsensitive", Int, true),
    json!("JSONExtractUIntCaseInsensitive", UInt, true),
    json!("JSONExtractFloatCaseInsensitive", Float, true),
    json!("JSONExtractBoolCaseInsensitive", Bool, true),
    json!("JSONExtractStringCaseInsensitive", String, true),
    json!("JSONExtractRawCaseInsensitive", Raw, true),
    json!("JSONExtractArrayRawCaseInsensitive", ArrayRaw, true),
    json!("JSONExtractKeysCaseInsensitive", Keys, true),
    json!(
        "JSONExtractKeysAndValuesRawCaseInsensitive",
        KeysAndValuesRaw,
        true
    ),
    json!("JSONExtractCaseInsensitive", Extract, true),
    json!(
        "JSONExtractKeysAndValuesCaseInsensitive",
        KeysAndValues,
        true
    ),
    Spec {
        name: "isValidJSON",
        aliases: &[],
        typing: |args| single_typing(args, DataType::UInt8, false),
        eval: |call| single_eval(call, |json| Val::UInt(u64::from(json.is_some()))),
    },
    Spec {
        name: "JSONArrayLength",
        aliases: &["JSON_ARRAY_LENGTH"],
        typing: |args| single_typing(args, DataType::UInt64, true),
        eval: |call| {
            single_eval(call, |json| match json {
                Some(Json::Array(items)) => Val::UInt(items.len() as u64),
                _ => Val::Null,
            })
        },
    },
];

/// All the specs of this module and its submodules.
pub(crate) fn specs() -> impl Iterator<Item = &'static [Spec]> {
    [SPECS, path::SPECS, simple::SPECS].into_iter()
}

/// Code 43 unless the first argument is a String.
fn require_json(args: &Args) -> Result<()> {
    let t = args.data_type(0);
    if t == DataType::Null || (is_text(&t) && !matches!(t, DataType::FixedSizeBinary(_))) {
        return Ok(());
    }
    Err(error(
        ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
        format!(
            "The first argument of function {} should be a string containing JSON, illegal type: {}",
            args.name,
            strata_common::types::field_type_name(&args.fields[0])
        ),
    ))
}

fn single_typing(args: &Args, data_type: DataType, nullable: bool) -> Result<Field> {
    args.arity(1, 1)?;
    require_json(args)?;
    let field = args.propagate(data_type);
    Ok(if nullable {
        field.with_nullable(true)
    } else {
        field
    })
}

fn single_eval(call: &Call, f: fn(Option<&Json>) -> Val) -> Result<ArrayRef> {
    let texts = call.bytes(0)?;
    let values: Vec<Val> = texts
        .iter()
        .map(|text| text.map_or(Val::Null, |t| f(parse(t).as_ref())))
        .collect();
    build(&result_target(call)?, &values)
}

/// The result's type as the call's field gives it.
fn result_target(call: &Call) -> Result<Target> {
    Ok(match call.result.data_type() {
        DataType::UInt8 => Target::Int {
            bits: 8,
            signed: false,
        },
        _ => Target::Int {
            bits: 64,
            signed: false,
        },
    })
}

/// The type a typed call names in its last argument.
fn named_type(args: &Args) -> Result<Target> {
    let last = args.len() - 1;
    match args.constant_text(last) {
        Some(name) => Target::parse(&name),
        None if args.data_type(last) == DataType::Utf8 && args.scalar(last).is_none() => {
            Err(error(
                ErrorCode::ILLEGAL_COLUMN,
                format!(
                    "The last argument of function {} should be a constant string specifying the return data type",
                    args.name
                ),
            ))
        }
        None => Err(args.illegal(last)),
    }
}

fn typing(args: &Args, op: Op) -> Result<Field> {
    let min = if op.typed() { 2 } else { 1 };
    if args.len() < min {
        return Err(error(
            ErrorCode::NUMBER_OF_ARGUMENTS_DOESNT_MATCH,
            format!("Function {} requires at least {min} argument(s)", args.name),
        ));
    }
    require_json(args)?;
    let steps = args.len() - usize::from(op.typed());
    for i in 1..steps {
        let t = args.data_type(i);
        if !(t == DataType::Null || t.is_integer() || is_text(&t)) {
            return Err(error(
                ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
                format!(
                    "The argument {} of function {} should be a string specifying key or an integer specifying index, illegal type: {}",
                    i + 1,
                    args.name,
                    strata_common::types::field_type_name(&args.fields[i])
                ),
            ));
        }
    }
    let target = op.target(if op.typed() {
        Some(named_type(args)?)
    } else {
        None
    });
    // The target's own metadata marks a UUID, an Enum, an IPv4.
    let field = args
        .propagate(target.data_type())
        .with_metadata(target.field("").metadata().clone());
    let nullable = field.is_nullable() || target.is_nullable();
    Ok(field.with_nullable(nullable))
}

/// One path argument, read per row.
enum Step {
    Key(BinaryArray),
    Index(Int64Array),
}

impl Step {
    fn is_null(&self, row: usize) -> bool {
        match self {
            Step::Key(keys) => keys.is_null(row),
            Step::Index(indices) => indices.is_null(row),
        }
    }
}

fn steps(call: &Call, count: usize) -> Result<Vec<Step>> {
    (1..count)
        .map(|i| {
            let array = call.array(i)?;
            Ok(if array.data_type().is_integer() {
                Step::Index(crate::int_cast::to_i64_wrapping(&array)?)
            } else {
                Step::Key(call.bytes(i)?)
            })
        })
        .collect()
}

/// The value the path leads to at `row`, with its key when the last step
/// took an object member.
fn follow<'a>(
    root: &'a Json,
    steps: &[Step],
    row: usize,
    ignore_case: bool,
) -> Option<(Option<&'a str>, &'a Json)> {
    let mut current = (None, root);
    for step in steps {
        current = match step {
            Step::Key(keys) => {
                let (name, value) = current.1.member(keys.value(row), ignore_case)?;
                (Some(name), value)
            }
            Step::Index(indices) => current.1.at(indices.value(row))?,
        };
    }
    Some(current)
}

fn eval(call: &Call, op: Op, ignore_case: bool) -> Result<ArrayRef> {
    let typed = if op.typed() {
        let last = call.len() - 1;
        match call.scalar(last) {
            Some(ScalarValue::Utf8(Some(name))) => Some(Target::parse(name)?),
            _ => {
                return Err(error(
                    ErrorCode::ILLEGAL_COLUMN,
                    "the type must be a constant",
                ));
            }
        }
    } else {
        None
    };
    let target = op.target(typed.clone());
    let texts = call.bytes(0)?;
    let steps = steps(call, call.len() - usize::from(op.typed()))?;
    let mut values = Vec::with_capacity(call.rows);
    for row in 0..call.rows {
        if texts.is_null(row) || steps.iter().any(|s| s.is_null(row)) {
            values.push(Val::Null);
            continue;
        }
        let root = parse(texts.value(row));
        let found = root
            .as_ref()
            .and_then(|root| follow(root, &steps, row, ignore_case));
        values.push(apply(op, found, typed.as_ref(), &target));
    }
    build(&target, &values)
}

/// The function's value for what the path found (None: nothing there).
fn apply(
    op: Op,
    found: Option<(Option<&str>, &Json)>,
    typed: Option<&Target>,
    target: &Target,
) -> Val {
    let Some((key, json)) = found else {
        return match op {
            Op::Type => Val::Text("Null".to_string()),
            _ => target.default_value(),
        };
    };
    let raw = |json: &Json| {
        let mut out = String::new();
        write_raw(json, &mut out);
        Val::Text(out)
    };
    match op {
        Op::Has => Val::UInt(1),
        Op::Length => Val::UInt(json.len().unwrap_or(0) as u64),
        Op::Type => Val::Text(json.type_name().to_string()),
        Op::Key => Val::Text(key.unwrap_or_default().to_string()),
        Op::Bool => Val::UInt(u64::from(match json {
            Json::Bool(b) => *b,
            Json::Int(v) => *v != 0,
            Json::UInt(v) => *v != 0,
            _ => false,
        })),
        Op::Int | Op::UInt | Op::Float => target.convert_or_default(json, Mode::Plain),
        Op::String => Val::Text(text_of(json)),
        Op::Raw => raw(json),
        Op::ArrayRaw => match json {
            Json::Array(items) => Val::List(items.iter().map(raw).collect()),
            _ => target.default_value(),
        },
        Op::Keys => match json {
            Json::Object(members) => {
                Val::List(members.iter().map(|(k, _)| Val::Text(k.clone())).collect())
            }
            _ => target.default_value(),
        },
        Op::KeysAndValuesRaw => match json {
            Json::Object(members) => Val::List(
                members
                    .iter()
                    .map(|(k, v)| Val::Tuple(vec![Val::Text(k.clone()), raw(v)]))
                    .collect(),
            ),
            _ => target.default_value(),
        },
        Op::Extract => target.convert_or_default(json, Mode::Typed),
        Op::KeysAndValues => keys_and_values(json, typed.expect("a typed call")),
    }
}

/// An object's members whose values convert; the others are left out.
fn keys_and_values(json: &Json, value: &Target) -> Val {
    let Json::Object(members) = json else {
        return Val::List(Vec::new());
    };
    Val::List(
        members
            .iter()
            .filter_map(|(k, v)| {
                let converted = value.convert(v, Mode::Typed)?;
                Some(Val::Tuple(vec![Val::Text(k.clone()), converted]))
            })
            .collect(),
    )
}
