//! Views as ClickHouse reads them: a view's query stands in for its name
//! wherever a statement reads it, resolved when the statement runs.

use std::collections::HashMap;
use std::ops::ControlFlow;

use datafusion::sql::sqlparser::ast::{
    Ident, ObjectName, ObjectNamePart, Query, Statement, TableAlias, TableFactor, VisitMut,
    VisitorMut,
};

use crate::virtual_columns::{cte_names, named_table};

/// Qualifies the tables `query` reads by name with `database`, so a view
/// reads the same tables whichever database is current where it is read.
pub fn qualify_tables(query: &mut Query, database: &str) {
    let statement = Statement::Query(Box::new(query.clone()));
    let ctes = cte_names(&statement);
    let _ = query.visit(&mut OnTables(|factor: &mut TableFactor| {
        let Some(name) = named_table(factor, &ctes) else {
            return;
        };
        if name.0.len() == 1 {
            let TableFactor::Table { name, .. } = factor else {
                unreachable!("named_table reads only tables");
            };
            name.0
                .insert(0, ObjectNamePart::Identifier(Ident::new(database)));
        }
    }));
}

/// Puts each view's query, keyed by the name `statement` reads it by, in
/// place of that name, as a subquery under the name's last part or the
/// alias the statement gives it.
pub fn expand(statement: &mut Statement, views: &HashMap<ObjectName, Query>) {
    let ctes = cte_names(statement);
    let _ = statement.visit(&mut OnTables(|factor: &mut TableFactor| {
        let Some(query) = named_table(factor, &ctes).and_then(|name| views.get(name)) else {
            return;
        };
        let TableFactor::Table { name, alias, .. } = factor else {
            unreachable!("named_table reads only tables");
        };
        let alias = alias.clone().or_else(|| {
            name.0
                .last()
                .and_then(|p| p.as_ident())
                .map(|n| TableAlias {
                    explicit: true,
                    name: n.clone(),
                    columns: vec![],
                    at: None,
                })
        });
        *factor = TableFactor::Derived {
            lateral: false,
            subquery: Box::new(query.clone()),
            alias,
            sample: None,
        };
    }));
}

/// Calls its function on every table factor, children first.
struct OnTables<F: FnMut(&mut TableFactor)>(F);

impl<F: FnMut(&mut TableFactor)> VisitorMut for OnTables<F> {
    type Break = ();

    fn post_visit_table_factor(&mut self, factor: &mut TableFactor) -> ControlFlow<()> {
        (self.0)(factor);
        ControlFlow::Continue(())
    }
}

#[cfg(test)]
mod tests {
    use datafusion::sql::sqlparser::dialect::ClickHouseDialect;
    use datafusion::sql::sqlparser::parser::Parser;

    use super::*;

    fn parse(sql: &str) -> Statement {
        Parser::new(&ClickHouseDialect {})
            .try_with_sql(sql)
            .and_then(|mut p| p.parse_statement())
            .unwrap()
    }

    #[test]
    fn tables_but_not_ctes_or_functions_are_qualified() {
        let Statement::Query(mut query) =
            parse("WITH c AS (SELECT 1) SELECT * FROM t, c, numbers(2), other.u")
        else {
            panic!("a query");
        };
        qualify_tables(&mut query, "db");
        assert_eq!(
            query.to_string(),
            "WITH c AS (SELECT 1) SELECT * FROM db.t, c, numbers(2), other.u"
        );
    }

    #[test]
    fn a_view_becomes_a_subquery_under_its_name() {
        let mut statement = parse("SELECT v.a FROM v JOIN w AS x ON v.a = x.a");
        let Statement::Query(view) = parse("SELECT 1 AS a") else {
            panic!("a query");
        };
        let views = HashMap::from([
            (ObjectName::from(vec![Ident::new("v")]), (*view).clone()),
            (ObjectName::from(vec![Ident::new("w")]), *view),
        ]);
        expand(&mut statement, &views);
        assert_eq!(
            statement.to_string(),
            "SELECT v.a FROM (SELECT 1 AS a) AS v JOIN (SELECT 1 AS a) AS x ON v.a = x.a"
        );
    }
}
