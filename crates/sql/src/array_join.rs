//! ClickHouse's `ARRAY JOIN`: `FROM t [LEFT] ARRAY JOIN e1 [AS x1], e2 [AS x2]`
//! repeats each row of `t` once per element of the arrays (zipped, so they
//! must be of one length), with `x1` the element of `e1`. A plain ARRAY JOIN
//! drops rows whose arrays are empty; LEFT ARRAY JOIN keeps them with the
//! elements' default value. Without an alias, the array column itself
//! names its element from then on. Clauses one after another
//! (`ARRAY JOIN a AS x ARRAY JOIN b AS y`) give every combination.
//!
//! The FROM clause becomes a derived table that DataFusion's `unnest` plans:
//! `(SELECT * REPLACE (...), unnest(...) AS x1 FROM t) AS t`, under the
//! relation's own name so qualified references still resolve. The parser
//! reads `ARRAY JOIN a AS x, b AS y` as an array join of `a` followed by a
//! comma and `b AS y`, so FROM items after an array join are more arrays.
//! Ordinary joins after the array joins (`ARRAY JOIN a AS x JOIN t ON x =
//! t.k`) join the derived table.

use std::ops::ControlFlow;

use datafusion::sql::sqlparser::ast::{
    ExcludeSelectItem, Expr, Ident, Join, JoinOperator, ObjectName, ObjectNamePart, Query, Select,
    SelectItem, SetExpr, TableAlias, TableFactor, TableWithJoins, VisitMut, VisitorMut,
};
use datafusion::sql::sqlparser::dialect::ClickHouseDialect;
use datafusion::sql::sqlparser::parser::Parser;
use strata_common::{ErrorCode, Result, StrataError};

use crate::nested_columns::NestedNames;

/// The name of the zipped arrays' element while several arrays are joined.
const ZIPPED: &str = "__strata_array_join";

/// One array of an ARRAY JOIN and the name its element takes.
pub(crate) struct JoinedArray {
    pub(crate) array: Expr,
    pub(crate) element: Ident,
    /// Whether the element takes the array column's own name.
    pub(crate) replaces_column: bool,
}

/// The arrays of one ARRAY JOIN clause, zipped; clauses one after another
/// repeat the rows once per combination, as nested ones.
pub(crate) struct ArrayJoinClause {
    pub(crate) left: bool,
    pub(crate) arrays: Vec<JoinedArray>,
}

/// Rewrites `select`'s FROM if it holds an ARRAY JOIN; `structures` says which
/// names are Nested structures, whose arrays are joined together.
pub fn rewrite(select: &mut Select, structures: &NestedNames) -> Result<()> {
    let Some(first) = select.from.first() else {
        return Ok(());
    };
    let Some(at) = first
        .joins
        .iter()
        .position(|j| is_array_join(&j.join_operator))
    else {
        return Ok(());
    };
    let mut from = select.from.remove(0);
    let mut array_joins = from.joins.split_off(at);
    if !from.joins.is_empty() {
        return Err(not_implemented("ARRAY JOIN after another JOIN"));
    }
    // Joins after the array joins join the rows they repeated.
    let ordinary = array_joins
        .iter()
        .position(|j| !is_array_join(&j.join_operator))
        .unwrap_or(array_joins.len());
    let later_joins = array_joins.split_off(ordinary);
    if later_joins.iter().any(|j| is_array_join(&j.join_operator)) {
        return Err(not_implemented("ARRAY JOIN after another JOIN"));
    }
    let mut clauses = Vec::new();
    for join in &array_joins {
        clauses.push(clause(join, structures)?);
    }
    // `ARRAY JOIN a AS x, b AS y`: an item after a comma is one more array
    // of the clause before it, and its joins are clauses of their own.
    for item in select.from.drain(..) {
        let last = clauses.last_mut().expect("an ARRAY JOIN came first");
        last.arrays
            .extend(joined_arrays(&item.relation, structures)?);
        for join in &item.joins {
            clauses.push(clause(join, structures)?);
        }
    }
    let mut joined = nested(from.relation, &clauses)?;
    joined.joins = later_joins;
    select.from = vec![joined];
    exclude_elements_from_wildcards(select, &clauses);
    Ok(())
}

