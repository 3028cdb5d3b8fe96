//! `system.tables`: every user table and view, with its definition as
//! ClickHouse shows it (`create_table_query`, `engine_full`, the keys) and,
//! for MergeTree tables, its rows, bytes, parts and marks.

use std::sync::Arc;

use datafusion::arrow::array::{ArrayRef, StringArray, UInt8Array, UInt64Array};
use datafusion::arrow::datatypes::{DataType, Field};
use datafusion::catalog::{CatalogProvider, TableProvider};
use datafusion::common::Result;

use super::{all_tables, engine_name};
use crate::sources::external_table::ExternalTable;
use crate::sources::materialized_view::MaterializedView;
use crate::sources::memory_table::MemoryTable;
use crate::sources::merge_tree_table::MergeTreeProvider;
use crate::sources::view::ViewTable;
use crate::table_definition::inline_disk::hide_secrets;
use crate::table_definition::{table_comment, without_comment};

const TEXT_COLUMNS: [&str; 11] = [
    "database",
    "name",
    "engine",
    "create_table_query",
    "engine_full",
    "as_select",
    "partition_key",
    "sorting_key",
    "primary_key",
    "sampling_key",
    "storage_policy",
];

const COUNT_COLUMNS: [&str; 5] = [
    "total_rows",
    "total_bytes",
    "parts",
    "active_parts",
    "total_marks",
];

pub fn tables_fields() -> Vec<Field> {
    let text = |name: &str| Field::new(name, DataType::Utf8, false);
    let mut fields: Vec<Field> = TEXT_COLUMNS.iter().map(|name| text(name)).collect();
    fields.push(Field::new("is_temporary", DataType::UInt8, false));
    fields.extend(
        COUNT_COLUMNS
            .iter()
            .map(|name| Field::new(*name, DataType::UInt64, true)),
    );
    fields.push(Field::new("has_own_data", DataType::UInt8, false));
    fields.push(text("comment"));
    fields.push(text("table"));
    fields
}

/// One row of `system.tables`.
#[derive(Default)]
struct TableRow {
    text: [String; TEXT_COLUMNS.len()],
    counts: [Option<u64>; COUNT_COLUMNS.len()],
    has_own_data: bool,
    comment: String,
}

pub async fn tables_rows(catalog: &Arc<dyn CatalogProvider>) -> Result<Vec<ArrayRef>> {
    let mut rows = Vec::new();
    for (database, name, table) in all_tables(catalog).await? {
        rows.push(table_row(&database, &name, &table).await);
    }
    let mut columns: Vec<ArrayRef> = (0..TEXT_COLUMNS.len())
        .map(|i| text(rows.iter().map(|r| r.text[i].clone())))
        .collect();
    columns.push(Arc::new(UInt8Array::from(vec![0u8; rows.len()])));
    columns.extend(
        (0..COUNT_COLUMNS.len()).map(|i| {
            Arc::new(UInt64Array::from_iter(rows.iter().map(|r| r.counts[i]))) as ArrayRef
        }),
    );
    columns.push(Arc::new(UInt8Array::from_iter_values(
        rows.iter().map(|r| u8::from(r.has_own_data)),
    )));
    columns.push(text(rows.iter().map(|r| r.comment.clone())));
    columns.push(text(rows.iter().map(|r| r.text[1].clone())));
    Ok(columns)
}

/// A table's partition, sorting, primary and sampling keys as
/// `system.tables` shows them (empty where it has none).
pub(crate) async fn keys_of(
    database: &str,
    name: &str,
    table: &Arc<dyn TableProvider>,
) -> [String; 4] {
    let [.., partition, sorting, primary, sampling, _] =
        table_row(database, name, table).await.text;
    [partition, sorting, primary, sampling]
}

fn text(values: impl Iterator<Item = String>) -> ArrayRef {
    Arc::new(StringArray::from_iter_values(values))
}

