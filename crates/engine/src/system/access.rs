//! The access-control tables: `users`, `roles`, `grants`, `role_grants`,
//! `privileges`. Column names as ClickHouse's; enums are strings and ids
//! are UUIDs (FixedString(16) marked as such).

use std::sync::Arc;

use datafusion::arrow::array::{
    ArrayRef, FixedSizeBinaryArray, ListBuilder, StringArray, StringBuilder, UInt8Array,
};
use datafusion::arrow::datatypes::{DataType, Field};
use strata_common::types::uuid_metadata;
use strata_sql::access::RoleSet;

use crate::access::privileges::catalog;
use crate::access::{AccessControl, User};

fn s(name: &str) -> Field {
    Field::new(name, DataType::Utf8, false)
}

pub(super) fn nullable(name: &str) -> Field {
    Field::new(name, DataType::Utf8, true)
}

fn u8(name: &str) -> Field {
    Field::new(name, DataType::UInt8, false)
}

pub(super) fn list(name: &str) -> Field {
    Field::new(
        name,
        DataType::List(Arc::new(Field::new("item", DataType::Utf8, false))),
        false,
    )
}

pub(super) fn uuid(name: &str) -> Field {
    Field::new(name, DataType::FixedSizeBinary(16), false).with_metadata(uuid_metadata())
}

pub(super) fn strings(values: impl IntoIterator<Item = String>) -> ArrayRef {
    Arc::new(StringArray::from_iter_values(values))
}

pub(super) fn optional(values: impl IntoIterator<Item = Option<String>>) -> ArrayRef {
    Arc::new(values.into_iter().collect::<StringArray>())
}

fn flags(values: impl IntoIterator<Item = bool>) -> ArrayRef {
    Arc::new(UInt8Array::from_iter_values(
        values.into_iter().map(u8::from),
    ))
}

pub(super) fn ids(values: impl IntoIterator<Item = uuid::Uuid>) -> ArrayRef {
    let bytes: Vec<[u8; 16]> = values.into_iter().map(|id| *id.as_bytes()).collect();
    Arc::new(
        FixedSizeBinaryArray::try_from_iter(bytes.into_iter())
            .unwrap_or_else(|_| FixedSizeBinaryArray::new_null(16, 0)),
    )
}

pub(super) fn lists(rows: impl IntoIterator<Item = Vec<String>>) -> ArrayRef {
    let mut builder = ListBuilder::new(StringBuilder::new()).with_field(Arc::new(Field::new(
        "item",
        DataType::Utf8,
        false,
    )));
    for row in rows {
        for value in row {
            builder.values().append_value(value);
        }
        builder.append(true);
    }
    Arc::new(builder.finish())
}

/// `apply_to_all`, `apply_to_list`, `apply_to_except`: whom a quota or
/// settings profile applies to.
pub(super) fn apply_to_fields() -> Vec<Field> {
    vec![
        Field::new("apply_to_all", DataType::UInt8, false),
        list("apply_to_list"),
        list("apply_to_except"),
    ]
}

pub(super) fn apply_to_columns<'a>(
    sets: impl Iterator<Item = &'a RoleSet> + Clone,
) -> Vec<ArrayRef> {
    let names = |keep: fn(&RoleSet) -> Option<&Vec<String>>| {
        lists(
            sets.clone()
                .map(|set| keep(set).cloned().unwrap_or_default()),
        )
    };
    vec![
        flags(
            sets.clone()
                .map(|set| matches!(set, RoleSet::All | RoleSet::AllExcept(_))),
        ),
        names(|set| match set {
            RoleSet::Only(names) => Some(names),
            _ => None,
        }),
        names(|set| match set {
            RoleSet::AllExcept(names) => Some(names),
            _ => None,
        }),
    ]
}

pub fn users_fields() -> Vec<Field> {
    vec![
        s("name"),
        uuid("id"),
        s("storage"),
        list("auth_type"),
        list("host_ip"),
        u8("default_roles_all"),
        list("default_roles_list"),
        list("default_roles_except"),
        s("default_database"),
        // Strata's: the settings profile of a user of the configuration file.
        s("profile"),
    ]
}

pub fn users_rows(access: &AccessControl) -> Vec<ArrayRef> {
    let entities = access.read();
    let users: Vec<&User> = entities.users.values().collect();
    let default_list = |user: &User| match &user.default_roles {
        RoleSet::Only(names) => names.clone(),
        _ => Vec::new(),
    };
    let default_except = |user: &User| match &user.default_roles {
        RoleSet::AllExcept(names) => names.clone(),
        _ => Vec::new(),
    };
    vec![
        strings(users.iter().map(|u| u.name.clone())),
        ids(users.iter().map(|u| u.id)),
        strings(users.iter().map(|u| u.storage.name().to_string())),
        lists(
            users
                .iter()
                .map(|u| vec![u.authentication.type_name().to_string()]),
        ),
        lists(users.iter().map(|u| u.hosts.host_ip())),
        flags(
            users
                .iter()
                .map(|u| matches!(u.default_roles, RoleSet::All | RoleSet::AllExcept(_))),
        ),
        lists(users.iter().map(|u| default_list(u))),
        lists(users.iter().map(|u| default_except(u))),
        strings(
            users
                .iter()
                .map(|u| u.default_database.clone().unwrap_or_default()),
        ),
        strings(users.iter().map(|u| u.profile.clone().unwrap_or_default())),
    ]
}

