//! The quota tables: `quotas` (each quota, its keys and whom it applies
//! to), `quota_limits` (each interval's maximums) and `quotas_usage` (what
//! each key used in each interval so far), with ClickHouse's column names.

use std::sync::Arc;

use datafusion::arrow::array::{
    ArrayRef, Float64Array, ListBuilder, StringArray, TimestampSecondArray, UInt8Array,
    UInt32Array, UInt32Builder, UInt64Array,
};
use datafusion::arrow::datatypes::{DataType, Field, TimeUnit};
use strata_sql::access::quota::QUOTA_RESOURCES;

use super::access::{apply_to_columns, apply_to_fields, list, lists};
use crate::access::AccessControl;
use crate::access::quotas::QuotaTicket;

/// The figures counted in fractions (seconds); the rest are whole counts.
const EXECUTION_TIME: &str = "execution_time";

fn figure(name: &str) -> Field {
    let kind = if name.ends_with(EXECUTION_TIME) {
        DataType::Float64
    } else {
        DataType::UInt64
    };
    Field::new(name, kind, true)
}

/// A column of one figure: counts as UInt64, execution time as Float64.
fn figures(name: &str, values: Vec<Option<f64>>) -> ArrayRef {
    if name.ends_with(EXECUTION_TIME) {
        Arc::new(values.into_iter().collect::<Float64Array>())
    } else {
        let counts = values.into_iter().map(|v| v.map(|v| v as u64));
        Arc::new(counts.collect::<UInt64Array>())
    }
}

pub fn quotas_fields() -> Vec<Field> {
    let mut fields = vec![
        Field::new("name", DataType::Utf8, false),
        Field::new("storage", DataType::Utf8, false),
        list("keys"),
        Field::new(
            "durations",
            DataType::List(Arc::new(Field::new("item", DataType::UInt32, false))),
            false,
        ),
    ];
    fields.extend(apply_to_fields());
    fields
}

pub fn quotas_rows(access: &AccessControl) -> Vec<ArrayRef> {
    let entities = access.read();
    let quotas: Vec<_> = entities.quotas.values().collect();
    let mut durations = ListBuilder::new(UInt32Builder::new()).with_field(Arc::new(Field::new(
        "item",
        DataType::UInt32,
        false,
    )));
    for quota in &quotas {
        for interval in &quota.intervals {
            durations.values().append_value(interval.seconds as u32);
        }
        durations.append(true);
    }
    let mut columns = vec![
        Arc::new(StringArray::from_iter_values(
            quotas.iter().map(|q| q.name.clone()),
        )) as ArrayRef,
        Arc::new(StringArray::from_iter_values(
            quotas.iter().map(|_| "local_directory"),
        )),
        lists(quotas.iter().map(|q| q.keys.clone())),
        Arc::new(durations.finish()),
    ];
    columns.extend(apply_to_columns(quotas.iter().map(|q| &q.to)));
    columns
}

pub fn quota_limits_fields() -> Vec<Field> {
    let mut fields = vec![
        Field::new("quota_name", DataType::Utf8, false),
        Field::new("duration", DataType::UInt32, false),
        Field::new("is_randomized_interval", DataType::UInt8, false),
    ];
    fields.extend(QUOTA_RESOURCES.iter().map(|r| figure(&format!("max_{r}"))));
    fields
}

pub fn quota_limits_rows(access: &AccessControl) -> Vec<ArrayRef> {
    let entities = access.read();
    let rows: Vec<_> = entities
        .quotas
        .values()
        .flat_map(|q| q.intervals.iter().map(move |i| (q.name.clone(), i.clone())))
        .collect();
    let mut columns: Vec<ArrayRef> = vec![
        Arc::new(StringArray::from_iter_values(
            rows.iter().map(|(name, _)| name.clone()),
        )),
        Arc::new(UInt32Array::from_iter_values(
            rows.iter().map(|(_, i)| i.seconds as u32),
        )),
        Arc::new(UInt8Array::from_iter_values(
            rows.iter().map(|(_, i)| u8::from(i.randomized)),
        )),
    ];
    for (index, resource) in QUOTA_RESOURCES.iter().enumerate() {
        let values = rows.iter().map(|(_, i)| i.max[index]).collect();
        columns.push(figures(resource, values));
    }
    columns
}

pub fn quotas_usage_fields() -> Vec<Field> {
    let mut fields = vec![
        Field::new("quota_name", DataType::Utf8, false),
        Field::new("quota_key", DataType::Utf8, false),
        Field::new("is_current", DataType::UInt8, false),
        Field::new(
            "start_time",
            DataType::Timestamp(TimeUnit::Second, None),
            true,
        ),
        Field::new(
            "end_time",
            DataType::Timestamp(TimeUnit::Second, None),
            true,
        ),
        Field::new("duration", DataType::UInt32, true),
    ];
    for resource in QUOTA_RESOURCES {
        fields.push(figure(resource));
        fields.push(figure(&format!("max_{resource}")));
    }
    fields
}

/// Every key's usage in each interval; `current` marks the session's own.
pub fn quotas_usage_rows(access: &AccessControl, current: Option<&QuotaTicket>) -> Vec<ArrayRef> {
    let entities = access.read();
    let mut rows = Vec::new();
    for (ticket, intervals) in access.quota_usage.snapshot() {
        let Some(quota) = entities.quotas.get(&ticket.quota) else {
            continue;
        };
        for usage in intervals {
            let limits = quota.intervals.iter().find(|i| i.seconds == usage.seconds);
            rows.push((ticket.clone(), usage, limits.map(|l| l.max)));
        }
    }
    let seconds = |t: std::time::SystemTime| {
        t.duration_since(std::time::UNIX_EPOCH)
            .unwrap_or_default()
            .as_secs() as i64
    };
    let mut columns: Vec<ArrayRef> = vec![
        Arc::new(StringArray::from_iter_values(
            rows.iter().map(|(t, _, _)| t.quota.clone()),
        )),
        Arc::new(StringArray::from_iter_values(
            rows.iter().map(|(t, _, _)| t.key.clone()),
        )),
        Arc::new(UInt8Array::from_iter_values(
            rows.iter().map(|(t, _, _)| u8::from(Some(t) == current)),
        )),
        Arc::new(TimestampSecondArray::from_iter_values(
            rows.iter()
                .map(|(_, u, _)| seconds(u.end) - u.seconds as i64),
        )),
        Arc::new(TimestampSecondArray::from_iter_values(
            rows.iter().map(|(_, u, _)| seconds(u.end)),
        )),
        Arc::new(UInt32Array::from_iter_values(
            rows.iter().map(|(_, u, _)| u.seconds as u32),
        )),
    ];
    for (index, resource) in QUOTA_RESOURCES.iter().enumerate() {
        let used = rows.iter().map(|(_, u, _)| Some(u.used[index])).collect();
        columns.push(figures(resource, used));
        let max = rows
            .iter()
            .map(|(_, _, max)| max.and_then(|m| m[index]))
            .collect();
        columns.push(figures(resource, max));
    }
    columns
}
