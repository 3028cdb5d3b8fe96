//! `system.mutations`: every mutation a MergeTree table keeps, one row per
//! command as ClickHouse shows them, with the parts it has still to do and
//! its last failure.

use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};
use strata_storage::merge_tree::MutationKind;

use datafusion::arrow::array::{
    ArrayRef, Int64Array, ListBuilder, StringBuilder, TimestampSecondArray, UInt8Array,
};
use datafusion::arrow::datatypes::{DataType, Field, TimeUnit};
use datafusion::catalog::CatalogProvider;
use datafusion::common::Result;

use super::parts::{merge_tree_tables, strings};

fn strings_list(name: &str) -> Field {
    Field::new(
        name,
        DataType::List(Arc::new(Field::new("item", DataType::Utf8, false))),
        false,
    )
}

pub fn mutations_fields() -> Vec<Field> {
    let s = |name: &str| Field::new(name, DataType::Utf8, false);
    let time = |name: &str| Field::new(name, DataType::Timestamp(TimeUnit::Second, None), false);
    vec![
        s("database"),
        s("table"),
        s("mutation_id"),
        s("command"),
        time("create_time"),
        strings_list("block_numbers.partition_id"),
        Field::new(
            "block_numbers.number",
            DataType::List(Arc::new(Field::new("item", DataType::Int64, false))),
            false,
        ),
        strings_list("parts_to_do_names"),
        Field::new("parts_to_do", DataType::Int64, false),
        Field::new("is_done", DataType::UInt8, false),
        Field::new("is_killed", DataType::UInt8, false),
        s("latest_failed_part"),
        time("latest_fail_time"),
        s("latest_fail_reason"),
        s("latest_fail_error_code_name"),
    ]
}

fn seconds(time: SystemTime) -> i64 {
    time.duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64)
}

fn list_builder<T: datafusion::arrow::array::ArrayBuilder>(
    values: T,
    item: DataType,
) -> ListBuilder<T> {
    ListBuilder::new(values).with_field(Arc::new(Field::new("item", item, false)))
}

pub async fn mutations_rows(catalog: &Arc<dyn CatalogProvider>) -> Result<Vec<ArrayRef>> {
    let mut text: [Vec<String>; 7] = Default::default();
    let (mut created, mut failed_at) = (Vec::new(), Vec::new());
    let (mut to_do, mut done) = (Vec::new(), Vec::new());
    let mut partitions = list_builder(StringBuilder::new(), DataType::Utf8);
    let mut numbers = list_builder(
        datafusion::arrow::array::Int64Builder::new(),
        DataType::Int64,
    );
    let mut to_do_names = list_builder(StringBuilder::new(), DataType::Utf8);
    for (database, table, provider) in merge_tree_tables(catalog).await? {
        for status in provider.data.mutation_statuses() {
            // ClickHouse lists lightweight updates (patches) nowhere here.
            if status.entry.kind == MutationKind::LightweightUpdate {
                continue;
            }
            // One row per command, as ClickHouse lists them.
            for command in status.entry.command.lines() {
                let (part, time, reason, code) = match &status.failure {
                    Some(f) => (f.part.clone(), f.time, f.reason.clone(), f.code),
                    None => (String::new(), UNIX_EPOCH, String::new(), ""),
                };
                text[0].push(database.clone());
                text[1].push(table.clone());
                text[2].push(status.entry.file_name());
                text[3].push(format!("({command})"));
                text[4].push(part);
                text[5].push(reason);
                text[6].push(code.to_string());
                created.push(seconds(status.entry.create_time));
                failed_at.push(seconds(time));
                // Block numbers are per table here, not per partition: one
                // entry with an empty partition id, as ClickHouse shows for
                // a non-replicated table.
                partitions.values().append_value("");
                partitions.append(true);
                numbers.values().append_value(status.entry.number as i64);
                numbers.append(true);
                for name in &status.parts_to_do {
                    to_do_names.values().append_value(name);
                }
                to_do_names.append(true);
                to_do.push(status.parts_to_do.len() as i64);
                done.push(u8::from(status.parts_to_do.is_empty()));
            }
        }
    }
    let [database, table, id, command, part, reason, code] = text;
    let killed = vec![0u8; done.len()];
    Ok(vec![
        strings(database),
        strings(table),
        strings(id),
        strings(command),
        Arc::new(TimestampSecondArray::from(created)),
        Arc::new(partitions.finish()),
        Arc::new(numbers.finish()),
        Arc::new(to_do_names.finish()),
        Arc::new(Int64Array::from(to_do)),
        Arc::new(UInt8Array::from(done)),
        Arc::new(UInt8Array::from(killed)),
        strings(part),
        Arc::new(TimestampSecondArray::from(failed_at)),
        strings(reason),
        strings(code),
    ])
}
