//! ClickHouse's names for unaliased result columns.
//!
//! ClickHouse names a column after its expression written in function form:
//! `number % 10000` is `modulo(number, 10000)`, `count(*)` is `count()`, `1e9` is
//! `1000000000.`. Headers in TSVWithNames, JSON and Pretty output show these names,
//! so the SQL front aliases every unaliased select item with them before planning.

use datafusion::sql::sqlparser::ast::{
    AccessExpr, BinaryOperator, CastKind, DataType, Expr, FunctionArg, FunctionArgExpr,
    FunctionArguments, ObjectNamePart, OneOrManyWithParens, Subscript, UnaryOperator, Value,
    WindowSpec, WindowType,
};

/// The ClickHouse column name of `expr`.
pub fn column_name(expr: &Expr) -> String {
    let mut out = String::new();
    write_expr(expr, &mut out);
    out
}

fn function(name: &str, args: &[&Expr], out: &mut String) {
    out.push_str(name);
    out.push('(');
    for (i, arg) in args.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        write_expr(arg, out);
    }
    out.push(')');
}

fn binary_function(op: &BinaryOperator) -> Option<&'static str> {
    Some(match op {
        BinaryOperator::Plus => "plus",
        BinaryOperator::Minus => "minus",
        BinaryOperator::Multiply => "multiply",
        BinaryOperator::Divide => "divide",
        BinaryOperator::Modulo => "modulo",
        BinaryOperator::Eq => "equals",
        BinaryOperator::NotEq => "notEquals",
        BinaryOperator::Lt => "less",
        BinaryOperator::Gt => "greater",
        BinaryOperator::LtEq => "lessOrEquals",
        BinaryOperator::GtEq => "greaterOrEquals",
        BinaryOperator::And => "and",
        BinaryOperator::Or => "or",
        BinaryOperator::StringConcat => "concat",
        _ => return None,
    })
}

/// Number literals as ClickHouse prints them: integers as written, floats in
/// shortest form with a trailing `.` when whole (`1e9` is `1000000000.`).
pub fn number_literal(text: &str) -> String {
    if text.parse::<u64>().is_ok() {
        return text.to_string();
    }
    match text.parse::<f64>() {
        Ok(v) if v.is_finite() => {
            let formatted = strata_formats_float(v);
            if formatted.contains(['.', 'e']) {
                formatted
            } else {
                format!("{formatted}.")
            }
        }
        _ => text.to_string(),
    }
}

fn strata_formats_float(v: f64) -> String {
    use datafusion::arrow::array::Float64Array;
    let array = Float64Array::from(vec![v]);
    let mut out = String::new();
    strata_formats::value::write_value(
        &array,
        0,
        strata_formats::Style::Raw,
        Default::default(),
        &mut out,
    );
    out
}

