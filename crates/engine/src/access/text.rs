//! Users, roles and grants written back as the statements that make them:
//! for SHOW GRANTS and SHOW CREATE, and (with secrets) for the access file.

use std::collections::BTreeMap;

use strata_sql::access::RoleSet;

use super::privileges::catalog;
use super::rights::{AccessRights, RightsElement};
use super::settings_profiles::settings_clause;
use super::{Role, User};
use crate::table_definition::quote_name;

/// `*.*`, `db.*` or `db.table`.
pub fn object_text(database: Option<&str>, table: Option<&str>) -> String {
    match (database, table) {
        (None, _) => "*.*".to_string(),
        (Some(database), None) => format!("{}.*", quote_name(database)),
        (Some(database), Some(table)) => format!("{}.{}", quote_name(database), quote_name(table)),
    }
}

/// `SELECT, INSERT` or, for columns, `SELECT(a, b)`.
pub fn privileges_text(element: &RightsElement) -> String {
    let names = catalog().names(element.flags, element.depth());
    let columns = if element.columns.is_empty() {
        String::new()
    } else {
        let quoted: Vec<String> = element.columns.iter().map(|c| quote_name(c)).collect();
        format!("({})", quoted.join(", "))
    };
    names
        .iter()
        .map(|name| format!("{name}{columns}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The GRANT and REVOKE statements that give `grantee` its rights.
pub fn grant_lines(grantee: &str, rights: &AccessRights) -> Vec<String> {
    let grantee = quote_name(grantee);
    rights
        .elements()
        .iter()
        .map(|element| {
            let object = object_text(element.database.as_deref(), element.table.as_deref());
            let privileges = privileges_text(element);
            match (element.is_partial_revoke, element.grant_option) {
                (false, false) => format!("GRANT {privileges} ON {object} TO {grantee}"),
                (false, true) => {
                    format!("GRANT {privileges} ON {object} TO {grantee} WITH GRANT OPTION")
                }
                (true, false) => format!("REVOKE {privileges} ON {object} FROM {grantee}"),
                (true, true) => {
                    format!("REVOKE GRANT OPTION FOR {privileges} ON {object} FROM {grantee}")
                }
            }
        })
        .collect()
}

/// `GRANT r1, r2 TO grantee`, those with ADMIN OPTION apart.
pub fn role_grant_lines(grantee: &str, roles: &BTreeMap<String, bool>) -> Vec<String> {
    let mut lines = Vec::new();
    for admin in [false, true] {
        let names: Vec<String> = roles
            .iter()
            .filter(|(_, a)| **a == admin)
            .map(|(name, _)| quote_name(name))
            .collect();
        if names.is_empty() {
            continue;
        }
        let option = if admin { " WITH ADMIN OPTION" } else { "" };
        lines.push(format!(
            "GRANT {} TO {}{option}",
            names.join(", "),
            quote_name(grantee)
        ));
    }
    lines
}

pub fn role_set_text(roles: &RoleSet) -> String {
    let list = |names: &[String]| {
        names
            .iter()
            .map(|n| quote_name(n))
            .collect::<Vec<_>>()
            .join(", ")
    };
    match roles {
        RoleSet::All => "ALL".to_string(),
        RoleSet::None | RoleSet::Default => "NONE".to_string(),
        RoleSet::AllExcept(names) => format!("ALL EXCEPT {}", list(names)),
        RoleSet::Only(names) => list(names),
    }
}

/// CREATE USER as SHOW CREATE USER prints it (no secrets), or with the
/// stored digest for the access file. Default roles are left to a
/// separate statement when `stored`, since the roles are granted later.
pub fn create_user_text(user: &User, stored: bool) -> String {
    let authentication = if stored {
        user.authentication.stored_clause()
    } else {
        user.authentication.shown_clause()
    };
    let mut text = format!(
        "CREATE USER {} {authentication}{}",
        quote_name(&user.name),
        user.hosts.clause()
    );
    if !stored && user.default_roles != RoleSet::All {
        text.push_str(&format!(
            " DEFAULT ROLE {}",
            role_set_text(&user.default_roles)
        ));
    }
    if let Some(database) = &user.default_database {
        text.push_str(&format!(" DEFAULT DATABASE {}", quote_name(database)));
    }
    text.push_str(&settings_clause(&user.settings));
    text
}

pub fn create_role_text(role: &Role) -> String {
    format!(
        "CREATE ROLE {}{}",
        quote_name(&role.name),
        settings_clause(&role.settings)
    )
}
