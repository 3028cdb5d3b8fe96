//! Rewrites of DataFusion's logical plan that give it ClickHouse's semantics,
//! applied after SQL planning and before DataFusion's analyzer coerces types.
//!
//! - Integer literals take the smallest type that holds them (`10000` is UInt16,
//!   `-1` is Int8), as ClickHouse types them; passed to a DataFusion function
//!   whose signature refuses narrow integers (`substr`), they are Int64 again.
//! - `+ - * / %` and unary minus on numbers become ClickHouse's `plus`, `minus`,
//!   ... with ClickHouse's result types (`number % 10000` is UInt16).
//! - Keys a grouping set (ROLLUP, CUBE, GROUPING SETS) leaves out of a row
//!   take their type's default, not NULL, unless `group_by_use_nulls` is set.
//! - Aggregates ClickHouse never makes NULL for non-NULL input (`sum`, `min`,
//!   `avg`, `any`, ..., and `groupUniqArray`) get their default (0, nan for
//!   `avg`, `[]` for arrays) where DataFusion
//!   would return NULL, i.e. over empty input; `avg` is Float64, also of Decimals.
//!
//! - A UUID in an `IN` list or `BETWEEN` with strings compares with the
//!   strings read as UUIDs or FixedStrings ([`crate::text_comparisons`]).
//! - Comparisons and logical operators are UInt8 where their results are
//!   values, and numbers are conditions where DataFusion wants a Boolean
//!   ([`crate::uint8_booleans`]).
//!
//! - Floats compare as IEEE 754 says: NaN equals nothing
//!   ([`crate::nan_comparisons`]).
//! - A window function over a non-NULL argument gives its type's default
//!   where it finds no row (`lag` past the edge), not NULL.
//! - The elements an ARRAY JOIN gives are Nullable only where the array's are.
//! - An enum orders and compares with numbers by its elements' numbers
//!   ([`crate::enum_numbers`]).
//! - NaN sorts beside NULL ([`crate::nan_order`]).
//! - UUIDs sort and order by their low half first
//!   ([`crate::uuid_order`]).
//! - A scalar subquery is Nullable, as in ClickHouse.
//! - A Date or DateTime moved by a finer interval takes the finer type
//!   ([`crate::interval_moments`]).
//! - A constant `OrNull` conversion in a result (`toInt32OrNull('1')`) stays
//!   Nullable, though DataFusion folds it into a literal.
//! - `untuple(t)` in a select list is the tuple's elements
//!   ([`crate::untuple`]).
//! - Each table function's scan is named apart
//!   ([`crate::table_function_scans`]).
//! - A recursive CTE's terms give its work table's types
//!   ([`crate::recursive_ctes`]).
//! - A RANGE frame's offset over a Date counts days, over a DateTime
//!   seconds ([`crate::window_ranges`]).
//! - A union's columns take ClickHouse's common type where DataFusion's
//!   differs (a Date beside a DateTime, a FixedString beside a String), as
//!   CASE results and `least`/`greatest` arguments do
//!   ([`crate::common_results`]); `coalesce` stops at its first argument
//!   that cannot be NULL.
//! - An INSERT that gives NULL to a column that is not Nullable stores the
//!   column's default there (`insert_null_as_default`).
//!
//! Output column names never change: a rewritten expression whose name would
//! differ is aliased back to the name DataFusion planned.

use std::collections::HashMap;
use std::sync::Arc;

use datafusion::arrow::datatypes::{DataType, Field};
use datafusion::common::metadata::FieldMetadata;
use datafusion::common::tree_node::{Transformed, TreeNode, TreeNodeRecursion};
use datafusion::common::{Column, DFSchema, DFSchemaRef, Result, ScalarValue};
use datafusion::functions::core::expr_fn::coalesce;
use datafusion::logical_expr::expr::{Cast, ScalarFunction};
use datafusion::logical_expr::type_coercion::functions::fields_with_udf;
use datafusion::logical_expr::{
    Aggregate, BinaryExpr, Expr, ExprSchemable, LogicalPlan, LogicalPlanBuilder, Operator,
    Projection, ScalarUDF, Subquery, Union, cast, lit,
};
use datafusion::optimizer::analyzer::type_coercion::coerce_union_schema;
use strata_common::settings::Settings;
use strata_common::types;
use strata_functions::arithmetic::{self, ArithmeticOp};
use strata_functions::conversion::EnumNumber;
use strata_functions::uuids::UuidOrder;

use crate::text_comparisons::TextComparisons;
use crate::uint8_booleans;

/// What a plan node does with its expressions' results, which decides
/// whether a Boolean becomes ClickHouse's UInt8 or a number a condition.
enum Role {
    Output,
    Condition,
    Other,
}

/// Applies the rewrites with the arithmetic functions found in `functions`.
pub struct PlanRewriter {
    functions: HashMap<String, Arc<ScalarUDF>>,
    text_comparisons: TextComparisons,
}

impl PlanRewriter {
    pub fn new(functions: &[Arc<ScalarUDF>]) -> Self {
        let wanted = [
            "plus",
            "minus",
            "multiply",
            "divide",
            "modulo",
            "negate",
            "_bitAndBig",
            "_bitOrBig",
            "_bitXorBig",
            "toUUID",
            "make_array",
            "map",
            "struct",
            "arrayElement",
            "toNullable",
            "assumeNotNull",
            "_CAST",
            "tupleElement",
            "_tupleElementsNullable",
            "toString",
            "toDateTime",
            "toDateTime64",
            EnumNumber::NAME,
            UuidOrder::NAME,
        ];
        PlanRewriter {
            functions: functions
                .iter()
                .filter(|f| wanted.contains(&f.name()))
                .map(|f| (f.name().to_string(), Arc::clone(f)))
                .collect(),
            text_comparisons: TextComparisons::new(functions),
        }
    }

    pub fn rewrite(&self, plan: LogicalPlan, settings: &Settings) -> Result<LogicalPlan> {
        let keys_null = settings.group_by_use_nulls();
        // An INSERT's VALUES are already typed as the table's columns, and a
        // VALUES node keeps the schema it was planned with.
        let inserting = matches!(plan, LogicalPlan::Dml(_));
        let join_nulls = settings.join_use_nulls();
        let plan = crate::table_function_scans::name_apart(plan)?;
        let rewritten = plan.transform_up_with_subqueries(|node| {
            if inserting && matches!(node, LogicalPlan::Values(_)) {
                return self.own_constructors(node);
            }
            // Before the node's own rewrite, which may put a projection
            // over an aggregate.
            let node = crate::subquery_order::order_by_subquery_sort(node)?.data;
            let node = crate::subquery_order::number_rows_by_subquery_sort(node)?.data;
            let node = crate::window_ranges::offsets_in_key_units(node)?.data;
            let node = self.rewrite_node(node, keys_null)?;
            match join_nulls {
                true => Ok(node),
                false => node.transform_data(crate::join_defaults::fill_defaults),
            }
        })?;
        match inserting {
            true => {
                let narrowed = rewritten
                    .data
                    .map_children(|input| self.wrap_narrowings(input))?
                    .data;
                match settings.insert_null_as_default() {
                    true => nulls_as_defaults(narrowed),
                    false => Ok(narrowed),
                }
            }
            false => Ok(rewritten.data),
        }
    }

