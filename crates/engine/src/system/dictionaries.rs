//! `system.dictionaries`: each dictionary, whether it is loaded, its keys,
//! attributes, source and lifetime.

use std::sync::Arc;

use datafusion::arrow::array::{ArrayRef, UInt64Array};
use datafusion::arrow::datatypes::{DataType, Field};
use datafusion::catalog::CatalogProvider;
use datafusion::common::Result;

use super::access::{list, lists, strings};
use crate::sources::dictionary::Dictionary;

fn text(name: &str) -> Field {
    Field::new(name, DataType::Utf8, false)
}

fn number(name: &str) -> Field {
    Field::new(name, DataType::UInt64, false)
}

pub fn dictionaries_fields() -> Vec<Field> {
    vec![
        text("database"),
        text("name"),
        text("status"),
        text("origin"),
        text("type"),
        list("key.names"),
        list("key.types"),
        list("attribute.names"),
        list("attribute.types"),
        number("bytes_allocated"),
        number("element_count"),
        text("source"),
        number("lifetime_min"),
        number("lifetime_max"),
        number("loading_duration_ms"),
        text("last_exception"),
        text("comment"),
    ]
}

pub async fn dictionaries_rows(catalog: &Arc<dyn CatalogProvider>) -> Result<Vec<ArrayRef>> {
    let found = super::tables_of::<Dictionary>(catalog).await?;
    let mut texts: [Vec<String>; 8] = Default::default();
    let mut names: [Vec<Vec<String>>; 4] = Default::default();
    let mut numbers: [Vec<u64>; 5] = Default::default();
    for (database, name, dictionary) in &found {
        let loaded = dictionary.loaded();
        let error = dictionary.last_error.lock().clone();
        let status = match (&loaded, &error) {
            (_, Some(_)) => "FAILED",
            (Some(_), None) => "LOADED",
            (None, None) => "NOT_LOADED",
        };
        let keys = dictionary.key_fields();
        let attributes = dictionary.attributes();
        texts[0].push(database.clone());
        texts[1].push(name.clone());
        texts[2].push(status.to_string());
        texts[3].push(format!("{database}.{name}"));
        texts[4].push(dictionary.layout_type().to_string());
        texts[5].push(dictionary.source_text());
        texts[6].push(error.unwrap_or_default());
        texts[7].push(dictionary.text.comment.clone().unwrap_or_default());
        names[0].push(keys.iter().map(|k| k.name().clone()).collect());
        names[1].push(crate::session::dictionaries::type_names(&keys));
        names[2].push(attributes.iter().map(|a| a.name().clone()).collect());
        names[3].push(crate::session::dictionaries::type_names(&attributes));
        let (bytes, count, millis) = loaded.map_or((0, 0, 0), |l| {
            (
                l.rows.get_array_memory_size() as u64,
                l.rows.num_rows() as u64,
                l.duration.as_millis() as u64,
            )
        });
        numbers[0].push(bytes);
        numbers[1].push(count);
        numbers[2].push(dictionary.text.lifetime.0);
        numbers[3].push(dictionary.text.lifetime.1);
        numbers[4].push(millis);
    }
    let [
        database,
        name,
        status,
        origin,
        kind,
        source,
        exception,
        comment,
    ] = texts;
    let [key_names, key_types, attribute_names, attribute_types] = names;
    let [bytes, count, lifetime_min, lifetime_max, millis] =
        numbers.map(|n| Arc::new(UInt64Array::from(n)) as ArrayRef);
    Ok(vec![
        strings(database),
        strings(name),
        strings(status),
        strings(origin),
        strings(kind),
        lists(key_names),
        lists(key_types),
        lists(attribute_names),
        lists(attribute_types),
        bytes,
        count,
        strings(source),
        lifetime_min,
        lifetime_max,
        millis,
        strings(exception),
        strings(comment),
    ])
}
