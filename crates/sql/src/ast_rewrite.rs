//! Rewrites of the parsed statement that make DataFusion plan it as ClickHouse would.
//!
//! - A bare `UNION` / `INTERSECT` / `EXCEPT` takes ALL or DISTINCT from the
//!   `*_default_mode` settings (or fails with EXPECTED_ALL_OR_DISTINCT).
//! - Unaliased select items get ClickHouse's column names.
//! - `+ - * / %` and unary minus become ClickHouse's `plus`, `minus`, ...,
//!   `negate`, so results get ClickHouse's types (`number % 10000` is UInt16).
//! - `nan` and `inf` are float literals, as in ClickHouse.
//! - `if` and `multiIf` become `CASE`, so only the taken branch is evaluated.
//! - Per-query constants (`getSetting`, `currentDatabase`, `currentUser`, `version`,
//!   `getServerSetting`) become literals.
//! - Function names resolve exactly first, then case-insensitively, as ClickHouse does;
//!   ClickHouse functions DataFusion has in another form are rewritten to it
//!   ([`crate::equivalents`]).
//! - The -If combinator: `sumIf(x, c)` is `sum(x) FILTER (WHERE c)`.
//! - `sum` and `avg` of a comparison add it up as UInt8 (`sum(x = 1)` counts).

use std::ops::ControlFlow;

use datafusion::sql::sqlparser::ast::{
    AccessExpr, ArrayElemTypeDef, BinaryOperator, CaseWhen, CastKind, CeilFloorKind, DataType,
    ExactNumberInfo, Expr, Function, FunctionArg, FunctionArgExpr, FunctionArgumentList,
    FunctionArguments, Ident, Interval, JoinConstraint, NullTreatment, ObjectName, ObjectNamePart,
    Query, Select, SelectItem, SetExpr, SetOperator, SetQuantifier, Statement, Subscript,
    TableAlias, TableFactor, TypedString, UnaryOperator, Value, VisitMut, VisitorMut, WindowType,
};
use datafusion::sql::sqlparser::tokenizer::Span;
use strata_common::settings::{SettingValue, Settings};
use strata_common::{ErrorCode, Result, StrataError};
use strata_functions::dates::intervals::IntervalKind;

use crate::aliases;
use crate::combinators::quoted;
use crate::equivalents;
use crate::naming::column_name;
use crate::nested_columns::NestedNames;
use crate::query_clauses;
use crate::uint8_booleans;

/// What the rewrites need to know about the session.
pub struct AstContext<'a> {
    pub settings: &'a Settings,
    pub current_database: &'a str,
    /// The user the session runs for (`currentUser()`).
    pub current_user: &'a str,
    pub version: &'a str,
    /// The id of the query the statement runs as (`queryID()`).
    pub query_id: &'a str,
    /// When that query started, in seconds since the epoch.
    pub query_start: i64,
    /// The value of a server setting, as text, if it exists.
    pub server_setting: &'a dyn Fn(&str) -> Option<String>,
    /// The registered spelling of a function name, if one matches.
    pub resolve_function: &'a dyn Fn(&str) -> Option<String>,
    /// Whether a function of this exact name is an aggregate.
    pub is_aggregate: &'a dyn Fn(&str) -> bool,
    /// The dotted column names of the tables the statement reads.
    pub nested: &'a NestedNames,
}

pub fn rewrite_statement(statement: &mut Statement, ctx: &AstContext) -> Result<()> {
    crate::nested_columns::rewrite(statement, ctx.nested);
    let mut visitor = Rewriter { ctx, subqueries: 0 };
    match statement.visit(&mut visitor) {
        ControlFlow::Continue(()) => Ok(()),
        ControlFlow::Break(err) => Err(err),
    }
}

struct Rewriter<'a, 'b> {
    ctx: &'a AstContext<'b>,
    /// Subqueries in FROM named so far.
    subqueries: usize,
}

impl VisitorMut for Rewriter<'_, '_> {
    type Break = StrataError;

    fn pre_visit_query(&mut self, query: &mut Query) -> ControlFlow<StrataError> {
        crate::table_qualifiers::rewrite(query);
        if let SetExpr::Select(select) = query.body.as_mut()
            && let Err(e) = crate::join_chain::rewrite(select)
        {
            return ControlFlow::Break(e);
        }
        query_clauses::order_by_all(query);
        query_clauses::nulls_last(query);
        if let Err(e) = query_clauses::rewrite_limit_by(query) {
            return ControlFlow::Break(e);
        }
        if let Err(e) = query_clauses::fetch_as_limit(query) {
            return ControlFlow::Break(e);
        }
        if let Err(e) = crate::relative_limits::rewrite(query) {
            return ControlFlow::Break(e);
        }
        if let Err(e) = query_clauses::rewrite_with_ties(query) {
            return ControlFlow::Break(e);
        }
        if let Err(e) = self.apply_set_modes(&mut query.body) {
            return ControlFlow::Break(e);
        }
        if let SetExpr::Select(select) = query.body.as_mut()
            && let Err(e) = query_clauses::implicit_system_one(select)
        {
            return ControlFlow::Break(e);
        }
        if let SetExpr::Select(select) = query.body.as_mut()
            && let Err(e) = crate::array_join::rewrite(select, self.ctx.nested)
        {
            return ControlFlow::Break(e);
        }
        if let SetExpr::Select(select) = query.body.as_mut() {
            crate::in_subquery::rewrite_in_subqueries(select);
            // Before aliases expand, as they do in WHERE.
            query_clauses::having_without_aggregates(select, &|name| {
                crate::combinators::names_aggregate(name, self.ctx)
            });
        }
        if let Err(e) = prepare_select_items(&mut query.body) {
            return ControlFlow::Break(e);
        }
        // After naming, so that items keep the names of the calls as written.
        if let SetExpr::Select(select) = query.body.as_mut()
            && let Err(e) = crate::array_join_function::join_after_aggregation(select, &|name| {
                crate::combinators::names_aggregate(name, self.ctx)
            })
        {
            return ControlFlow::Break(e);
        }
        if let SetExpr::Select(select) = query.body.as_mut()
            && let Err(e) = crate::array_join_function::rewrite(select, query.order_by.as_mut())
        {
            return ControlFlow::Break(e);
        }
        // The SELECTs of a set operation are no query of their own.
        set_operand_conditions(query.body.as_mut());
        if let SetExpr::Select(select) = query.body.as_mut() {
            query_clauses::named_windows_nulls_last(select);
            query_clauses::inherit_named_windows(select);
            query_clauses::group_by_all(select, &|name| {
                crate::combinators::names_aggregate(name, self.ctx)
            });
            if let Err(e) = query_clauses::rewrite_group_by_modifiers(select) {
                return ControlFlow::Break(e);
            }
            query_clauses::qualify_without_windows(select, &|name| {
                crate::combinators::names_aggregate(name, self.ctx)
            });
            select_conditions(select);
            // PREWHERE filters as WHERE does: a MergeTree scan applies the
            // whole condition as it reads, which is what PREWHERE asks for.
            if let Some(prewhere) = select.prewhere.take() {
                select.selection = Some(match select.selection.take() {
                    Some(selection) => Expr::BinaryOp {
                        left: Box::new(Expr::Nested(Box::new(prewhere))),
                        op: BinaryOperator::And,
                        right: Box::new(Expr::Nested(Box::new(selection))),
                    },
                    None => prewhere,
                });
            }
        }
        ControlFlow::Continue(())
    }