fn write_value(value: &Value, out: &mut String) {
    match value {
        Value::Number(text, _) => out.push_str(&number_literal(text)),
        Value::SingleQuotedString(s) | Value::DoubleQuotedString(s) => {
            out.push('\'');
            for c in s.chars() {
                match c {
                    '\'' => out.push_str("\\'"),
                    '\\' => out.push_str("\\\\"),
                    '\n' => out.push_str("\\n"),
                    '\t' => out.push_str("\\t"),
                    c => out.push(c),
                }
            }
            out.push('\'');
        }
        Value::Boolean(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Null => out.push_str("NULL"),
        other => out.push_str(&other.to_string()),
    }
}

fn write_expr(expr: &Expr, out: &mut String) {
    match expr {
        Expr::Identifier(ident) => out.push_str(&ident.value),
        // A column is named by its own name, however it was qualified
        // (`join_columns` names a joined column `r.a` where it must).
        Expr::CompoundIdentifier(parts) => {
            out.push_str(parts.last().map_or("", |p| p.value.as_str()));
        }
        Expr::Value(v) => write_value(&v.value, out),
        Expr::Nested(inner) => write_expr(inner, out),
        Expr::UnaryOp {
            op: UnaryOperator::Minus,
            expr,
        } => match expr.as_ref() {
            Expr::Value(v) if matches!(v.value, Value::Number(..)) => {
                out.push('-');
                write_value(&v.value, out);
            }
            inner => function("negate", &[inner], out),
        },
        Expr::UnaryOp {
            op: UnaryOperator::Not,
            expr,
        } => function("not", &[expr], out),
        Expr::UnaryOp {
            op: UnaryOperator::Plus,
            expr,
        } => write_expr(expr, out),
        Expr::BinaryOp { left, op, right } => match binary_function(op) {
            Some(name) => function(name, &[left, right], out),
            None => out.push_str(&expr.to_string()),
        },
        Expr::IsNull(inner) => function("isNull", &[inner], out),
        Expr::IsNotNull(inner) => function("isNotNull", &[inner], out),
        // ClickHouse names BETWEEN by the two comparisons it stands for.
        Expr::Between {
            expr,
            negated,
            low,
            high,
        } => {
            let (join, below, above) = match negated {
                false => ("and", "greaterOrEquals", "lessOrEquals"),
                true => ("or", "less", "greater"),
            };
            out.push_str(join);
            out.push('(');
            function(below, &[expr, low], out);
            out.push_str(", ");
            function(above, &[expr, high], out);
            out.push(')');
        }
        Expr::Case {
            operand,
            conditions,
            else_result,
            ..
        } => {
            let null = Expr::value(Value::Null);
            let mut args: Vec<&Expr> = operand.as_deref().into_iter().collect();
            for when in conditions {
                args.extend([&when.condition, &when.result]);
            }
            args.push(else_result.as_deref().unwrap_or(&null));
            let name = match operand {
                Some(_) => "caseWithExpression",
                None => "multiIf",
            };
            function(name, &args, out);
        }
        Expr::CompoundFieldAccess { root, access_chain } => {
            let mut name = column_name(root);
            for access in access_chain {
                let AccessExpr::Subscript(Subscript::Index { index }) = access else {
                    out.push_str(&expr.to_string());
                    return;
                };
                name = format!("arrayElement({name}, {})", column_name(index));
            }
            out.push_str(&name);
        }
        Expr::Like {
            negated,
            expr,
            pattern,
            ..
        } => function(
            if *negated { "notLike" } else { "like" },
            &[expr, pattern],
            out,
        ),
        Expr::InList {
            expr,
            list,
            negated,
        } => {
            out.push_str(if *negated { "notIn(" } else { "in(" });
            write_expr(expr, out);
            out.push_str(", (");
            for (i, item) in list.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_expr(item, out);
            }
            out.push_str("))");
        }
        Expr::Cast {
            kind: kind @ (CastKind::Cast | CastKind::DoubleColon),
            expr,
            data_type,
            ..
        } => {
            out.push_str("CAST(");
            match (kind, expr.as_ref()) {
                // ClickHouse reads `1::UInt8` as the text `'1'` cast.
                (CastKind::DoubleColon, Expr::Value(v)) if let Value::Number(n, _) = &v.value => {
                    write_value(&Value::SingleQuotedString(n.clone()), out);
                }
                _ => write_expr(expr, out),
            }
            out.push_str(&format!(", '{}')", clickhouse_type_text(data_type)));
        }
        Expr::Array(array) => {
            out.push('[');
            for (i, item) in array.elem.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_expr(item, out);
            }
            out.push(']');
        }
        Expr::Interval(interval)
            if let Some(made) = crate::ast_rewrite::interval_function(interval) =>
        {
            write_expr(&made, out);
        }
        Expr::TypedString(typed)
            if let Some(made) = crate::ast_rewrite::typed_string_function(typed) =>
        {
            write_expr(&made, out);
        }
        Expr::Tuple(items) => {
            out.push('(');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_expr(item, out);
            }
            out.push(')');
        }
        // ClickHouse shows `x -> body` as `lambda(tuple(x), body)`.
        Expr::Lambda(lambda) => {
            let parameters: Vec<Expr> = match &lambda.params {
                OneOrManyWithParens::One(p) => vec![Expr::Identifier(p.name.clone())],
                OneOrManyWithParens::Many(ps) => ps
                    .iter()
                    .map(|p| Expr::Identifier(p.name.clone()))
                    .collect(),
            };
            let mut tuple = String::new();
            function("tuple", &parameters.iter().collect::<Vec<_>>(), &mut tuple);
            out.push_str("lambda(");
            out.push_str(&tuple);
            out.push_str(", ");
            write_expr(&lambda.body, out);
            out.push(')');
        }
        Expr::Function(f) if f.filter.is_none() => {
            // A quoted name (as `call` quotes mixed case) shows unquoted.
            let mut name = match f.name.0.as_slice() {
                [ObjectNamePart::Identifier(ident)] => ident.value.clone(),
                _ => f.name.to_string(),
            };
            // ClickHouse shows `cast(x, 'T')` in any case as `CAST`.
            if name.eq_ignore_ascii_case("cast") {
                name = "CAST".to_string();
            }
            let FunctionArguments::List(list) = &f.args else {
                out.push_str(&name);
                out.push_str("()");
                return;
            };
            let mut args: Vec<&Expr> = Vec::new();
            for arg in &list.args {
                match arg {
                    FunctionArg::Unnamed(FunctionArgExpr::Expr(e)) => args.push(e),
                    FunctionArg::Unnamed(FunctionArgExpr::Wildcard)
                        if name.eq_ignore_ascii_case("count") => {}
                    _ => {
                        out.push_str(&expr.to_string());
                        return;
                    }
                }
            }
            if let Ok(Some(moved)) = crate::equivalents::dates::moved(&name, &args) {
                return write_expr(&moved, out);
            }
            // `f(DISTINCT x)` shows as ClickHouse's `fDistinct(x)`.
            let distinct = list
                .duplicate_treatment
                .is_some_and(|d| d.to_string() == "DISTINCT");
            if distinct {
                name.push_str("Distinct");
            }
            // A parametric aggregate, `quantile(0.9)(x)`, shows its parameters.
            let name = match &f.parameters {
                FunctionArguments::List(parameters) => {
                    let parameters: Option<Vec<&Expr>> = parameters
                        .args
                        .iter()
                        .map(|p| match p {
                            FunctionArg::Unnamed(FunctionArgExpr::Expr(e)) => Some(e),
                            _ => None,
                        })
                        .collect();
                    let Some(parameters) = parameters else {
                        out.push_str(&expr.to_string());
                        return;
                    };
                    let mut with_parameters = String::new();
                    function(&name, &parameters, &mut with_parameters);
                    with_parameters
                }
                _ => name,
            };
            function(&name, &args, out);
            match &f.over {
                Some(WindowType::WindowSpec(spec)) => write_window(spec, out),
                Some(WindowType::NamedWindow(name)) => out.push_str(&format!(" OVER {name}")),
                None => {}
            }
        }
        other => out.push_str(&other.to_string()),
    }
}

