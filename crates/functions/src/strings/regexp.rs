//! Regular-expression functions with ClickHouse's (RE2's) reading of a
//! pattern: `.` matches a newline too, and `\d`, `\w`, `\s`, `\b` are ASCII
//! classes. `extract*`, `regexpExtract`, `countMatches`, the `match`
//! family, `multiMatch*`, `splitByRegexp` and `regexpQuoteMeta`.
//!
//! Patterns are compiled once when constant, else per distinct pattern.

use std::sync::Arc;

use datafusion::arrow::array::{ArrayRef, ListBuilder, StringBuilder};
use datafusion::arrow::datatypes::{DataType, Field, UInt8Type, UInt64Type};
use datafusion::common::Result;
use regex::bytes::{Regex, RegexBuilder, RegexSet, RegexSetBuilder};
use strata_common::ErrorCode;

use super::udf::{
    Call, Output, Param, Spec, Texts, append_text, failure, number_rows, text_list_rows, text_rows,
    u64_list_rows,
};

/// A pattern in RE2's syntax rewritten for the `regex` crate: the Perl
/// classes made ASCII (a class inside brackets nests, which `regex` reads).
fn translate(pattern: &str) -> String {
    let mut out = String::with_capacity(pattern.len() + 8);
    let mut chars = pattern.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('d') => out.push_str("[0-9]"),
            Some('D') => out.push_str("[^0-9]"),
            Some('w') => out.push_str("[0-9A-Za-z_]"),
            Some('W') => out.push_str("[^0-9A-Za-z_]"),
            Some('s') => out.push_str("[\\t\\n\\f\\r ]"),
            Some('S') => out.push_str("[^\\t\\n\\f\\r ]"),
            Some('b') => out.push_str("(?-u:\\b)"),
            Some('B') => out.push_str("(?-u:\\B)"),
            Some(other) => {
                out.push('\\');
                out.push(other);
            }
            None => out.push('\\'),
        }
    }
    out
}

pub(crate) fn compile(pattern: &[u8], case_insensitive: bool) -> Result<Regex> {
    let text = String::from_utf8_lossy(pattern);
    RegexBuilder::new(&translate(&text))
        .dot_matches_new_line(true)
        .case_insensitive(case_insensitive)
        .build()
        .map_err(|e| {
            failure(
                ErrorCode::CANNOT_COMPILE_REGEXP,
                format!("Cannot compile regexp {text}: {e}"),
            )
        })
}

/// The compiled pattern of each row, compiling a pattern only when it changes.
pub(crate) struct Patterns {
    texts: Texts,
    case_insensitive: bool,
    last: Option<(Vec<u8>, Arc<Regex>)>,
}

impl Patterns {
    pub(crate) fn new(call: &Call, i: usize, case_insensitive: bool) -> Result<Self> {
        Ok(Patterns {
            texts: call.text(i)?,
            case_insensitive,
            last: None,
        })
    }

    /// The pattern as written at `row`.
    fn text(&self, row: usize) -> String {
        String::from_utf8_lossy(self.texts.get(row).unwrap_or_default()).into_owned()
    }

    pub(crate) fn get(&mut self, row: usize) -> Result<Arc<Regex>> {
        let pattern = self.texts.get(row).unwrap_or_default();
        match &self.last {
            Some((text, regex)) if text == pattern => Ok(Arc::clone(regex)),
            _ => {
                let regex = Arc::new(compile(pattern, self.case_insensitive)?);
                self.last = Some((pattern.to_vec(), Arc::clone(&regex)));
                Ok(regex)
            }
        }
    }
}

fn no_groups(pattern: String) -> datafusion::error::DataFusionError {
    failure(
        ErrorCode::BAD_ARGUMENTS,
        format!("There are no groups in regexp: {pattern}"),
    )
}

/// Group 1 of the first match (the whole match when the pattern has no group).
fn extract(call: &Call) -> Result<ArrayRef> {
    let hay = call.text(0)?;
    let mut patterns = Patterns::new(call, 1, false)?;
    text_rows(call, |row, out| {
        let regex = patterns.get(row)?;
        let group = usize::from(regex.captures_len() > 1);
        if let Some(m) = regex
            .captures(hay.get(row).unwrap_or_default())
            .and_then(|c| c.get(group))
        {
            out.extend_from_slice(m.as_bytes());
        }
        Ok(Some(()))
    })
}

