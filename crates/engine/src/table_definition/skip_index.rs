//! A declared skipping index (`INDEX name expr TYPE kind(args) GRANULARITY
//! g`): its arguments and expression types checked as ClickHouse checks
//! them, and compiled to what storage builds.

use std::sync::Arc;

use datafusion::arrow::datatypes::DataType;
use datafusion::common::DFSchema;
use datafusion::execution::session_state::SessionState;
use datafusion::physical_expr::PhysicalExpr;
use datafusion::sql::sqlparser::ast::Expr as SqlExpr;
use strata_common::{ErrorCode, Result, StrataError};
use strata_sql::skip_index::SkipIndex;
use strata_storage::merge_tree::{IndexKind, SkipIndexKey, TextBloom, TextSplit};

use super::{no_skip_indexes, physical_expr};
use crate::table_engine::TableEngine;

/// ClickHouse's false-positive rate for `bloom_filter` without an argument.
const DEFAULT_BLOOM_FILTER_FALSE_POSITIVE: f64 = 0.025;

/// Index names are unique, each index's arguments fit its type, and the
/// Log family has no indexes.
pub(super) fn check_indexes(kind: &TableEngine, indexes: &[SkipIndex]) -> Result<()> {
    if kind.is_log() && !indexes.is_empty() {
        return Err(no_skip_indexes(kind.name()));
    }
    for (n, index) in indexes.iter().enumerate() {
        if indexes[..n]
            .iter()
            .any(|earlier| earlier.name == index.name)
        {
            return Err(StrataError::new(
                ErrorCode::ILLEGAL_INDEX,
                format!(
                    "Duplicated index name {} is not allowed. Please use a different index name",
                    index.name
                ),
            ));
        }
        index_kind(index)?;
    }
    Ok(())
}

/// Fails unless the index's expressions read the table's columns, in types
/// a text index takes where it is one.
pub(super) fn check_index_exprs(
    state: &SessionState,
    schema: &DFSchema,
    index: &SkipIndex,
) -> Result<()> {
    let exprs = index_exprs(state, schema, index)?;
    if let Some(IndexKind::Text(_)) = index_kind(index)? {
        let schema = schema.as_arrow();
        for expr in exprs {
            if expr.nullable(schema)? || !is_text_type(&expr.data_type(schema)?) {
                return Err(invalid(
                    index,
                    ErrorCode::BAD_ARGUMENTS,
                    "Ngram and token bloom filter indexes can only be used with column types `String`, `FixedString`, `LowCardinality(String)`, `LowCardinality(FixedString)`, `Array(String)` or `Array(FixedString)`",
                ));
            }
        }
    }
    Ok(())
}

/// A declared index as storage builds it; `None` for the kinds Strata does
/// not build (`text`, `vector_similarity`, ...) and for a declaration that
/// no longer compiles (the index is then not used, the table still opens).
pub(super) fn compile_index(
    state: &SessionState,
    schema: &DFSchema,
    index: &SkipIndex,
) -> Option<SkipIndexKey> {
    let kind = index_kind(index).ok()??;
    let exprs = match index_exprs(state, schema, index) {
        Ok(exprs) => exprs,
        Err(error) => {
            log::warn!("Index {} is not used: {error}", index.name);
            return None;
        }
    };
    Some(SkipIndexKey {
        name: index.name.clone(),
        exprs,
        kind,
        granularity: usize::try_from(index.granularity)
            .unwrap_or(usize::MAX)
            .max(1),
        definition: index.definition(),
    })
}

/// The index's expressions: a tuple's items, else the one expression.
fn index_exprs(
    state: &SessionState,
    schema: &DFSchema,
    index: &SkipIndex,
) -> Result<Vec<Arc<dyn PhysicalExpr>>> {
    let elements: Vec<&SqlExpr> = match &index.expr {
        SqlExpr::Tuple(items) => items.iter().collect(),
        expr => vec![expr],
    };
    elements
        .into_iter()
        .map(|expr| physical_expr(state, schema, expr))
        .collect()
}

/// The index's type with its arguments checked; `None` for a type Strata
/// does not build.
fn index_kind(index: &SkipIndex) -> Result<Option<IndexKind>> {
    let arguments: Vec<&str> = index
        .kind_full
        .split_once('(')
        .map(|(_, rest)| rest.trim_end().trim_end_matches(')'))
        .filter(|text| !text.trim().is_empty())
        .map(|text| text.split(',').map(str::trim).collect())
        .unwrap_or_default();
    Ok(Some(match index.kind.as_str() {
        "minmax" => IndexKind::MinMax,
        "set" => set_kind(index, &arguments)?,
        "bloom_filter" => bloom_filter_kind(index, &arguments)?,
        "tokenbf_v1" | "ngrambf_v1" => text_kind(index, &arguments)?,
        _ => return Ok(None),
    }))
}

