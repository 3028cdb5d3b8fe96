//! The cells of `INSERT ... VALUES` read as ClickHouse's Values format reads
//! them, each as its column's type rather than as DataFusion types a literal:
//! - `DEFAULT`, and NULL in a column that is not Nullable
//!   (`input_format_null_as_default`), take the column's default;
//! - an integer literal out of its column's range wraps, and one with a
//!   fraction is truncated, as `CAST` does;
//! - a number for a Decimal or a 128- or 256-bit integer is read from its
//!   text, a Decimal's extra digits cut off;
//! - `{'k': v, ...}` is a Map;
//! - a cell of an Array, Tuple or Map column is cast to the column's type,
//!   NULLs inside it taking their element type's default.

use datafusion::arrow::datatypes::{DataType, Field};
use datafusion::sql::sqlparser::ast::{Expr, UnaryOperator, Value, visit_expressions_mut};
use std::ops::ControlFlow;
use strata_common::types::field_type_name;
use strata_common::{ErrorCode, Result, StrataError};

use crate::ast_rewrite::{call, string_literal};

/// The column a cell goes to.
pub struct CellTarget<'a> {
    pub name: &'a str,
    pub field: &'a Field,
    /// The column's DEFAULT expression; None when it has none.
    pub default: Option<Expr>,
}

/// True when some cell of `rows` takes its column's default, so the
/// columns' DEFAULT expressions are needed.
pub fn needs_defaults<'a>(mut rows: impl Iterator<Item = &'a [Expr]>, fields: &[&Field]) -> bool {
    rows.any(|row| {
        row.iter()
            .zip(fields)
            .any(|(cell, field)| takes_default(cell, field))
    })
}

/// Converts every cell of one VALUES row for its column; true for each cell
/// that took its column's default. Defaults come last, over the row's other
/// cells as converted.
pub fn convert_row(row: &mut [Expr], targets: &[CellTarget]) -> Result<Vec<bool>> {
    let defaulted: Vec<bool> = row
        .iter()
        .zip(targets)
        .map(|(cell, target)| takes_default(cell, target.field))
        .collect();
    for ((cell, target), default) in row.iter_mut().zip(targets).zip(&defaulted) {
        if !default {
            convert_cell(cell, target.field);
        }
    }
    for (i, _) in defaulted.iter().enumerate().filter(|(_, d)| **d) {
        row[i] = column_default(i, targets, row, &defaulted, 0)?;
    }
    Ok(defaulted)
}

fn takes_default(cell: &Expr, field: &Field) -> bool {
    is_default_keyword(cell) || (is_null(cell) && !field.is_nullable())
}

fn is_default_keyword(cell: &Expr) -> bool {
    matches!(cell, Expr::Identifier(ident)
        if ident.quote_style.is_none() && ident.value.eq_ignore_ascii_case("DEFAULT"))
}

fn is_null(cell: &Expr) -> bool {
    matches!(cell, Expr::Value(v) if v.value == Value::Null)
}

/// The default of column `index` for this row: its DEFAULT expression
/// over the row's other cells (defaults themselves, where they are), cast
/// to the column's type; or its type's default.
fn column_default(
    index: usize,
    targets: &[CellTarget],
    row: &[Expr],
    defaulted: &[bool],
    depth: usize,
) -> Result<Expr> {
    let target = &targets[index];
    let Some(mut default) = target.default.clone() else {
        return Ok(type_default(target.field));
    };
    // CREATE TABLE refuses defaults that read each other in a cycle.
    debug_assert!(depth <= targets.len(), "column defaults read in a cycle");
    let mut failure = None;
    let _ = visit_expressions_mut(&mut default, |expr| {
        let Expr::Identifier(ident) = expr else {
            return ControlFlow::Continue(());
        };
        let Some(read) = targets.iter().position(|t| t.name == ident.value) else {
            failure = Some(not_given(target.name, &ident.value));
            return ControlFlow::Break(());
        };
        let value = match defaulted[read] && depth < targets.len() {
            true => column_default(read, targets, row, defaulted, depth + 1),
            false => Ok(row[read].clone()),
        };
        match value {
            Ok(value) => *expr = Expr::Nested(Box::new(value)),
            Err(error) => {
                failure = Some(error);
                return ControlFlow::Break(());
            }
        }
        ControlFlow::Continue(())
    });
    if let Some(error) = failure {
        return Err(error);
    }
    Ok(cast_to(Expr::Nested(Box::new(default)), target.field))
}

fn not_given(column: &str, read: &str) -> StrataError {
    StrataError::new(
        ErrorCode::NOT_IMPLEMENTED,
        format!(
            "The default of column {column} reads column {read}, which this INSERT does not list; list {read} or leave {column} out"
        ),
    )
}