/// Every match's group 1 (or whole match), up to the first empty match.
fn extract_all(call: &Call) -> Result<ArrayRef> {
    let hay = call.text(0)?;
    let mut patterns = Patterns::new(call, 1, false)?;
    text_list_rows(call, |row, out| {
        let regex = patterns.get(row)?;
        let group = usize::from(regex.captures_len() > 1);
        for captures in regex.captures_iter(hay.get(row).unwrap_or_default()) {
            if captures.get(0).is_none_or(|m| m.is_empty()) {
                break;
            }
            let value = captures
                .get(group)
                .map(|m| m.as_bytes())
                .unwrap_or_default();
            out.push(value.to_vec());
        }
        Ok(())
    })
}

/// The groups of the first match.
fn extract_groups(call: &Call) -> Result<ArrayRef> {
    let hay = call.text(0)?;
    let mut patterns = Patterns::new(call, 1, false)?;
    text_list_rows(call, |row, out| {
        let regex = patterns.get(row)?;
        if regex.captures_len() < 2 {
            return Err(no_groups(patterns.text(row)));
        }
        if let Some(captures) = regex.captures(hay.get(row).unwrap_or_default()) {
            for group in captures.iter().skip(1) {
                out.push(group.map(|m| m.as_bytes().to_vec()).unwrap_or_default());
            }
        }
        Ok(())
    })
}

/// Each non-empty match's groups: one row of groups per match.
fn all_groups(regex: &Regex, hay: &[u8]) -> Vec<Vec<Vec<u8>>> {
    let mut matches = Vec::new();
    for captures in regex.captures_iter(hay) {
        if captures.get(0).is_none_or(|m| m.is_empty()) {
            break;
        }
        let groups = captures.iter().skip(1);
        matches.push(
            groups
                .map(|g| g.map(|m| m.as_bytes().to_vec()).unwrap_or_default())
                .collect(),
        );
    }
    matches
}

/// `extractAllGroupsVertical` (one array per match) or `Horizontal` (one
/// array per group).
fn extract_all_groups(call: &Call, horizontal: bool) -> Result<ArrayRef> {
    let hay = call.text(0)?;
    let mut patterns = Patterns::new(call, 1, false)?;
    let inner = Field::new("item", DataType::Utf8, false);
    let outer = Field::new("item", DataType::List(Arc::new(inner.clone())), false);
    let mut out = ListBuilder::new(ListBuilder::new(StringBuilder::new()).with_field(inner))
        .with_field(Arc::new(outer));
    for row in 0..call.rows {
        if call.any_null(row) {
            out.append_null();
            continue;
        }
        let regex = patterns.get(row)?;
        if regex.captures_len() < 2 {
            return Err(no_groups(patterns.text(row)));
        }
        let matches = all_groups(&regex, hay.get(row).unwrap_or_default());
        let lines: Vec<Vec<&[u8]>> = if horizontal {
            (0..regex.captures_len() - 1)
                .map(|g| matches.iter().map(|m| m[g].as_slice()).collect())
                .collect()
        } else {
            matches
                .iter()
                .map(|m| m.iter().map(Vec::as_slice).collect())
                .collect()
        };
        for line in lines {
            for value in line {
                append_text(out.values().values(), value);
            }
            out.values().append(true);
        }
        out.append(true);
    }
    Ok(Arc::new(out.finish()))
}

/// `regexpExtract(haystack, pattern[, index])`: group `index` (default 1,
/// 0 for the whole match) of the first match.
fn regexp_extract(call: &Call) -> Result<ArrayRef> {
    let hay = call.text(0)?;
    let mut patterns = Patterns::new(call, 1, false)?;
    let index = if call.len() > 2 {
        Some(call.int(2)?)
    } else {
        None
    };
    text_rows(call, |row, out| {
        let regex = patterns.get(row)?;
        // Without an index, group 1, or the whole match of a pattern without groups.
        let default = i64::from(regex.captures_len() > 1);
        let group = index.as_ref().and_then(|i| i.get(row)).unwrap_or(default);
        if group < 0 || group as usize >= regex.captures_len() {
            return Err(failure(
                ErrorCode::INDEX_OF_POSITIONAL_ARGUMENT_IS_OUT_OF_RANGE,
                format!(
                    "Index value {group} for regexp pattern `{}` in function regexpExtract is out-of-range, should be in [0, {})",
                    patterns.text(row),
                    regex.captures_len()
                ),
            ));
        }
        if let Some(m) = regex
            .captures(hay.get(row).unwrap_or_default())
            .and_then(|c| c.get(group as usize))
        {
            out.extend_from_slice(m.as_bytes());
        }
        Ok(Some(()))
    })
}