    /// The casts an INSERT's source takes to the table's plain integer
    /// columns (not an IPv4's), through `_CAST`: as in ClickHouse, a value out of the column's range
    /// wraps (300 into UInt8 is 44), where DataFusion's cast fails.
    fn wrap_narrowings(&self, input: LogicalPlan) -> Result<Transformed<LogicalPlan>> {
        let LogicalPlan::Projection(_) = &input else {
            return Ok(Transformed::no(input));
        };
        let Some(wrapping_cast) = self.functions.get("_CAST") else {
            return Ok(Transformed::no(input));
        };
        let schema = input_schema(&input);
        let wrap = |e: Expr| match e {
            Expr::Cast(Cast { expr, field })
                if field.data_type().is_integer()
                    && field.metadata().is_empty()
                    && expr.get_type(&schema).is_ok_and(|from| from.is_integer()) =>
            {
                let nullable = expr.nullable(&schema).unwrap_or(true);
                let type_name = types::clickhouse_type_name(field.data_type(), nullable);
                let args = vec![*expr, lit(type_name)];
                Transformed::yes(Expr::ScalarFunction(ScalarFunction::new_udf(
                    Arc::clone(wrapping_cast),
                    args,
                )))
            }
            e => Transformed::no(e),
        };
        // Only the column's own cast, at the top of its expression.
        input.map_expressions(|expr| {
            Ok(match expr {
                Expr::Alias(mut alias) => {
                    let inner = wrap(*alias.expr);
                    alias.expr = Box::new(inner.data);
                    Transformed::new_transformed(Expr::Alias(alias), inner.transformed)
                }
                other => wrap(other),
            })
        })
    }

    /// An INSERT's VALUES with Strata's array, map and tuple constructors,
    /// which unify their elements' nullability (DataFusion's builder panics
    /// on `[(5, 5), (-5, 5)]`); nothing else changes, so the types stay.
    fn own_constructors(&self, node: LogicalPlan) -> Result<Transformed<LogicalPlan>> {
        let schema = input_schema(&node);
        node.map_expressions(|expr| {
            expr.transform_up(|e| match e {
                Expr::ScalarFunction(ScalarFunction { func, args })
                    if let Some(ours) = self.strata_version(&func, &args, &schema) =>
                {
                    Ok(Transformed::yes(Expr::ScalarFunction(
                        ScalarFunction::new_udf(ours, args),
                    )))
                }
                e => Ok(Transformed::no(e)),
            })
        })
    }

    /// `keys_null`: grouping sets leave keys NULL (`group_by_use_nulls`).
    fn rewrite_node(&self, node: LogicalPlan, keys_null: bool) -> Result<Transformed<LogicalPlan>> {
        if let LogicalPlan::Union(union) = node {
            return retype_union(union, |name, args| self.call(name, args));
        }
        if let LogicalPlan::RecursiveQuery(query) = node {
            return crate::recursive_ctes::cast_terms(query);
        }
        if matches!(
            node,
            LogicalPlan::Limit(_) | LogicalPlan::TableScan(_) | LogicalPlan::Extension(_)
        ) {
            return Ok(Transformed::no(node));
        }
        let tuple_element = self.functions.get("tupleElement").expect("registered");
        let untupled = crate::untuple::expand(node, tuple_element)?;
        let node = untupled.data;
        let schema = input_schema(&node);
        let keeps_names = matches!(
            node,
            LogicalPlan::Projection(_) | LogicalPlan::Aggregate(_) | LogicalPlan::Window(_)
        );
        let role = match node {
            LogicalPlan::Projection(_) | LogicalPlan::Aggregate(_) => Role::Output,
            LogicalPlan::Filter(_) => Role::Condition,
            _ => Role::Other,
        };
        let rewritten = node.map_expressions(|expr| match expr {
            // A grouping set's keys are rewritten and named one by one: a
            // name given to the whole set would make it a single key.
            Expr::GroupingSet(_) => {
                expr.map_children(|key| self.rewrite_top(key, &schema, keeps_names, &role))
            }
            expr => self.rewrite_top(expr, &schema, keeps_names, &role),
        })?;
        // A child's types may have changed even where this node's expressions did not.
        let node = rewritten.data.recompute_schema()?;
        // A VALUES node keeps the types it was planned with: its rows, typed
        // afresh (`1` as UInt8), are planned again to their common types.
        let node = match node {
            LogicalPlan::Values(values) if rewritten.transformed => {
                LogicalPlanBuilder::values(values.values)?.build()?
            }
            node => node,
        };
        let enum_number = self.functions.get(EnumNumber::NAME).expect("registered");
        let extremes = crate::enum_numbers::extremes_by_number(node, enum_number)?;
        let ordered = crate::enum_numbers::order_by_number(extremes.data, enum_number)?;
        let ordered =
            Transformed::new_transformed(ordered.data, ordered.transformed || extremes.transformed);
        let uuid_order = self.functions.get(UuidOrder::NAME).expect("registered");
        let halves = crate::uuid_order::order_by_halves(ordered.data, uuid_order)?;
        let ordered =
            Transformed::new_transformed(halves.data, ordered.transformed || halves.transformed);
        let nan_ordered = crate::nan_order::beside_nulls(ordered.data)?;
        let grouped = match_grouping_keys(nan_ordered.data)?;
        let changed = untupled.transformed
            || rewritten.transformed
            || ordered.transformed
            || nan_ordered.transformed
            || grouped.transformed;
        let node = grouped.data;
        if let LogicalPlan::Aggregate(_) = &node {
            if let Some(wrapped) = self.finish_aggregates(&node, &schema, keys_null)? {
                return Ok(Transformed::yes(wrapped));
            }
        }
        if let Some(wrapped) = finish_windows(&node, &schema)? {
            return Ok(Transformed::yes(wrapped));
        }
        if let Some(wrapped) = self.finish_unnest(&node)? {
            return Ok(Transformed::yes(wrapped));
        }
        Ok(if changed {
            Transformed::yes(node)
        } else {
            Transformed::no(node)
        })
    }

    /// Rewrites one of a node's expressions, keeping its name where the node's
    /// output is named after it.
    fn rewrite_top(
        &self,
        expr: Expr,
        schema: &DFSchemaRef,
        keeps_names: bool,
        role: &Role,
    ) -> Result<Transformed<Expr>> {
        let before = keeps_names.then(|| expr.schema_name().to_string());
        let new = expr
            .transform_up(|e| self.rewrite_expr(e, schema))?
            .transform_data(|e| resolve_lambdas(e, schema))?;
        let named = match before {
            Some(name) if new.transformed && new.data.schema_name().to_string() != name => {
                Transformed::yes(new.data.alias(name))
            }
            _ => new,
        };
        match role {
            Role::Output => named
                .transform_data(|e| self.keep_nullable_constants(e))?
                .transform_data(|e| Ok(uint8_booleans::output_as_value(e, schema))),
            Role::Condition => {
                named.transform_data(|e| Ok(uint8_booleans::as_condition(e, schema)))
            }
            Role::Other => Ok(named),
        }
    }

    /// Puts each constant that ClickHouse types Nullable (an `OrNull`
    /// conversion, `nullIf`, ...) under `toNullable`, which
    /// DataFusion never folds: folded, it would become a literal, which is
    /// Nullable only when it is NULL. Aggregates' and lambdas' arguments
    /// are left as they are.
    fn keep_nullable_constants(&self, expr: Expr) -> Result<Transformed<Expr>> {
        expr.transform_down(|e| {
            if matches!(
                e,
                Expr::AggregateFunction(_) | Expr::WindowFunction(_) | Expr::Lambda(_)
            ) {
                return Ok(Transformed::new(e, false, TreeNodeRecursion::Jump));
            }
            if !is_nullable_constant(&e) {
                return Ok(Transformed::no(e));
            }
            let wrapped = self.call("toNullable", vec![e]);
            Ok(Transformed::new(wrapped, true, TreeNodeRecursion::Jump))
        })
    }

