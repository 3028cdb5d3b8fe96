//! The MergeTree family's deprecated engine arguments,
//! `MergeTree(date, [sampling,] key, granularity[, engine arguments])`,
//! read (with `allow_deprecated_syntax_for_merge_tree`) as the clauses they
//! stand for: `PARTITION BY toYYYYMM(date) ORDER BY key [SAMPLE BY sampling]
//! SETTINGS index_granularity = granularity`. The table's definition is
//! stored in that form, so it opens again without the setting.

use datafusion::sql::sqlparser::ast::{Expr, Value};
use strata_common::{ErrorCode, Result, StrataError};
use strata_sql::EngineClause;
use strata_sql::parser::parse_expr_text;

use crate::table_engine::{LOG_ENGINES, TableEngine};

/// Where the granularity argument is: the key and date come before it,
/// and the sampling expression too when it is fourth.
fn granularity_at(engine: &EngineClause) -> Option<usize> {
    let is_clause_free = engine.partition_by.is_none()
        && engine.order_by.is_none()
        && engine.primary_key.is_none()
        && engine.sample_by.is_none()
        && engine.settings.is_empty()
        && engine.ttl.is_empty();
    let family =
        TableEngine::is_part_engine(&engine.name) && !LOG_ENGINES.contains(&engine.name.as_str());
    if !is_clause_free || !family {
        return None;
    }
    let is_integer = |at: usize| {
        matches!(engine.arguments.get(at), Some(Expr::Value(v))
            if matches!(&v.value, Value::Number(text, _) if text.parse::<u64>().is_ok()))
    };
    [2, 3].into_iter().find(|&at| is_integer(at))
}

/// Rewrites `engine` from the deprecated form into clauses; an engine in
/// another form is left as it is.
pub fn read_old_syntax(engine: &mut EngineClause, allowed: bool) -> Result<()> {
    let Some(at) = granularity_at(engine) else {
        return Ok(());
    };
    if !allowed {
        return Err(StrataError::new(
            ErrorCode::BAD_ARGUMENTS,
            "This syntax for *MergeTree engine is deprecated. Use extended storage definition syntax with ORDER BY/PRIMARY KEY clause. See also `allow_deprecated_syntax_for_merge_tree` setting",
        ));
    }
    let mut arguments = std::mem::take(&mut engine.arguments).into_iter();
    let date = arguments.next().expect("at least three arguments");
    let sampling = (at == 3).then(|| arguments.next().expect("four arguments"));
    let key = arguments.next().expect("the key precedes the granularity");
    let granularity = arguments.next().expect("the granularity is there");
    engine.partition_by = Some(parse_expr_text(&format!("toYYYYMM({date})"))?);
    engine.order_by = Some(key);
    engine.sample_by = sampling;
    engine
        .settings
        .push(("index_granularity".to_string(), granularity.to_string()));
    engine.arguments = arguments.collect();
    Ok(())
}
