//! The access file, `entities.sql`: the SQL-made users, roles, quotas and
//! settings profiles as the
//! statements that recreate them (password digests, never passwords),
//! rewritten whole through a synced temporary file and a rename, so a
//! crash leaves the old file or the new one.

use std::fs;
use std::path::Path;

use strata_common::{ErrorCode, Result, StrataError};
use strata_sql::access::{AccessStatement, RoleSet, parse_access_statement};

use super::text::{
    create_role_text, create_user_text, grant_lines, role_grant_lines, role_set_text,
};
use super::{Entities, Storage};
use crate::data_path::replace_file;
use crate::table_definition::quote_name;

const FILE: &str = "entities.sql";

/// The statements that recreate the SQL-made entities, in an order that
/// replays: roles, users, quotas, grants, default roles, then profiles.
pub fn statements(entities: &Entities) -> Vec<String> {
    let users: Vec<_> = entities
        .users
        .values()
        .filter(|u| u.storage == Storage::LocalDirectory)
        .collect();
    let mut out: Vec<String> = entities.roles.values().map(create_role_text).collect();
    out.extend(users.iter().map(|u| create_user_text(u, true)));
    for role in entities.roles.values() {
        out.extend(grant_lines(&role.name, &role.rights));
        out.extend(role_grant_lines(&role.name, &role.roles));
    }
    // Quotas name the users and roles they apply to, so they follow them.
    out.extend(entities.quotas.values().map(|q| q.create_text()));
    for user in &users {
        out.extend(grant_lines(&user.name, &user.rights));
        out.extend(role_grant_lines(&user.name, &user.roles));
        if user.default_roles != RoleSet::All {
            out.push(format!(
                "SET DEFAULT ROLE {} TO {}",
                role_set_text(&user.default_roles),
                quote_name(&user.name)
            ));
        }
    }
    // Profiles name users and roles in TO, and each other in SETTINGS;
    // replayed without checking the names of profiles (see `Entities::loading`).
    out.extend(
        entities
            .profiles
            .values()
            .filter(|p| p.storage == Storage::LocalDirectory)
            .map(|p| p.create_text()),
    );
    out
}

pub fn save(directory: &Path, entities: &Entities) -> Result<()> {
    fs::create_dir_all(directory).map_err(|e| io_error(directory, e))?;
    let mut text = String::new();
    for statement in statements(entities) {
        text.push_str(&statement);
        text.push_str(";\n");
    }
    replace_file(&directory.join(FILE), &text)
}

/// `base` with the entities of the access file in `directory`, if any.
pub fn load(directory: &Path, mut base: Entities) -> Result<Entities> {
    let path = directory.join(FILE);
    let text = match fs::read_to_string(&path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(base),
        Err(e) => return Err(io_error(&path, e)),
    };
    base.loading = true;
    for statement in strata_sql::split_statements(&text)? {
        replay(&mut base, &statement).map_err(|e| {
            StrataError::new(
                e.code,
                format!(
                    "Cannot load {}: {} (in {statement})",
                    path.display(),
                    e.message
                ),
            )
        })?;
    }
    base.loading = false;
    Ok(base)
}

fn replay(entities: &mut Entities, statement: &str) -> Result<()> {
    match parse_access_statement(statement)? {
        AccessStatement::CreateRole(create) => entities.create_role(&create),
        AccessStatement::CreateUser(create) => entities.create_user(&create),
        AccessStatement::CreateQuota(create) => entities.create_quota(&create),
        AccessStatement::CreateSettingsProfile(create) => entities.create_settings_profile(&create),
        AccessStatement::Grant(grant) => entities.grant(&grant, ""),
        AccessStatement::Revoke(revoke) => entities.revoke(&revoke, ""),
        AccessStatement::GrantRoles(grant) => entities.grant_roles(&grant),
        AccessStatement::SetDefaultRole { roles, users } => {
            entities.set_default_roles(&roles, &users)
        }
        other => Err(StrataError::new(
            ErrorCode::LOGICAL_ERROR,
            format!("Unexpected statement in the access file: {other:?}"),
        )),
    }
}

fn io_error(path: &Path, error: std::io::Error) -> StrataError {
    StrataError::new(
        ErrorCode::CANNOT_OPEN_FILE,
        format!("{}: {error}", path.display()),
    )
}