    /// `CAST(x AS String)` or `_CAST(x, 'String')` of a UUID, an IP
    /// address, an array, a tuple or a map: its text, as ClickHouse casts
    /// it and `toString` writes it (Arrow would cast a UUID's bytes or an
    /// address's number, and writes arrays without quotes or NULLs).
    fn cast_as_text(&self, expr: &Expr, schema: &DFSchemaRef) -> Result<Option<Expr>> {
        let (inner, to_text) = match expr {
            Expr::Cast(Cast { expr: inner, field }) => (
                inner.as_ref(),
                matches!(
                    field.data_type(),
                    DataType::Utf8 | DataType::Utf8View | DataType::LargeUtf8
                ),
            ),
            Expr::ScalarFunction(call) if call.func.name() == "_CAST" && call.args.len() == 2 => {
                let names_text = matches!(&call.args[1],
                    Expr::Literal(ScalarValue::Utf8(Some(name)), _) if names_string(name));
                (&call.args[0], names_text)
            }
            _ => return Ok(None),
        };
        if !to_text {
            return Ok(None);
        }
        let Ok((_, field)) = inner.to_field(schema.as_ref()) else {
            return Ok(None);
        };
        let nested = matches!(
            field.data_type(),
            DataType::List(_)
                | DataType::LargeList(_)
                | DataType::FixedSizeList(..)
                | DataType::Struct(_)
                | DataType::Map(..)
        );
        // Arrow writes moments ISO-style (`2024-01-01T00:00:00.120`).
        let declared = types::is_uuid(&field)
            || types::is_ipv4(&field)
            || types::is_ipv6(&field)
            || types::interval_type(&field).is_some()
            || matches!(field.data_type(), DataType::Timestamp(..));
        if !(nested || declared) {
            return Ok(None);
        }
        let text = self.call("toString", vec![inner.clone()]);
        Ok(Some(match expr {
            Expr::Cast(Cast { field, .. }) => {
                Expr::Cast(Cast::new_from_field(Box::new(text), Arc::clone(field)))
            }
            _ => text,
        }))
    }

    /// A scalar subquery is Nullable in ClickHouse: no row makes it NULL.
    /// (DataFusion keeps the column's own nullability, and a subquery that
    /// found no row failed as a non-nullable column holding a NULL.)
    fn nullable_subquery(&self, subquery: Subquery) -> Result<Transformed<Expr>> {
        let schema = subquery.subquery.schema();
        if schema.fields().len() != 1 || schema.field(0).is_nullable() {
            return Ok(Transformed::no(Expr::ScalarSubquery(subquery)));
        }
        let (qualifier, field) = schema.qualified_field(0);
        let column = Expr::Column(Column::new(qualifier.cloned(), field.name()));
        let nullable = self
            .call("toNullable", vec![column])
            .alias_qualified(qualifier.cloned(), field.name());
        let plan = Projection::try_new(vec![nullable], Arc::clone(&subquery.subquery))?;
        Ok(Transformed::yes(Expr::ScalarSubquery(Subquery {
            subquery: Arc::new(LogicalPlan::Projection(plan)),
            ..subquery
        })))
    }

    fn call(&self, name: &str, args: Vec<Expr>) -> Expr {
        let udf = Arc::clone(
            self.functions
                .get(name)
                .expect("arithmetic functions are registered"),
        );
        Expr::ScalarFunction(ScalarFunction::new_udf(udf, args))
    }

    /// Strata's function for a call DataFusion's SQL planner wrote with
    /// its own where ClickHouse's result differs: array literals, tuples
    /// and `map(...)` (element nullability), `a[i]` and `m[key]` (a missing
    /// element is the type's default, not NULL).
    fn strata_version(
        &self,
        func: &Arc<ScalarUDF>,
        args: &[Expr],
        schema: &DFSchemaRef,
    ) -> Option<Arc<ScalarUDF>> {
        let on_map = || {
            args.first()
                .is_some_and(|a| matches!(a.get_type(schema.as_ref()), Ok(DataType::Map(..))))
        };
        let name = match func.name() {
            "make_array" | "map" | "struct" => func.name(),
            "array_element" => "arrayElement",
            "get_field" if on_map() => "arrayElement",
            _ => return None,
        };
        let ours = self.functions.get(name)?;
        (!Arc::ptr_eq(ours, func)).then(|| Arc::clone(ours))
    }

    fn rewrite_expr(&self, expr: Expr, schema: &DFSchemaRef) -> Result<Transformed<Expr>> {
        uint8_booleans::operands(expr, schema)?
            .transform_data(|expr| self.rewrite_semantics(expr, schema))
    }

    fn rewrite_semantics(&self, expr: Expr, schema: &DFSchemaRef) -> Result<Transformed<Expr>> {
        let (expr, texts_read) = self.text_comparisons.read_texts(expr, schema)?;
        if texts_read {
            return Ok(Transformed::yes(expr));
        }
        let enum_number = self.functions.get(EnumNumber::NAME).expect("registered");
        let numbers = crate::enum_numbers::compare_numbers(expr, schema, enum_number)?;
        if numbers.transformed {
            return Ok(numbers);
        }
        let expr = numbers.data;
        let uuid_order = self.functions.get(UuidOrder::NAME).expect("registered");
        let halves = crate::uuid_order::compare_halves(expr, schema, uuid_order);
        if halves.transformed {
            return Ok(halves);
        }
        let expr = halves.data;
        // Strata date functions (second pass): zones compare as instants.
        let instants = crate::zoned_comparisons::compare_instants(expr, schema)?;
        if instants.transformed {
            return Ok(instants);
        }
        let expr = instants.data;
        let seconds = crate::moment_numbers::compare_seconds(expr, schema);
        if seconds.transformed {
            return Ok(seconds);
        }
        let expr = seconds.data;
        let elements = crate::tuple_comparisons::compare_elements(expr, schema)?;
        if elements.transformed {
            return Ok(elements);
        }
        let expr = elements.data;
        let ieee = crate::nan_comparisons::ieee_comparison(expr, schema)?;
        if ieee.transformed {
            return Ok(ieee);
        }
        let expr = ieee.data;
        let moments = crate::interval_moments::widen_moment(expr, schema, |name, args| {
            self.call(name, args)
        })?;
        if moments.transformed {
            return Ok(moments);
        }
        let expr = moments.data;
        let stopped = crate::common_results::stop_at_non_nullable(expr, schema);
        let cases =
            crate::common_results::unify(stopped.data, schema, |name, args| self.call(name, args))?;
        if stopped.transformed && !cases.transformed {
            return Ok(Transformed::yes(cases.data));
        }
        if cases.transformed {
            return Ok(cases);
        }
        let expr = cases.data;
        if let Some(text) = self.cast_as_text(&expr, schema)? {
            return Ok(Transformed::yes(text));
        }
        if lost_uuid(&expr, schema) {
            return Ok(Transformed::yes(self.call("toUUID", vec![expr])));
        }
        match expr {
            Expr::Literal(ScalarValue::Int64(Some(v)), meta) => {
                Ok(Transformed::yes(Expr::Literal(smallest_integer(v), meta)))
            }
            // A FixedString matches a pattern as the text of its bytes.
            Expr::Like(mut like) if is_fixed_string(&like.expr, schema)? => {
                like.expr = Box::new(self.call("toString", vec![*like.expr]));
                Ok(Transformed::yes(Expr::Like(like)))
            }
            Expr::ScalarSubquery(subquery) => self.nullable_subquery(subquery),
            // An INSERT's cast to a Decimal column cuts digits off, as
            // ClickHouse does; DataFusion's cast rounds.
            Expr::Cast(Cast { expr: inner, field })
                if let DataType::Decimal128(precision, scale) = *field.data_type()
                    && cuts_digits(&inner.get_type(schema)?, scale) =>
            {
                let decimal = DataType::Decimal128(precision, scale);
                let type_name = lit(types::clickhouse_type_name(&decimal, false));
                Ok(Transformed::yes(
                    self.call("_CAST", vec![*inner, type_name]),
                ))
            }
            // Arrow casts tuples by element name, and a tuple literal's
            // names (`c0`) are not a declared Tuple's (`1`): ClickHouse
            // converts by position, as `_CAST` does. A map's keys and
            // values wrap into narrower integers there too.
            Expr::Cast(Cast { expr: inner, field })
                if (has_tuple(field.data_type())
                    || matches!(field.data_type(), DataType::Map(..)))
                    && !is_call(&inner, "_CAST")
                    && inner.get_type(schema)? != *field.data_type() =>
            {
                // Arrays, tuples and maps are never Nullable.
                let type_name = lit(types::clickhouse_type_name(field.data_type(), false));
                let converted = self.call("_CAST", vec![*inner, type_name]);
                Ok(Transformed::yes(Expr::Cast(Cast::new_from_field(
                    Box::new(converted),
                    field,
                ))))
            }
            Expr::BinaryExpr(BinaryExpr { left, op, right }) => {
                let op_kind = match op {
                    Operator::Plus => Some(ArithmeticOp::Plus),
                    Operator::Minus => Some(ArithmeticOp::Minus),
                    Operator::Multiply => Some(ArithmeticOp::Multiply),
                    Operator::Divide => Some(ArithmeticOp::Divide),
                    Operator::Modulo => Some(ArithmeticOp::Modulo),
                    _ => None,
                };
                if let Some(name) = strata_functions::big_int::BigBitwise::name_of(op) {
                    let (lt, rt) = (left.get_type(schema)?, right.get_type(schema)?);
                    let big = types::BigInt::of(&lt).is_some() || types::BigInt::of(&rt).is_some();
                    if big {
                        return Ok(Transformed::yes(self.call(name, vec![*left, *right])));
                    }
                }
                if let Some(kind) = op_kind {
                    let (lt, rt) = (left.get_type(schema)?, right.get_type(schema)?);
                    if arithmetic::supports(kind, &lt, &rt) {
                        return Ok(Transformed::yes(
                            self.call(kind.name(), vec![*left, *right]),
                        ));
                    }
                }
                Ok(Transformed::no(Expr::BinaryExpr(BinaryExpr {
                    left,
                    op,
                    right,
                })))
            }
            Expr::Negative(inner) => {
                let t = inner.get_type(schema)?;
                if arithmetic::negate_result_type(&t).is_some() {
                    Ok(Transformed::yes(self.call("negate", vec![*inner])))
                } else {
                    Ok(Transformed::no(Expr::Negative(inner)))
                }
            }
            Expr::ScalarFunction(ScalarFunction { func, args })
                if let Some(ours) = self.strata_version(&func, &args, schema) =>
            {
                Ok(Transformed::yes(Expr::ScalarFunction(
                    ScalarFunction::new_udf(ours, args),
                )))
            }
            Expr::ScalarFunction(ScalarFunction { func, args }) => {
                // DataFusion functions with exact integer signatures (`substr(s,
                // Int64, Int64)`) refuse the narrow types ClickHouse gives
                // literals; widen those literals back where the narrow ones do
                // not fit the signature.
                let fields = args
                    .iter()
                    .map(|a| Ok(a.to_field(schema.as_ref())?.1))
                    .collect::<Result<Vec<_>>>()?;
                if !args.iter().any(is_narrow_literal)
                    || fields_with_udf(&fields, func.as_ref()).is_ok()
                {
                    return Ok(Transformed::no(Expr::ScalarFunction(ScalarFunction {
                        func,
                        args,
                    })));
                }
                let args = args.into_iter().map(widen_literal).collect();
                Ok(Transformed::yes(Expr::ScalarFunction(
                    ScalarFunction::new_udf(func, args),
                )))
            }
            other => Ok(Transformed::no(other)),
        }
    }

