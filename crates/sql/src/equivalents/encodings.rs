//! ClickHouse's encodings functions that are rewritten to DataFusion expressions
//! (see the parent module); functions with their own semantics are UDFs in
//! `strata-functions`.

use datafusion::sql::sqlparser::ast::Expr;
use strata_common::Result;

/// The names rewritten here, for `system.functions`.
pub const NAMES: &[&str] = &[];

/// `name(args)` as DataFusion plans it, if `name` is one of [`NAMES`].
pub fn equivalent(name: &str, args: &[&Expr]) -> Result<Option<Expr>> {
    let _ = (name, args);
    Ok(None)
}