/// `*` stands for the joined table's columns, as in ClickHouse: an element
/// under an alias of its own (`ARRAY JOIN arr AS x`) is left out of it.
fn exclude_elements_from_wildcards(select: &mut Select, clauses: &[ArrayJoinClause]) {
    let aliased: Vec<ObjectName> = clauses
        .iter()
        .flat_map(|clause| &clause.arrays)
        .filter(|array| !array.replaces_column)
        .map(|array| ObjectName::from(vec![array.element.clone()]))
        .collect();
    if aliased.is_empty() {
        return;
    }
    for item in &mut select.projection {
        let SelectItem::Wildcard(options) = item else {
            continue;
        };
        let mut excluded = match options.opt_exclude.take() {
            Some(ExcludeSelectItem::Single(name)) => vec![name],
            Some(ExcludeSelectItem::Multiple(names)) => names,
            None => Vec::new(),
        };
        excluded.extend(aliased.iter().cloned());
        options.opt_exclude = Some(ExcludeSelectItem::Multiple(excluded));
    }
}

fn clause(join: &Join, structures: &NestedNames) -> Result<ArrayJoinClause> {
    if !is_array_join(&join.join_operator) {
        return Err(not_implemented("a JOIN after ARRAY JOIN"));
    }
    Ok(ArrayJoinClause {
        left: matches!(join.join_operator, JoinOperator::LeftArrayJoin),
        arrays: joined_arrays(&join.relation, structures)?,
    })
}

/// The arrays one item of an ARRAY JOIN names: every array of a Nested
/// structure (`n`: `n.a`, `n.b`, elements named `m.a`, `m.b` under
/// `AS m`), else the one array [`joined_array`] reads.
fn joined_arrays(relation: &TableFactor, structures: &NestedNames) -> Result<Vec<JoinedArray>> {
    if let TableFactor::Table {
        name: ObjectName(parts),
        alias,
        args: None,
        ..
    } = relation
        && let Some((ObjectNamePart::Identifier(structure), qualifier)) = parts.split_last()
        && let elements = structures.elements(&structure.value)
        && !elements.is_empty()
    {
        let arrays = elements.into_iter().map(|column| {
            let mut reference: Vec<Ident> = qualifier
                .iter()
                .filter_map(ObjectNamePart::as_ident)
                .cloned()
                .collect();
            reference.push(Ident::with_quote('"', column));
            let field = &column[structure.value.len()..];
            JoinedArray {
                array: Expr::CompoundIdentifier(reference),
                element: match alias {
                    Some(alias) => Ident::with_quote('"', format!("{}{field}", alias.name.value)),
                    None => Ident::with_quote('"', column),
                },
                replaces_column: alias.is_none(),
            }
        });
        return Ok(arrays.collect());
    }
    Ok(vec![joined_array(relation)?])
}

/// `relation` with each clause applied in turn, each level a derived table
/// under the relation's own name so qualified references still resolve.
pub(crate) fn nested(
    mut relation: TableFactor,
    clauses: &[ArrayJoinClause],
) -> Result<TableWithJoins> {
    let name = relation_name(&relation);
    for clause in clauses {
        let derived = derived_table(&relation, &clause.arrays, clause.left)?;
        relation = TableFactor::Derived {
            lateral: false,
            subquery: Box::new(derived),
            sample: None,
            alias: name.clone().map(|name| TableAlias {
                explicit: true,
                name,
                columns: vec![],
                at: None,
            }),
        };
    }
    Ok(TableWithJoins {
        relation,
        joins: vec![],
    })
}

pub(crate) fn is_array_join(op: &JoinOperator) -> bool {
    matches!(
        op,
        JoinOperator::ArrayJoin | JoinOperator::LeftArrayJoin | JoinOperator::InnerArrayJoin
    )
}