    /// Wraps an Unnest (ARRAY JOIN, `arrayJoin`) in a projection, keeping
    /// names and qualifiers, that makes the elements of an array whose
    /// elements cannot be NULL non-Nullable again, as ClickHouse types them.
    fn finish_unnest(&self, node: &LogicalPlan) -> Result<Option<LogicalPlan>> {
        let LogicalPlan::Unnest(unnest) = node else {
            return Ok(None);
        };
        let input = unnest.input.schema();
        let non_null_elements: Vec<&Column> = unnest
            .list_type_columns
            .iter()
            .filter(|(index, list)| {
                let element_nullable = match input.field(*index).data_type() {
                    DataType::List(e) | DataType::LargeList(e) | DataType::FixedSizeList(e, _) => {
                        e.is_nullable()
                    }
                    _ => true,
                };
                list.depth == 1 && !element_nullable
            })
            .map(|(_, list)| &list.output_column)
            .collect();
        project_replacing(node, |_, column, field| {
            let Expr::Column(name) = &column else {
                return None;
            };
            (field.is_nullable() && non_null_elements.contains(&name))
                .then(|| self.call("assumeNotNull", vec![column]))
        })
    }

    /// Wraps an Aggregate in a projection, keeping names and qualifiers, that
    /// - gives the keys a grouping set (ROLLUP, CUBE, GROUPING SETS) leaves
    ///   out of a row their type's default rather than NULL, as ClickHouse
    ///   does unless `group_by_use_nulls` is set;
    /// - replaces NULL results of aggregates over non-NULL input with
    ///   ClickHouse's defaults;
    /// - gives a UUID back its type where an aggregate that returns one of its
    ///   values (`min`, `any`, `argMax`) dropped it.
    fn finish_aggregates(
        &self,
        node: &LogicalPlan,
        input: &DFSchemaRef,
        keys_null: bool,
    ) -> Result<Option<LogicalPlan>> {
        let LogicalPlan::Aggregate(aggregate) = node else {
            return Ok(None);
        };
        let schema = node.schema();
        let groups = schema.fields().len() - aggregate.aggr_expr.len();
        let computed = split_decimal_averages(aggregate, groups)?.unwrap_or_else(|| node.clone());
        // ClickHouse's correlated subquery over no rows is NULL, `sum` too.
        let correlated = aggregate.group_expr.is_empty()
            && aggregate
                .input
                .exists(|node| Ok(node.contains_outer_reference()))?;
        let mut changed = false;
        let mut exprs = Vec::with_capacity(schema.fields().len());
        for (i, (qualifier, field)) in schema.iter().enumerate() {
            // Read only by `grouping()`, which DataFusion computes under
            // the aggregate, leaving the column out of what it shows.
            if field.name() == Aggregate::INTERNAL_GROUPING_ID {
                continue;
            }
            let column = Expr::Column(Column::new(qualifier.cloned(), field.name()));
            if let Some(default) =
                rolled_up_default(aggregate, i, field, input).filter(|_| !keys_null)
            {
                changed = true;
                let keyed =
                    datafusion::functions::core::expr_fn::coalesce(vec![column, lit(default)]);
                exprs.push(keyed.alias_qualified(qualifier.cloned(), field.name()));
                continue;
            }
            // A Tuple key left NULL by a grouping set is a tuple of NULLs.
            if keys_null
                && i < groups
                && field.is_nullable()
                && matches!(field.data_type(), DataType::Struct(_))
            {
                changed = true;
                let elements = self.call("_tupleElementsNullable", vec![column]);
                exprs.push(elements.alias_qualified(qualifier.cloned(), field.name()));
                continue;
            }
            let Some(Expr::AggregateFunction(f)) = i
                .checked_sub(groups)
                .map(|a| unalias(&aggregate.aggr_expr[a]))
            else {
                exprs.push(column);
                continue;
            };
            let inputs_non_null = f
                .params
                .args
                .iter()
                .all(|a| a.nullable(input.as_ref()).is_ok_and(|n| !n));
            // The enum or address type an aggregate of its values dropped.
            let declared = lost_declared_type(f.func.name(), field, f.params.args.first(), input);
            // A FILTER (ClickHouse's -If) that keeps no rows is empty input too.
            let default = empty_default(f.func.name(), declared.as_ref().unwrap_or(field))
                .filter(|_| inputs_non_null && field.is_nullable() && !correlated);
            // `coalesce` drops the UUID type as the aggregate itself may have.
            let holds_uuids = types::is_uuid(field)
                || (field.data_type() == &DataType::FixedSizeBinary(types::UUID_BYTES)
                    && f.params.args.first().is_some_and(|value| {
                        value
                            .to_field(input.as_ref())
                            .is_ok_and(|(_, value)| types::is_uuid(&value))
                    }));
            let lost_uuid = holds_uuids && (default.is_some() || !types::is_uuid(field));
            let lost_type = declared.map(|declared| {
                let nullable = field.is_nullable() && default.is_none();
                types::field_type_name(&declared.with_nullable(nullable))
            });
            // A sum of 128- or 256-bit integers keeps their type, which
            // DataFusion's decimal sum widens.
            let lost_type = lost_type.or_else(|| {
                let (_, argument) = f.params.args.first()?.to_field(input.as_ref()).ok()?;
                let big = types::BigInt::of(argument.data_type())?;
                let widened = f.func.name() == "sum" && field.data_type() != &big.data_type();
                let nullable = field.is_nullable() && default.is_none();
                let sum = Field::new("sum", big.data_type(), nullable);
                widened.then(|| types::field_type_name(&sum))
            });
            // ClickHouse's avg is Float64 whatever it averages, Decimals too.
            let decimal_avg = f.func.name() == "avg" && field.data_type().is_decimal();
            // and its sum of Decimals is a Decimal128 (precision 38).
            let decimal_sum = match field.data_type() {
                DataType::Decimal128(precision, scale)
                    if f.func.name() == "sum" && *precision != 38 =>
                {
                    Some(DataType::Decimal128(38, *scale))
                }
                _ => None,
            };
            if default.is_none()
                && !lost_uuid
                && lost_type.is_none()
                && !decimal_avg
                && decimal_sum.is_none()
            {
                exprs.push(column);
                continue;
            }
            changed = true;
            let mut finished = column;
            if decimal_avg {
                let count = Expr::Column(Column::from_name(average_count_name(i - groups)));
                finished = Expr::BinaryExpr(BinaryExpr::new(
                    Box::new(cast(finished, DataType::Float64)),
                    Operator::Divide,
                    Box::new(cast(count, DataType::Float64)),
                ));
            }
            if let Some(decimal) = decimal_sum {
                finished = datafusion::logical_expr::cast(finished, decimal);
            }
            finished = match default {
                // Through UInt8: DataFusion simplifies a Bool `coalesce` to
                // `x IS NOT NULL AND x`, which it types as nullable.
                Some(ScalarValue::Boolean(Some(false))) => cast(
                    datafusion::functions::core::expr_fn::coalesce(vec![
                        cast(finished, DataType::UInt8),
                        lit(0u8),
                    ]),
                    DataType::Boolean,
                ),
                Some(default) => {
                    datafusion::functions::core::expr_fn::coalesce(vec![finished, lit(default)])
                }
                None => finished,
            };
            if lost_uuid {
                finished = self.call("toUUID", vec![finished]);
            }
            if let Some(type_name) = lost_type {
                finished = self.call("_CAST", vec![finished, lit(type_name)]);
            }
            exprs.push(finished.alias_qualified(qualifier.cloned(), field.name()));
        }
        if !changed {
            return Ok(None);
        }
        Ok(Some(LogicalPlan::Projection(Projection::try_new(
            exprs,
            Arc::new(computed),
        )?)))
    }
}

