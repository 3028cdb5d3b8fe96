//! Type names as ClickHouse prints them for people (`toTypeName`,
//! DESCRIBE, SHOW CREATE; its `print_pretty_type_names`, on by default):
//! each element of a named tuple on a line of its own, four spaces deeper
//! than the tuple; in a CREATE statement, of every tuple. Formats and
//! `system.columns` keep the one-line name.

use std::ops::ControlFlow;

/// Which tuples a pretty name spreads over lines.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Spread {
    /// Named tuples, as `toTypeName` and DESCRIBE print them.
    Named,
    /// Every tuple, as a CREATE statement prints them.
    All,
}

/// `name` (a one-line type name) with its tuples spread over lines as
/// `spread` says, the outermost tuple's elements at `indent` + 4 spaces.
pub fn pretty_type_name(name: &str, indent: usize, spread: Spread) -> String {
    let mut out = String::with_capacity(name.len() * 2);
    write_pretty(name.trim(), indent, spread, &mut out);
    out
}

fn write_pretty(name: &str, indent: usize, spread: Spread, out: &mut String) {
    let Some((head, args)) = split_call(name) else {
        out.push_str(name);
        return;
    };
    let args = split_arguments(args);
    let named: Option<Vec<(&str, &str)>> = match head {
        "Tuple" if !args.is_empty() => args.iter().map(|a| named_element(a)).collect(),
        _ => None,
    };
    let elements = match (named, spread) {
        (Some(named), _) => Some(named),
        (None, Spread::All) if head == "Tuple" && !args.is_empty() => {
            Some(args.iter().map(|a| ("", *a)).collect())
        }
        (None, _) => None,
    };
    out.push_str(head);
    out.push('(');
    match elements {
        Some(elements) => {
            let last = elements.len() - 1;
            for (i, (element, type_name)) in elements.into_iter().enumerate() {
                out.push('\n');
                out.extend(std::iter::repeat_n(' ', indent + 4));
                if !element.is_empty() {
                    out.push_str(element);
                    out.push(' ');
                }
                write_pretty(type_name, indent + 4, spread, out);
                if i < last {
                    out.push(',');
                }
            }
        }
        None => {
            for (i, arg) in args.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_pretty(arg, indent, spread, out);
            }
        }
    }
    out.push(')');
}

/// `Head(args)` as `Head` and `args`, where `Head` is a type's name.
fn split_call(name: &str) -> Option<(&str, &str)> {
    let open = name.find('(')?;
    let head = &name[..open];
    let is_name = !head.is_empty() && head.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    let args = name[open + 1..].strip_suffix(')')?;
    is_name.then_some((head, args))
}

/// The arguments of a type, split at the commas outside parentheses and quotes.
fn split_arguments(args: &str) -> Vec<&str> {
    let mut parts = Vec::new();
    let mut start = 0;
    scan_unquoted(args, |i, c, depth| {
        if c == ',' && depth == 0 {
            parts.push(args[start..i].trim());
            start = i + 1;
        }
        ControlFlow::Continue(())
    });
    let last = args[start..].trim();
    if !last.is_empty() || !parts.is_empty() {
        parts.push(last);
    }
    parts
}

/// Walks `text` (a type's name or its arguments), calling `visit` with the
/// place, the character and the parenthesis depth around it for each
/// character outside quoted names and strings, until `visit` breaks.
pub fn scan_unquoted(text: &str, mut visit: impl FnMut(usize, char, usize) -> ControlFlow<()>) {
    let (mut depth, mut quote) = (0usize, None);
    let mut chars = text.char_indices();
    while let Some((i, c)) = chars.next() {
        match (quote, c) {
            (Some(_), '\\') => {
                chars.next();
            }
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '\'' | '`' | '"') => quote = Some(c),
            (None, c) => {
                if c == ')' {
                    depth = depth.saturating_sub(1);
                }
                if visit(i, c, depth).is_break() {
                    return;
                }
                if c == '(' {
                    depth += 1;
                }
            }
        }
    }
}

/// A named tuple element `name Type` (the name maybe back-quoted) as its
/// name and type; None for an unnamed element, whose type has no space
/// before its first parenthesis.
fn named_element(element: &str) -> Option<(&str, &str)> {
    let name_end = match element.strip_prefix('`') {
        Some(rest) => rest.find('`')? + 2,
        None => element.find(' ')?,
    };
    let (name, type_name) = element.split_at(name_end);
    if name.contains('(') || !type_name.starts_with(' ') {
        return None;
    }
    Some((name, type_name.trim()))
}

#[cfg(test)]
mod tests {
    use super::{Spread, pretty_type_name};

    #[test]
    fn named_tuples_spread_over_lines() {
        assert_eq!(
            pretty_type_name(
                "Tuple(a UInt8, b Tuple(c UInt8, `d.e` String))",
                0,
                Spread::Named
            ),
            "Tuple(\n    a UInt8,\n    b Tuple(\n        c UInt8,\n        `d.e` String))"
        );
        assert_eq!(
            pretty_type_name(
                "Map(String, Tuple(a UInt8, b Tuple(UInt8, UInt8)))",
                4,
                Spread::Named
            ),
            "Map(String, Tuple(\n        a UInt8,\n        b Tuple(UInt8, UInt8)))"
        );
        assert_eq!(
            pretty_type_name("Array(Tuple(UInt8, Tuple(a String)))", 4, Spread::All),
            "Array(Tuple(\n        UInt8,\n        Tuple(\n            a String)))"
        );
    }

    #[test]
    fn other_types_keep_one_line() {
        for name in [
            "Tuple(UInt8, Nullable(String))",
            "DateTime64(3, 'UTC')",
            "Enum8('a, b(' = 1, 'c' = 2)",
            "Array(LowCardinality(String))",
            "AggregateFunction(quantiles(0.5, 0.9), UInt64)",
            "UInt8",
        ] {
            assert_eq!(pretty_type_name(name, 0, Spread::Named), name);
        }
    }
}
