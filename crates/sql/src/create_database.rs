//! `CREATE DATABASE [IF NOT EXISTS] name ENGINE = E`: Strata's databases are
//! ClickHouse's Atomic ones (tables by UUID, renamed and dropped at once), so
//! `ENGINE = Atomic` is taken as written; other engines are refused.

use datafusion::sql::sqlparser::keywords::Keyword;
use datafusion::sql::sqlparser::tokenizer::Token;
use strata_common::{ErrorCode, Result, StrataError};

use crate::dialect::StrataDialect;
use crate::parser::{clickhouse_parser, expect_end, parser_error};
use crate::part_statements::parse_word;

#[derive(Debug, Clone, PartialEq)]
pub struct CreateDatabase {
    pub name: String,
    pub if_not_exists: bool,
}

/// Database engines ClickHouse has that Strata does not run.
const OTHER_ENGINES: [&str; 12] = [
    "Memory",
    "Lazy",
    "Replicated",
    "MySQL",
    "MaterializedMySQL",
    "PostgreSQL",
    "MaterializedPostgreSQL",
    "SQLite",
    "Filesystem",
    "S3",
    "HDFS",
    "Backup",
];

/// The statement, when it is a CREATE DATABASE with an ENGINE clause (one
/// without is left to the SQL parser); an error for an engine not run here.
pub fn parse_create_database(sql: &str) -> Result<Option<CreateDatabase>> {
    let dialect = StrataDialect;
    let mut parser = clickhouse_parser(&dialect, sql)?;
    if !parser.parse_keywords(&[Keyword::CREATE, Keyword::DATABASE]) {
        return Ok(None);
    }
    let if_not_exists = parser.parse_keywords(&[Keyword::IF, Keyword::NOT, Keyword::EXISTS]);
    let name = parser
        .parse_identifier()
        .map_err(|e| parser_error(sql, e))?;
    if !parse_word(&mut parser, "ENGINE") {
        return Ok(None);
    }
    parser
        .expect_token(&Token::Eq)
        .map_err(|e| parser_error(sql, e))?;
    let engine = parser
        .parse_identifier()
        .map_err(|e| parser_error(sql, e))?;
    if parser.consume_token(&Token::LParen) {
        return Err(unsupported(&engine.value));
    }
    expect_end(sql, &mut parser)?;
    match engine.value.as_str() {
        "Atomic" => Ok(Some(CreateDatabase {
            name: name.value,
            if_not_exists,
        })),
        "Ordinary" => Err(StrataError::new(
            ErrorCode::UNKNOWN_DATABASE_ENGINE,
            "Ordinary database engine is deprecated",
        )),
        other => Err(unsupported(other)),
    }
}

fn unsupported(engine: &str) -> StrataError {
    if OTHER_ENGINES.contains(&engine) {
        return StrataError::new(
            ErrorCode::NOT_IMPLEMENTED,
            format!("Database engine {engine} is not supported yet (databases are Atomic)"),
        );
    }
    StrataError::new(
        ErrorCode::UNKNOWN_DATABASE_ENGINE,
        format!("Unknown database engine: {engine}"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn atomic_is_taken_and_other_engines_refused() {
        let made = parse_create_database("CREATE DATABASE IF NOT EXISTS d ENGINE = Atomic;")
            .unwrap()
            .unwrap();
        assert_eq!(made.name, "d");
        assert!(made.if_not_exists);
        assert_eq!(parse_create_database("CREATE DATABASE d").unwrap(), None);
        let code = |sql| parse_create_database(sql).unwrap_err().code;
        assert_eq!(
            code("CREATE DATABASE d ENGINE = Memory"),
            ErrorCode::NOT_IMPLEMENTED
        );
        assert_eq!(
            code("CREATE DATABASE d ENGINE = Nope"),
            ErrorCode::UNKNOWN_DATABASE_ENGINE
        );
        assert_eq!(
            code("CREATE DATABASE d ENGINE = Lazy(10)"),
            ErrorCode::NOT_IMPLEMENTED
        );
    }
}
