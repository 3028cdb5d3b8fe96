//! The `format(Format, ['structure',] data)` table function names its format
//! as a bare word (`format(CSV, ...)`), which DataFusion would read as a
//! column of no table; here that word becomes the string `'CSV'`.

use std::ops::ControlFlow;

use datafusion::sql::sqlparser::ast::{
    Expr, FunctionArg, FunctionArgExpr, ObjectNamePart, Statement, TableFactor, VisitMut,
    VisitorMut,
};

use crate::ast_rewrite::string_literal;

/// The table function's name.
pub const NAME: &str = "format";

/// Writes the format names of `statement`'s `format(...)` table functions
/// as strings.
pub fn quote_format_names(statement: &mut Statement) {
    let _ = statement.visit(&mut Quoter);
}

struct Quoter;

impl VisitorMut for Quoter {
    type Break = ();

    fn pre_visit_table_factor(&mut self, factor: &mut TableFactor) -> ControlFlow<()> {
        let TableFactor::Table {
            name,
            args: Some(args),
            ..
        } = factor
        else {
            return ControlFlow::Continue(());
        };
        let is_format = matches!(name.0.as_slice(),
            [ObjectNamePart::Identifier(f)] if f.value == NAME);
        if let Some(FunctionArg::Unnamed(FunctionArgExpr::Expr(first))) = args.args.first_mut()
            && is_format
            && let Expr::Identifier(format) = first
        {
            *first = string_literal(&format.value);
        }
        ControlFlow::Continue(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse_statement;

    #[test]
    fn the_format_word_becomes_a_string() {
        let mut statement = parse_statement("SELECT * FROM format(CSV, 'a UInt8', '1')")
            .unwrap()
            .statement;
        quote_format_names(&mut statement);
        assert_eq!(
            statement.to_string(),
            "SELECT * FROM format('CSV', 'a UInt8', '1')"
        );
    }
}