pub fn roles_fields() -> Vec<Field> {
    vec![s("name"), uuid("id"), s("storage")]
}

pub fn roles_rows(access: &AccessControl) -> Vec<ArrayRef> {
    let entities = access.read();
    let roles: Vec<_> = entities.roles.values().collect();
    vec![
        strings(roles.iter().map(|r| r.name.clone())),
        ids(roles.iter().map(|r| r.id)),
        strings(roles.iter().map(|_| "local_directory".to_string())),
    ]
}

pub fn grants_fields() -> Vec<Field> {
    vec![
        nullable("user_name"),
        nullable("role_name"),
        s("access_type"),
        nullable("database"),
        nullable("table"),
        nullable("column"),
        u8("is_partial_revoke"),
        u8("grant_option"),
    ]
}

/// One row per privilege name and column of every user's and role's grants.
struct GrantRow {
    user: Option<String>,
    role: Option<String>,
    access_type: String,
    database: Option<String>,
    table: Option<String>,
    column: Option<String>,
    is_partial_revoke: bool,
    grant_option: bool,
}

pub fn grants_rows(access: &AccessControl) -> Vec<ArrayRef> {
    let entities = access.read();
    let mut rows = Vec::new();
    let holders = entities
        .users
        .values()
        .map(|u| (Some(u.name.clone()), None, &u.rights))
        .chain(
            entities
                .roles
                .values()
                .map(|r| (None, Some(r.name.clone()), &r.rights)),
        );
    for (user, role, rights) in holders {
        for element in rights.elements() {
            let columns: Vec<Option<String>> = if element.columns.is_empty() {
                vec![None]
            } else {
                element.columns.iter().cloned().map(Some).collect()
            };
            for name in catalog().names(element.flags, element.depth()) {
                for column in &columns {
                    rows.push(GrantRow {
                        user: user.clone(),
                        role: role.clone(),
                        access_type: name.to_string(),
                        database: element.database.clone(),
                        table: element.table.clone(),
                        column: column.clone(),
                        is_partial_revoke: element.is_partial_revoke,
                        grant_option: element.grant_option,
                    });
                }
            }
        }
    }
    vec![
        optional(rows.iter().map(|r| r.user.clone())),
        optional(rows.iter().map(|r| r.role.clone())),
        strings(rows.iter().map(|r| r.access_type.clone())),
        optional(rows.iter().map(|r| r.database.clone())),
        optional(rows.iter().map(|r| r.table.clone())),
        optional(rows.iter().map(|r| r.column.clone())),
        flags(rows.iter().map(|r| r.is_partial_revoke)),
        flags(rows.iter().map(|r| r.grant_option)),
    ]
}

pub fn role_grants_fields() -> Vec<Field> {
    vec![
        nullable("user_name"),
        nullable("role_name"),
        s("granted_role_name"),
        uuid("granted_role_id"),
        u8("granted_role_is_default"),
        u8("with_admin_option"),
    ]
}

pub fn role_grants_rows(access: &AccessControl) -> Vec<ArrayRef> {
    let entities = access.read();
    let role_id = |name: &str| entities.roles.get(name).map_or(uuid::Uuid::nil(), |r| r.id);
    let mut rows: Vec<(Option<String>, Option<String>, String, bool, bool)> = Vec::new();
    for user in entities.users.values() {
        for (role, admin) in &user.roles {
            let is_default = match &user.default_roles {
                RoleSet::All => true,
                RoleSet::AllExcept(names) => !names.contains(role),
                RoleSet::Only(names) => names.contains(role),
                RoleSet::None | RoleSet::Default => false,
            };
            rows.push((
                Some(user.name.clone()),
                None,
                role.clone(),
                is_default,
                *admin,
            ));
        }
    }
    for holder in entities.roles.values() {
        for (role, admin) in &holder.roles {
            rows.push((None, Some(holder.name.clone()), role.clone(), false, *admin));
        }
    }
    vec![
        optional(rows.iter().map(|r| r.0.clone())),
        optional(rows.iter().map(|r| r.1.clone())),
        strings(rows.iter().map(|r| r.2.clone())),
        ids(rows.iter().map(|r| role_id(&r.2))),
        flags(rows.iter().map(|r| r.3)),
        flags(rows.iter().map(|r| r.4)),
    ]
}

pub fn privileges_fields() -> Vec<Field> {
    vec![
        s("privilege"),
        list("aliases"),
        nullable("level"),
        nullable("parent_group"),
    ]
}

pub fn privileges_rows() -> Vec<ArrayRef> {
    let privileges = catalog().privileges();
    vec![
        strings(privileges.iter().map(|p| p.name.to_string())),
        lists(
            privileges
                .iter()
                .map(|p| p.aliases.iter().map(|a| a.to_string()).collect()),
        ),
        optional(
            privileges
                .iter()
                .map(|p| Some(p.level.to_string()).filter(|l| !l.is_empty())),
        ),
        optional(privileges.iter().map(|p| p.parent.map(str::to_string))),
    ]
}
