//! `settings_profiles` (each profile and whom it applies to) and
//! `settings_profile_elements` (each element of the SETTINGS clauses of
//! profiles, users and roles), with ClickHouse's column names.

use std::sync::Arc;

use datafusion::arrow::array::{ArrayRef, UInt64Array};
use datafusion::arrow::datatypes::{DataType, Field};
use strata_sql::access::settings_profile::SettingsElement;

use super::access::{apply_to_columns, apply_to_fields, ids, nullable, optional, strings, uuid};
use crate::access::AccessControl;

pub fn settings_profiles_fields() -> Vec<Field> {
    let mut fields = vec![
        Field::new("name", DataType::Utf8, false),
        uuid("id"),
        Field::new("storage", DataType::Utf8, false),
        Field::new("num_elements", DataType::UInt64, false),
    ];
    fields.extend(apply_to_fields());
    fields
}

pub fn settings_profiles_rows(access: &AccessControl) -> Vec<ArrayRef> {
    let entities = access.read();
    let profiles: Vec<_> = entities.profiles.values().collect();
    let mut columns = vec![
        strings(profiles.iter().map(|p| p.name.clone())),
        ids(profiles.iter().map(|p| p.id)),
        strings(profiles.iter().map(|p| p.storage.name().to_string())),
        Arc::new(UInt64Array::from_iter_values(
            profiles.iter().map(|p| p.elements.len() as u64),
        )) as ArrayRef,
    ];
    columns.extend(apply_to_columns(profiles.iter().map(|p| &p.to)));
    columns
}

pub fn settings_profile_elements_fields() -> Vec<Field> {
    let mut fields = vec![
        nullable("profile_name"),
        nullable("user_name"),
        nullable("role_name"),
        Field::new("index", DataType::UInt64, false),
    ];
    fields.extend(
        [
            "setting_name",
            "value",
            "min",
            "max",
            "writability",
            "inherit_profile",
        ]
        .map(nullable),
    );
    fields
}

/// One row of `settings_profile_elements`.
struct ElementRow {
    /// Whose element it is: (profile, user, role), one of them set.
    owner: [Option<String>; 3],
    index: u64,
    element: SettingsElement,
}

pub fn settings_profile_elements_rows(access: &AccessControl) -> Vec<ArrayRef> {
    let entities = access.read();
    let mut rows = Vec::new();
    let mut add = |owner: [Option<String>; 3], elements: &[SettingsElement]| {
        for (index, element) in elements.iter().enumerate() {
            rows.push(ElementRow {
                owner: owner.clone(),
                index: index as u64,
                element: element.clone(),
            });
        }
    };
    for profile in entities.profiles.values() {
        add([Some(profile.name.clone()), None, None], &profile.elements);
    }
    for user in entities.users.values() {
        add([None, Some(user.name.clone()), None], &user.settings);
    }
    for role in entities.roles.values() {
        add([None, None, Some(role.name.clone())], &role.settings);
    }
    let setting = |row: &ElementRow, field: fn(&_) -> Option<String>| match &row.element {
        SettingsElement::Setting(setting) => field(setting),
        SettingsElement::Profile(_) => None,
    };
    let mut columns: Vec<ArrayRef> = (0..3)
        .map(|i| optional(rows.iter().map(|r| r.owner[i].clone())))
        .collect();
    columns.push(Arc::new(UInt64Array::from_iter_values(
        rows.iter().map(|r| r.index),
    )));
    columns.push(optional(
        rows.iter().map(|r| setting(r, |s| Some(s.name.clone()))),
    ));
    columns.push(optional(
        rows.iter().map(|r| setting(r, |s| s.value.clone())),
    ));
    columns.push(optional(rows.iter().map(|r| setting(r, |s| s.min.clone()))));
    columns.push(optional(rows.iter().map(|r| setting(r, |s| s.max.clone()))));
    columns.push(optional(rows.iter().map(|r| {
        setting(r, |s| s.writability.map(|w| w.name().to_string()))
    })));
    columns.push(optional(rows.iter().map(|r| match &r.element {
        SettingsElement::Profile(name) => Some(name.clone()),
        SettingsElement::Setting(_) => None,
    })));
    columns
}