    /// A subquery in FROM without an alias gets one, as ClickHouse names it
    /// (`_subquery1`): DataFusion leaves its columns unqualified, and an
    /// `IN` subquery naming the same column then cannot tell the two apart.
    fn pre_visit_table_factor(&mut self, factor: &mut TableFactor) -> ControlFlow<StrataError> {
        if let TableFactor::Derived {
            alias: alias @ None,
            ..
        } = factor
        {
            self.subqueries += 1;
            *alias = Some(TableAlias {
                explicit: true,
                name: Ident::new(format!("_subquery{}", self.subqueries)),
                columns: vec![],
                at: None,
            });
        }
        ControlFlow::Continue(())
    }

    /// The functional IN (`in(x, set)`) is replaced before its arguments are
    /// visited: it becomes ClickHouse functions that take their rewrites then.
    fn pre_visit_expr(&mut self, expr: &mut Expr) -> ControlFlow<StrataError> {
        if let Expr::Function(Function {
            over: Some(WindowType::WindowSpec(spec)),
            ..
        }) = expr
        {
            query_clauses::window_nulls_last(spec);
        }
        let Expr::Function(f) = &*expr else {
            return ControlFlow::Continue(());
        };
        let written = f.name.to_string();
        if !equivalents::IN_FUNCTIONS.contains(&written.as_str()) {
            return ControlFlow::Continue(());
        }
        let Some(args) = function_args(&f.args) else {
            return ControlFlow::Continue(());
        };
        match equivalents::in_function(&written, &args) {
            Ok(new) => *expr = new,
            Err(e) => return ControlFlow::Break(e),
        }
        ControlFlow::Continue(())
    }

    fn post_visit_expr(&mut self, expr: &mut Expr) -> ControlFlow<StrataError> {
        match self.rewrite_expr(expr) {
            Ok(Some(new)) => *expr = new,
            Ok(None) => {}
            Err(e) => return ControlFlow::Break(e),
        }
        ControlFlow::Continue(())
    }
}

/// The conversion function of a ClickHouse numeric type DataFusion's
/// planner does not take (`UInt8`) or reads as another (`Int8` is
/// PostgreSQL's BIGINT there): such a CAST is that function, which wraps
/// out-of-range integers as ClickHouse's CAST does. Nullable and
/// LowCardinality wrappers change nothing about the values.
fn numeric_conversion(data_type: &DataType) -> Option<&'static str> {
    Some(match data_type {
        DataType::UInt8 => "toUInt8",
        DataType::UInt16 => "toUInt16",
        DataType::UInt32 => "toUInt32",
        DataType::UInt64 => "toUInt64",
        DataType::Int8(_) => "toInt8",
        DataType::Int16 => "toInt16",
        DataType::Int32 => "toInt32",
        DataType::Int64 => "toInt64",
        DataType::Float32 => "toFloat32",
        DataType::Float64 => "toFloat64",
        DataType::Nullable(inner) | DataType::LowCardinality(inner) => numeric_conversion(inner)?,
        _ => return None,
    })
}

/// Whether values of `data_type` are, or contain, 128- or 256-bit integers.
fn holds_big_integers(data_type: &DataType) -> bool {
    let text = crate::literal_text::type_text(data_type);
    ["Int128", "Int256"].iter().any(|name| text.contains(name))
}

/// The text of a number literal (a minus sign kept) or of an array of
/// them, as ClickHouse would read it as a value.
fn number_literal_text(expr: &Expr) -> Option<String> {
    match expr {
        Expr::Value(v) => match &v.value {
            Value::Number(text, _) => Some(text.clone()),
            _ => None,
        },
        Expr::UnaryOp {
            op: UnaryOperator::Minus,
            expr,
        } => Some(format!("-{}", number_literal_text(expr)?)),
        Expr::Array(array) => {
            let elements: Option<Vec<String>> =
                array.elem.iter().map(number_literal_text).collect();
            Some(format!("[{}]", elements?.join(", ")))
        }
        _ => None,
    }
}

/// Whether `expr` is a CAST whose type cannot hold NULL (`CAST(x AS
/// Int32)`, `x::String`; not `Nullable(T)`, `LowCardinality(Nullable(T))`
/// or the types that hold anything).
fn casts_to_not_nullable(expr: &Expr) -> bool {
    let Expr::Cast {
        kind: CastKind::Cast | CastKind::DoubleColon,
        data_type,
        ..
    } = expr
    else {
        return false;
    };
    match data_type {
        DataType::Nullable(_) => false,
        DataType::LowCardinality(inner) => !matches!(inner.as_ref(), DataType::Nullable(_)),
        DataType::Custom(name, _) => !matches!(
            name.to_string().as_str(),
            "Dynamic" | "Variant" | "JSON" | "Object" | "Nothing"
        ),
        _ => true,
    }
}

/// Whether every access of a chain is a subscript `[i]`, one of them by
/// an index that is no literal.
fn computed_indexes(chain: &[AccessExpr]) -> bool {
    let indexes: Option<Vec<&Expr>> = chain
        .iter()
        .map(|access| match access {
            AccessExpr::Subscript(Subscript::Index { index }) => Some(index),
            _ => None,
        })
        .collect();
    indexes.is_some_and(|indexes| {
        indexes
            .iter()
            .any(|index| !matches!(index, Expr::Value(_) | Expr::UnaryOp { .. }))
    })
}