/// The hidden column counting the values of the Decimal average at `index`.
fn average_count_name(index: usize) -> String {
    format!("__strata_avg_count_{index}")
}

/// ClickHouse averages Decimals as their exact Decimal sum divided, in
/// Float64, by their count; DataFusion's avg divides in a Decimal of four more
/// digits, which drops the rest (`25.522005` for `25.522005853257337`). So
/// each `avg` of a Decimal computes its sum under the same name, plus a count
/// column that `finish_aggregates` divides by.
fn split_decimal_averages(aggregate: &Aggregate, groups: usize) -> Result<Option<LogicalPlan>> {
    let schema = &aggregate.schema;
    let mut aggr_expr = aggregate.aggr_expr.clone();
    let mut split = false;
    for (index, expr) in aggregate.aggr_expr.iter().enumerate() {
        let Expr::AggregateFunction(f) = unalias(expr) else {
            continue;
        };
        if f.func.name() != "avg" || !schema.field(groups + index).data_type().is_decimal() {
            continue;
        }
        split = true;
        let name = schema.field(groups + index).name();
        let mut sum = f.clone();
        sum.func = datafusion::functions_aggregate::sum::sum_udaf();
        aggr_expr[index] = Expr::AggregateFunction(sum).alias(name);
        let mut count = f.clone();
        count.func = datafusion::functions_aggregate::count::count_udaf();
        aggr_expr.push(Expr::AggregateFunction(count).alias(average_count_name(index)));
    }
    if !split {
        return Ok(None);
    }
    Ok(Some(LogicalPlan::Aggregate(Aggregate::try_new(
        Arc::clone(&aggregate.input),
        aggregate.group_expr.clone(),
        aggr_expr,
    )?)))
}

/// Wraps a Window node in a projection, keeping names and qualifiers, that
/// gives a window function over a non-NULL argument its type's default where
/// DataFusion returns NULL: `lag` and `lead` past the partition's edge,
/// `nth_value` before its row, an aggregate over an empty frame. ClickHouse
/// makes a window function Nullable only when its argument is.
fn finish_windows(node: &LogicalPlan, input: &DFSchemaRef) -> Result<Option<LogicalPlan>> {
    let LogicalPlan::Window(window) = node else {
        return Ok(None);
    };
    let inputs = node.schema().fields().len() - window.window_expr.len();
    project_replacing(node, |i, column, field| {
        let function = unalias(&window.window_expr[i.checked_sub(inputs)?]);
        let default = window_default(function, field, input);
        // ClickHouse's avg of Decimals is a Float64, NaN over no row.
        let decimal_avg = field.data_type().is_decimal()
            && matches!(function, Expr::WindowFunction(w) if w.fun.name() == "avg");
        let column = match decimal_avg {
            true => cast(column, DataType::Float64),
            false if default.is_none() => return None,
            false => column,
        };
        Some(match default {
            Some(default) => {
                datafusion::functions::core::expr_fn::coalesce(vec![column, lit(default)])
            }
            None => column,
        })
    })
}

/// A projection over `node` of its columns, each as `replace` gives it from
/// its position, column and field (named back as the column), or as it is;
/// `None` where nothing was replaced.
fn project_replacing(
    node: &LogicalPlan,
    mut replace: impl FnMut(usize, Expr, &Field) -> Option<Expr>,
) -> Result<Option<LogicalPlan>> {
    let mut changed = false;
    let exprs = node
        .schema()
        .iter()
        .enumerate()
        .map(|(i, (qualifier, field))| {
            let column = Expr::Column(Column::new(qualifier.cloned(), field.name()));
            match replace(i, column.clone(), field) {
                Some(replaced) => {
                    changed = true;
                    replaced.alias_qualified(qualifier.cloned(), field.name())
                }
                None => column,
            }
        })
        .collect();
    if !changed {
        return Ok(None);
    }
    Ok(Some(LogicalPlan::Projection(Projection::try_new(
        exprs,
        Arc::new(node.clone()),
    )?)))
}

/// The value ClickHouse gives where the window function `expr` finds no row,
/// when DataFusion would give NULL for it instead.
fn window_default(expr: &Expr, field: &Field, input: &DFSchemaRef) -> Option<ScalarValue> {
    let Expr::WindowFunction(function) = expr else {
        return None;
    };
    let argument = function.params.args.first()?;
    if !field.is_nullable() || argument.nullable(input.as_ref()).unwrap_or(true) {
        return None;
    }
    match function.fun.name() {
        "lag" | "lead" | "nth_value" => strata_common::types::field_default_value(field).ok(),
        name => empty_default(name, field),
    }
}

