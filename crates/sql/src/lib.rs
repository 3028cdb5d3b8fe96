//! The ClickHouse SQL front end.
//!
//! Text becomes statements ([`parser`]); statements are rewritten so DataFusion
//! plans them with ClickHouse's meaning ([`ast_rewrite`], naming from
//! [`naming`]); the resulting logical plan gets ClickHouse's literal and
//! arithmetic typing ([`plan_rewrite`]). [`virtual_columns`] keeps `*` to a
//! table's own columns when a statement names its virtual ones;
//! [`text_comparisons`] reads strings compared with UUIDs and FixedStrings as
//! those types.
//! Executing statements is the engine's job.

pub mod access;
pub mod alias_columns;
pub mod aliases;
pub mod alter_columns;
pub mod alter_settings;
pub mod array_join;
pub mod array_join_function;
pub mod array_literals;
pub mod ast_rewrite;
pub mod clickhouse_tokens;
pub mod column_matchers;
pub mod combinators;
pub mod common_results;
pub mod constraints;
pub mod create_database;
pub mod create_table;
/// The function a query parameter `{name:Type}` left in a statement is read as.
pub const QUERY_PARAMETER_FUNCTION: &str = "__strata_param";

pub mod depth;
mod dialect;
pub mod dictionary;
mod enum_numbers;
pub mod equivalents;
pub mod final_modifier;
pub mod format_function;
pub mod in_subquery;
mod inline_aliases;
pub mod insert_format;
pub mod insert_settings;
mod interval_moments;
pub mod join_chain;
pub mod join_columns;
pub mod join_defaults;
pub mod join_order;
pub mod join_strictness;
pub mod join_using;
pub mod literal_text;
pub mod materialized_view;
pub mod moment_numbers;
pub mod mutations;
pub mod naming;
mod nan_comparisons;
mod nan_order;
pub mod nested_columns;
pub mod not_in;
mod outside_subqueries;
pub mod parser;
pub mod part_statements;
pub mod plan_rewrite;
mod quantified_subqueries;
pub mod query_clauses;
mod recursive_ctes;
mod relative_limits;
pub mod repeated_columns;
pub mod sample_clause;
pub mod scalar_with;
pub mod select_probes;
pub mod skip_index;
pub mod sort_keys;
pub mod source_text;
pub mod subcolumns;
mod subquery_order;
pub mod table_function_scans;
mod table_qualifiers;
pub mod text_comparisons;
pub mod totals;
pub mod ttl;
mod tuple_comparisons;
pub mod uint8_booleans;
pub mod untuple;
pub mod user_functions;
pub mod uuid_order;
pub mod values_cells;
pub mod values_function;
pub mod views;
pub mod virtual_columns;
pub mod volatile_case;
pub mod volatile_shared;
mod window_aggregates;
mod window_ranges;
pub mod with_fill;
pub mod zoned_comparisons;

pub use ast_rewrite::{AstContext, rewrite_statement};
pub use create_table::{CreateTableText, EngineClause, is_create_table, split_create_table};
pub use depth::check_depth;
pub use insert_format::{FormattedInsert, split_insert_format};
pub use parser::{
    OutFile, OutFileMode, ParsedStatement, TrailingClauses, explain_subqueries,
    parse_alter_statement, parse_expr_text, parse_object_name, parse_statement, split_statements,
    split_trailing_clauses, statement_spans,
};
pub use plan_rewrite::PlanRewriter;
pub use text_comparisons::TextComparisons;