/// `INTERVAL n unit` as `toInterval<Unit>(n)`, as ClickHouse names it.
pub(crate) fn interval_function(interval: &Interval) -> Option<Expr> {
    let field = interval.leading_field.as_ref()?;
    if interval.last_field.is_some() {
        return None;
    }
    let kind = IntervalKind::from_keyword(&field.to_string())?;
    // `INTERVAL '2' HOUR`: the amount written as text.
    let amount = match interval.value.as_ref() {
        Expr::Value(value) if let Value::SingleQuotedString(text) = &value.value => {
            text.trim().parse::<f64>().ok()?;
            Expr::value(Value::Number(text.trim().to_string(), false))
        }
        amount => amount.clone(),
    };
    Some(call(kind.function_name(), vec![amount]))
}

/// A scalar subquery of several columns, `(SELECT a, max(b) AS m FROM t)`,
/// as ClickHouse reads it: one named tuple of them, `(SELECT
/// named_struct('a', a, 'm', max(b)) FROM t)`.
fn tuple_of_columns(query: &Query) -> Option<Query> {
    let SetExpr::Select(select) = query.body.as_ref() else {
        return None;
    };
    if select.projection.len() < 2 {
        return None;
    }
    let mut fields = Vec::with_capacity(select.projection.len() * 2);
    for item in &select.projection {
        let (name, expr) = match item {
            SelectItem::ExprWithAlias { expr, alias } => (alias.value.clone(), expr),
            SelectItem::UnnamedExpr(expr @ Expr::Identifier(ident)) => (ident.value.clone(), expr),
            SelectItem::UnnamedExpr(expr) => (crate::naming::column_name(expr), expr),
            _ => return None,
        };
        fields.extend([string_literal(&name), expr.clone()]);
    }
    let mut select = select.clone();
    select.projection = vec![SelectItem::UnnamedExpr(call("named_struct", fields))];
    Some(Query {
        body: Box::new(SetExpr::Select(select)),
        ..query.clone()
    })
}

/// A function's name as written, a quoted one (`"toUUID"`) without its
/// quotes: earlier rewrites quote names they write back.
pub(crate) fn written_name(f: &Function) -> String {
    match f.name.0.as_slice() {
        [ObjectNamePart::Identifier(ident)] => ident.value.clone(),
        _ => f.name.to_string(),
    }
}

/// The spelling this module matches of the functions it rewrites by name
/// that ClickHouse finds in any letter case (`If(c, a, b)`, `VERSION()`).
fn case_insensitive_spelling(written: String) -> String {
    const NAMES: [&str; 5] = ["if", "version", "timezone", "first_value", "last_value"];
    match NAMES
        .iter()
        .find(|name| name.eq_ignore_ascii_case(&written))
    {
        Some(name) => name.to_string(),
        None => written,
    }
}

/// `DATE 'text'` as `toDate('text')`, `TIMESTAMP 'text'` as `toDateTime('text')`.
pub(crate) fn typed_string_function(typed: &TypedString) -> Option<Expr> {
    let name = match typed.data_type {
        DataType::Date => "toDate",
        DataType::Timestamp(..) => "toDateTime",
        _ => return None,
    };
    Some(call(name, vec![Expr::Value(typed.value.clone())]))
}

pub(crate) fn string_literal(s: &str) -> Expr {
    Expr::value(Value::SingleQuotedString(s.to_string()))
}

pub(crate) fn function_args(args: &FunctionArguments) -> Option<Vec<&Expr>> {
    match args {
        FunctionArguments::None => Some(Vec::new()),
        FunctionArguments::List(list) => list
            .args
            .iter()
            .map(|a| match a {
                FunctionArg::Unnamed(FunctionArgExpr::Expr(e)) => Some(e),
                _ => None,
            })
            .collect(),
        FunctionArguments::Subquery(_) => None,
    }
}

/// `CAST(x, 'Type')`, ClickHouse's function form, as `CAST(x AS Type)`.
fn two_argument_cast(args: &[&Expr]) -> Result<Option<Expr>> {
    let &[value, mut type_name] = args else {
        return Ok(None);
    };
    // A type named by a WITH constant comes in parentheses.
    while let Expr::Nested(inner) = type_name {
        type_name = inner;
    }
    let Expr::Value(type_name) = type_name else {
        return Ok(None);
    };
    let Value::SingleQuotedString(type_name) = &type_name.value else {
        return Ok(None);
    };
    let dialect = datafusion::sql::sqlparser::dialect::ClickHouseDialect {};
    let data_type = crate::parser::clickhouse_parser(&dialect, type_name)?
        .parse_data_type()
        .map_err(|e| {
            StrataError::new(
                ErrorCode::UNKNOWN_TYPE,
                format!("Unknown data type {type_name}: {e}"),
            )
        })?;
    Ok(Some(Expr::Cast {
        kind: CastKind::Cast,
        expr: Box::new(value.clone()),
        data_type,
        array: false,
        format: None,
    }))
}

fn string_argument(function: &str, args: &[&Expr]) -> Result<String> {
    match args {
        [Expr::Value(v)] => match &v.value {
            Value::SingleQuotedString(s) => Ok(s.clone()),
            _ => Err(StrataError::new(
                ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
                format!("The argument of function {function} should be a constant string"),
            )),
        },
        _ => Err(StrataError::new(
            ErrorCode::NUMBER_OF_ARGUMENTS_DOESNT_MATCH,
            format!(
                "Number of arguments for function {function} doesn't match: passed {}, should be 1",
                args.len()
            ),
        )),
    }
}

impl Rewriter<'_, '_> {
    fn apply_set_modes(&self, body: &mut SetExpr) -> Result<()> {
        if let SetExpr::SetOperation {
            left,
            op,
            set_quantifier,
            right,
        } = body
        {
            self.apply_set_modes(left)?;
            self.apply_set_modes(right)?;
            if *set_quantifier == SetQuantifier::None {
                let (setting, word) = match op {
                    SetOperator::Union => ("union_default_mode", "UNION"),
                    SetOperator::Intersect => ("intersect_default_mode", "INTERSECT"),
                    SetOperator::Except | SetOperator::Minus => ("except_default_mode", "EXCEPT"),
                };
                *set_quantifier = match self.ctx.settings.get(setting)?.to_string().as_str() {
                    "ALL" => SetQuantifier::All,
                    "DISTINCT" => SetQuantifier::Distinct,
                    _ => {
                        return Err(StrataError::new(
                            ErrorCode::EXPECTED_ALL_OR_DISTINCT,
                            format!(
                                "Expected ALL or DISTINCT after {word}. Write `{word} ALL` to keep duplicate rows or `{word} DISTINCT` to remove them, or set `{setting}` to choose what a bare {word} means"
                            ),
                        ));
                    }
                };
            }
        }
        Ok(())
    }

