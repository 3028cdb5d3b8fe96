//! A MergeTree table's `TTL` clause, in `CREATE TABLE` and in `ALTER TABLE
//! t MODIFY TTL ... | REMOVE TTL`: rules `expr [DELETE | TO DISK 'd' | TO
//! VOLUME 'v']`, comma-separated, as ClickHouse writes them.

use datafusion::sql::sqlparser::ast::{Expr, ObjectName, visit_expressions_mut};
use datafusion::sql::sqlparser::keywords::Keyword;
use datafusion::sql::sqlparser::parser::Parser;
use datafusion::sql::sqlparser::tokenizer::{Token, Tokenizer};
use strata_common::{ErrorCode, Result, StrataError};

use crate::literal_text::{expr_text, quoted};
use crate::parser::syntax_error;
use crate::part_statements::parse_word;

/// What happens to rows once a rule's time has passed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TtlAction {
    Delete,
    ToDisk(String),
    ToVolume(String),
}

/// One rule: when `expr` (a Date or DateTime) is in the past, `action`.
#[derive(Debug, Clone, PartialEq)]
pub struct TtlRule {
    pub expr: Expr,
    pub action: TtlAction,
}

impl TtlRule {
    /// The rule as SHOW CREATE TABLE writes it: intervals as ClickHouse
    /// prints them (`toIntervalDay(10)`), DELETE left out as the default.
    pub fn text(&self) -> String {
        let mut expr = self.expr.clone();
        let _ = visit_expressions_mut(&mut expr, |e| {
            if let Expr::Interval(interval) = e
                && let Some(unit) = &interval.leading_field
            {
                let unit = unit.to_string().to_lowercase();
                let name = format!("toInterval{}{}", unit[..1].to_uppercase(), &unit[1..]);
                let value = expr_text(&interval.value);
                let value = value.trim_matches('\'');
                if let Ok(call) = crate::parser::parse_expr_text(&format!("{name}({value})")) {
                    *e = call;
                }
            }
            std::ops::ControlFlow::<()>::Continue(())
        });
        let action = match &self.action {
            TtlAction::Delete => String::new(),
            TtlAction::ToDisk(disk) => format!(" TO DISK {}", quoted(disk)),
            TtlAction::ToVolume(volume) => format!(" TO VOLUME {}", quoted(volume)),
        };
        format!("{}{action}", expr_text(&expr))
    }
}

/// `rules` joined as the body of a TTL clause.
pub fn rules_text(rules: &[TtlRule]) -> String {
    rules
        .iter()
        .map(TtlRule::text)
        .collect::<Vec<_>>()
        .join(", ")
}

/// Reads the rules of a TTL clause from its tokens.
pub fn parse_rules(sql: &str, tokens: &[Token]) -> Result<Vec<TtlRule>> {
    let rules: Vec<TtlRule> = crate::create_table::split_on_commas(tokens)
        .into_iter()
        .map(|piece| parse_rule(sql, piece))
        .collect::<Result<_>>()?;
    let deletes = rules
        .iter()
        .filter(|r| r.action == TtlAction::Delete)
        .count();
    if deletes > 1 {
        return Err(StrataError::new(
            ErrorCode::BAD_TTL_EXPRESSION,
            "More than one DELETE TTL expression without WHERE expression is not allowed",
        ));
    }
    Ok(rules)
}

fn parse_rule(sql: &str, tokens: &[Token]) -> Result<TtlRule> {
    let dialect = crate::dialect::StrataDialect;
    // Cut before `TO DISK | VOLUME`: sqlparser would read `INTERVAL 1 DAY
    // TO ...` as an interval range.
    let cut = destination_start(tokens).unwrap_or(tokens.len());
    let mut parser = Parser::new(&dialect).with_tokens(tokens[..cut].to_vec());
    let expr = parser
        .parse_expr()
        .map_err(|e| syntax_error(sql, &e.to_string()))?;
    let rest: Vec<Token> = std::iter::from_fn(|| {
        let token = parser.next_token().token;
        (token != Token::EOF).then_some(token)
    })
    .chain(tokens[cut..].iter().cloned())
    .collect();
    let mut parser = Parser::new(&dialect).with_tokens(rest);
    let action = if parser.parse_keyword(Keyword::DELETE) {
        TtlAction::Delete
    } else if parser.parse_keyword(Keyword::TO) {
        let disk = parse_word(&mut parser, "DISK");
        if !disk && !parse_word(&mut parser, "VOLUME") {
            return Err(syntax_error(sql, "Expected DISK or VOLUME after TO in TTL"));
        }
        let name = match parser.next_token().token {
            Token::SingleQuotedString(name) => name,
            other => {
                return Err(syntax_error(
                    sql,
                    &format!("Expected a disk or volume name in TTL, found: {other}"),
                ));
            }
        };
        if disk {
            TtlAction::ToDisk(name)
        } else {
            TtlAction::ToVolume(name)
        }
    } else {
        TtlAction::Delete
    };
    let next = parser.peek_token().token;
    match next {
        Token::EOF => Ok(TtlRule { expr, action }),
        Token::Word(w)
            if ["WHERE", "GROUP", "RECOMPRESS", "SET"]
                .contains(&w.value.to_uppercase().as_str()) =>
        {
            Err(StrataError::new(
                ErrorCode::NOT_IMPLEMENTED,
                format!("TTL with {} is not supported yet", w.value.to_uppercase()),
            ))
        }
        other => Err(syntax_error(sql, &format!("Unexpected {other} in TTL"))),
    }
}