/// Converts a cell that is not its column's default.
fn convert_cell(cell: &mut Expr, field: &Field) {
    match field.data_type() {
        DataType::List(_) | DataType::LargeList(_) | DataType::Struct(_) | DataType::Map(..) => {
            if is_null(cell) {
                return;
            }
            nested_defaults(cell, field);
            *cell = cast_to(cell.clone(), field);
        }
        data_type if data_type.is_integer() => wrap_integer(cell, data_type),
        // Read from the literal's text: a Float64 holds only 15-17 digits,
        // and Strata's conversion cuts extra digits off, as ClickHouse does.
        DataType::Decimal128(..) | DataType::Decimal256(..) => {
            if let Some((negative, text)) = number_literal(cell) {
                let sign = if negative { "-" } else { "" };
                *cell = string_literal(&format!("{sign}{text}"));
            }
            let big = strata_common::types::BigInt::of(field.data_type()).is_some();
            if !is_null(cell) && (big || matches!(field.data_type(), DataType::Decimal128(..))) {
                *cell = cast_to(cell.clone(), field);
            }
        }
        // A number for a DateTime64 counts seconds, not its ticks; text is
        // read as ClickHouse reads it (`'1234567890'` is a Unix time).
        DataType::Timestamp(..) if number_literal(cell).is_some() || is_text(cell) => {
            *cell = cast_to(cell.clone(), field);
        }
        _ => {}
    }
}

fn is_text(cell: &Expr) -> bool {
    matches!(cell, Expr::Value(v) if matches!(v.value, Value::SingleQuotedString(_)))
}

/// The sign and digits of a number literal, if `cell` is one.
fn number_literal(cell: &Expr) -> Option<(bool, &str)> {
    let (negative, literal) = match cell {
        Expr::UnaryOp {
            op: UnaryOperator::Minus,
            expr,
        } => (true, &**expr),
        other => (false, other),
    };
    match literal {
        Expr::Value(value) => match &value.value {
            Value::Number(text, _) => Some((negative, text.as_str())),
            _ => None,
        },
        _ => None,
    }
}

/// Inside an Array, Tuple or Map literal: NULL where the element's type is
/// not Nullable takes the type's default, and `{...}` is a Map.
fn nested_defaults(cell: &mut Expr, field: &Field) {
    if is_null(cell) && !field.is_nullable() {
        *cell = type_default(field);
        return;
    }
    match (cell, field.data_type()) {
        (Expr::Array(array), DataType::List(element) | DataType::LargeList(element)) => {
            same_typed_items(array.elem.iter_mut(), element);
        }
        (Expr::Tuple(items), DataType::Struct(fields)) if items.len() == fields.len() => {
            for (item, field) in items.iter_mut().zip(fields) {
                nested_defaults(item, field);
            }
        }
        (cell @ Expr::Dictionary(_), DataType::Map(entries, _)) => {
            let Expr::Dictionary(pairs) = cell else {
                unreachable!("matched as a dictionary")
            };
            if pairs.is_empty() {
                *cell = type_default(field);
                return;
            }
            let DataType::Struct(key_value) = entries.data_type() else {
                unreachable!("a Map's entries are a struct")
            };
            let mut values: Vec<Expr> = pairs.iter().map(|p| (*p.value).clone()).collect();
            same_typed_items(values.iter_mut(), &key_value[1]);
            let mut args = Vec::new();
            for (pair, value) in pairs.iter().zip(values) {
                args.push(string_literal(&pair.key.value));
                args.push(value);
            }
            *cell = call("map", args);
        }
        _ => {}
    }
}

/// The items of one Array or the values of one Map: where a NULL takes its
/// type's default, every item is cast to that type too, for the items to
/// share a type (text and a DateTime default would not).
fn same_typed_items<'a>(items: impl Iterator<Item = &'a mut Expr>, field: &Field) {
    let items: Vec<&mut Expr> = items.collect();
    let defaults = !field.is_nullable() && items.iter().any(|item| is_null(item));
    for item in items {
        let cast = defaults && !is_null(item);
        nested_defaults(item, field);
        if cast {
            *item = cast_to(item.clone(), field);
        }
    }
}

/// `field`'s type's default value.
fn type_default(field: &Field) -> Expr {
    call(
        "defaultValueOfTypeName",
        vec![string_literal(&field_type_name(field))],
    )
}

/// An integer literal for an integer column: out of range, it wraps to the
/// column's width; with a fraction, it is truncated toward zero.
fn wrap_integer(cell: &mut Expr, data_type: &DataType) {
    let Some((negative, text)) = number_literal(cell) else {
        return;
    };
    let magnitude = match text.parse::<i128>() {
        Ok(whole) => whole,
        Err(_) => match text.parse::<f64>() {
            Ok(float) if float.is_finite() && float.abs() < 1e38 => float.trunc() as i128,
            _ => return,
        },
    };
    let number = if negative { -magnitude } else { magnitude };
    let wrapped = wrap_to(number, data_type);
    if wrapped == number && !text.contains(['.', 'e', 'E']) {
        return;
    }
    let digits = Expr::value(Value::Number(wrapped.unsigned_abs().to_string(), false));
    *cell = match wrapped < 0 {
        true => Expr::UnaryOp {
            op: UnaryOperator::Minus,
            expr: Box::new(digits),
        },
        false => digits,
    };
}

