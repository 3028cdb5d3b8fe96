//! `JSON_EXISTS`, `JSON_VALUE` and `JSON_QUERY` over a constant JSONPath:
//! `$`, then members `.name` or `."name"` and array steps `[n]` (0-based),
//! `[*]`, `[n, m, ...]` and `[n to m]` (end excluded). `JSON_VALUE` gives
//! the first match when it is a scalar (a string unescaped, `null` as
//! text), `JSON_QUERY` every match in compact JSON inside `[...]`, joined
//! by `, `.

use std::sync::Arc;

use datafusion::arrow::array::{ArrayRef, StringBuilder, UInt8Array};
use datafusion::arrow::datatypes::{DataType, Field};
use datafusion::common::{Result, ScalarValue};
use strata_common::ErrorCode;

use super::dom::{Json, parse, write_raw};
use crate::encodings::udf::{Args, Call, Spec, error, is_text};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Query {
    Exists,
    Value,
    Query,
}

pub(crate) static SPECS: &[Spec] = &[
    Spec {
        name: "JSON_EXISTS",
        aliases: &[],
        typing: |args| typing(args, DataType::UInt8),
        eval: |call| eval(call, Query::Exists),
    },
    Spec {
        name: "JSON_VALUE",
        aliases: &[],
        typing: |args| typing(args, DataType::Utf8),
        eval: |call| eval(call, Query::Value),
    },
    Spec {
        name: "JSON_QUERY",
        aliases: &[],
        typing: |args| typing(args, DataType::Utf8),
        eval: |call| eval(call, Query::Query),
    },
];

/// One step of a path.
#[derive(Debug, Clone, PartialEq)]
enum Step {
    Member(String),
    All,
    Indices(Vec<usize>),
    Range(usize, usize),
}

fn typing(args: &Args, data_type: DataType) -> Result<Field> {
    if args.len() < 2 {
        return Err(error(
            ErrorCode::TOO_FEW_ARGUMENTS_FOR_FUNCTION,
            format!("Function {} requires at least 2 arguments", args.name),
        ));
    }
    args.arity(2, 2)?;
    args.require(0, is_text)?;
    args.require(1, is_text)?;
    Ok(args.propagate(data_type))
}

fn bad_path() -> datafusion::error::DataFusionError {
    error(ErrorCode::BAD_ARGUMENTS, "Unable to parse JSONPath")
}

/// Parses a path; code 36 for one it cannot read.
fn parse_path(text: &str) -> Result<Vec<Step>> {
    let mut rest = text.trim_start().strip_prefix('$').ok_or_else(bad_path)?;
    let mut steps = Vec::new();
    loop {
        rest = rest.trim_start();
        if rest.is_empty() {
            return Ok(steps);
        }
        if let Some(after) = rest.strip_prefix('.') {
            let (name, tail) = member_name(after)?;
            steps.push(Step::Member(name));
            rest = tail;
        } else if let Some(after) = rest.strip_prefix('[') {
            let end = after.find(']').ok_or_else(bad_path)?;
            steps.push(array_step(&after[..end])?);
            rest = &after[end + 1..];
        } else {
            return Err(bad_path());
        }
    }
}

fn member_name(text: &str) -> Result<(String, &str)> {
    if let Some(quoted) = text.strip_prefix('"') {
        let end = quoted.find('"').ok_or_else(bad_path)?;
        return Ok((quoted[..end].to_string(), &quoted[end + 1..]));
    }
    let end = text
        .find(|c: char| !(c.is_alphanumeric() || c == '_'))
        .unwrap_or(text.len());
    if end == 0 {
        return Err(bad_path());
    }
    Ok((text[..end].to_string(), &text[end..]))
}