/// The field an aggregate returning one of its argument's values (`min`,
/// `any`, `argMax`) should have had, when that argument is an enum, an IP
/// address, a Date32 or a DateTime64(p) (types kept in field metadata,
/// which the aggregate dropped).
fn lost_declared_type(
    function: &str,
    field: &Field,
    argument: Option<&Expr>,
    input: &DFSchemaRef,
) -> Option<Field> {
    const RETURNS_A_VALUE: &[&str] = &[
        "min",
        "max",
        "any",
        "anyLast",
        "anyHeavy",
        "any_value",
        "first_value",
        "last_value",
        "argMin",
        "argMax",
    ];
    if !RETURNS_A_VALUE.contains(&function) || !field.metadata().is_empty() {
        return None;
    }
    let (_, argument) = argument?.to_field(input.as_ref()).ok()?;
    let declared = types::enum_type(&argument).is_some()
        || types::is_ipv4(&argument)
        || types::is_ipv6(&argument)
        || types::declared_precision(&argument).is_some()
        || types::field_type_name(&argument).contains("Date32");
    let same_values = argument.data_type() == field.data_type();
    (declared && same_values).then(|| field.clone().with_metadata(argument.metadata().clone()))
}

/// True when `expr` chooses among values of which one is a UUID (`CASE`,
/// `if`, `coalesce`) but DataFusion gave its result the bare bytes type.
fn lost_uuid(expr: &Expr, schema: &DFSchemaRef) -> bool {
    let choices: Vec<&Expr> = match expr {
        Expr::Case(case) => case
            .when_then_expr
            .iter()
            .map(|(_, then)| then.as_ref())
            .chain(case.else_expr.as_deref())
            .collect(),
        Expr::ScalarFunction(f) if f.func.name() != "toUUID" => f.args.iter().collect(),
        _ => return false,
    };
    let holds_uuids = |e: &Expr| {
        e.to_field(schema.as_ref())
            .is_ok_and(|(_, field)| types::is_uuid(&field))
    };
    // Typing may fail here for calls other rewrites still have to mend
    // (`substr` with narrow literals); those are not choices among UUIDs.
    choices.into_iter().any(holds_uuids)
        && !holds_uuids(expr)
        && expr
            .get_type(schema.as_ref())
            .is_ok_and(|t| t == DataType::FixedSizeBinary(types::UUID_BYTES))
}

fn is_narrow_literal(expr: &Expr) -> bool {
    matches!(
        expr,
        Expr::Literal(
            ScalarValue::UInt8(Some(_))
                | ScalarValue::UInt16(Some(_))
                | ScalarValue::UInt32(Some(_))
                | ScalarValue::Int8(Some(_))
                | ScalarValue::Int16(Some(_))
                | ScalarValue::Int32(Some(_)),
            _
        )
    )
}

fn widen_literal(expr: Expr) -> Expr {
    let wide = |v: i64| ScalarValue::Int64(Some(v));
    match expr {
        Expr::Literal(value, meta) => {
            let value = match value {
                ScalarValue::UInt8(Some(v)) => wide(v.into()),
                ScalarValue::UInt16(Some(v)) => wide(v.into()),
                ScalarValue::UInt32(Some(v)) => wide(v.into()),
                ScalarValue::Int8(Some(v)) => wide(v.into()),
                ScalarValue::Int16(Some(v)) => wide(v.into()),
                ScalarValue::Int32(Some(v)) => wide(v.into()),
                other => other,
            };
            Expr::Literal(value, meta)
        }
        other => other,
    }
}

/// Lambda variables carry the type of the array they range over; read it
/// again where a rewrite changed it (integer literals narrowed in `[1, 2]`).
fn resolve_lambdas(expr: Expr, schema: &DFSchema) -> Result<Transformed<Expr>> {
    if !expr.exists(|e| Ok(matches!(e, Expr::HigherOrderFunction(_))))? {
        return Ok(Transformed::no(expr));
    }
    // Innermost calls first: DataFusion resolves from the outermost call and
    // leaves a call in another's array argument typed as before the rewrite
    // (`arraySort(f, arrayMap(g, [2, 1, 3]))`, whose literal is now UInt8).
    // A call reading an enclosing lambda's variable resolves only with it.
    let inner = expr.transform_up(|e| match e {
        Expr::HigherOrderFunction(_) => Ok(e
            .clone()
            .resolve_lambda_variables(schema)
            .unwrap_or_else(|_| Transformed::no(e))),
        e => Ok(Transformed::no(e)),
    })?;
    let changed = inner.transformed;
    let outer = inner.data.resolve_lambda_variables(schema)?;
    Ok(Transformed::new_transformed(
        outer.data,
        changed || outer.transformed,
    ))
}

/// A union's columns typed anew from its inputs, whose literals the rewrite
/// narrowed: `SELECT 1 UNION ALL SELECT 1000` is UInt16, as in ClickHouse.
/// DataFusion's analyzer only widens the types a union already has.
fn retype_union(
    union: Union,
    convert: impl Fn(&str, Vec<Expr>) -> Expr,
) -> Result<Transformed<LogicalPlan>> {
    // A union of unions (`a UNION ALL b UNION ALL c`) is one union, as the
    // optimizer makes it later: its type comes from all of its inputs.
    let inputs = union
        .inputs
        .iter()
        .flat_map(|input| match input.as_ref() {
            LogicalPlan::Union(inner) => inner.inputs.clone(),
            _ => vec![Arc::clone(input)],
        })
        .collect::<Vec<_>>();
    let (inputs, unified) = unify_union_columns(inputs, convert)?;
    let union = Union {
        inputs,
        schema: union.schema,
    };
    let coerced = coerce_union_schema(&union.inputs)?;
    let fields = coerced.iter().enumerate().map(|(i, (qualifier, field))| {
        let no_nulls = union.inputs.iter().all(|input| {
            let item = match input.schema().field(i).data_type() {
                DataType::List(item) => item,
                _ => return false,
            };
            !item.is_nullable() || is_empty_array(input, i)
        });
        let data_type = match field.data_type() {
            DataType::List(item) if no_nulls => {
                DataType::List(Arc::new(item.as_ref().clone().with_nullable(false)))
            }
            other => other.clone(),
        };
        let field = field.as_ref().clone().with_data_type(data_type);
        (qualifier.cloned(), Arc::new(field))
    });
    let schema = DFSchema::new_with_metadata(fields.collect(), coerced.metadata().clone())?;
    let precisions: Vec<Option<u8>> = (0..schema.fields().len())
        .map(|i| union_precision(&union.inputs, i, schema.field(i)))
        .collect();
    let stated = precisions.iter().any(Option::is_some);
    if schema == *union.schema && !unified && !stated {
        return Ok(Transformed::no(LogicalPlan::Union(union)));
    }
    let inputs = union
        .inputs
        .into_iter()
        .map(|input| cast_empty_arrays(input, &schema))
        .map(|input| state_precisions(input?, &precisions))
        .collect::<Result<Vec<_>>>()?;
    let schema = match stated {
        true => coerce_union_schema(&inputs)?,
        false => schema,
    };
    Ok(Transformed::yes(LogicalPlan::Union(Union {
        inputs,
        schema: Arc::new(schema),
    })))
}