/// The non-empty matches.
fn count_matches(call: &Call, case_insensitive: bool) -> Result<ArrayRef> {
    let hay = call.text(0)?;
    let mut patterns = Patterns::new(call, 1, case_insensitive)?;
    number_rows::<UInt64Type>(call, |row| {
        let regex = patterns.get(row)?;
        let found = regex.find_iter(hay.get(row).unwrap_or_default());
        Ok(found.filter(|m| !m.is_empty()).count() as u64)
    })
}

fn matches(call: &Call, case_insensitive: bool, negated: bool) -> Result<ArrayRef> {
    let hay = call.text(0)?;
    let mut patterns = Patterns::new(call, 1, case_insensitive)?;
    number_rows::<UInt8Type>(call, |row| {
        let regex = patterns.get(row)?;
        Ok(u8::from(
            regex.is_match(hay.get(row).unwrap_or_default()) != negated,
        ))
    })
}

#[derive(Clone, Copy)]
enum MultiMatch {
    Any,
    AnyIndex,
    AllIndices,
}

fn compile_set(patterns: &[&[u8]]) -> Result<RegexSet> {
    let texts: Vec<String> = patterns
        .iter()
        .map(|p| translate(&String::from_utf8_lossy(p)))
        .collect();
    RegexSetBuilder::new(&texts)
        .dot_matches_new_line(true)
        .build()
        .map_err(|e| {
            failure(
                ErrorCode::CANNOT_COMPILE_REGEXP,
                format!("Cannot compile regexps: {e}"),
            )
        })
}

/// `multiMatch*(haystack, [patterns])`; indices are 1-based, the lowest
/// first.
fn multi_match(call: &Call, kind: MultiMatch) -> Result<ArrayRef> {
    let hay = call.text(0)?;
    let lists = call.text_lists(1)?;
    let mut constant = None;
    let mut set_at = |row: usize| -> Result<Arc<RegexSet>> {
        if let Some(set) = &constant {
            return Ok(Arc::clone(set));
        }
        let set = Arc::new(compile_set(&lists.get(row).unwrap_or_default())?);
        if lists.is_constant() {
            constant = Some(Arc::clone(&set));
        }
        Ok(set)
    };
    let mut found = |row: usize| -> Result<Vec<u64>> {
        let set = set_at(row)?;
        let matched = set.matches(hay.get(row).unwrap_or_default());
        Ok(matched.iter().map(|i| i as u64 + 1).collect())
    };
    match kind {
        MultiMatch::Any => {
            number_rows::<UInt8Type>(call, |row| Ok(u8::from(!found(row)?.is_empty())))
        }
        MultiMatch::AnyIndex => {
            number_rows::<UInt64Type>(call, |row| Ok(found(row)?.first().copied().unwrap_or(0)))
        }
        MultiMatch::AllIndices => u64_list_rows(call, |row, out| {
            out.extend(found(row)?);
            Ok(())
        }),
    }
}

/// `splitByRegexp(pattern, s[, max_substrings])`: an empty pattern splits
/// into characters, an empty match ends the pieces; with a maximum, only
/// the first pieces are kept.
fn split_by_regexp(call: &Call) -> Result<ArrayRef> {
    let mut patterns = Patterns::new(call, 0, false)?;
    let text = call.text(1)?;
    let limit = super::split::limit(call, 2)?;
    text_list_rows(call, |row, out| {
        let regex = patterns.get(row)?;
        let value = text.get(row).unwrap_or_default();
        if regex.as_str().is_empty() {
            let text = String::from_utf8_lossy(value);
            out.extend(text.chars().map(|c| c.to_string().into_bytes()));
        } else {
            // ClickHouse stops splitting at the first empty match (`^`, `x*`).
            let mut start = 0;
            for found in regex.find_iter(value) {
                if found.is_empty() {
                    break;
                }
                out.push(value[start..found.start()].to_vec());
                start = found.end();
            }
            out.push(value[start..].to_vec());
        }
        if let Some(n) = limit.get(row) {
            out.truncate(n);
        }
        Ok(())
    })
}