/// ` OVER (...)` as ClickHouse names it: keys in function form, and each
/// ORDER BY key with its direction.
fn write_window(spec: &WindowSpec, out: &mut String) {
    let mut parts: Vec<String> = Vec::new();
    if let Some(name) = &spec.window_name {
        parts.push(name.to_string());
    }
    if !spec.partition_by.is_empty() {
        let keys: Vec<String> = spec.partition_by.iter().map(column_name).collect();
        parts.push(format!("PARTITION BY {}", keys.join(", ")));
    }
    if !spec.order_by.is_empty() {
        let keys: Vec<String> = spec
            .order_by
            .iter()
            .map(|key| {
                let direction = match key.options.asc {
                    Some(false) => "DESC",
                    _ => "ASC",
                };
                let nulls = match key.options.nulls_first {
                    Some(true) => " NULLS FIRST",
                    Some(false) => " NULLS LAST",
                    None => "",
                };
                format!("{} {direction}{nulls}", column_name(&key.expr))
            })
            .collect();
        parts.push(format!("ORDER BY {}", keys.join(", ")));
    }
    if let Some(frame) = &spec.window_frame {
        parts.push(match &frame.end_bound {
            Some(end) => format!("{} BETWEEN {} AND {end}", frame.units, frame.start_bound),
            None => format!("{} {}", frame.units, frame.start_bound),
        });
    }
    out.push_str(&format!(" OVER ({})", parts.join(" ")));
}

