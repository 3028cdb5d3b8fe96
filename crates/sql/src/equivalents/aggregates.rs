//! ClickHouse aggregates DataFusion has under another name or form.

use datafusion::sql::sqlparser::ast::{
    DuplicateTreatment, Expr, Function, FunctionArguments, Ident, ObjectName, ObjectNamePart,
};
use strata_common::Result;

/// The ClickHouse names rewritten here.
pub(super) const NAMES: &[&str] = &["countDistinct", "groupUniqArray"];

/// The DataFusion aggregate a ClickHouse one is, and whether it is its DISTINCT form.
pub fn renamed(name: &str) -> Option<(&'static str, bool)> {
    Some(match name {
        "countDistinct" => ("count", true),
        "groupUniqArray" => ("array_agg", true),
        _ => return None,
    })
}

/// The aggregate call `f`, named `name`, as DataFusion plans it, if it is
/// one of [`NAMES`]; DISTINCT, FILTER and OVER stay as written.
pub fn aggregate(f: &Function, name: &str) -> Result<Option<Expr>> {
    let Some((to, distinct)) = renamed(name) else {
        return Ok(None);
    };
    let mut call = f.clone();
    call.name = ObjectName(vec![ObjectNamePart::Identifier(Ident::new(to))]);
    let FunctionArguments::List(list) = &mut call.args else {
        return Ok(None);
    };
    if distinct {
        list.duplicate_treatment = Some(DuplicateTreatment::Distinct);
    }
    Ok(Some(Expr::Function(call)))
}
