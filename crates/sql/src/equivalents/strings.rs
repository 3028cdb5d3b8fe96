//! ClickHouse string, search, replacement, splitting, encoding and URL functions that are rewritten to DataFusion expressions
//! (see the parent module); functions with their own semantics are UDFs in
//! `strata-functions`.
//!
//! - `trimLeft/trimRight/trimBoth(s, characters)` are DataFusion's
//!   `ltrim/rtrim/btrim` with the same characters (the one-argument forms
//!   are the parent module's).
//! - `REGEXP_REPLACE` (any case) is `replaceRegexpAll`: DataFusion's
//!   `regexp_replace` replaces every match only with the `g` flag.

use datafusion::sql::sqlparser::ast::{Expr, Value};
use strata_common::{ErrorCode, Result, StrataError};

use crate::ast_rewrite::call;

/// The names rewritten here, for `system.functions`.
pub const NAMES: &[&str] = &["REGEXP_REPLACE"];

fn all(args: &[&Expr]) -> Vec<Expr> {
    args.iter().map(|a| (*a).clone()).collect()
}

/// `name(args)` as DataFusion plans it, if `name` is one of [`NAMES`].
pub fn equivalent(name: &str, args: &[&Expr]) -> Result<Option<Expr>> {
    let trim = match name {
        "trimLeft" => Some("ltrim"),
        "trimRight" => Some("rtrim"),
        "trimBoth" => Some("btrim"),
        _ => None,
    };
    // A FixedString is trimmed as its text (toString of a String is itself).
    if let Some(trim) = trim
        && let [text, characters] = args
    {
        let text = call("toString", vec![(*text).clone()]);
        return Ok(Some(call(trim, vec![text, (*characters).clone()])));
    }
    if name.eq_ignore_ascii_case("REGEXP_REPLACE") {
        if args.len() != 3 {
            return Err(StrataError::new(
                ErrorCode::NUMBER_OF_ARGUMENTS_DOESNT_MATCH,
                format!(
                    "Number of arguments for function {name} doesn't match: passed {}, should be 3",
                    args.len()
                ),
            ));
        }
        let mut global = all(args);
        global.push(Expr::value(Value::SingleQuotedString("g".into())));
        return Ok(Some(call("regexp_replace", global)));
    }
    Ok(None)
}
