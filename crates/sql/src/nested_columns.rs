//! ClickHouse's Nested columns. A table column `n Nested(a T, b U)` is
//! stored as the columns `n.a Array(T)` and `n.b Array(U)` (see the
//! engine's table definitions); here a query's references to them take
//! ClickHouse's meaning:
//!
//! - `n.a` and `t.n.a` name the column `n.a` (DataFusion would read a
//!   column `a` of a relation `n`);
//! - a bare `n` is the structure: the arrays zipped into an array of
//!   tuples, or after `ARRAY JOIN n` the tuple of its elements;
//! - `ARRAY JOIN n [AS m]` joins every array of `n` at once (see
//!   [`crate::array_join`]), naming the elements `n.a` (or `m.a`).
//!
//! The engine passes the dotted column names of the tables a statement
//! reads; a statement reading none is left as it is.

use std::collections::HashSet;
use std::ops::ControlFlow;

use datafusion::sql::sqlparser::ast::{
    AccessExpr, Expr, Function, FunctionArg, FunctionArgExpr, FunctionArgumentList,
    FunctionArguments, Ident, ObjectName, ObjectNamePart, Query, Select, SelectItem, Statement,
    TableFactor, VisitMut, VisitorMut,
};

use crate::select_probes::selects_of;

/// The dotted column names (`n.a`) of the tables a statement reads, in
/// their tables' column order.
#[derive(Debug, Clone, Default)]
pub struct NestedNames {
    columns: Vec<String>,
}

impl NestedNames {
    /// The names among `columns` that have a period: those Nested gives.
    pub fn new(columns: impl IntoIterator<Item = String>) -> NestedNames {
        let mut seen = HashSet::new();
        let columns = columns
            .into_iter()
            .filter(|name| name.contains('.') && seen.insert(name.clone()))
            .collect();
        NestedNames { columns }
    }

    pub fn is_empty(&self) -> bool {
        self.columns.is_empty()
    }

    /// The columns of the structure `prefix` (`n.a`, `n.b` of `n`).
    pub fn elements(&self, prefix: &str) -> Vec<&str> {
        self.columns
            .iter()
            .filter(|name| {
                name.strip_prefix(prefix)
                    .is_some_and(|rest| rest.starts_with('.'))
            })
            .map(String::as_str)
            .collect()
    }

    fn has(&self, name: &str) -> bool {
        self.columns.iter().any(|c| c == name)
    }

    /// Whether `name` names a structure rather than a column.
    fn is_structure(&self, name: &str) -> bool {
        !self.has(name) && !self.elements(name).is_empty()
    }
}

/// Gives the references to Nested columns in `statement` their meaning.
pub fn rewrite(statement: &mut Statement, names: &NestedNames) {
    if names.is_empty() {
        return;
    }
    let mut found = Found::default();
    let _ = statement.visit(&mut Collector {
        names,
        found: &mut found,
    });
    let _ = statement.visit(&mut Rewriter {
        names,
        found: &found,
    });
}

/// An INSERT's column list with each dotted name (`n.a`, parsed as two
/// parts) as the one column it names.
pub fn join_insert_columns(columns: &mut [ObjectName]) {
    for column in columns.iter_mut().filter(|c| c.0.len() > 1) {
        let parts: Option<Vec<&str>> = column
            .0
            .iter()
            .map(|part| part.as_ident().map(|i| i.value.as_str()))
            .collect();
        if let Some(parts) = parts {
            *column = ObjectName::from(vec![Ident::with_quote('"', parts.join("."))]);
        }
    }
}

/// What the first pass finds: ARRAY JOIN aliases of structures, and names
/// a bare identifier may mean other than a structure.
#[derive(Default)]
struct Found {
    /// `m.a` for `ARRAY JOIN n AS m`: element columns a query defines.
    element_columns: Vec<String>,
    /// Structures (`n`, or `m`) whose elements an ARRAY JOIN made columns.
    joined: HashSet<String>,
    /// Select-item aliases and lambda parameters.
    local: HashSet<String>,
}

struct Collector<'a> {
    names: &'a NestedNames,
    found: &'a mut Found,
}

impl VisitorMut for Collector<'_> {
    type Break = ();

    fn pre_visit_query(&mut self, query: &mut Query) -> ControlFlow<()> {
        let mut selects = Vec::new();
        selects_of(&mut query.body, &mut selects);
        for select in selects {
            for item in &select.projection {
                if let SelectItem::ExprWithAlias { alias, .. } = item {
                    self.found.local.insert(alias.value.clone());
                }
            }
            for relation in array_join_relations(select) {
                self.note_array_join(relation);
            }
        }
        ControlFlow::Continue(())
    }

    fn pre_visit_expr(&mut self, expr: &mut Expr) -> ControlFlow<()> {
        if let Expr::Lambda(lambda) = expr {
            for param in lambda.params.iter() {
                self.found.local.insert(param.name.value.clone());
            }
        }
        ControlFlow::Continue(())
    }
}

