//! `FROM t FINAL`: the token pass writes the modifier as the table hint
//! `WITH (FINAL)` (see [`crate::clickhouse_tokens`]); here the hint comes
//! off the parsed statement, so DataFusion plans a plain table, and the
//! engine learns which tables to read with FINAL.

use std::ops::ControlFlow;

use datafusion::sql::sqlparser::ast::{
    Expr, ObjectName, Statement, TableFactor, VisitMut, VisitorMut,
};

use crate::clickhouse_tokens::FINAL_HINT;

/// The tables `statement` reads with FINAL, as written; their hints are
/// removed.
pub fn take_final_tables(statement: &mut Statement) -> Vec<ObjectName> {
    let mut visitor = FinalTables(Vec::new());
    let _ = statement.visit(&mut visitor);
    visitor.0
}

struct FinalTables(Vec<ObjectName>);

impl VisitorMut for FinalTables {
    type Break = ();

    fn pre_visit_table_factor(&mut self, factor: &mut TableFactor) -> ControlFlow<()> {
        if let TableFactor::Table {
            name, with_hints, ..
        } = factor
        {
            let is_final = |hint: &Expr| matches!(hint, Expr::Identifier(ident) if ident.value.eq_ignore_ascii_case(FINAL_HINT));
            if with_hints.len() == 1 && is_final(&with_hints[0]) {
                with_hints.clear();
                self.0.push(name.clone());
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
    fn final_comes_off_the_tables_that_have_it() {
        let mut statement = parse_statement(
            "SELECT * FROM db.t AS a FINAL JOIN u ON a.k = u.k WHERE k IN (SELECT k FROM v FINAL)",
        )
        .unwrap()
        .statement;
        let names: Vec<String> = take_final_tables(&mut statement)
            .iter()
            .map(|n| n.to_string())
            .collect();
        assert_eq!(names, ["db.t", "v"]);
        assert!(!statement.to_string().contains("FINAL"));
        let mut optimize = parse_statement("OPTIMIZE TABLE t FINAL").unwrap().statement;
        assert!(take_final_tables(&mut optimize).is_empty());
    }
}
