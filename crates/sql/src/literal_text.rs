//! Expressions written back as SQL text that ClickHouse's reading gives
//! back unchanged. sqlparser writes a string literal as standard SQL does,
//! doubling quotes only, so a backslash in it would read as an escape; here
//! strings are written with ClickHouse's escapes (`'x\'y'`, `'a\\'`).
//! Also the reverse for calls' constant arguments: a string literal's text.

use std::ops::ControlFlow;

use datafusion::sql::sqlparser::ast::{
    ArrayElemTypeDef, DataType, EnumMember, Expr, FunctionArg, FunctionArgExpr, FunctionArguments,
    Ident, ObjectName, Value, visit_expressions_mut,
};

use crate::clickhouse_tokens::ZONED_DATE_TIME_SCALE;

/// `expr` as SQL text with its string literals escaped as ClickHouse writes them.
pub fn expr_text(expr: &Expr) -> String {
    let mut expr = expr.clone();
    let _ = visit_expressions_mut(&mut expr, |e| {
        if let Expr::Value(v) = e
            && let Value::SingleQuotedString(s) = &v.value
        {
            v.value = Value::Placeholder(quoted(s));
        }
        ControlFlow::<()>::Continue(())
    });
    expr.to_string()
}

/// `data_type` as ClickHouse's type text: an enum element's name keeps its
/// backslashes (sqlparser only doubles quotes, and a type's text is read
/// with backslash escapes); `DateTime('zone')` is itself again
/// ([`ZONED_DATE_TIME_SCALE`]).
pub fn type_text(data_type: &DataType) -> String {
    let mut data_type = data_type.clone();
    escape_enum_names(&mut data_type);
    data_type.to_string()
}

fn escape_enum_names(data_type: &mut DataType) {
    match data_type {
        DataType::Enum(members, _) => {
            for member in members {
                let (EnumMember::Name(name) | EnumMember::NamedValue(name, _)) = member;
                *name = name.replace('\\', "\\\\");
            }
        }
        DataType::Datetime64(ZONED_DATE_TIME_SCALE, Some(zone)) => {
            let name = ObjectName::from(vec![Ident::new("DateTime")]);
            *data_type = DataType::Custom(name, vec![format!("'{zone}'")]);
        }
        DataType::Nullable(inner)
        | DataType::LowCardinality(inner)
        | DataType::Array(ArrayElemTypeDef::Parenthesis(inner)) => escape_enum_names(inner),
        DataType::Map(key, value) => {
            escape_enum_names(key);
            escape_enum_names(value);
        }
        DataType::Tuple(fields) => fields
            .iter_mut()
            .for_each(|field| escape_enum_names(&mut field.field_type)),
        _ => {}
    }
}

/// `name` as a backquoted identifier, whatever characters it has.
pub fn backquoted(name: &str) -> String {
    format!("`{}`", name.replace('\\', "\\\\").replace('`', "\\`"))
}

/// The text of a string literal, if `expr` is one.
pub fn string_value(expr: &Expr) -> Option<String> {
    match expr {
        Expr::Value(v) => match &v.value {
            Value::SingleQuotedString(s) => Some(s.clone()),
            _ => None,
        },
        _ => None,
    }
}

/// A call's unnamed arguments (named ones and `*` left out).
pub fn unnamed_arguments(args: &FunctionArguments) -> Vec<&Expr> {
    match args {
        FunctionArguments::List(list) => list
            .args
            .iter()
            .filter_map(|arg| match arg {
                FunctionArg::Unnamed(FunctionArgExpr::Expr(e)) => Some(e),
                _ => None,
            })
            .collect(),
        FunctionArguments::None | FunctionArguments::Subquery(_) => Vec::new(),
    }
}

/// `s` as a ClickHouse string literal.
pub fn quoted(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('\'');
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\'' => out.push_str("\\'"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\0' => out.push_str("\\0"),
            '\x08' => out.push_str("\\b"),
            '\x0c' => out.push_str("\\f"),
            other => out.push(other),
        }
    }
    out.push('\'');
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse_statement;
    use datafusion::sql::sqlparser::ast::{SelectItem, SetExpr, Statement};

    #[test]
    fn strings_keep_their_escapes() {
        let Statement::Query(query) = parse_statement(r"SELECT c = 'a\\' OR c = 'x\'y'")
            .unwrap()
            .statement
        else {
            panic!("a query")
        };
        let SetExpr::Select(select) = *query.body else {
            panic!("a select")
        };
        let SelectItem::UnnamedExpr(expr) = &select.projection[0] else {
            panic!("an expression")
        };
        assert_eq!(expr_text(expr), r"c = 'a\\' OR c = 'x\'y'");
    }
}