fn array_step(inside: &str) -> Result<Step> {
    let inside = inside.trim();
    if inside == "*" {
        return Ok(Step::All);
    }
    let number = |s: &str| s.trim().parse::<usize>().map_err(|_| bad_path());
    if let Some((start, end)) = inside.split_once(" to ") {
        let (start, end) = (number(start)?, number(end)?);
        if start >= end {
            return Err(error(
                ErrorCode::BAD_ARGUMENTS,
                format!(
                    "Start of range must be greater than end of range, however {start} >= {end}"
                ),
            ));
        }
        return Ok(Step::Range(start, end));
    }
    let indices = inside.split(',').map(number).collect::<Result<Vec<_>>>()?;
    Ok(Step::Indices(indices))
}

/// Every value the path leads to, in order.
fn matches<'a>(root: &'a Json, steps: &[Step]) -> Vec<&'a Json> {
    let mut current = vec![root];
    for step in steps {
        let mut next = Vec::new();
        for value in current {
            match (step, value) {
                (Step::Member(name), _) => {
                    next.extend(value.member(name.as_bytes(), false).map(|(_, v)| v))
                }
                (Step::All, Json::Array(items)) => next.extend(items.iter()),
                (Step::Indices(indices), Json::Array(items)) => {
                    next.extend(indices.iter().filter_map(|&i| items.get(i)))
                }
                (Step::Range(start, end), Json::Array(items)) => {
                    next.extend(items.iter().skip(*start).take(end - start))
                }
                _ => {}
            }
        }
        current = next;
    }
    current
}

fn eval(call: &Call, query: Query) -> Result<ArrayRef> {
    let path = match call.scalar(1) {
        Some(ScalarValue::Utf8(Some(path))) => parse_path(path)?,
        _ => {
            return Err(error(
                ErrorCode::ILLEGAL_COLUMN,
                format!(
                    "Argument at index 1 for function {} must be constant",
                    call.name
                ),
            ));
        }
    };
    let texts = call.bytes(0)?;
    let found = texts.iter().map(|text| {
        text.map(|text| {
            parse(text)
                .map(|root| answer(&root, &path, query))
                .unwrap_or_default()
        })
    });
    Ok(match query {
        Query::Exists => Arc::new(
            found
                .map(|f| f.map(|f| u8::from(!f.is_empty())))
                .collect::<UInt8Array>(),
        ),
        _ => {
            let mut out = StringBuilder::new();
            for value in found {
                out.append_option(value);
            }
            Arc::new(out.finish())
        }
    })
}

/// The function's text for one document ("1" for an existing match in
/// `JSON_EXISTS`, empty when nothing matches).
fn answer(root: &Json, path: &[Step], query: Query) -> String {
    let found = matches(root, path);
    let mut out = String::new();
    match query {
        Query::Exists if !found.is_empty() => out.push('1'),
        Query::Exists => {}
        Query::Value => match found.first() {
            Some(Json::Str(s)) => out.push_str(s),
            Some(Json::Array(_) | Json::Object(_)) | None => {}
            Some(scalar) => write_raw(scalar, &mut out),
        },
        Query::Query if found.is_empty() => {}
        Query::Query => {
            out.push('[');
            for (i, value) in found.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_raw(value, &mut out);
            }
            out.push(']');
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn query(json: &str, path: &str, kind: Query) -> String {
        answer(
            &parse(json.as_bytes()).unwrap(),
            &parse_path(path).unwrap(),
            kind,
        )
    }

    #[test]
    fn follows_paths_as_clickhouse_does() {
        let doc = r#"{"a":[1,2,3],"b":{"c":"x"}}"#;
        assert_eq!(query(doc, "$.a[1 to 5]", Query::Query), "[2, 3]");
        assert_eq!(query(doc, "$.a[2, 0]", Query::Query), "[3, 1]");
        assert_eq!(query(doc, "$.b.c", Query::Value), "x");
        assert_eq!(query(doc, "$.b", Query::Value), "");
        assert_eq!(query(doc, "$.\"b\"", Query::Query), r#"[{"c":"x"}]"#);
        assert!(parse_path("$.a[-1]").is_err());
        assert!(parse_path("a").is_err());
    }
}