/// The array a table factor after ARRAY JOIN names: a column (`arr`,
/// `t.arr`) or a function call (`range(n)`), read as a table by the parser.
fn joined_array(relation: &TableFactor) -> Result<JoinedArray> {
    let TableFactor::Table {
        name, alias, args, ..
    } = relation
    else {
        return Err(not_implemented("this ARRAY JOIN expression"));
    };
    let text = match args {
        Some(args) => {
            let list: Vec<String> = args.args.iter().map(ToString::to_string).collect();
            format!("{name}({})", list.join(", "))
        }
        None => name.to_string(),
    };
    let array = parse_expr(&text)?;
    let column = match (args, name) {
        (None, ObjectName(parts)) => parts.last().and_then(|p| p.as_ident()).cloned(),
        _ => None,
    };
    let (element, replaces_column) = match (alias, column) {
        (Some(alias), _) => (alias.name.clone(), false),
        (None, Some(column)) => (column, true),
        (None, None) => {
            return Err(StrataError::new(
                ErrorCode::BAD_ARGUMENTS,
                format!("ARRAY JOIN of {text} needs an alias (AS name)"),
            ));
        }
    };
    Ok(JoinedArray {
        array,
        element,
        replaces_column,
    })
}

/// The name a FROM relation is referred to by, kept for the derived table.
fn relation_name(relation: &TableFactor) -> Option<Ident> {
    match relation {
        TableFactor::Table { alias: Some(a), .. } | TableFactor::Derived { alias: Some(a), .. } => {
            Some(a.name.clone())
        }
        TableFactor::Table {
            name, args: None, ..
        } => name.0.last().and_then(|p| p.as_ident()).cloned(),
        _ => None,
    }
}

/// `SELECT * REPLACE (...), <elements> FROM relation`, through one unnest
/// of the zipped arrays when there are several. The text names the arrays
/// and the relation by placeholders, which their nodes then replace: their
/// own text would not read back the same (a string's backslashes).
fn derived_table(relation: &TableFactor, arrays: &[JoinedArray], left: bool) -> Result<Query> {
    // LEFT ARRAY JOIN keeps a row with an empty array as one default element.
    let array = |i: usize| match left {
        true => format!("if(empty({ARRAY}{i}), arrayResize({ARRAY}{i}, 1), {ARRAY}{i})"),
        false => format!("{ARRAY}{i}"),
    };
    let element_of = |i: usize| match arrays.len() {
        1 => format!("unnest({})", array(i)),
        _ => format!("tupleElement({ZIPPED}, {})", i + 1),
    };
    let replaced: Vec<String> = arrays
        .iter()
        .enumerate()
        .filter(|(_, a)| a.replaces_column)
        .map(|(i, a)| format!("{} AS {}", element_of(i), a.element))
        .collect();
    let added: Vec<String> = arrays
        .iter()
        .enumerate()
        .filter(|(_, a)| !a.replaces_column)
        .map(|(i, a)| format!(", {} AS {}", element_of(i), a.element))
        .collect();
    let replace = match replaced.is_empty() {
        true => String::new(),
        false => format!(" REPLACE ({})", replaced.join(", ")),
    };
    let text = match arrays.len() {
        1 => format!("SELECT *{replace}{} FROM {RELATION}", added.concat()),
        _ => {
            let zipped: Vec<String> = (0..arrays.len()).map(array).collect();
            format!(
                "SELECT * EXCEPT ({ZIPPED}){replace}{} FROM (SELECT *, unnest(arrayZip({})) AS {ZIPPED} FROM {RELATION})",
                added.concat(),
                zipped.join(", ")
            )
        }
    };
    let mut query = parse_query(&text)?;
    let _ = query.visit(&mut Placeholders { relation, arrays });
    Ok(query)
}

const ARRAY: &str = "__strata_joined_array_";
const RELATION: &str = "__strata_joined_relation";

/// Puts the arrays and the relation in place of their placeholders.
struct Placeholders<'a> {
    relation: &'a TableFactor,
    arrays: &'a [JoinedArray],
}

