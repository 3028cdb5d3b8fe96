//! `CREATE MATERIALIZED VIEW` as ClickHouse writes it: `[TO target]
//! [(columns)] [ENGINE = ... clauses] [POPULATE] AS query`, the pieces in
//! either order. sqlparser reads only `name [(columns)] [TO target] AS
//! query`, so the storage clauses and `POPULATE` are cut out here and the
//! rest is put in sqlparser's order.

use datafusion::sql::sqlparser::dialect::ClickHouseDialect;
use datafusion::sql::sqlparser::keywords::Keyword;
use datafusion::sql::sqlparser::tokenizer::{Token, Tokenizer};
use strata_common::Result;

use crate::create_table::{clause_at, engine_clause_end, matching_paren, next_significant};
use crate::parser::syntax_error;
use crate::source_text::normalize;

/// A `CREATE MATERIALIZED VIEW` with its ClickHouse-only pieces taken out.
#[derive(Debug, Clone, PartialEq)]
pub struct MaterializedViewText {
    /// `CREATE MATERIALIZED VIEW name [(columns)] [TO target] AS query`.
    pub statement: String,
    /// The inner table's `ENGINE = ...` and clauses, as written.
    pub storage: Option<String>,
    /// `POPULATE`: the view's query runs once over the rows already there.
    pub populate: bool,
}

/// Splits `sql` if it is a `CREATE [OR REPLACE] MATERIALIZED VIEW`.
pub fn split_materialized_view(sql: &str) -> Result<Option<MaterializedViewText>> {
    let words: Vec<String> = sql
        .split_whitespace()
        .take(5)
        .map(str::to_ascii_uppercase)
        .collect();
    let is_view = words.first().map(String::as_str) == Some("CREATE")
        && words[1..]
            .iter()
            .skip_while(|w| matches!(w.as_str(), "OR" | "REPLACE"))
            .take(2)
            .eq(["MATERIALIZED", "VIEW"].iter());
    if !is_view {
        return Ok(None);
    }
    let tokens = Tokenizer::new(&ClickHouseDialect {}, &normalize(sql))
        .with_unescape(false)
        .tokenize()
        .map_err(|e| syntax_error(sql, &e.to_string()))?;
    let text = |tokens: &[Token]| -> String { tokens.iter().map(|t| t.to_string()).collect() };
    let (mut head, mut columns, mut to) = (Vec::new(), None, None);
    let (mut storage, mut populate) = (None, false);
    let mut i = 0;
    while i < tokens.len() {
        let token = &tokens[i];
        match token {
            Token::Word(w) if w.keyword == Keyword::AS => break,
            Token::LParen => {
                let end = matching_paren(&tokens, i)
                    .ok_or_else(|| syntax_error(sql, "Expected ')' after the view's columns"))?;
                columns = Some(text(&tokens[i..=end]));
                i = end + 1;
                continue;
            }
            Token::Word(w) if w.keyword == Keyword::TO => {
                let end = name_end(&tokens, next_significant(&tokens, i + 1));
                to = Some(text(&tokens[i..end]));
                i = end;
                continue;
            }
            Token::Word(w)
                if w.quote_style.is_none() && w.value.eq_ignore_ascii_case("POPULATE") =>
            {
                populate = true
            }
            Token::Word(w) if w.keyword == Keyword::ENGINE || clause_at(&tokens, i).is_some() => {
                let end = engine_clause_end(&tokens, i);
                let clause = text(&tokens[i..end]);
                // `POPULATE` between the clauses and `AS` ends the storage.
                let (clause, populated) = match clause.trim_end().rsplit_once(char::is_whitespace) {
                    Some((before, last)) if last.eq_ignore_ascii_case("POPULATE") => {
                        (before.to_string(), true)
                    }
                    _ => (clause, false),
                };
                populate |= populated;
                storage = Some(clause.trim().to_string());
                i = end;
                continue;
            }
            _ => head.push(token.clone()),
        }
        i += 1;
    }
    let statement = [
        Some(text(&head).trim_end().to_string()),
        columns,
        to,
        Some(text(&tokens[i..])),
    ]
    .into_iter()
    .flatten()
    .collect::<Vec<_>>()
    .join(" ");
    Ok(Some(MaterializedViewText {
        statement,
        storage,
        populate,
    }))
}

/// Where the `[db.]name` starting at `from` ends.
fn name_end(tokens: &[Token], from: usize) -> usize {
    let mut end = from + 1;
    while tokens.get(end) == Some(&Token::Period) {
        end += 2;
    }
    end.min(tokens.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn split(sql: &str) -> MaterializedViewText {
        split_materialized_view(sql).unwrap().unwrap()
    }

    #[test]
    fn storage_and_populate_are_cut_out() {
        let view = split(
            "CREATE MATERIALIZED VIEW mv ENGINE = MergeTree ORDER BY (a, b) POPULATE AS SELECT a, b FROM t",
        );
        assert_eq!(
            view.statement,
            "CREATE MATERIALIZED VIEW mv AS SELECT a, b FROM t"
        );
        assert_eq!(
            view.storage.as_deref(),
            Some("ENGINE = MergeTree ORDER BY (a, b)")
        );
        assert!(view.populate);
    }

    #[test]
    fn columns_go_before_to() {
        let view = split("CREATE MATERIALIZED VIEW db.mv TO db.dst (x Int64) AS SELECT x FROM src");
        assert_eq!(
            view.statement,
            "CREATE MATERIALIZED VIEW db.mv (x Int64) TO db.dst AS SELECT x FROM src"
        );
        assert_eq!(view.storage, None);
        assert!(!view.populate);
    }

    #[test]
    fn columns_before_an_engine_stay_columns() {
        let view = split(
            "CREATE MATERIALIZED VIEW IF NOT EXISTS mv (d Date) ENGINE MergeTree(d, d, 8192) AS SELECT d FROM t",
        );
        assert_eq!(
            view.statement,
            "CREATE MATERIALIZED VIEW IF NOT EXISTS mv (d Date) AS SELECT d FROM t"
        );
        assert_eq!(
            view.storage.as_deref(),
            Some("ENGINE MergeTree(d, d, 8192)")
        );
    }

    #[test]
    fn other_statements_are_left_alone() {
        assert_eq!(
            split_materialized_view("CREATE VIEW v AS SELECT 1").unwrap(),
            None
        );
        assert_eq!(
            split_materialized_view("CREATE TABLE mv (x Int8)").unwrap(),
            None
        );
    }
}
