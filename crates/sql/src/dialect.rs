//! sqlparser's ClickHouse dialect with the infix operators it reads only
//! for MySQL: `a DIV b` (`intDiv`) and `a MOD b` (`modulo`), both at the
//! precedence of `*`. Everything else is the ClickHouse dialect's, and the
//! parser's checks for that dialect see this one as it.

use std::any::TypeId;

use datafusion::sql::sqlparser::ast::Expr;
use datafusion::sql::sqlparser::dialect::{ClickHouseDialect, Dialect, Precedence};
use datafusion::sql::sqlparser::keywords::Keyword;
use datafusion::sql::sqlparser::parser::{Parser, ParserError};
use datafusion::sql::sqlparser::tokenizer::Token;

use crate::ast_rewrite::call;

const CLICKHOUSE: ClickHouseDialect = ClickHouseDialect {};

#[derive(Debug, Default, Clone, Copy)]
pub struct StrataDialect;

impl Dialect for StrataDialect {
    fn dialect(&self) -> TypeId {
        TypeId::of::<ClickHouseDialect>()
    }

    fn get_next_precedence(&self, parser: &Parser) -> Option<Result<u8, ParserError>> {
        match parser.peek_token().token {
            Token::Word(w) if matches!(w.keyword, Keyword::DIV | Keyword::MOD) => {
                Some(Ok(self.prec_value(Precedence::MulDivModOp)))
            }
            _ => None,
        }
    }

    fn parse_infix(
        &self,
        parser: &mut Parser,
        left: &Expr,
        precedence: u8,
    ) -> Option<Result<Expr, ParserError>> {
        let function = if parser.parse_keyword(Keyword::DIV) {
            "intDiv"
        } else if parser.parse_keyword(Keyword::MOD) {
            "modulo"
        } else {
            return None;
        };
        let right = parser.parse_subexpr(precedence);
        Some(right.map(|right| call(function, vec![left.clone(), right])))
    }

    fn is_identifier_start(&self, ch: char) -> bool {
        CLICKHOUSE.is_identifier_start(ch)
    }

    fn is_identifier_part(&self, ch: char) -> bool {
        CLICKHOUSE.is_identifier_part(ch)
    }

    fn supports_string_literal_backslash_escape(&self) -> bool {
        CLICKHOUSE.supports_string_literal_backslash_escape()
    }

    fn supports_select_wildcard_except(&self) -> bool {
        CLICKHOUSE.supports_select_wildcard_except()
    }

    fn describe_requires_table_keyword(&self) -> bool {
        CLICKHOUSE.describe_requires_table_keyword()
    }

    fn require_interval_qualifier(&self) -> bool {
        CLICKHOUSE.require_interval_qualifier()
    }

    fn supports_limit_comma(&self) -> bool {
        CLICKHOUSE.supports_limit_comma()
    }

    fn supports_insert_table_function(&self) -> bool {
        CLICKHOUSE.supports_insert_table_function()
    }

    fn supports_insert_format(&self) -> bool {
        CLICKHOUSE.supports_insert_format()
    }

    fn supports_numeric_literal_underscores(&self) -> bool {
        CLICKHOUSE.supports_numeric_literal_underscores()
    }

    fn supports_partition_by_after_order_by(&self) -> bool {
        CLICKHOUSE.supports_partition_by_after_order_by()
    }

    fn supports_array_join_syntax(&self) -> bool {
        CLICKHOUSE.supports_array_join_syntax()
    }

    fn supports_dictionary_syntax(&self) -> bool {
        CLICKHOUSE.supports_dictionary_syntax()
    }

    fn supports_lambda_functions(&self) -> bool {
        CLICKHOUSE.supports_lambda_functions()
    }

    fn supports_from_first_select(&self) -> bool {
        CLICKHOUSE.supports_from_first_select()
    }

    fn supports_order_by_all(&self) -> bool {
        CLICKHOUSE.supports_order_by_all()
    }

    fn supports_group_by_expr(&self) -> bool {
        CLICKHOUSE.supports_group_by_expr()
    }

    fn supports_group_by_with_modifier(&self) -> bool {
        CLICKHOUSE.supports_group_by_with_modifier()
    }

    fn supports_nested_comments(&self) -> bool {
        CLICKHOUSE.supports_nested_comments()
    }

    fn supports_optimize_table(&self) -> bool {
        CLICKHOUSE.supports_optimize_table()
    }

    fn supports_prewhere(&self) -> bool {
        CLICKHOUSE.supports_prewhere()
    }

    fn supports_with_fill(&self) -> bool {
        CLICKHOUSE.supports_with_fill()
    }

    fn supports_limit_by(&self) -> bool {
        CLICKHOUSE.supports_limit_by()
    }

    /// `SELECT a, b, FROM t` and `CREATE TABLE t (a Int32, b Int32,)`, as
    /// ClickHouse reads them (not in function arguments, where it refuses).
    fn supports_projection_trailing_commas(&self) -> bool {
        true
    }

    fn supports_column_definition_trailing_commas(&self) -> bool {
        true
    }

    fn supports_interpolate(&self) -> bool {
        CLICKHOUSE.supports_interpolate()
    }

    fn supports_settings(&self) -> bool {
        CLICKHOUSE.supports_settings()
    }

    fn supports_select_format(&self) -> bool {
        CLICKHOUSE.supports_select_format()
    }

    fn supports_select_wildcard_replace(&self) -> bool {
        CLICKHOUSE.supports_select_wildcard_replace()
    }

    fn supports_comma_separated_trim(&self) -> bool {
        CLICKHOUSE.supports_comma_separated_trim()
    }
}