impl Collector<'_> {
    fn note_array_join(&mut self, relation: &TableFactor) {
        let TableFactor::Table {
            name,
            alias,
            args: None,
            ..
        } = relation
        else {
            return;
        };
        let Some(structure) = name.0.last().and_then(ObjectNamePart::as_ident) else {
            return;
        };
        if !self.names.is_structure(&structure.value) {
            return;
        }
        let Some(alias) = alias else {
            self.found.joined.insert(structure.value.clone());
            return;
        };
        for element in self.names.elements(&structure.value) {
            let field = &element[structure.value.len()..];
            self.found
                .element_columns
                .push(format!("{}{field}", alias.name.value));
        }
        self.found.joined.insert(alias.name.value.clone());
    }
}

struct Rewriter<'a> {
    names: &'a NestedNames,
    found: &'a Found,
}

impl VisitorMut for Rewriter<'_> {
    type Break = ();

    fn pre_visit_query(&mut self, query: &mut Query) -> ControlFlow<()> {
        let mut selects = Vec::new();
        selects_of(&mut query.body, &mut selects);
        for select in selects {
            // A structure shown as a column keeps its name.
            for item in &mut select.projection {
                if let SelectItem::UnnamedExpr(Expr::Identifier(ident)) = item
                    && self.is_structure(&ident.value)
                {
                    *item = SelectItem::ExprWithAlias {
                        expr: self.structure(&ident.value),
                        alias: ident.clone(),
                    };
                }
            }
            for relation in array_join_relations(select) {
                if let TableFactor::Table {
                    name, args: None, ..
                } = relation
                    && let Some(parts) = self.joined_parts(&name.0)
                {
                    *name = ObjectName(parts.into_iter().map(ObjectNamePart::Identifier).collect());
                }
            }
        }
        ControlFlow::Continue(())
    }

    /// Before the root is visited, which alone could read as a structure.
    fn pre_visit_expr(&mut self, expr: &mut Expr) -> ControlFlow<()> {
        match expr {
            // `n.a[1]`: the parser reads a field `a` of `n`, then the subscript.
            Expr::CompoundFieldAccess { root, access_chain } => {
                let mut parts = match root.as_ref() {
                    Expr::Identifier(ident) => vec![ident.clone()],
                    Expr::CompoundIdentifier(parts) => parts.clone(),
                    _ => return ControlFlow::Continue(()),
                };
                let from_root = parts.len();
                for access in access_chain.iter() {
                    match access {
                        AccessExpr::Dot(Expr::Identifier(field)) => parts.push(field.clone()),
                        _ => break,
                    }
                }
                let parts: Vec<ObjectNamePart> =
                    parts.into_iter().map(ObjectNamePart::Identifier).collect();
                // The longest run of names that ends at a dotted column.
                let Some((taken, mut joined)) = (from_root + 1..=parts.len())
                    .rev()
                    .find_map(|k| Some((k, self.joined_parts(&parts[..k])?)))
                else {
                    return ControlFlow::Continue(());
                };
                let column = match joined.len() {
                    1 => Expr::Identifier(joined.remove(0)),
                    _ => Expr::CompoundIdentifier(joined),
                };
                access_chain.drain(..taken - from_root);
                *expr = match access_chain.is_empty() {
                    true => column,
                    false => Expr::CompoundFieldAccess {
                        root: Box::new(column),
                        access_chain: std::mem::take(access_chain),
                    },
                };
            }
            _ => {}
        }
        ControlFlow::Continue(())
    }

    fn post_visit_expr(&mut self, expr: &mut Expr) -> ControlFlow<()> {
        match expr {
            Expr::CompoundIdentifier(parts) => {
                let parts: Vec<ObjectNamePart> = parts
                    .iter()
                    .cloned()
                    .map(ObjectNamePart::Identifier)
                    .collect();
                if let Some(mut joined) = self.joined_parts(&parts) {
                    *expr = match joined.len() {
                        1 => Expr::Identifier(joined.remove(0)),
                        _ => Expr::CompoundIdentifier(joined),
                    };
                }
            }
            Expr::Identifier(ident) if self.is_structure(&ident.value) => {
                *expr = self.structure(&ident.value);
            }
            _ => {}
        }
        ControlFlow::Continue(())
    }
}