impl VisitorMut for Placeholders<'_> {
    type Break = ();

    fn pre_visit_table_factor(&mut self, factor: &mut TableFactor) -> ControlFlow<()> {
        if matches!(factor, TableFactor::Table { name, .. } if name.to_string() == RELATION) {
            *factor = self.relation.clone();
        }
        ControlFlow::Continue(())
    }

    fn post_visit_expr(&mut self, expr: &mut Expr) -> ControlFlow<()> {
        if let Expr::Identifier(ident) = expr
            && let Some(i) = ident.value.strip_prefix(ARRAY)
        {
            let i: usize = i.parse().expect("a placeholder numbers its array");
            *expr = match &self.arrays[i].array {
                // A nested column's subcolumn, one quoted name.
                Expr::CompoundIdentifier(parts) if parts.len() == 1 => {
                    Expr::Identifier(parts[0].clone())
                }
                array => array.clone(),
            };
        }
        ControlFlow::Continue(())
    }
}

fn parse_expr(text: &str) -> Result<Expr> {
    Parser::new(&ClickHouseDialect {})
        .try_with_sql(text)
        .and_then(|mut parser| parser.parse_expr())
        .map_err(|e| StrataError::new(ErrorCode::SYNTAX_ERROR, e.to_string()))
}

pub(crate) fn parse_query(text: &str) -> Result<Query> {
    let query = Parser::new(&ClickHouseDialect {})
        .try_with_sql(text)
        .and_then(|mut parser| parser.parse_query())
        .map_err(|e| StrataError::new(ErrorCode::SYNTAX_ERROR, e.to_string()))?;
    debug_assert!(matches!(query.body.as_ref(), SetExpr::Select(_)));
    Ok(*query)
}

fn not_implemented(what: &str) -> StrataError {
    StrataError::new(
        ErrorCode::NOT_IMPLEMENTED,
        format!("{what} is not supported yet"),
    )
}

#[cfg(test)]
pub(crate) mod tests {
    use datafusion::sql::sqlparser::ast::{OrderBy, Statement};

    use super::*;

    /// `sql`, one SELECT, as text after `rewrite` of its SELECT and ORDER BY.
    pub(crate) fn rewritten_with(
        sql: &str,
        rewrite: impl FnOnce(&mut Select, Option<&mut OrderBy>) -> Result<()>,
    ) -> String {
        let mut statement = Parser::new(&ClickHouseDialect {})
            .try_with_sql(sql)
            .and_then(|mut p| p.parse_statement())
            .unwrap();
        let Statement::Query(query) = &mut statement else {
            panic!("a query");
        };
        let SetExpr::Select(select) = query.body.as_mut() else {
            panic!("a select");
        };
        rewrite(select, query.order_by.as_mut()).unwrap();
        statement.to_string()
    }

    fn rewritten(sql: &str) -> String {
        rewritten_with(sql, |select, _| rewrite(select, &NestedNames::default()))
    }

    #[test]
    fn an_aliased_array_adds_its_element() {
        assert_eq!(
            rewritten("SELECT x FROM t ARRAY JOIN arr AS x"),
            "SELECT x FROM (SELECT *, unnest(arr) AS x FROM t) AS t"
        );
    }

    #[test]
    fn an_array_column_without_alias_becomes_its_element() {
        assert_eq!(
            rewritten("SELECT arr FROM t AS u LEFT ARRAY JOIN arr"),
            "SELECT arr FROM (SELECT * REPLACE (unnest(if(empty(arr), arrayResize(arr, 1), arr)) AS arr) FROM t AS u) AS u"
        );
    }

    #[test]
    fn clauses_one_after_another_nest() {
        assert_eq!(
            rewritten("SELECT x, y FROM t ARRAY JOIN a AS x LEFT ARRAY JOIN b AS y"),
            "SELECT x, y FROM (SELECT *, unnest(if(empty(b), arrayResize(b, 1), b)) AS y FROM (SELECT *, unnest(a) AS x FROM t) AS t) AS t"
        );
    }

    #[test]
    fn several_arrays_are_zipped() {
        let sql = rewritten("SELECT x, y FROM t ARRAY JOIN a AS x, range(3) AS y");
        assert!(sql.contains("unnest(arrayZip(a, range(3)))"), "{sql}");
        assert!(
            sql.contains("tupleElement(__strata_array_join, 2) AS y"),
            "{sql}"
        );
    }
}