/// `number` as an integer of `data_type` would hold its low bits.
fn wrap_to(number: i128, data_type: &DataType) -> i128 {
    match data_type {
        DataType::Int8 => number as i8 as i128,
        DataType::Int16 => number as i16 as i128,
        DataType::Int32 => number as i32 as i128,
        DataType::Int64 => number as i64 as i128,
        DataType::UInt8 => number as u8 as i128,
        DataType::UInt16 => number as u16 as i128,
        DataType::UInt32 => number as u32 as i128,
        DataType::UInt64 => number as u64 as i128,
        _ => number,
    }
}

/// `value` cast to `field`'s type by Strata's conversion, as ClickHouse's.
fn cast_to(value: Expr, field: &Field) -> Expr {
    call(
        "_CAST",
        vec![value, string_literal(&field_type_name(field))],
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse_expr_text;

    fn converted(cell: &str, field: Field, default: Option<&str>) -> String {
        let mut row = vec![parse_expr_text(cell).unwrap()];
        let target = CellTarget {
            name: "c",
            field: &field,
            default: default.map(|d| parse_expr_text(d).unwrap()),
        };
        convert_row(&mut row, &[target]).unwrap();
        row[0].to_string().replace('"', "")
    }

    #[test]
    fn integers_wrap_and_truncate() {
        let byte = || Field::new("c", DataType::UInt8, false);
        assert_eq!(converted("-1", byte(), None), "255");
        assert_eq!(converted("300", byte(), None), "44");
        assert_eq!(converted("1.7", byte(), None), "1");
        assert_eq!(converted("7", byte(), None), "7");
        let small = Field::new("c", DataType::Int8, false);
        assert_eq!(converted("200", small, None), "-56");
    }

    #[test]
    fn null_and_default_take_the_column_default() {
        let byte = || Field::new("c", DataType::UInt8, false);
        assert_eq!(
            converted("NULL", byte(), None),
            "defaultValueOfTypeName('UInt8')"
        );
        assert_eq!(
            converted("DEFAULT", byte(), Some("3 + 4")),
            "_CAST((3 + 4), 'UInt8')"
        );
        let nullable = Field::new("c", DataType::UInt8, true);
        assert_eq!(converted("NULL", nullable, None), "NULL");
    }

    #[test]
    fn a_default_reads_the_rows_other_cells() {
        let a = Field::new("a", DataType::UInt8, false);
        let b = Field::new("b", DataType::UInt8, false);
        let mut row = vec![
            parse_expr_text("2").unwrap(),
            parse_expr_text("DEFAULT").unwrap(),
        ];
        let targets = [
            CellTarget {
                name: "a",
                field: &a,
                default: None,
            },
            CellTarget {
                name: "b",
                field: &b,
                default: Some(parse_expr_text("a * 10").unwrap()),
            },
        ];
        convert_row(&mut row, &targets).unwrap();
        assert_eq!(
            row[1].to_string().replace('"', ""),
            "_CAST(((2) * 10), 'UInt8')"
        );
    }

    #[test]
    fn a_default_reading_a_column_not_listed_is_refused() {
        let b = Field::new("b", DataType::UInt8, false);
        let mut row = vec![parse_expr_text("DEFAULT").unwrap()];
        let targets = [CellTarget {
            name: "b",
            field: &b,
            default: Some(parse_expr_text("a * 10").unwrap()),
        }];
        let error = convert_row(&mut row, &targets).unwrap_err();
        assert_eq!(error.code, ErrorCode::NOT_IMPLEMENTED);
    }

    #[test]
    fn maps_and_nested_nulls() {
        let entries = Field::new(
            "entries",
            DataType::Struct(
                vec![
                    Field::new("key", DataType::Utf8, false),
                    Field::new("value", DataType::UInt8, false),
                ]
                .into(),
            ),
            false,
        );
        let map = || Field::new("c", DataType::Map(entries.clone().into(), false), false);
        assert_eq!(
            converted("{'a': 1, 'b': NULL}", map(), None),
            "_CAST(map('a', _CAST(1, 'UInt8'), 'b', defaultValueOfTypeName('UInt8')), 'Map(String, UInt8)')"
        );
        let list = Field::new(
            "c",
            DataType::List(Field::new("item", DataType::UInt8, false).into()),
            false,
        );
        assert_eq!(
            converted("[1, NULL]", list, None),
            "_CAST([_CAST(1, 'UInt8'), defaultValueOfTypeName('UInt8')], 'Array(UInt8)')"
        );
    }
}