/// The precision of a union's column `i` of DateTime64s of precisions that
/// differ: the finest of its inputs' (which the unit holds).
fn union_precision(inputs: &[Arc<LogicalPlan>], i: usize, field: &Field) -> Option<u8> {
    let DataType::Timestamp(unit, _) = field.data_type() else {
        return None;
    };
    let fields: Vec<&Field> = inputs
        .iter()
        .map(|input| input.schema().field(i).as_ref())
        .collect();
    if !fields
        .iter()
        .any(|f| types::declared_precision(f).is_some())
    {
        return None;
    }
    let digits: Vec<u8> = fields
        .iter()
        .map(|f| types::shown_digits(f))
        .collect::<Option<_>>()?;
    let finest = digits.iter().copied().max()?;
    let differ = digits.iter().any(|d| *d != finest);
    (differ && finest <= types::unit_digits(*unit)).then_some(finest)
}

/// `input` with each DateTime64 column of `precisions` stating it: a
/// union's field keeps every metadata key of its inputs' fields, so an
/// input of a lower precision would otherwise show the whole column so.
fn state_precisions(
    input: Arc<LogicalPlan>,
    precisions: &[Option<u8>],
) -> Result<Arc<LogicalPlan>> {
    if precisions.iter().all(Option::is_none) {
        return Ok(input);
    }
    let exprs: Vec<Expr> = input
        .schema()
        .iter()
        .zip(precisions)
        .map(|((qualifier, field), precision)| {
            let expr = Expr::Column(Column::from((qualifier, field)));
            match precision {
                Some(precision) => {
                    let metadata =
                        FieldMetadata::from(types::stated_precision_metadata(*precision));
                    expr.alias_with_metadata(field.name(), Some(metadata))
                }
                None => expr,
            }
        })
        .collect();
    Ok(Arc::new(LogicalPlan::Projection(Projection::try_new(
        exprs, input,
    )?)))
}

/// An INSERT whose source may give NULL to a column that is not Nullable
/// stores the column's default there (`insert_null_as_default`): its DEFAULT
/// expression, else its type's default value, as ClickHouse does.
fn nulls_as_defaults(plan: LogicalPlan) -> Result<LogicalPlan> {
    let LogicalPlan::Dml(mut dml) = plan else {
        return Ok(plan);
    };
    let target = dml.target.schema();
    let input = dml.input.as_ref();
    let fields = || input.schema().iter().zip(target.fields());
    // The planner's projection gives the table's columns in order.
    if input.schema().fields().len() != target.fields().len()
        || fields().any(|((_, field), column)| field.name() != column.name())
    {
        return Ok(LogicalPlan::Dml(dml));
    }
    if !fields().any(|((_, field), column)| field.is_nullable() && !column.is_nullable()) {
        return Ok(LogicalPlan::Dml(dml));
    }
    let exprs = fields()
        .map(|((qualifier, field), column)| {
            let value = Expr::Column(Column::new(qualifier.cloned(), field.name()));
            if !field.is_nullable() || column.is_nullable() {
                return Ok(value);
            }
            let default = match dml.target.get_column_default(column.name()) {
                Some(default) => default.clone(),
                None => lit(types::field_default_value(column)?),
            };
            let filled = coalesce(vec![value, default]);
            Ok(cast(filled, column.data_type().clone())
                .alias_qualified(qualifier.cloned(), field.name()))
        })
        .collect::<Result<Vec<_>>>()?;
    let projection = Projection::try_new(exprs, Arc::clone(&dml.input))?;
    dml.input = Arc::new(LogicalPlan::Projection(projection));
    Ok(LogicalPlan::Dml(dml))
}

/// A union's inputs with the columns whose common type ClickHouse finds
/// where DataFusion does not (a Date beside a DateTime, a FixedString beside
/// a String) converted first, each changed input under a projection that
/// keeps its names ([`crate::common_results::unify_results`]); whether any
/// input changed.
fn unify_union_columns(
    inputs: Vec<Arc<LogicalPlan>>,
    convert: impl Fn(&str, Vec<Expr>) -> Expr,
) -> Result<(Vec<Arc<LogicalPlan>>, bool)> {
    let Some(first) = inputs.first() else {
        return Ok((inputs, false));
    };
    let width = first.schema().fields().len();
    // Inputs of different widths are DataFusion's error to report.
    if inputs
        .iter()
        .any(|input| input.schema().fields().len() != width)
    {
        return Ok((inputs, false));
    }
    let mut columns: Vec<Vec<Expr>> = inputs
        .iter()
        .map(|input| {
            input
                .schema()
                .columns()
                .into_iter()
                .map(Expr::Column)
                .collect()
        })
        .collect();
    let mut unified = false;
    for i in 0..width {
        let types: Vec<DataType> = inputs
            .iter()
            .map(|input| input.schema().field(i).data_type().clone())
            .collect();
        let mut results: Vec<&mut Expr> = columns.iter_mut().map(|c| &mut c[i]).collect();
        unified |= crate::common_results::unify_results(&mut results, &types, &convert);
    }
    if !unified {
        return Ok((inputs, false));
    }
    let inputs =
        inputs
            .into_iter()
            .zip(columns)
            .map(|(input, exprs)| {
                if exprs.iter().all(|e| matches!(e, Expr::Column(_))) {
                    return Ok(input);
                }
                let named = exprs.into_iter().zip(input.schema().iter()).map(
                    |(expr, (qualifier, field))| match expr {
                        Expr::Column(_) => expr,
                        expr => expr.alias_qualified(qualifier.cloned(), field.name()),
                    },
                );
                let projection = Projection::try_new(named.collect(), input)?;
                Ok(Arc::new(LogicalPlan::Projection(projection)))
            })
            .collect::<Result<_>>()?;
    Ok((inputs, true))
}

/// Whether column `i` of a union's input is `[]`, an array of Nothing, which
/// adds no nullability to the arrays it is united with (`[1]` and `[]` are
/// Array(UInt8)); `[NULL]` has the same Arrow type but does.
fn is_empty_array(input: &LogicalPlan, i: usize) -> bool {
    let LogicalPlan::Projection(projection) = input else {
        return false;
    };
    match unalias(&projection.expr[i]) {
        Expr::Literal(ScalarValue::List(list), _) => {
            datafusion::arrow::array::Array::len(list.as_ref()) == 1
                && list.value_length(0) == 0
                && list.value_type() == DataType::Null
        }
        Expr::ScalarFunction(call) => call.name() == "make_array" && call.args.is_empty(),
        _ => false,
    }
}

/// `input` with its `[]` columns cast to the union's array types, which the
/// analyzer would otherwise unite again into arrays of Nullable items.
fn cast_empty_arrays(input: Arc<LogicalPlan>, union: &DFSchema) -> Result<Arc<LogicalPlan>> {
    let empty: Vec<bool> = (0..union.fields().len())
        .map(|i| is_empty_array(&input, i))
        .collect();
    if !empty.contains(&true) {
        return Ok(input);
    }
    let exprs: Vec<Expr> = input
        .schema()
        .iter()
        .zip(union.fields())
        .zip(empty)
        .map(|(((qualifier, field), target), empty)| {
            let expr = Expr::Column(Column::from((qualifier, field)));
            match empty && field.data_type() != target.data_type() {
                true => cast(expr, target.data_type().clone()).alias(field.name()),
                false => expr,
            }
        })
        .collect();
    Ok(Arc::new(LogicalPlan::Projection(Projection::try_new(
        exprs, input,
    )?)))
}

/// Whether `expr` is a FixedString (not a UUID, which is stored alike).
fn is_fixed_string(expr: &Expr, schema: &DFSchemaRef) -> Result<bool> {
    let (_, field) = expr.to_field(schema)?;
    Ok(matches!(field.data_type(), DataType::FixedSizeBinary(_)) && !types::is_uuid(&field))
}

/// ClickHouse types an integer literal by its value: the smallest unsigned type
/// for non-negative values, the smallest signed type for negative ones.
pub fn smallest_integer(v: i64) -> ScalarValue {
    ScalarValue::Int64(Some(v))
        .cast_to(&types::literal_integer_type(v))
        .expect("the literal's type holds it")
}