impl Rewriter<'_> {
    fn is_column(&self, name: &str) -> bool {
        self.names.has(name) || self.found.element_columns.iter().any(|c| c == name)
    }

    fn is_structure(&self, name: &str) -> bool {
        !self.found.local.contains(name)
            && (self.found.joined.contains(name) || self.names.is_structure(name))
            && !self.structure_elements(name).is_empty()
    }

    /// `parts` with the last two joined into one column name where that
    /// names a dotted column: `t.n.a` as `t."n.a"`.
    fn joined_parts(&self, parts: &[ObjectNamePart]) -> Option<Vec<Ident>> {
        let idents: Vec<&Ident> = parts
            .iter()
            .map(ObjectNamePart::as_ident)
            .collect::<Option<_>>()?;
        let [qualifier @ .., structure, field] = idents.as_slice() else {
            return None;
        };
        let column = format!("{}.{}", structure.value, field.value);
        if !self.is_column(&column) {
            return None;
        }
        let mut joined: Vec<Ident> = qualifier.iter().map(|i| (*i).clone()).collect();
        joined.push(Ident::with_quote('"', column));
        Some(joined)
    }

    /// The element columns of the structure `name`, from the table or an
    /// ARRAY JOIN alias.
    fn structure_elements(&self, name: &str) -> Vec<String> {
        let prefix = format!("{name}.");
        let aliased: Vec<String> = self
            .found
            .element_columns
            .iter()
            .filter(|c| c.starts_with(&prefix))
            .cloned()
            .collect();
        match aliased.is_empty() {
            true => self
                .names
                .elements(name)
                .into_iter()
                .map(String::from)
                .collect(),
            false => aliased,
        }
    }

    /// A bare structure name: its arrays zipped, or after ARRAY JOIN the
    /// tuple of its elements.
    fn structure(&self, name: &str) -> Expr {
        let function = match self.found.joined.contains(name) {
            true => "tuple",
            false => "arrayZip",
        };
        let args = self
            .structure_elements(name)
            .into_iter()
            .map(|column| {
                FunctionArg::Unnamed(FunctionArgExpr::Expr(Expr::Identifier(Ident::with_quote(
                    '"', column,
                ))))
            })
            .collect();
        Expr::Function(Function {
            name: ObjectName::from(vec![Ident::new(function)]),
            uses_odbc_syntax: false,
            parameters: FunctionArguments::None,
            args: FunctionArguments::List(FunctionArgumentList {
                duplicate_treatment: None,
                args,
                clauses: vec![],
            }),
            filter: None,
            null_treatment: None,
            over: None,
            within_group: vec![],
        })
    }
}

/// The relations of `select`'s FROM that are arrays of an ARRAY JOIN: the
/// joins from the first array join on, and the items after it that the
/// parser reads as further FROM items (`ARRAY JOIN a, b`).
fn array_join_relations(select: &mut Select) -> Vec<&mut TableFactor> {
    let Some((first, rest)) = select.from.split_first_mut() else {
        return Vec::new();
    };
    let Some(at) = first
        .joins
        .iter()
        .position(|j| crate::array_join::is_array_join(&j.join_operator))
    else {
        return Vec::new();
    };
    let mut relations: Vec<&mut TableFactor> = first.joins[at..]
        .iter_mut()
        .filter(|j| crate::array_join::is_array_join(&j.join_operator))
        .map(|j| &mut j.relation)
        .collect();
    for item in rest {
        relations.push(&mut item.relation);
        relations.extend(item.joins.iter_mut().map(|j| &mut j.relation));
    }
    relations
}

#[cfg(test)]
mod tests {
    use datafusion::sql::sqlparser::dialect::ClickHouseDialect;
    use datafusion::sql::sqlparser::parser::Parser;

    use super::*;

    fn rewritten(sql: &str) -> String {
        let mut statement = Parser::new(&ClickHouseDialect {})
            .try_with_sql(sql)
            .and_then(|mut p| p.parse_statement())
            .unwrap();
        let names = NestedNames::new(["id", "n.a", "n.b", "m"].map(String::from));
        rewrite(&mut statement, &names);
        statement.to_string()
    }

    #[test]
    fn a_dotted_reference_names_the_column() {
        assert_eq!(
            rewritten("SELECT n.a, t.n.b, m FROM t"),
            r#"SELECT "n.a", t."n.b", m FROM t"#
        );
    }

    #[test]
    fn a_structure_is_its_arrays_zipped_or_after_array_join_its_elements() {
        assert_eq!(
            rewritten("SELECT n FROM t"),
            r#"SELECT arrayZip("n.a", "n.b") AS n FROM t"#
        );
        assert_eq!(
            rewritten("SELECT n, x.a FROM t ARRAY JOIN n AS x"),
            r#"SELECT arrayZip("n.a", "n.b") AS n, "x.a" FROM t ARRAY JOIN n AS x"#
        );
        assert_eq!(
            rewritten("SELECT n FROM t ARRAY JOIN n"),
            r#"SELECT tuple("n.a", "n.b") AS n FROM t ARRAY JOIN n"#
        );
    }

    #[test]
    fn aliases_and_lambda_parameters_are_no_structures() {
        assert_eq!(
            rewritten("SELECT length(n.a) AS n FROM t ORDER BY n"),
            r#"SELECT length("n.a") AS n FROM t ORDER BY n"#
        );
        assert_eq!(
            rewritten("SELECT arrayMap(n -> n + 1, n.a) FROM t"),
            r#"SELECT arrayMap(n -> n + 1, "n.a") FROM t"#
        );
    }

    #[test]
    fn a_subscript_of_a_dotted_column_reads_the_column() {
        assert_eq!(
            rewritten("SELECT n.a[1], t.n.b[2] FROM t"),
            r#"SELECT "n.a"[1], t."n.b"[2] FROM t"#
        );
    }

    #[test]
    fn an_array_join_of_one_column_names_it_whole() {
        assert_eq!(
            rewritten("SELECT n.a FROM t ARRAY JOIN n.a"),
            r#"SELECT "n.a" FROM t ARRAY JOIN "n.a""#
        );
    }
}
