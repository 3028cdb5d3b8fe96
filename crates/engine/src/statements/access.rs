//! Access-control statements: users, roles, quotas, settings profiles, GRANT and REVOKE, SET
//! ROLE and the SHOW statements about them. Each is checked against the session
//! user's rights (`CREATE USER`, GRANT OPTION on what is granted, ROLE
//! ADMIN or ADMIN OPTION on a role) and then applied by access control,
//! which stores the result before it takes effect.

use std::collections::BTreeMap;

use datafusion::arrow::array::{RecordBatch, StringArray, UInt8Array};
use datafusion::arrow::datatypes::{DataType, Field, Schema};
use std::sync::Arc;
use strata_common::{ErrorCode, Result, StrataError};
use strata_sql::access::{AccessStatement, EntityKind, GrantTarget, PrivilegeSpec, RoleGrant};

use crate::access::Entities;
use crate::access::entities::{not_found, resolve};
use crate::access::privileges::catalog;
use crate::access::text::{
    create_role_text, create_user_text, grant_lines, object_text, role_grant_lines,
};
use crate::session::{Session, StatementOutcome, strings_result};
use crate::table_definition::quote_name;

impl Session {
    pub(crate) async fn access_statement(&mut self, text: &str) -> Result<StatementOutcome> {
        let statement = strata_sql::access::parse_access_statement(text)?;
        if is_change(&statement) {
            self.check_writable()?;
        }
        self.check_access_statement(&statement)?;
        let control = &self.engine.instance.access;
        let database = self.current_database.clone();
        match statement {
            AccessStatement::CreateUser(create) => control.modify(|e| e.create_user(&create))?,
            AccessStatement::AlterUser(alter) => control.modify(|e| e.alter_user(&alter))?,
            AccessStatement::CreateRole(create) => control.modify(|e| e.create_role(&create))?,
            AccessStatement::AlterRole(alter) => control.modify(|e| e.alter_role(&alter))?,
            AccessStatement::CreateQuota(create) => control.modify(|e| e.create_quota(&create))?,
            AccessStatement::AlterQuota(alter) => control.modify(|e| e.alter_quota(&alter))?,
            AccessStatement::CreateSettingsProfile(create) => {
                control.modify(|e| e.create_settings_profile(&create))?
            }
            AccessStatement::AlterSettingsProfile(alter) => {
                control.modify(|e| e.alter_settings_profile(&alter))?
            }
            AccessStatement::Drop {
                kind,
                names,
                if_exists,
            } => control.modify(|e| e.drop(kind, &names, if_exists))?,
            AccessStatement::Grant(grant) => control.modify(|e| e.grant(&grant, &database))?,
            AccessStatement::Revoke(revoke) => control.modify(|e| e.revoke(&revoke, &database))?,
            AccessStatement::GrantRoles(grant) => control.modify(|e| e.grant_roles(&grant))?,
            AccessStatement::RevokeRoles(revoke) => control.modify(|e| e.revoke_roles(&revoke))?,
            AccessStatement::SetDefaultRole { roles, users } => {
                control.modify(|e| e.set_default_roles(&roles, &users))?
            }
            AccessStatement::SetRole(roles) => {
                control.enabled(&self.client.user, Some(&roles))?;
                self.role_choice = Some(roles);
                *self.access_cache.lock() = None;
            }
            show => return self.show_access(show),
        }
        self.done()
    }

    /// ACCESS_DENIED unless the user may run `statement`.
    fn check_access_statement(&self, statement: &AccessStatement) -> Result<()> {
        let entity = |verb: &str, kind: EntityKind| format!("{verb} {}", kind.keyword());
        match statement {
            AccessStatement::CreateUser(_) => self.require("CREATE USER", &[]),
            AccessStatement::AlterUser(_) | AccessStatement::SetDefaultRole { .. } => {
                self.require("ALTER USER", &[])
            }
            AccessStatement::CreateRole(_) => self.require("CREATE ROLE", &[]),
            AccessStatement::AlterRole(_) => self.require("ALTER ROLE", &[]),
            AccessStatement::CreateQuota(_) => self.require("CREATE QUOTA", &[]),
            AccessStatement::AlterQuota(_) => self.require("ALTER QUOTA", &[]),
            AccessStatement::CreateSettingsProfile(_) => {
                self.require("CREATE SETTINGS PROFILE", &[])
            }
            AccessStatement::AlterSettingsProfile(_) => self.require("ALTER SETTINGS PROFILE", &[]),
            AccessStatement::Drop { kind, .. } => self.require(&entity("DROP", *kind), &[]),
            AccessStatement::Grant(grant) => {
                self.check_grant_option(&grant.privileges, &grant.target)
            }
            AccessStatement::Revoke(revoke) => {
                self.check_grant_option(&revoke.privileges, &revoke.target)
            }
            AccessStatement::GrantRoles(grant) | AccessStatement::RevokeRoles(grant) => {
                self.check_role_admin(grant)
            }
            AccessStatement::ShowGrants(Some(names)) => {
                if names.iter().all(|n| *n == self.client.user) {
                    return Ok(());
                }
                self.require("SHOW USERS", &[])?;
                self.require("SHOW ROLES", &[])
            }
            AccessStatement::ShowEntities(kind) => {
                self.require(&format!("SHOW {}S", kind.keyword()), &[])
            }
            AccessStatement::ShowCreate { kind, names } => {
                if *kind == EntityKind::User && names.iter().all(|n| *n == self.client.user) {
                    return Ok(());
                }
                self.require(&format!("SHOW {}S", kind.keyword()), &[])
            }
            AccessStatement::ShowAccess => self.require("SHOW ACCESS", &[]),
            AccessStatement::ShowGrants(None)
            | AccessStatement::ShowQuota
            | AccessStatement::SetRole(_)
            | AccessStatement::ShowCurrentRoles
            | AccessStatement::ShowEnabledRoles => Ok(()),
        }
    }