    /// A CAST to a type that is not Nullable also refuses NULLs and drops
    /// the Nullable, whatever its conversion.
    /// `aggregate_functions_null_for_empty`: an aggregate's -OrNull form,
    /// NULL over no rows, except where it counts (`count`, `uniq`), as in
    /// ClickHouse. Window calls keep their form.
    fn null_for_empty(&self, f: &Function, written: &str) -> Option<Expr> {
        let counts = written.starts_with("count") || written.starts_with("uniq");
        let or_null = written.ends_with("OrNull") || written.ends_with("OrNullIf");
        let wanted = self.ctx.settings.aggregate_functions_null_for_empty()
            && f.over.is_none()
            && !counts
            && !or_null
            && crate::combinators::names_aggregate(written, self.ctx);
        if !wanted {
            return None;
        }
        let mut call = f.clone();
        call.name = quoted(&format!("{written}OrNull"));
        Some(Expr::Function(call))
    }

    /// `cast_ipv4_ipv6_default_on_conversion_error`: text that is no
    /// address converts to the zero address, as the -OrDefault forms do.
    fn ip_default_on_error(&self, f: &Function, written: &str) -> Option<Expr> {
        const CONVERSIONS: [&str; 4] = ["IPv4StringToNum", "IPv6StringToNum", "toIPv4", "toIPv6"];
        if !self
            .ctx
            .settings
            .cast_ipv4_ipv6_default_on_conversion_error()
            || !CONVERSIONS.contains(&written)
        {
            return None;
        }
        let mut call = f.clone();
        call.name = quoted(&format!("{written}OrDefault"));
        Some(Expr::Function(call))
    }

    fn rewrite_expr(&self, expr: &Expr) -> Result<Option<Expr>> {
        let converted = self.rewrite_once(expr)?;
        if !casts_to_not_nullable(expr) || self.ctx.settings.cast_keep_nullable() {
            return Ok(converted);
        }
        if let Expr::Cast { expr: inner, .. } = expr
            && is_null_literal(inner)
        {
            return Err(StrataError::new(
                ErrorCode::CANNOT_CONVERT_TYPE,
                "Cannot convert NULL to a non-nullable type",
            ));
        }
        let converted = converted.unwrap_or_else(|| expr.clone());
        Ok(Some(call(
            strata_functions::cast_not_null::CAST_NOT_NULL,
            vec![converted],
        )))
    }

