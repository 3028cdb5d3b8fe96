//! `system.data_skipping_indices`: the `INDEX` declarations of MergeTree
//! tables, with the bytes of their files in the active parts. Strata keeps
//! no index marks, and its index files (LZ4 blocks inside) are counted as
//! compressed bytes only: the uncompressed count is 0.

use std::sync::Arc;

use datafusion::arrow::array::{ArrayRef, StringArray, UInt64Array};
use datafusion::arrow::datatypes::{DataType, Field};
use datafusion::catalog::CatalogProvider;
use datafusion::common::Result;
use datafusion::sql::sqlparser::ast::Expr;
use strata_sql::literal_text::expr_text;
use strata_storage::merge_tree::index_file_name;

use super::parts::merge_tree_tables;

pub(super) fn skipping_indices_fields() -> Vec<Field> {
    let s = |name: &str| Field::new(name, DataType::Utf8, false);
    let u64 = |name: &str| Field::new(name, DataType::UInt64, false);
    vec![
        s("database"),
        s("table"),
        s("name"),
        s("type"),
        s("type_full"),
        s("expr"),
        s("creation"),
        u64("granularity"),
        u64("data_compressed_bytes"),
        u64("data_uncompressed_bytes"),
        u64("marks_bytes"),
    ]
}

pub(super) async fn skipping_indices_rows(
    catalog: &Arc<dyn CatalogProvider>,
) -> Result<Vec<ArrayRef>> {
    let mut text: [Vec<String>; 7] = Default::default();
    let mut granularity = Vec::new();
    let mut file_bytes = Vec::new();
    for (database, name, table) in merge_tree_tables(catalog).await? {
        let parts = table.data.snapshot();
        let create = table.identity().create_statement;
        let split = strata_sql::split_create_table(&create).map_err(|e| e.into_datafusion())?;
        for index in split.engine.map(|e| e.indexes).unwrap_or_default() {
            let row = [
                database.clone(),
                name.clone(),
                index.name.clone(),
                index.kind.clone(),
                index.kind_full.clone(),
                key_text(&index.expr),
                "Explicit".to_string(),
            ];
            for (column, value) in text.iter_mut().zip(row) {
                column.push(value);
            }
            granularity.push(index.granularity);
            let file = index_file_name(&index.name);
            let bytes = parts.iter().filter_map(|part| part.part.files.get(&file));
            file_bytes.push(bytes.map(|(bytes, _)| bytes).sum::<u64>());
        }
    }
    let rows = granularity.len();
    let mut columns: Vec<ArrayRef> = text
        .into_iter()
        .map(|values| Arc::new(StringArray::from(values)) as ArrayRef)
        .collect();
    columns.push(Arc::new(UInt64Array::from(granularity)));
    columns.push(Arc::new(UInt64Array::from(file_bytes)));
    for _ in 0..2 {
        columns.push(Arc::new(UInt64Array::from(vec![0u64; rows])));
    }
    Ok(columns)
}

/// An index expression as ClickHouse lists it: a tuple without its parentheses.
fn key_text(expr: &Expr) -> String {
    match expr {
        Expr::Tuple(elements) => elements
            .iter()
            .map(expr_text)
            .collect::<Vec<_>>()
            .join(", "),
        other => expr_text(other),
    }
}