/// Where `TO DISK` or `TO VOLUME` starts among `tokens`, outside brackets.
fn destination_start(tokens: &[Token]) -> Option<usize> {
    let is_word = |token: &Token, word: &str| matches!(token, Token::Word(w) if w.quote_style.is_none() && w.value.eq_ignore_ascii_case(word));
    let mut depth = 0usize;
    for (i, token) in tokens.iter().enumerate() {
        match token {
            Token::LParen | Token::LBracket => depth += 1,
            Token::RParen | Token::RBracket => depth = depth.saturating_sub(1),
            _ if depth == 0 && is_word(token, "TO") => {
                let next = tokens[i + 1..]
                    .iter()
                    .find(|t| !matches!(t, Token::Whitespace(_)));
                if next.is_some_and(|t| is_word(t, "DISK") || is_word(t, "VOLUME")) {
                    return Some(i);
                }
            }
            _ => {}
        }
    }
    None
}

/// `ALTER TABLE t MODIFY TTL rules` (`rules` given) or `REMOVE TTL` (`None`).
#[derive(Debug, Clone, PartialEq)]
pub struct AlterTtl {
    pub table: ObjectName,
    pub rules: Option<Vec<TtlRule>>,
}

/// Reads `sql` as `ALTER TABLE t MODIFY TTL ... | REMOVE TTL`, or `None`
/// if it is another statement.
pub fn parse_alter_ttl(sql: &str) -> Result<Option<AlterTtl>> {
    let dialect = crate::dialect::StrataDialect;
    let tokens = Tokenizer::new(&dialect, sql)
        .tokenize()
        .map_err(|e| syntax_error(sql, &e.to_string()))?;
    let mut parser = Parser::new(&dialect).with_tokens(tokens.clone());
    if !parser.parse_keywords(&[Keyword::ALTER, Keyword::TABLE]) {
        return Ok(None);
    }
    let Ok(table) = parser.parse_object_name(false) else {
        return Ok(None);
    };
    if parse_word(&mut parser, "REMOVE") {
        if !parse_word(&mut parser, "TTL") {
            return Ok(None);
        }
        while parser.consume_token(&Token::SemiColon) {}
        if parser.peek_token().token != Token::EOF {
            return Err(syntax_error(sql, "Expected end of query after REMOVE TTL"));
        }
        return Ok(Some(AlterTtl { table, rules: None }));
    }
    if !parse_word(&mut parser, "MODIFY") || !parse_word(&mut parser, "TTL") {
        return Ok(None);
    }
    // The rest of the statement's tokens, without a trailing `;`.
    let rest: Vec<Token> = std::iter::from_fn(|| {
        let token = parser.next_token().token;
        (token != Token::EOF).then_some(token)
    })
    .collect();
    let end = rest
        .iter()
        .rposition(|t| !matches!(t, Token::Whitespace(_) | Token::SemiColon))
        .map_or(0, |i| i + 1);
    let rules = parse_rules(sql, &rest[..end])?;
    Ok(Some(AlterTtl {
        table,
        rules: Some(rules),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rules_read_and_print_as_clickhouse_writes_them() {
        let alter = parse_alter_ttl(
            "ALTER TABLE t MODIFY TTL d + INTERVAL 10 DAY TO DISK 's3', d + INTERVAL 1 YEAR",
        )
        .unwrap()
        .unwrap();
        let rules = alter.rules.unwrap();
        assert_eq!(rules[0].action, TtlAction::ToDisk("s3".to_string()));
        assert_eq!(rules[1].action, TtlAction::Delete);
        assert_eq!(
            rules_text(&rules),
            "d + toIntervalDay(10) TO DISK 's3', d + toIntervalYear(1)"
        );
        let remove = parse_alter_ttl("alter table db.t remove ttl")
            .unwrap()
            .unwrap();
        assert_eq!(remove.rules, None);
        assert!(
            parse_alter_ttl("ALTER TABLE t DROP COLUMN c")
                .unwrap()
                .is_none()
        );
        assert_eq!(
            parse_alter_ttl("ALTER TABLE t MODIFY TTL d DELETE, d + 1 DELETE")
                .unwrap_err()
                .code,
            ErrorCode::BAD_TTL_EXPRESSION
        );
        assert_eq!(
            parse_alter_ttl("ALTER TABLE t MODIFY TTL d TO VOLUME cold")
                .unwrap_err()
                .code,
            ErrorCode::SYNTAX_ERROR
        );
    }
}