    /// Granting or revoking needs the privileges WITH GRANT OPTION.
    fn check_grant_option(&self, privileges: &[PrivilegeSpec], target: &GrantTarget) -> Result<()> {
        let access = self.enabled_access()?;
        for item in resolve(privileges, target, &self.current_database)? {
            let path = item.path();
            if access.rights.has_grant_option(item.flags, &path) {
                continue;
            }
            let depth = crate::access::privileges::Depth::of_path(path.len());
            let names = catalog().names(item.flags, depth).join(", ");
            let (names, object) = match path.as_slice() {
                [database, table, column] => (
                    format!("{names}({})", quote_name(column)),
                    object_text(Some(database), Some(table)),
                ),
                _ => (
                    names,
                    object_text(path.first().copied(), path.get(1).copied()),
                ),
            };
            return Err(StrataError::new(
                ErrorCode::ACCESS_DENIED,
                format!(
                    "{}: Not enough privileges. To execute this query, it's necessary to have \
                     the grant {names} ON {object} WITH GRANT OPTION",
                    access.user
                ),
            ));
        }
        Ok(())
    }

    /// Granting a role needs ROLE ADMIN or the role WITH ADMIN OPTION.
    fn check_role_admin(&self, grant: &RoleGrant) -> Result<()> {
        let access = self.enabled_access()?;
        if access.is_granted(catalog().flags("ROLE ADMIN"), &[]) {
            return Ok(());
        }
        match grant
            .roles
            .iter()
            .find(|r| !access.admin_roles.contains(*r))
        {
            None => Ok(()),
            Some(role) => Err(StrataError::new(
                ErrorCode::ACCESS_DENIED,
                format!(
                    "{}: Not enough privileges. To execute this query, it's necessary to have \
                     the grant ROLE ADMIN ON *.*, or the role {} with ADMIN OPTION",
                    access.user,
                    quote_name(role)
                ),
            )),
        }
    }

    fn show_access(&self, statement: AccessStatement) -> Result<StatementOutcome> {
        let entities = self.engine.instance.access.read().clone();
        let (column, lines) = match statement {
            AccessStatement::ShowGrants(names) => {
                let column = match &names {
                    Some(names) => format!("GRANTS FOR {}", names.join(", ")),
                    None => "GRANTS".to_string(),
                };
                let names = names.unwrap_or_else(|| vec![self.client.user.clone()]);
                (column, grants_of(&entities, &names)?)
            }
            AccessStatement::ShowEntities(kind) => {
                let names: Vec<String> = match kind {
                    EntityKind::User => entities.users.keys().cloned().collect(),
                    EntityKind::Role => entities.roles.keys().cloned().collect(),
                    EntityKind::Quota => entities.quotas.keys().cloned().collect(),
                    EntityKind::SettingsProfile => entities.profiles.keys().cloned().collect(),
                };
                ("name".to_string(), names)
            }
            AccessStatement::ShowCreate { kind, names } => {
                let names = if names.is_empty() {
                    vec![self.client.user.clone()]
                } else {
                    names
                };
                let column = format!("CREATE {} {}", kind.keyword(), names.join(", "));
                (column, create_statements(&entities, kind, &names)?)
            }
            AccessStatement::ShowAccess => ("ACCESS".to_string(), access_lines(&entities)),
            AccessStatement::ShowCurrentRoles | AccessStatement::ShowEnabledRoles => {
                return self.show_roles_in_use(&statement);
            }
            AccessStatement::ShowQuota => return self.show_quota(),
            other => {
                return Err(StrataError::new(
                    ErrorCode::LOGICAL_ERROR,
                    format!("{other:?} is not a SHOW statement"),
                ));
            }
        };
        let (schema, batches) = strings_result(&column, lines)?;
        self.rows(schema, batches)
    }

