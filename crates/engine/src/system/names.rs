//! `system.table_engines`, `system.formats`, `system.data_type_families` and
//! `system.aggregate_function_combinators`: the names Strata reads, as ClickHouse lists them, so clients and the
//! compatibility script can ask what is there.

use datafusion::arrow::array::ArrayRef;
use datafusion::arrow::datatypes::{DataType, Field};
use strata_common::types::TYPE_FAMILIES;
use strata_formats::OutputFormat;
use strata_formats::input::InputFormat;
use strata_functions::aggregate::combinators::Combinator;

use super::{flags, strings};
use crate::table_engine::PART_ENGINES;

fn text(name: &str) -> Field {
    Field::new(name, DataType::Utf8, false)
}

fn flag(name: &str) -> Field {
    Field::new(name, DataType::UInt8, false)
}

pub fn table_engines_fields() -> Vec<Field> {
    vec![
        text("name"),
        flag("supports_settings"),
        flag("supports_sort_order"),
    ]
}

/// Memory, Null, Set, Join, Merge, Buffer, File and S3, then the engines stored as parts: the MergeTree
/// family with a sorting key, the Log family without. Every one takes SETTINGS.
pub fn table_engines_rows() -> Vec<ArrayRef> {
    let names: Vec<&str> = [
        "Memory", "Null", "Set", "Join", "Merge", "Buffer", "File", "S3",
    ]
    .into_iter()
    .chain(PART_ENGINES)
    .collect();
    vec![
        strings(names.iter().map(|n| n.to_string()).collect()),
        flags(vec![true; names.len()]),
        flags(names.iter().map(|n| n.ends_with("MergeTree")).collect()),
    ]
}

pub fn formats_fields() -> Vec<Field> {
    vec![text("name"), flag("is_input"), flag("is_output")]
}

/// `Values` is read by INSERT itself, not through [`InputFormat`].
pub fn formats_rows() -> Vec<ArrayRef> {
    let inputs: Vec<&str> = InputFormat::NAMES
        .iter()
        .copied()
        .chain(["Values"])
        .collect();
    let mut names: Vec<&str> = inputs.iter().chain(OutputFormat::NAMES).copied().collect();
    names.sort_unstable();
    names.dedup();
    vec![
        strings(names.iter().map(|n| n.to_string()).collect()),
        flags(names.iter().map(|n| inputs.contains(n)).collect()),
        flags(
            names
                .iter()
                .map(|n| OutputFormat::NAMES.contains(n))
                .collect(),
        ),
    ]
}

pub fn data_type_families_fields() -> Vec<Field> {
    vec![text("name"), flag("case_insensitive"), text("alias_to")]
}

/// Strata reads every type name in any letter case.
pub fn data_type_families_rows() -> Vec<ArrayRef> {
    vec![
        strings(TYPE_FAMILIES.iter().map(|(n, _)| n.to_string()).collect()),
        flags(vec![true; TYPE_FAMILIES.len()]),
        strings(TYPE_FAMILIES.iter().map(|(_, a)| a.to_string()).collect()),
    ]
}

pub fn combinators_fields() -> Vec<Field> {
    vec![text("name"), flag("is_internal")]
}

/// The combinators an aggregate's name may end with, by name.
pub fn combinators_rows() -> Vec<ArrayRef> {
    let mut names: Vec<&str> = Combinator::ALL.iter().map(|c| c.suffix()).collect();
    names.sort_unstable();
    vec![
        strings(names.iter().map(|n| n.to_string()).collect()),
        flags(vec![false; names.len()]),
    ]
}