    fn rewrite_once(&self, expr: &Expr) -> Result<Option<Expr>> {
        match expr {
            Expr::Lambda(lambda) if contains_array_literal(&lambda.body) => {
                let mut lambda = lambda.clone();
                arrays_as_calls(&mut lambda.body);
                return Ok(Some(Expr::Lambda(lambda)));
            }
            Expr::InSubquery { negated: true, .. } => return crate::not_in::without_nulls(expr),
            // `a[i]` with a computed index: DataFusion's planner takes only
            // an Int64 there, ClickHouse's arrayElement any integer.
            Expr::CompoundFieldAccess { root, access_chain } if computed_indexes(access_chain) => {
                let element = access_chain.iter().fold((**root).clone(), |array, access| {
                    let AccessExpr::Subscript(Subscript::Index { index }) = access else {
                        unreachable!("checked by computed_indexes");
                    };
                    call("arrayElement", vec![array, index.clone()])
                });
                return Ok(Some(element));
            }
            // `transform_null_in = 1`: NULL is a value like any other,
            // in the set and tested against it, and the answer never NULL.
            Expr::InList {
                expr: tested,
                list,
                negated,
            } if self.ctx.settings.transform_null_in() => {
                // A NULL tested is found where the set holds NULL (is not
                // found, for NOT IN, where it does); a value is tested
                // against the set's other values. Written with IS [NOT]
                // NULL alone, so the answer is a number, as comparisons are.
                let null_found = list.iter().any(is_null_literal) != *negated;
                let kept: Vec<String> = list
                    .iter()
                    .filter(|e| !is_null_literal(e))
                    .map(ToString::to_string)
                    .collect();
                let not = if *negated { "NOT " } else { "" };
                let tests = format!("({tested}) {not}IN ({})", kept.join(", "));
                let text = match (null_found, kept.is_empty()) {
                    (true, true) => format!("({tested}) IS NULL"),
                    (false, true) => format!("({tested}) IS NOT NULL"),
                    (true, false) => format!("(({tested}) IS NULL OR {tests})"),
                    (false, false) => format!("(({tested}) IS NOT NULL AND {tests})"),
                };
                return crate::parse_expr_text(&text).map(Some);
            }
            // NULL in a set is skipped (`transform_null_in = 0`): `1 IN
            // (NULL, 2)` is 0, not NULL.
            Expr::InList {
                expr: tested,
                list,
                negated,
            } if list.iter().any(is_null_literal) => {
                let kept: Vec<Expr> = list
                    .iter()
                    .filter(|e| !is_null_literal(e))
                    .cloned()
                    .collect();
                if kept.is_empty() {
                    let outcome = u8::from(*negated);
                    let text = format!("CASE WHEN ({tested}) IS NULL THEN NULL ELSE {outcome} END");
                    return crate::parse_expr_text(&text).map(Some);
                }
                return Ok(Some(Expr::InList {
                    expr: tested.clone(),
                    list: kept,
                    negated: *negated,
                }));
            }
            Expr::Subquery(query) if let Some(tupled) = tuple_of_columns(query) => {
                return Ok(Some(Expr::Subquery(Box::new(tupled))));
            }
            // DataFusion plans a tuple literal only when its first element is
            // a column or a literal; `struct(...)` (ClickHouse's `tuple`)
            // takes any elements.
            Expr::Tuple(items)
                if !matches!(
                    items.first(),
                    Some(Expr::Identifier(_) | Expr::CompoundIdentifier(_) | Expr::Value(_))
                ) =>
            {
                return Ok(Some(call("struct", items.clone())));
            }
            // `s REGEXP p` (MySQL's operator, which ClickHouse reads) is `match`.
            Expr::RLike {
                negated,
                expr: text,
                pattern,
                ..
            } => {
                let matched = call("match", vec![(**text).clone(), (**pattern).clone()]);
                return Ok(Some(if *negated {
                    call("not", vec![matched])
                } else {
                    matched
                }));
            }
            // A tuple with a NULL element compares as NULL, as in ClickHouse,
            // whatever the other elements (DataFusion compares structs
            // null-safely).
            Expr::BinaryOp { left, op, right }
                if is_comparison(op) && (has_null_element(left) || has_null_element(right)) =>
            {
                let null = Expr::value(Value::Null);
                let type_name = string_literal("Nullable(UInt8)");
                return Ok(Some(call("_CAST", vec![null, type_name])));
            }
            Expr::BinaryOp { left, op, right } => {
                let name = match op {
                    BinaryOperator::Plus => "plus",
                    BinaryOperator::Minus => "minus",
                    BinaryOperator::Multiply => "multiply",
                    BinaryOperator::Divide => "divide",
                    BinaryOperator::Modulo => "modulo",
                    _ => return Ok(None),
                };
                return Ok(Some(call(name, vec![(**left).clone(), (**right).clone()])));
            }
            Expr::UnaryOp {
                op: UnaryOperator::Minus,
                expr: inner,
            } => {
                if matches!(inner.as_ref(), Expr::Value(v) if matches!(v.value, Value::Number(..)))
                {
                    return Ok(None);
                }
                return Ok(Some(call("negate", vec![(**inner).clone()])));
            }
            Expr::UnaryOp {
                op: UnaryOperator::Not,
                expr: inner,
            } if !is_boolean(inner) => {
                let mut condition = (**inner).clone();
                as_condition(&mut condition);
                return Ok(Some(Expr::UnaryOp {
                    op: UnaryOperator::Not,
                    expr: Box::new(condition),
                }));
            }
            // `ceil(x, N)` and `floor(x, N)`, whose scale DataFusion's planner refuses.
            Expr::Ceil {
                expr: inner,
                field: CeilFloorKind::Scale(scale),
            } => {
                let scale = Expr::Value(scale.clone());
                return Ok(Some(call("ceil", vec![(**inner).clone(), scale])));
            }
            Expr::Floor {
                expr: inner,
                field: CeilFloorKind::Scale(scale),
            } => {
                let scale = Expr::Value(scale.clone());
                return Ok(Some(call("floor", vec![(**inner).clone(), scale])));
            }
            // DataFusion plans these forms with its own functions, which count
            // characters; ClickHouse's `substring` and `position` count bytes.
            Expr::Substring {
                expr: inner,
                substring_from,
                substring_for,
                ..
            } => {
                let from = substring_from
                    .as_deref()
                    .cloned()
                    .unwrap_or_else(|| Expr::value(Value::Number("1".into(), false)));
                let mut args = vec![(**inner).clone(), from];
                args.extend(substring_for.as_deref().cloned());
                return Ok(Some(call("substring", args)));
            }
            Expr::Position { expr: needle, r#in } => {
                let args = vec![(**r#in).clone(), (**needle).clone()];
                return Ok(Some(call("position", args)));
            }
            // DataFusion has no UUID type; toUUID makes the field that is one.
            Expr::Cast {
                expr: inner,
                data_type: DataType::Uuid,
                ..
            } => return Ok(Some(TextReader::Uuid.read((**inner).clone()))),
            // Strata date functions (second pass): ClickHouse's date types.
            Expr::Cast {
                kind: CastKind::Cast | CastKind::DoubleColon,
                expr: inner,
                data_type,
                ..
            } if let Some(converted) = equivalents::dates::cast(inner, data_type) => {
                return Ok(Some(converted));
            }
            Expr::Cast {
                kind: CastKind::Cast | CastKind::DoubleColon,
                expr: inner,
                data_type,
                ..
            } if let Some(conversion) = numeric_conversion(data_type) => {
                let converted = call(conversion, vec![(**inner).clone()]);
                return Ok(Some(match data_type {
                    DataType::Nullable(_) => call("toNullable", vec![converted]),
                    _ => converted,
                }));
            }
            Expr::Cast {
                expr: inner,
                data_type: DataType::FixedString(width),
                ..
            } => {
                return Ok(Some(
                    TextReader::FixedString(*width).read((**inner).clone()),
                ));
            }
            // A Decimal without precision is ClickHouse's Decimal(10, 0).
            Expr::Cast {
                kind: CastKind::Cast | CastKind::DoubleColon,
                expr: inner,
                data_type:
                    DataType::Decimal(ExactNumberInfo::None)
                    | DataType::Dec(ExactNumberInfo::None)
                    | DataType::Numeric(ExactNumberInfo::None),
                ..
            } => {
                let type_name = string_literal("Decimal(10, 0)");
                return Ok(Some(call("_CAST", vec![(**inner).clone(), type_name])));
            }
            // ClickHouse cuts a Decimal's extra digits off; DataFusion rounds.
            // `literal::Decimal(P, S)` reads the literal's text, as
            // ClickHouse does (as a Float64, 0.1 has 17 digits).
            Expr::Cast {
                kind: kind @ (CastKind::Cast | CastKind::DoubleColon),
                expr: inner,
                data_type:
                    data_type @ (DataType::Decimal(
                        ExactNumberInfo::PrecisionAndScale(precision, _)
                        | ExactNumberInfo::Precision(precision),
                    )
                    | DataType::Dec(
                        ExactNumberInfo::PrecisionAndScale(precision, _)
                        | ExactNumberInfo::Precision(precision),
                    )
                    | DataType::Numeric(
                        ExactNumberInfo::PrecisionAndScale(precision, _)
                        | ExactNumberInfo::Precision(precision),
                    )),
                ..
            } if *precision <= 38 => {
                let type_name = string_literal(&crate::literal_text::type_text(data_type));
                let value = match (kind, number_literal_text(inner)) {
                    (CastKind::DoubleColon, Some(text)) => string_literal(&text),
                    _ => (**inner).clone(),
                };
                return Ok(Some(call("_CAST", vec![value, type_name])));
            }
            // A number literal, or an array of them, cast to a type holding
            // 128- or 256-bit integers is read from its text, as ClickHouse
            // reads `literal::T`: as a Float64 it would keep 17 digits.
            Expr::Cast {
                kind: CastKind::Cast | CastKind::DoubleColon,
                expr: inner,
                data_type,
                ..
            } if holds_big_integers(data_type)
                && let Some(text) = number_literal_text(inner) =>
            {
                let type_name = string_literal(&crate::literal_text::type_text(data_type));
                return Ok(Some(call("_CAST", vec![string_literal(&text), type_name])));
            }
            // Types DataFusion's SQL cannot name, cast by their ClickHouse name.
            Expr::Cast {
                kind: CastKind::Cast | CastKind::DoubleColon,
                expr: inner,
                data_type:
                    data_type @ (DataType::Nullable(_)
                    | DataType::LowCardinality(_)
                    | DataType::Array(ArrayElemTypeDef::Parenthesis(_))
                    | DataType::Map(..)
                    | DataType::Tuple(_)
                    | DataType::Enum(..)
                    | DataType::Int128
                    | DataType::UInt128
                    | DataType::Int256
                    | DataType::UInt256
                    | DataType::Custom(..)),
                ..
            } => {
                let type_name = string_literal(&crate::literal_text::type_text(data_type));
                return Ok(Some(call("_CAST", vec![(**inner).clone(), type_name])));
            }
            // ClickHouse reads `DATE '...'` and `TIMESTAMP '...'` as toDate and toDateTime.
            Expr::TypedString(typed) if let Some(made) = typed_string_function(typed) => {
                return Ok(Some(made));
            }
            // An interval of the unit's type (`IntervalDay`), shown as its
            // count; DataFusion reads an interval of a literal only.
            Expr::Interval(interval) if let Some(made) = interval_function(interval) => {
                return Ok(Some(made));
            }
            Expr::Identifier(ident) if ident.quote_style.is_none() => {
                let literal = match ident.value.to_ascii_lowercase().as_str() {
                    "nan" => "NaN",
                    "inf" => "inf",
                    _ => return Ok(None),
                };
                return Ok(Some(Expr::value(Value::Number(literal.to_string(), false))));
            }
            _ => {}
        }
        let Expr::Function(f) = expr else {
            return Ok(None);
        };
        let written = case_insensitive_spelling(written_name(f));
        if let Some(or_null) = self.null_for_empty(f, &written) {
            return Ok(Some(self.rewrite_expr(&or_null)?.unwrap_or(or_null)));
        }
        if let Some(or_default) = self.ip_default_on_error(f, &written) {
            return Ok(Some(or_default));
        }
        if let Some(equivalent) = equivalents::aggregate(f, &written)? {
            return Ok(Some(equivalent));
        }
        if let Some((base, plain)) = crate::combinators::simple_state(f, &written, self.ctx)? {
            let planned = self.rewrite_expr(&plain)?.unwrap_or(plain);
            let marker = strata_functions::misc::SIMPLE_AGGREGATE;
            return Ok(Some(call(marker, vec![planned, string_literal(&base)])));
        }
        if let Some(combined) = crate::combinators::rewrite(f, &written, self.ctx)? {
            return Ok(Some(combined));
        }
        if f.over.is_some() {
            if let Some(windowed) = crate::window_aggregates::rewrite(f, &written, self.ctx)? {
                return Ok(Some(windowed));
            }
            return Ok(self.registered_spelling(f, &written));
        }
        let Some(args) = function_args(&f.args) else {
            return Ok(None);
        };
        if written.eq_ignore_ascii_case("cast")
            && let Some(cast) = two_argument_cast(&args)?
        {
            return Ok(Some(self.rewrite_expr(&cast)?.unwrap_or(cast)));
        }
        if let Some(equivalent) = equivalents::equivalent(&written, &args)? {
            return Ok(Some(equivalent));
        }
        if let Some(constant) = equivalents::query_constant(&written, &args, self.ctx)? {
            return Ok(Some(constant));
        }
        let constant = match written.as_str() {
            // ClickHouse's `any`, `anyLast`, `first_value` and `last_value` skip NULLs.
            "any" | "anyLast" | "first_value" | "last_value" if f.null_treatment.is_none() => {
                let mut ignoring = f.clone();
                ignoring.null_treatment = Some(NullTreatment::IgnoreNulls);
                ignoring.name = quoted(&written);
                return Ok(Some(Expr::Function(ignoring)));
            }
            "if" => {
                if args.len() != 3 {
                    return Err(arity("if", args.len(), "3"));
                }
                return Ok(Some(case(
                    &[args[0].clone(), args[1].clone()],
                    Some(args[2].clone()),
                )));
            }
            "multiIf" => {
                if args.len() < 3 || args.len() % 2 == 0 {
                    return Err(arity("multiIf", args.len(), "an odd number, at least 3"));
                }
                let pairs: Vec<Expr> = args[..args.len() - 1]
                    .iter()
                    .map(|e| (*e).clone())
                    .collect();
                return Ok(Some(case(&pairs, Some(args[args.len() - 1].clone()))));
            }
            "getSetting" => {
                let name = string_argument("getSetting", &args)?;
                match self.ctx.settings.shown(&name)? {
                    SettingValue::UInt64(v) => Expr::value(Value::Number(v.to_string(), false)),
                    SettingValue::Int64(v) => Expr::value(Value::Number(v.to_string(), false)),
                    SettingValue::Bool(b) => Expr::value(Value::Boolean(b)),
                    SettingValue::Float(v) => Expr::value(Value::Number(format!("{v:?}"), false)),
                    SettingValue::String(s) => string_literal(&s),
                }
            }
            "getServerSetting" => {
                let name = string_argument("getServerSetting", &args)?;
                match (self.ctx.server_setting)(&name) {
                    Some(v) if v.parse::<u64>().is_ok() => Expr::value(Value::Number(v, false)),
                    Some(v) => string_literal(&v),
                    None => {
                        return Err(StrataError::new(
                            ErrorCode::UNKNOWN_SETTING,
                            format!("Unknown server setting '{name}'"),
                        ));
                    }
                }
            }
            "currentDatabase" if args.is_empty() => string_literal(self.ctx.current_database),
            "version" if args.is_empty() => string_literal(self.ctx.version),
            // Strata reads and writes DateTime values in UTC.
            "timezone" | "timeZone" | "serverTimezone" | "serverTimeZone" if args.is_empty() => {
                string_literal("UTC")
            }
            // `user` and `current_user` in any letter case (`USER()`), as ClickHouse.
            written
                if args.is_empty()
                    && (written == "currentUser"
                        || written.eq_ignore_ascii_case("user")
                        || written.eq_ignore_ascii_case("current_user")) =>
            {
                string_literal(self.ctx.current_user)
            }
            "sum" | "avg" | "SUM" | "AVG" if args.iter().any(|a| is_boolean(a)) => {
                let mut counted = f.clone();
                count_comparisons(&mut counted);
                return Ok(Some(Expr::Function(counted)));
            }
            _ => {
                if let Some(filtered) = self.if_combinator(f, &written, &args)? {
                    return Ok(Some(filtered));
                }
                return Ok(self.registered_spelling(f, &written));
            }
        };
        Ok(Some(constant))
    }
}

impl Rewriter<'_, '_> {
    /// `f` under the name its function is registered with, quoted: DataFusion
    /// lower-cases unquoted function names, and quoting keeps ClickHouse's
    /// camelCase names (`toTypeName`, `groupArray` over a window). None
    /// where the name as written already finds it.
    fn registered_spelling(&self, f: &Function, written: &str) -> Option<Expr> {
        let registered =
            (self.ctx.resolve_function)(written).unwrap_or_else(|| written.to_string());
        let is_plain = f.name.0.len() == 1;
        if !(is_plain && registered.chars().any(|c| c.is_ascii_uppercase())
            || registered != written)
        {
            return None;
        }
        let mut renamed = f.clone();
        renamed.name = quoted(&registered);
        Some(Expr::Function(renamed))
    }

    /// `fIf(args..., condition)`, ClickHouse's -If combinator, as the
    /// aggregate `f(args...) FILTER (WHERE condition)`, when `fIf` is not a
    /// function of its own.
    fn if_combinator(&self, f: &Function, written: &str, args: &[&Expr]) -> Result<Option<Expr>> {
        let Some(registered) = if_combinator_base(f, written, self.ctx) else {
            return Ok(None);
        };
        let Some((condition, arguments)) = args.split_last() else {
            return Err(arity(written, 0, "at least 1"));
        };
        let arguments = arguments.iter().map(|e| (*e).clone()).collect();
        let mut filtered = with_arguments(f, &registered, arguments);
        filtered.filter = Some(Box::new((*condition).clone()));
        if ["sum", "avg"].contains(&registered.as_str()) {
            count_comparisons(&mut filtered);
        }
        Ok(Some(Expr::Function(filtered)))
    }
}

/// The registered name of the aggregate `f` combines with -If, when
/// `written` is such a combination and not a function of its own.
pub(crate) fn if_combinator_base(f: &Function, written: &str, ctx: &AstContext) -> Option<String> {
    let base = written.strip_suffix("If")?;
    let spelling = |name: &str| (ctx.resolve_function)(name).unwrap_or(name.to_string());
    let registered = spelling(base);
    let combines = f.filter.is_none()
        && !(ctx.is_aggregate)(&spelling(written))
        && (ctx.is_aggregate)(&registered);
    combines.then_some(registered)
}

/// `f` as a call of `name` with `args`, keeping its window and modifiers.
pub(crate) fn with_arguments(f: &Function, name: &str, args: Vec<Expr>) -> Function {
    let mut called = f.clone();
    called.name = quoted(name);
    if let FunctionArguments::List(list) = &mut called.args {
        list.args = args
            .into_iter()
            .map(|e| FunctionArg::Unnamed(FunctionArgExpr::Expr(e)))
            .collect();
    }
    called
}

/// Casts the comparisons among a `sum` or `avg`'s arguments to UInt8:
/// ClickHouse's comparisons are numbers, so `sum(x = 1)` counts.
fn count_comparisons(f: &mut Function) {
    let FunctionArguments::List(list) = &mut f.args else {
        return;
    };
    for arg in &mut list.args {
        if let FunctionArg::Unnamed(FunctionArgExpr::Expr(e)) = arg
            && is_boolean(e)
        {
            *e = Expr::Cast {
                kind: CastKind::Cast,
                expr: Box::new(e.clone()),
                data_type: DataType::TinyIntUnsigned(None),
                array: false,
                format: None,
            };
        }
    }
}

/// The WHERE, PREWHERE and HAVING of `select` as conditions.
fn select_conditions(select: &mut Select) {
    for condition in [
        &mut select.selection,
        &mut select.prewhere,
        &mut select.having,
    ]
    .into_iter()
    .flatten()
    {
        as_condition(condition);
    }
    // `JOIN ... ON 1`: a number is a condition in a join too.
    for join in select.from.iter_mut().flat_map(|t| &mut t.joins) {
        if let Some(JoinConstraint::On(condition)) =
            crate::join_using::constraint_mut(&mut join.join_operator)
        {
            as_condition(condition);
        }
    }
}

/// [`select_conditions`] for each SELECT a set operation joins.
fn set_operand_conditions(body: &mut SetExpr) {
    if let SetExpr::SetOperation { left, right, .. } = body {
        for operand in [left, right] {
            match operand.as_mut() {
                SetExpr::Select(select) => select_conditions(select),
                other => set_operand_conditions(other),
            }
        }
    }
}

/// Makes `expr` a condition DataFusion takes where it may be a number
/// (`WHERE flag`, `WHERE number % 2`): `toBool(expr)`, which the plan
/// rewrite turns into `expr != 0` once the type is known.
pub(crate) fn as_condition(expr: &mut Expr) {
    if !is_boolean(expr) {
        *expr = call(uint8_booleans::TO_BOOL, vec![expr.clone()]);
    }
}

/// Whether `expr` is a comparison or logical expression, which DataFusion
/// types Boolean and ClickHouse UInt8.
fn is_boolean(expr: &Expr) -> bool {
    match expr {
        Expr::BinaryOp { op, .. } => {
            is_comparison(op) || matches!(op, BinaryOperator::And | BinaryOperator::Or)
        }
        Expr::UnaryOp {
            op: UnaryOperator::Not,
            ..
        }
        | Expr::IsNull(_)
        | Expr::IsNotNull(_)
        | Expr::IsTrue(_)
        | Expr::IsFalse(_)
        | Expr::IsNotTrue(_)
        | Expr::IsNotFalse(_)
        | Expr::InList { .. }
        | Expr::InSubquery { .. }
        | Expr::InUnnest { .. }
        | Expr::Exists { .. }
        | Expr::Between { .. }
        | Expr::Like { .. }
        | Expr::ILike { .. }
        | Expr::SimilarTo { .. }
        | Expr::RLike { .. } => true,
        Expr::Value(v) => matches!(v.value, Value::Boolean(_)),
        Expr::Nested(inner) => is_boolean(inner),
        _ => false,
    }
}

/// A plain call `name(args...)`; a name with capitals (Strata's functions,
/// named as ClickHouse names them) is quoted so DataFusion keeps its case.
/// Whether `expr` holds a non-empty `[a, ...]` literal.
fn contains_array_literal(expr: &Expr) -> bool {
    datafusion::sql::sqlparser::ast::visit_expressions(expr, |e| match e {
        Expr::Array(array) if !array.elem.is_empty() => ControlFlow::Break(()),
        _ => ControlFlow::Continue(()),
    })
    .is_break()
}

/// `[a, ...]` literals in a lambda's body as `array(a, ...)` calls:
/// DataFusion plans an array literal without the lambda's parameters in
/// scope (`x -> [x]` would find no `x`).
fn arrays_as_calls(body: &mut Expr) {
    let _ = datafusion::sql::sqlparser::ast::visit_expressions_mut(body, |e| {
        if let Expr::Array(array) = e
            && !array.elem.is_empty()
        {
            *e = call("array", array.elem.clone());
        }
        ControlFlow::<()>::Continue(())
    });
}

pub(crate) fn call(name: &str, args: Vec<Expr>) -> Expr {
    let ident = match name.chars().any(char::is_uppercase) {
        true => Ident::with_quote('"', name),
        false => Ident::new(name),
    };
    Expr::Function(Function {
        name: ObjectName(vec![ObjectNamePart::Identifier(ident)]),
        uses_odbc_syntax: false,
        parameters: FunctionArguments::None,
        args: FunctionArguments::List(FunctionArgumentList {
            duplicate_treatment: None,
            args: args
                .into_iter()
                .map(|e| FunctionArg::Unnamed(FunctionArgExpr::Expr(e)))
                .collect(),
            clauses: vec![],
        }),
        filter: None,
        null_treatment: None,
        over: None,
        within_group: vec![],
    })
}

/// How text becomes a value of a type DataFusion cannot cast text to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TextReader {
    Uuid,
    FixedString(u64),
    /// A type DataFusion has no cast to text for, by its ClickHouse name
    /// (an enum, an IP address), read by `_CAST`.
    Named(String),
}

impl TextReader {
    /// `text` read as this reader's type.
    pub fn read(&self, text: Expr) -> Expr {
        match self {
            TextReader::Uuid => call("toUUID", vec![text]),
            TextReader::FixedString(width) => call(
                "toFixedString",
                vec![text, Expr::value(Value::Number(width.to_string(), false))],
            ),
            TextReader::Named(type_name) => call("_CAST", vec![text, string_literal(type_name)]),
        }
    }
}

pub(crate) fn arity(function: &str, passed: usize, expected: &str) -> StrataError {
    StrataError::new(
        ErrorCode::NUMBER_OF_ARGUMENTS_DOESNT_MATCH,
        format!(
            "Number of arguments for function {function} doesn't match: passed {passed}, should be {expected}"
        ),
    )
}

/// `CASE WHEN c1 THEN r1 WHEN c2 THEN r2 ... ELSE e END` from `[c1, r1, c2, r2, ...]`.
pub(crate) fn case(pairs: &[Expr], otherwise: Option<Expr>) -> Expr {
    let conditions = pairs
        .chunks_exact(2)
        .map(|pair| CaseWhen {
            condition: pair[0].clone(),
            result: pair[1].clone(),
        })
        .collect();
    Expr::Case {
        case_token: datafusion::sql::sqlparser::ast::helpers::attached_token::AttachedToken::empty(
        ),
        end_token: datafusion::sql::sqlparser::ast::helpers::attached_token::AttachedToken::empty(),
        operand: None,
        conditions,
        else_result: otherwise.map(Box::new),
    }
}

/// Aliases unaliased select items with ClickHouse's names, in every SELECT of a
/// set operation (subqueries are reached by the visitor separately).
/// Names each SELECT's unnamed items as ClickHouse does, and expands its
/// aliases where ClickHouse lets them be used (see [`crate::aliases`]); the
/// names come from the text as written, before aliases are expanded.
fn prepare_select_items(body: &mut SetExpr) -> Result<()> {
    match body {
        SetExpr::Select(select) => {
            let aliases = aliases::user_aliases(select)?;
            for item in &mut select.projection {
                if let SelectItem::UnnamedExpr(expr) = item {
                    let alias = match expr {
                        // An alias used alone keeps its name once expanded.
                        Expr::Identifier(ident) if aliases.contains_key(&ident.value) => {
                            ident.clone()
                        }
                        // A named tuple's element, `t.a`, is named as written.
                        Expr::CompoundIdentifier(parts)
                            if aliases.contains_key(&parts[0].value) =>
                        {
                            Ident::with_quote('"', expr.to_string())
                        }
                        Expr::Identifier(_) | Expr::CompoundIdentifier(_) => continue,
                        _ => Ident {
                            value: column_name(expr),
                            quote_style: Some('"'),
                            span: Span::empty(),
                        },
                    };
                    *item = SelectItem::ExprWithAlias {
                        expr: expr.clone(),
                        alias,
                    };
                }
            }
            aliases::expand_aliases(select, &aliases);
        }
        SetExpr::SetOperation { left, right, .. } => {
            prepare_select_items(left)?;
            prepare_select_items(right)?;
        }
        _ => {}
    }
    Ok(())
}

/// Whether `op` compares (`=`, `!=`, `<`, `<=`, `>`, `>=`).
pub(crate) fn is_comparison(op: &BinaryOperator) -> bool {
    matches!(
        op,
        BinaryOperator::Eq
            | BinaryOperator::NotEq
            | BinaryOperator::Lt
            | BinaryOperator::LtEq
            | BinaryOperator::Gt
            | BinaryOperator::GtEq
    )
}

/// Whether `expr` is a tuple literal, `(a, NULL)` or `tuple(NULL)`, with
/// a NULL element.
fn has_null_element(expr: &Expr) -> bool {
    match expr {
        Expr::Tuple(items) => items.iter().any(is_null_literal),
        Expr::Function(f)
            if matches!(
                f.name
                    .to_string()
                    .trim_matches('"')
                    .to_ascii_lowercase()
                    .as_str(),
                "tuple" | "struct"
            ) =>
        {
            function_args(&f.args).is_some_and(|args| args.iter().any(|a| is_null_literal(a)))
        }
        Expr::Nested(inner) => has_null_element(inner),
        _ => false,
    }
}

fn is_null_literal(expr: &Expr) -> bool {
    matches!(expr, Expr::Value(v) if v.value == Value::Null)
}
