//! `system.disks` and `system.storage_policies`: the disks and policies of
//! the configuration, as ClickHouse lists them.

use std::sync::Arc;

use datafusion::arrow::array::{ArrayRef, Float32Array, UInt8Array, UInt64Array};
use datafusion::arrow::datatypes::{DataType, Field};

use super::strings;
use crate::instance::Instance;

fn s(name: &str) -> Field {
    Field::new(name, DataType::Utf8, false)
}

fn u64_field(name: &str) -> Field {
    Field::new(name, DataType::UInt64, false)
}

fn u8_field(name: &str) -> Field {
    Field::new(name, DataType::UInt8, false)
}

pub fn disks_fields() -> Vec<Field> {
    vec![
        s("name"),
        s("path"),
        u64_field("free_space"),
        u64_field("total_space"),
        u64_field("unreserved_space"),
        u64_field("keep_free_space"),
        s("type"),
        s("object_storage_type"),
        s("metadata_type"),
        u8_field("is_encrypted"),
        u8_field("is_read_only"),
        u8_field("is_write_once"),
        u8_field("is_remote"),
        u8_field("is_broken"),
        s("cache_path"),
    ]
}

pub fn disks_rows(instance: &Instance) -> Vec<ArrayRef> {
    let disks = instance.disks.all();
    let space: Vec<(u64, u64)> = disks.iter().map(|disk| disk.space()).collect();
    let numbers = |values: Vec<u64>| -> ArrayRef { Arc::new(UInt64Array::from(values)) };
    let flags = |values: Vec<bool>| -> ArrayRef {
        Arc::new(UInt8Array::from_iter_values(
            values.into_iter().map(u8::from),
        ))
    };
    let object_type = |disk: &Arc<strata_storage::disk::Disk>| match &disk.objects {
        Some(objects) if objects.is_remote() => "S3",
        Some(_) => "Local",
        None => "None",
    };
    vec![
        strings(disks.iter().map(|d| d.name.clone()).collect()),
        strings(
            disks
                .iter()
                .map(|d| format!("{}/", d.path.display()))
                .collect(),
        ),
        numbers(space.iter().map(|(free, _)| *free).collect()),
        numbers(space.iter().map(|(_, total)| *total).collect()),
        numbers(space.iter().map(|(free, _)| *free).collect()),
        numbers(vec![0; disks.len()]),
        strings(disks.iter().map(|d| d.type_name().to_string()).collect()),
        strings(disks.iter().map(|d| object_type(d).to_string()).collect()),
        strings(
            disks
                .iter()
                .map(|d| if d.objects.is_some() { "Local" } else { "None" }.to_string())
                .collect(),
        ),
        flags(vec![false; disks.len()]),
        flags(vec![false; disks.len()]),
        flags(vec![false; disks.len()]),
        flags(disks.iter().map(|d| d.is_remote()).collect()),
        flags(vec![false; disks.len()]),
        strings(
            disks
                .iter()
                .map(|d| {
                    let cache = d.object_store().and_then(|objects| objects.file_cache());
                    cache.map_or_else(String::new, |c| format!("{}/", c.dir().display()))
                })
                .collect(),
        ),
    ]
}

pub fn storage_policies_fields() -> Vec<Field> {
    let disks = DataType::List(Arc::new(Field::new("item", DataType::Utf8, false)));
    vec![
        s("policy_name"),
        s("volume_name"),
        u64_field("volume_priority"),
        Field::new("disks", disks, false),
        s("volume_type"),
        u64_field("max_data_part_size"),
        Field::new("move_factor", DataType::Float32, false),
        u8_field("prefer_not_to_merge"),
        u8_field("perform_ttl_move_on_insert"),
        s("load_balancing"),
    ]
}

pub fn storage_policies_rows(instance: &Instance) -> Vec<ArrayRef> {
    use datafusion::arrow::array::{ListBuilder, StringBuilder};
    let mut rows = Vec::new();
    for policy in instance.disks.policies() {
        for (priority, volume) in policy.volumes.iter().enumerate() {
            rows.push((policy, priority as u64 + 1, volume));
        }
    }
    let mut disks = ListBuilder::new(StringBuilder::new()).with_field(Arc::new(Field::new(
        "item",
        DataType::Utf8,
        false,
    )));
    for (_, _, volume) in &rows {
        for disk in &volume.disks {
            disks.values().append_value(&disk.name);
        }
        disks.append(true);
    }
    vec![
        strings(rows.iter().map(|(p, _, _)| p.name.clone()).collect()),
        strings(rows.iter().map(|(_, _, v)| v.name.clone()).collect()),
        Arc::new(UInt64Array::from_iter_values(
            rows.iter().map(|(_, n, _)| *n),
        )),
        Arc::new(disks.finish()),
        strings(vec!["JBOD".to_string(); rows.len()]),
        Arc::new(UInt64Array::from_iter_values(
            rows.iter().map(|(_, _, v)| v.max_data_part_size_bytes),
        )),
        Arc::new(Float32Array::from_iter_values(
            rows.iter().map(|(p, _, _)| p.move_factor as f32),
        )),
        Arc::new(UInt8Array::from_iter_values(
            rows.iter().map(|(_, _, v)| u8::from(v.prefer_not_to_merge)),
        )),
        Arc::new(UInt8Array::from_iter_values(rows.iter().map(|_| 1))),
        strings(vec!["ROUND_ROBIN".to_string(); rows.len()]),
    ]
}