fn input_schema(node: &LogicalPlan) -> DFSchemaRef {
    let inputs = node.inputs();
    match inputs.as_slice() {
        [] => Arc::new(DFSchema::empty()),
        [one] => Arc::clone(one.schema()),
        [first, rest @ ..] => {
            let mut merged = first.schema().as_ref().clone();
            for other in rest {
                merged.merge(other.schema());
            }
            Arc::new(merged)
        }
    }
}

/// `grouping(k)` finds `k` among the aggregate's keys by expression; a
/// key rewritten here carries an alias keeping its name, so the argument
/// becomes that same aliased key (the call keeps its own name).
fn match_grouping_keys(node: LogicalPlan) -> Result<Transformed<LogicalPlan>> {
    let LogicalPlan::Aggregate(aggregate) = &node else {
        return Ok(Transformed::no(node));
    };
    let keys: Vec<&Expr> = match aggregate.group_expr.as_slice() {
        [Expr::GroupingSet(set)] => set.distinct_expr(),
        keys => keys.iter().collect(),
    };
    let aliased = |arg: &Expr| {
        keys.iter()
            .find(|key| matches!(key, Expr::Alias(alias) if *alias.expr == *arg))
            .map(|key| (*key).clone())
    };
    let mut changed = false;
    let mut aggr_expr = Vec::with_capacity(aggregate.aggr_expr.len());
    for expr in &aggregate.aggr_expr {
        let Expr::AggregateFunction(call) = unalias(expr) else {
            aggr_expr.push(expr.clone());
            continue;
        };
        let matched: Vec<Option<Expr>> = call.params.args.iter().map(aliased).collect();
        if call.func.name() != "grouping" || matched.iter().all(Option::is_none) {
            aggr_expr.push(expr.clone());
            continue;
        }
        let mut call = call.clone();
        for (arg, key) in call.params.args.iter_mut().zip(matched) {
            if let Some(key) = key {
                *arg = key;
            }
        }
        aggr_expr.push(Expr::AggregateFunction(call).alias(expr.schema_name().to_string()));
        changed = true;
    }
    if !changed {
        return Ok(Transformed::no(node));
    }
    let LogicalPlan::Aggregate(aggregate) = node else {
        unreachable!("matched above");
    };
    let rebuilt = Aggregate::try_new(aggregate.input, aggregate.group_expr, aggr_expr)?;
    Ok(Transformed::yes(LogicalPlan::Aggregate(rebuilt)))
}

/// The value a grouping set's key `field`, the aggregate's `i`th output,
/// takes in rows that leave it out, where the key cannot be NULL itself.
fn rolled_up_default(
    aggregate: &Aggregate,
    i: usize,
    field: &Field,
    input: &DFSchemaRef,
) -> Option<ScalarValue> {
    let [Expr::GroupingSet(set)] = aggregate.group_expr.as_slice() else {
        return None;
    };
    let key = set.distinct_expr().get(i).copied()?;
    if key.nullable(input.as_ref()).unwrap_or(true) {
        return None;
    }
    strata_common::types::field_default_value(field).ok()
}

/// The value ClickHouse returns for an aggregate over no rows, where it is not NULL.
fn empty_default(function: &str, field: &Field) -> Option<ScalarValue> {
    match function {
        "avg" => Some(ScalarValue::Float64(Some(f64::NAN))),
        // `array_agg` is how groupUniqArray runs; ClickHouse's arrays of no values are `[]`.
        "sum" | "min" | "max" | "first_value" | "last_value" | "argMin" | "argMax"
        | "array_agg" => strata_common::types::field_default_value(field).ok(),
        _ => None,
    }
}

/// True when a cast of `source` to a Decimal of `scale` may drop digits.
fn cuts_digits(source: &DataType, scale: i8) -> bool {
    match source {
        DataType::Decimal128(_, from) | DataType::Decimal256(_, from) => *from > scale,
        other => {
            other.is_floating()
                || matches!(
                    other,
                    DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View
                )
        }
    }
}

/// Whether `op` compares its operands (`=`, `<`, `IS DISTINCT FROM`, ...).
pub(crate) fn is_comparison(op: Operator) -> bool {
    matches!(
        op,
        Operator::Eq
            | Operator::NotEq
            | Operator::Lt
            | Operator::LtEq
            | Operator::Gt
            | Operator::GtEq
            | Operator::IsDistinctFrom
            | Operator::IsNotDistinctFrom
    )
}

/// `expr` under any aliases.
pub(crate) fn unalias(expr: &Expr) -> &Expr {
    match expr {
        Expr::Alias(alias) => unalias(&alias.expr),
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integer_literals_take_the_smallest_type() {
        assert_eq!(smallest_integer(0), ScalarValue::UInt8(Some(0)));
        assert_eq!(smallest_integer(255), ScalarValue::UInt8(Some(255)));
        assert_eq!(smallest_integer(10_000), ScalarValue::UInt16(Some(10_000)));
        assert_eq!(
            smallest_integer(400_000_000),
            ScalarValue::UInt32(Some(400_000_000))
        );
        assert_eq!(
            smallest_integer(1 << 40),
            ScalarValue::UInt64(Some(1 << 40))
        );
        assert_eq!(smallest_integer(-1), ScalarValue::Int8(Some(-1)));
        assert_eq!(smallest_integer(-129), ScalarValue::Int16(Some(-129)));
        assert_eq!(
            smallest_integer(i64::MIN),
            ScalarValue::Int64(Some(i64::MIN))
        );
    }
}

/// Whether `expr` is of constants only, which DataFusion would fold, and
/// Nullable in ClickHouse although its value may not be NULL: a conversion
/// that gives NULL where it fails (`to<Type>OrNull`, which is a `TRY_CAST`,
/// `accurateCastOrNull`, ...), `nullIf`, a condition with a NULL branch,
/// `greatest`/`least` of a NULL.
fn is_nullable_constant(expr: &Expr) -> bool {
    let null = |e: &Expr| matches!(e, Expr::Literal(v, _) if v.is_null());
    let or_null = match expr {
        Expr::TryCast(_) => true,
        Expr::ScalarFunction(f) => match f.name() {
            "nullif" => true,
            "greatest" | "least" => f.args.iter().any(null),
            name => name.ends_with("OrNull"),
        },
        // `if(c, 'a', NULL)`, `CASE WHEN c THEN 'a' END`.
        Expr::Case(case) => {
            case.else_expr.as_deref().is_none_or(null)
                || case.when_then_expr.iter().any(|(_, then)| null(then))
        }
        _ => false,
    };
    or_null && !expr.any_column_refs() && !expr.is_volatile()
}

/// Whether `data_type` is or holds a Tuple.
fn has_tuple(data_type: &DataType) -> bool {
    match data_type {
        DataType::Struct(_) => true,
        DataType::List(item) | DataType::LargeList(item) | DataType::FixedSizeList(item, _) => {
            has_tuple(item.data_type())
        }
        DataType::Map(entries, _) => match entries.data_type() {
            DataType::Struct(key_value) => key_value.iter().any(|f| has_tuple(f.data_type())),
            _ => false,
        },
        _ => false,
    }
}

/// Whether `expr` calls the function `name`.
fn is_call(expr: &Expr, name: &str) -> bool {
    matches!(expr, Expr::ScalarFunction(call) if call.func.name() == name)
}

/// Whether a type name is String, maybe Nullable or LowCardinality.
fn names_string(type_name: &str) -> bool {
    let mut name = type_name.trim();
    for wrapper in ["LowCardinality(", "Nullable("] {
        if let Some(inner) = name.strip_prefix(wrapper).and_then(|n| n.strip_suffix(')')) {
            name = inner.trim();
        }
    }
    name.eq_ignore_ascii_case("String")
}