fn set_kind(index: &SkipIndex, arguments: &[&str]) -> Result<IndexKind> {
    let [max_values] = arguments else {
        return Err(invalid(
            index,
            ErrorCode::INCORRECT_QUERY,
            "Set index must have exactly one argument",
        ));
    };
    let max_values = max_values.parse().map_err(|_| {
        invalid(
            index,
            ErrorCode::INCORRECT_QUERY,
            "Set index argument must be positive integer",
        )
    })?;
    Ok(IndexKind::Set { max_values })
}

fn bloom_filter_kind(index: &SkipIndex, arguments: &[&str]) -> Result<IndexKind> {
    let false_positive = match arguments {
        [] => DEFAULT_BLOOM_FILTER_FALSE_POSITIVE,
        [rate] => rate
            .parse::<f64>()
            .ok()
            .filter(|p| *p > 0.0 && *p < 1.0)
            .ok_or_else(|| {
                invalid(
                    index,
                    ErrorCode::BAD_ARGUMENTS,
                    "The BloomFilter false positive must be a double number between 0 and 1",
                )
            })?,
        _ => {
            return Err(invalid(
                index,
                ErrorCode::NUMBER_OF_ARGUMENTS_DOESNT_MATCH,
                "BloomFilter index cannot have more than one parameter",
            ));
        }
    };
    Ok(IndexKind::BloomFilter { false_positive })
}

/// `tokenbf_v1(bytes, hashes, seed)` or `ngrambf_v1(n, bytes, hashes, seed)`.
fn text_kind(index: &SkipIndex, arguments: &[&str]) -> Result<IndexKind> {
    let ngrams = index.kind == "ngrambf_v1";
    let expected = if ngrams { 4 } else { 3 };
    if arguments.len() != expected {
        let family = if ngrams { "ngrambf" } else { "tokenbf" };
        return Err(invalid(
            index,
            ErrorCode::BAD_ARGUMENTS,
            &format!("`{family}` index must have exactly {expected} arguments"),
        ));
    }
    let numbers = arguments
        .iter()
        .map(|a| a.parse::<u64>())
        .collect::<std::result::Result<Vec<u64>, _>>()
        .map_err(|_| {
            invalid(
                index,
                ErrorCode::BAD_ARGUMENTS,
                "All parameters to *bf_v1 index must be unsigned integers",
            )
        })?;
    let (split, rest) = match ngrams {
        true if numbers[0] == 0 => {
            return Err(invalid(
                index,
                ErrorCode::BAD_ARGUMENTS,
                "ngram length must be at least 1",
            ));
        }
        true => (TextSplit::NGrams(numbers[0] as usize), &numbers[1..]),
        false => (TextSplit::Tokens, &numbers[..]),
    };
    let &[bytes, hashes, seed] = rest else {
        unreachable!("the argument count was checked");
    };
    if bytes == 0 {
        return Err(invalid(
            index,
            ErrorCode::BAD_ARGUMENTS,
            "The size of bloom filter cannot be zero",
        ));
    }
    if hashes == 0 {
        return Err(invalid(
            index,
            ErrorCode::BAD_ARGUMENTS,
            "The number of hash functions for bloom filter cannot be zero",
        ));
    }
    Ok(IndexKind::Text(TextBloom {
        split,
        bytes: usize::try_from(bytes).unwrap_or(usize::MAX),
        hashes: u32::try_from(hashes).unwrap_or(u32::MAX),
        seed,
    }))
}

/// String, FixedString, their LowCardinality forms, and arrays of them.
fn is_text_type(data_type: &DataType) -> bool {
    match data_type {
        DataType::Utf8
        | DataType::LargeUtf8
        | DataType::Utf8View
        | DataType::Binary
        | DataType::FixedSizeBinary(_) => true,
        DataType::Dictionary(_, value) => is_text_type(value),
        DataType::List(item) => {
            !matches!(item.data_type(), DataType::List(_)) && is_text_type(item.data_type())
        }
        _ => false,
    }
}

fn invalid(index: &SkipIndex, code: ErrorCode, message: &str) -> StrataError {
    StrataError::new(
        code,
        format!(
            "{message}: When validating secondary index `{}`",
            index.name
        ),
    )
}