    /// SHOW QUOTA: the usage of the quota that applies to this session, in
    /// `system.quotas_usage`'s columns but `is_current`.
    fn show_quota(&self) -> Result<StatementOutcome> {
        use crate::system::quotas::{quotas_usage_fields, quotas_usage_rows};
        use datafusion::arrow::compute::filter_record_batch;
        let ticket = self.quota_ticket()?;
        let control = &self.engine.instance.access;
        let schema = Arc::new(Schema::new(quotas_usage_fields()));
        let all = RecordBatch::try_new(schema, quotas_usage_rows(control, ticket.as_ref()))?;
        let is_current = all.schema().index_of("is_current")?;
        let mask = datafusion::arrow::compute::kernels::cmp::eq(
            all.column(is_current),
            &UInt8Array::new_scalar(1),
        )?;
        let mine = filter_record_batch(&all, &mask)?;
        let keep: Vec<usize> = (0..mine.num_columns())
            .filter(|i| *i != is_current)
            .collect();
        let mine = mine.project(&keep)?;
        self.rows(mine.schema(), vec![mine])
    }

    /// SHOW CURRENT ROLES (role_name, with_admin_option, is_default) and
    /// SHOW ENABLED ROLES (with is_current too).
    fn show_roles_in_use(&self, statement: &AccessStatement) -> Result<StatementOutcome> {
        let access = self.enabled_access()?;
        let defaults = self.engine.instance.access.enabled(&access.user, None)?;
        let enabled = matches!(statement, AccessStatement::ShowEnabledRoles);
        let roles: Vec<String> = if enabled {
            access.enabled_roles.iter().cloned().collect()
        } else {
            access.current_roles.keys().cloned().collect()
        };
        let flag = |f: &dyn Fn(&String) -> bool| -> Arc<UInt8Array> {
            Arc::new(UInt8Array::from_iter_values(
                roles.iter().map(|r| u8::from(f(r))),
            ))
        };
        let mut fields = vec![
            Field::new("role_name", DataType::Utf8, false),
            Field::new("with_admin_option", DataType::UInt8, false),
        ];
        let mut columns: Vec<datafusion::arrow::array::ArrayRef> = vec![
            Arc::new(StringArray::from(roles.clone())),
            flag(&|r| access.admin_roles.contains(r)),
        ];
        if enabled {
            fields.push(Field::new("is_current", DataType::UInt8, false));
            columns.push(flag(&|r| access.current_roles.contains_key(r)));
        }
        fields.push(Field::new("is_default", DataType::UInt8, false));
        columns.push(flag(&|r| defaults.current_roles.contains_key(r)));
        let schema = Arc::new(Schema::new(fields));
        let batch = RecordBatch::try_new(Arc::clone(&schema), columns)?;
        self.rows(schema, vec![batch])
    }
}

fn is_change(statement: &AccessStatement) -> bool {
    !matches!(
        statement,
        AccessStatement::SetRole(_)
            | AccessStatement::ShowGrants(_)
            | AccessStatement::ShowEntities(_)
            | AccessStatement::ShowCreate { .. }
            | AccessStatement::ShowAccess
            | AccessStatement::ShowCurrentRoles
            | AccessStatement::ShowEnabledRoles
            | AccessStatement::ShowQuota
    )
}

/// The grants of each named user or role, and the roles granted to them.
fn grants_of(entities: &Entities, names: &[String]) -> Result<Vec<String>> {
    let mut lines = Vec::new();
    for name in names {
        let (rights, roles): (_, &BTreeMap<String, bool>) =
            if let Some(user) = entities.users.get(name) {
                (&user.rights, &user.roles)
            } else if let Some(role) = entities.roles.get(name) {
                (&role.rights, &role.roles)
            } else {
                return Err(not_found(EntityKind::Role, name));
            };
        lines.extend(grant_lines(name, rights));
        lines.extend(role_grant_lines(name, roles));
    }
    Ok(lines)
}

fn create_statements(
    entities: &Entities,
    kind: EntityKind,
    names: &[String],
) -> Result<Vec<String>> {
    names
        .iter()
        .map(|name| match kind {
            EntityKind::User => entities
                .users
                .get(name)
                .map(|user| create_user_text(user, false))
                .ok_or_else(|| not_found(kind, name)),
            EntityKind::Role => entities
                .roles
                .get(name)
                .map(create_role_text)
                .ok_or_else(|| not_found(kind, name)),
            EntityKind::Quota => entities
                .quotas
                .get(name)
                .map(|quota| quota.create_text())
                .ok_or_else(|| not_found(kind, name)),
            EntityKind::SettingsProfile => entities
                .profiles
                .get(name)
                .map(|profile| profile.create_text())
                .ok_or_else(|| not_found(kind, name)),
        })
        .collect()
}

/// SHOW ACCESS: every user and role, then their grants.
fn access_lines(entities: &Entities) -> Vec<String> {
    let mut lines: Vec<String> = entities
        .users
        .values()
        .map(|u| create_user_text(u, false))
        .collect();
    lines.extend(entities.roles.values().map(create_role_text));
    lines.extend(entities.quotas.values().map(|q| q.create_text()));
    lines.extend(entities.profiles.values().map(|p| p.create_text()));
    for user in entities.users.values() {
        lines.extend(grant_lines(&user.name, &user.rights));
        lines.extend(role_grant_lines(&user.name, &user.roles));
    }
    for role in entities.roles.values() {
        lines.extend(grant_lines(&role.name, &role.rights));
        lines.extend(role_grant_lines(&role.name, &role.roles));
    }
    lines
}