/// Characters RE2 would read as syntax get a backslash.
fn quote_meta(call: &Call) -> Result<ArrayRef> {
    let text = call.text(0)?;
    text_rows(call, |row, out| {
        for &b in text.get(row).unwrap_or_default() {
            if b"\\|()^$.[]?*+{-:\0".contains(&b) {
                out.push(b'\\');
            }
            out.push(b);
        }
        Ok(Some(()))
    })
}

const fn spec(
    name: &'static str,
    aliases: &'static [&'static str],
    params: &'static [Param],
    output: Output,
    eval: fn(&Call) -> Result<ArrayRef>,
) -> Spec {
    Spec {
        name,
        aliases,
        params,
        required: 2,
        output,
        eval,
    }
}

const TWO: &[Param] = &[Param::Text, Param::Text];
const MULTI: &[Param] = &[Param::Text, Param::TextArray];
const NESTED: Output = Output::NestedTextList;

pub(crate) const SPECS: &[Spec] = &[
    spec("extract", &[], TWO, Output::Text, extract),
    spec("extractAll", &[], TWO, Output::TextList, extract_all),
    spec("extractGroups", &[], TWO, Output::TextList, extract_groups),
    spec("extractAllGroupsHorizontal", &[], TWO, NESTED, |c| {
        extract_all_groups(c, true)
    }),
    spec(
        "extractAllGroupsVertical",
        &["extractAllGroups"],
        TWO,
        NESTED,
        |c| extract_all_groups(c, false),
    ),
    spec(
        "regexpExtract",
        &["REGEXP_EXTRACT", "REGEXP_SUBSTR"],
        &[Param::Text, Param::Text, Param::Int],
        Output::Text,
        regexp_extract,
    ),
    spec("countMatches", &[], TWO, Output::UInt64, |c| {
        count_matches(c, false)
    }),
    spec(
        "countMatchesCaseInsensitive",
        &[],
        TWO,
        Output::UInt64,
        |c| count_matches(c, true),
    ),
    spec("match", &["REGEXP_MATCHES"], TWO, Output::UInt8, |c| {
        matches(c, false, false)
    }),
    spec("matchCaseInsensitive", &[], TWO, Output::UInt8, |c| {
        matches(c, true, false)
    }),
    spec("notMatch", &[], TWO, Output::UInt8, |c| {
        matches(c, false, true)
    }),
    spec("notMatchCaseInsensitive", &[], TWO, Output::UInt8, |c| {
        matches(c, true, true)
    }),
    spec("multiMatchAny", &[], MULTI, Output::UInt8, |c| {
        multi_match(c, MultiMatch::Any)
    }),
    spec("multiMatchAnyIndex", &[], MULTI, Output::UInt64, |c| {
        multi_match(c, MultiMatch::AnyIndex)
    }),
    spec(
        "multiMatchAllIndices",
        &[],
        MULTI,
        Output::UInt64List,
        |c| multi_match(c, MultiMatch::AllIndices),
    ),
    Spec {
        required: 2,
        ..spec(
            "splitByRegexp",
            &[],
            &[Param::Text, Param::Text, Param::Int],
            Output::TextList,
            split_by_regexp,
        )
    },
    Spec {
        required: 1,
        ..spec(
            "regexpQuoteMeta",
            &[],
            &[Param::Text],
            Output::Text,
            quote_meta,
        )
    },
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn perl_classes_are_ascii() {
        assert_eq!(translate(r"\d+"), "[0-9]+");
        assert_eq!(translate(r"[\d.]"), "[[0-9].]");
        assert_eq!(translate(r"a\.b"), r"a\.b");
        let regex = compile("\\d".as_bytes(), false).unwrap();
        assert!(!regex.is_match("١".as_bytes()));
        assert!(compile(b"a.b", false).unwrap().is_match(b"a\nb"));
    }
}