#[cfg(test)]
mod tests {
    use super::*;
    use datafusion::sql::sqlparser::dialect::ClickHouseDialect;
    use datafusion::sql::sqlparser::parser::Parser;

    fn name_of(sql: &str) -> String {
        let expr = Parser::new(&ClickHouseDialect {})
            .try_with_sql(sql)
            .unwrap()
            .parse_expr()
            .unwrap();
        column_name(&expr)
    }

    #[test]
    fn names_follow_clickhouse() {
        assert_eq!(name_of("number % 10000"), "modulo(number, 10000)");
        assert_eq!(
            name_of("0 + (number % 10000)"),
            "plus(0, modulo(number, 10000))"
        );
        assert_eq!(name_of("count()"), "count()");
        assert_eq!(name_of("count(*)"), "count()");
        assert_eq!(name_of("1e9"), "1000000000.");
        assert_eq!(name_of("1.5"), "1.5");
        assert_eq!(name_of("-1"), "-1");
        assert_eq!(name_of("'a''b'"), "'a\\'b'");
        assert_eq!(name_of("toTypeName(1)"), "toTypeName(1)");
        assert_eq!(name_of("[1, 2]"), "[1, 2]");
        assert_eq!(
            name_of("arrayMap((x, y) -> x + y, a, b)"),
            "arrayMap(lambda(tuple(x, y), plus(x, y)), a, b)"
        );
        assert_eq!(name_of("a = 1 AND b"), "and(equals(a, 1), b)");
        assert_eq!(
            name_of("x NOT BETWEEN 1 AND 3"),
            "or(less(x, 1), greater(x, 3))"
        );
        assert_eq!(name_of("CASE WHEN a THEN 2 END"), "multiIf(a, 2, NULL)");
        assert_eq!(
            name_of("CASE a WHEN 1 THEN 2 ELSE 3 END"),
            "caseWithExpression(a, 1, 2, 3)"
        );
        assert_eq!(name_of("1::UInt8"), "CAST('1', 'UInt8')");
        assert_eq!(name_of("[1, 2][1]"), "arrayElement([1, 2], 1)");
        assert_eq!(
            name_of("sum(x) OVER (PARTITION BY k % 2 ORDER BY x, y DESC NULLS FIRST)"),
            "sum(x) OVER (PARTITION BY modulo(k, 2) ORDER BY x ASC, y DESC NULLS FIRST)"
        );
    }
}

/// A type as ClickHouse spells it; sqlparser upper-cases the names it
/// shares with other dialects (`INT8`, `FLOAT64`).
fn clickhouse_type_text(data_type: &DataType) -> String {
    let text = crate::literal_text::type_text(data_type);
    let mut out = String::with_capacity(text.len());
    let mut word = String::new();
    for c in text.chars().chain(std::iter::once(' ')) {
        if c.is_ascii_alphanumeric() {
            word.push(c);
            continue;
        }
        out.push_str(match word.as_str() {
            "INT8" => "Int8",
            "INT16" => "Int16",
            "INT32" => "Int32",
            "INT64" => "Int64",
            "FLOAT32" => "Float32",
            "FLOAT64" => "Float64",
            "STRING" => "String",
            other => other,
        });
        word.clear();
        out.push(c);
    }
    out.pop();
    out
}
