//! The `format(Format, ['structure',] data)`, `file(path, Format,
//! structure)` and `s3(url, [NOSIGN,] Format)` table functions name their
//! format (and `auto`, `NOSIGN`) as a bare word (`format(CSV, ...)`),
//! which DataFusion would read as a column of no table; here that word
//! becomes the string `'CSV'`.

use std::ops::ControlFlow;

use datafusion::sql::sqlparser::ast::{
    Expr, FunctionArg, FunctionArgExpr, ObjectNamePart, Statement, TableFactor, VisitMut,
    VisitorMut,
};

use crate::ast_rewrite::string_literal;

/// The table function's name.
pub const NAME: &str = "format";

/// Each table function's arguments that may be bare words.
const BARE_WORDS: &[(&str, &[usize])] = &[
    (NAME, &[0]),
    ("file", &[1, 2]),
    // NOSIGN, and formats after credentials.
    ("s3", &[1, 2, 3, 4, 5]),
];

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
        let [ObjectNamePart::Identifier(function)] = name.0.as_slice() else {
            return ControlFlow::Continue(());
        };
        let Some((_, positions)) = BARE_WORDS.iter().find(|(f, _)| function.value == *f) else {
            return ControlFlow::Continue(());
        };
        for &position in *positions {
            if let Some(FunctionArg::Unnamed(FunctionArgExpr::Expr(arg))) =
                args.args.get_mut(position)
                && let Expr::Identifier(word) = arg
            {
                *arg = string_literal(&word.value);
            }
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
        let mut statement = parse_statement("SELECT * FROM file('d.csv', CSVWithNames, auto)")
            .unwrap()
            .statement;
        quote_format_names(&mut statement);
        assert_eq!(
            statement.to_string(),
            "SELECT * FROM file('d.csv', 'CSVWithNames', 'auto')"
        );
    }
}