async fn table_row(database: &str, name: &str, table: &Arc<dyn TableProvider>) -> TableRow {
    let any = table.as_ref() as &dyn std::any::Any;
    let mut row = TableRow::default();
    let (create, as_select) = if let Some(t) = any.downcast_ref::<MergeTreeProvider>() {
        let parts = t.data.snapshot();
        let (rows, bytes) = t.totals();
        let marks = parts.iter().map(|p| p.granules() as u64).sum();
        let count = parts.len() as u64;
        row.counts = [
            Some(rows),
            Some(bytes),
            Some(count),
            Some(count),
            Some(marks),
        ];
        row.has_own_data = true;
        let statement = t.identity().create_statement;
        (hide_secrets(&statement), String::new())
    } else if let Some(t) = any.downcast_ref::<MemoryTable>() {
        let (rows, bytes) = t.totals().await;
        row.counts[..2].copy_from_slice(&[Some(rows), Some(bytes)]);
        (t.identity().create_statement, String::new())
    } else if let Some(t) = any.downcast_ref::<crate::sources::dictionary::Dictionary>() {
        (t.identity().create_statement, String::new())
    } else if let Some(t) = any.downcast_ref::<crate::sources::buffer_table::BufferTable>() {
        let (rows, bytes) = t.totals();
        row.counts[..2].copy_from_slice(&[Some(rows), Some(bytes)]);
        (t.identity().create_statement, String::new())
    } else if let Some(t) = any.downcast_ref::<crate::sources::merge_table::MergeTable>() {
        (t.identity().create_statement, String::new())
    } else if let Some(t) = any.downcast_ref::<ExternalTable>() {
        (t.shown_statement(), String::new())
    } else if let Some(v) = any.downcast_ref::<ViewTable>() {
        (v.identity.create_statement.clone(), v.query.clone())
    } else if let Some(v) = any.downcast_ref::<MaterializedView>() {
        (v.identity.create_statement.clone(), v.query.clone())
    } else {
        (String::new(), String::new())
    };
    row.comment = table_comment(&create).unwrap_or_default();
    let clauses = EngineClauses::of(&one_line(without_comment(&create)), row.has_own_data);
    let create = one_line(&create);
    row.text = [
        database.to_string(),
        name.to_string(),
        engine_name(table).to_string(),
        create,
        clauses.engine_full,
        as_select,
        clauses.partition_key,
        clauses.sorting_key.clone(),
        clauses.primary_key.unwrap_or(clauses.sorting_key),
        clauses.sampling_key,
        clauses.storage_policy,
    ];
    row
}

/// A canonical `CREATE` statement on one line, as ClickHouse shows it.
fn one_line(create: &str) -> String {
    create
        .replace("\n(\n    ", " (")
        .replace(",\n    ", ", ")
        .replace("\n)\n", ") ")
        .replace("\n)", ")")
        .replace('\n', " ")
}

/// What `system.tables` shows of a table's ENGINE clause.
struct EngineClauses {
    engine_full: String,
    partition_key: String,
    sorting_key: String,
    primary_key: Option<String>,
    sampling_key: String,
    storage_policy: String,
}

impl EngineClauses {
    fn of(create: &str, merge_tree: bool) -> EngineClauses {
        let engine_full = create
            .split_once(" ENGINE = ")
            .map_or("", |(_, engine)| engine)
            .to_string();
        let clause = |keyword: &str| key_text(&engine_full, keyword);
        EngineClauses {
            partition_key: clause(" PARTITION BY ").unwrap_or_default(),
            sorting_key: clause(" ORDER BY ").unwrap_or_default(),
            primary_key: clause(" PRIMARY KEY "),
            sampling_key: clause(" SAMPLE BY ").unwrap_or_default(),
            storage_policy: if merge_tree { "default" } else { "" }.to_string(),
            engine_full,
        }
    }
}

/// The key after `keyword` up to the next clause, its tuple parentheses
/// dropped as ClickHouse shows keys (`(a, b)` is `a, b`, `tuple()` empty).
fn key_text(engine: &str, keyword: &str) -> Option<String> {
    let (_, rest) = engine.split_once(keyword)?;
    let end = [
        " PARTITION BY ",
        " PRIMARY KEY ",
        " ORDER BY ",
        " SAMPLE BY ",
        " TTL ",
        " SETTINGS ",
    ]
    .iter()
    .filter_map(|next| rest.find(next))
    .min()
    .unwrap_or(rest.len());
    let key = rest[..end].trim();
    if key == "tuple()" {
        return Some(String::new());
    }
    let inner = key.strip_prefix('(').and_then(|k| k.strip_suffix(')'));
    let balanced = inner.is_some_and(|k| !k.contains(')') || k.find('(') < k.find(')'));
    Some(match inner {
        Some(inner) if balanced => inner.to_string(),
        _ => key.to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_read_off_the_engine_clause() {
        let create = one_line(
            "CREATE TABLE default.t\n(\n    `a` UInt64,\n    `b` String\n)\n\
             ENGINE = MergeTree\nPARTITION BY a % 2\nORDER BY (a, b)\nSETTINGS index_granularity = 8192",
        );
        assert_eq!(
            create,
            "CREATE TABLE default.t (`a` UInt64, `b` String) ENGINE = MergeTree PARTITION BY a % 2 ORDER BY (a, b) SETTINGS index_granularity = 8192"
        );
        let clauses = EngineClauses::of(&create, true);
        assert_eq!(
            clauses.engine_full,
            "MergeTree PARTITION BY a % 2 ORDER BY (a, b) SETTINGS index_granularity = 8192"
        );
        assert_eq!(clauses.partition_key, "a % 2");
        assert_eq!(clauses.sorting_key, "a, b");
        assert_eq!(clauses.primary_key, None);
        assert_eq!(
            key_text("X ORDER BY (a + 1) * 2", " ORDER BY ").unwrap(),
            "(a + 1) * 2"
        );
    }
}
