//! What each access statement changes in the set of users and roles, as
//! functions of the entities alone: the session checks who may run them,
//! the store replays them at start-up.

use std::collections::BTreeMap;

use strata_common::{ErrorCode, Result, StrataError};
use strata_sql::access::settings_profile::SettingsElement;
use strata_sql::access::{
    AlterEntity, CreateEntity, EntityKind, Grant, GrantTarget, PrivilegeSpec, Revoke, RoleGrant,
    RoleSet, UserOptions,
};

use super::authentication::{Authentication, Hosts};
use super::privileges::{AccessFlags, Depth, catalog};
use super::rights::AccessRights;
use super::settings_profiles::read_only_profile;
use super::{Entities, Role, Storage, User, role_set_names};

/// One privilege set on one object: what a GRANT or REVOKE names, resolved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Grantable {
    pub flags: AccessFlags,
    /// `[]`, `[db]`, `[db, table]` or `[db, table, column]`.
    pub path: Vec<String>,
}

impl Grantable {
    pub fn path(&self) -> Vec<&str> {
        self.path.iter().map(String::as_str).collect()
    }
}

/// The privileges of a GRANT or REVOKE on its target, one entry per object.
pub fn resolve(
    privileges: &[PrivilegeSpec],
    target: &GrantTarget,
    current_database: &str,
) -> Result<Vec<Grantable>> {
    let object: Vec<String> = match target {
        GrantTarget::Global => Vec::new(),
        GrantTarget::Database(database) => {
            vec![
                database
                    .clone()
                    .unwrap_or_else(|| current_database.to_string()),
            ]
        }
        GrantTarget::Table(database, table) => vec![
            database
                .clone()
                .unwrap_or_else(|| current_database.to_string()),
            table.clone(),
        ],
    };
    let mut out = Vec::new();
    for privilege in privileges {
        if privilege.columns.is_empty() {
            let flags = catalog().grantable(&privilege.name, Depth::of_path(object.len()))?;
            out.push(Grantable {
                flags,
                path: object.clone(),
            });
            continue;
        }
        if object.len() != 2 {
            return Err(StrataError::new(
                ErrorCode::INVALID_GRANT,
                format!("{}: columns can be given only for a table", privilege.name),
            ));
        }
        let flags = catalog().grantable(&privilege.name, Depth::Column)?;
        for column in &privilege.columns {
            let mut path = object.clone();
            path.push(column.clone());
            out.push(Grantable { flags, path });
        }
    }
    Ok(out)
}

pub(super) fn already_exists(kind: EntityKind, name: &str) -> StrataError {
    StrataError::new(
        ErrorCode::ACCESS_ENTITY_ALREADY_EXISTS,
        format!(
            "{} `{name}`: cannot insert because {} `{name}` already exists in local_directory",
            kind_name(kind),
            kind_name(kind).to_lowercase()
        ),
    )
}

fn kind_name(kind: EntityKind) -> &'static str {
    match kind {
        EntityKind::User => "User",
        EntityKind::Role => "Role",
        EntityKind::Quota => "Quota",
        EntityKind::SettingsProfile => "Settings profile",
    }
}

pub fn not_found(kind: EntityKind, name: &str) -> StrataError {
    match kind {
        EntityKind::User => StrataError::new(
            ErrorCode::UNKNOWN_USER,
            format!("There is no user `{name}` in user directories"),
        ),
        EntityKind::Role => StrataError::new(
            ErrorCode::UNKNOWN_ROLE,
            format!("There is no role `{name}` in user directories"),
        ),
        EntityKind::Quota => StrataError::new(
            ErrorCode::UNKNOWN_QUOTA,
            format!("There is no quota `{name}` in user directories"),
        ),
        EntityKind::SettingsProfile => StrataError::new(
            ErrorCode::THERE_IS_NO_PROFILE,
            format!("There is no settings profile `{name}` in user directories"),
        ),
    }
}

fn read_only(name: &str) -> StrataError {
    StrataError::new(
        ErrorCode::ACCESS_STORAGE_READONLY,
        format!("Cannot update user `{name}` in users_xml because this storage is readonly"),
    )
}

impl Entities {
    fn exists(&self, name: &str) -> Option<EntityKind> {
        if self.users.contains_key(name) {
            Some(EntityKind::User)
        } else if self.roles.contains_key(name) {
            Some(EntityKind::Role)
        } else {
            None
        }
    }

    /// A SQL-made user, for a change.
    fn sql_user(&mut self, name: &str) -> Result<&mut User> {
        let user = self
            .users
            .get_mut(name)
            .ok_or_else(|| not_found(EntityKind::User, name))?;
        if user.storage == Storage::UsersXml {
            return Err(read_only(name));
        }
        Ok(user)
    }

    pub fn create_user(&mut self, create: &CreateEntity<UserOptions>) -> Result<()> {
        for name in &create.names {
            if let Some(kind) = self.exists(name) {
                if create.if_not_exists && kind == EntityKind::User {
                    continue;
                }
                let replaceable =
                    kind == EntityKind::User && self.users[name].storage == Storage::LocalDirectory;
                if !(create.or_replace && replaceable) {
                    return Err(already_exists(kind, name));
                }
            }
            let mut user = User {
                name: name.clone(),
                id: uuid::Uuid::new_v4(),
                storage: Storage::LocalDirectory,
                authentication: Authentication::NoPassword,
                hosts: Hosts::Any,
                default_roles: RoleSet::All,
                default_database: None,
                settings: Vec::new(),
                profile: None,
                rights: AccessRights::default(),
                roles: BTreeMap::new(),
            };
            apply_user_options(&mut user, &create.options, self, true)?;
            self.users.insert(name.clone(), user);
        }
        Ok(())
    }

    pub fn alter_user(&mut self, alter: &AlterEntity<UserOptions>) -> Result<()> {
        for name in &alter.names {
            if !self.users.contains_key(name) && alter.if_exists {
                continue;
            }
            let mut user = self.sql_user(name)?.clone();
            apply_user_options(&mut user, &alter.options, self, false)?;
            if let Some(new_name) = &alter.rename_to {
                if new_name != name && self.exists(new_name).is_some() {
                    return Err(already_exists(EntityKind::User, new_name));
                }
                self.users.remove(name);
                user.name = new_name.clone();
            }
            self.users.insert(user.name.clone(), user);
        }
        Ok(())
    }

    pub fn create_role(
        &mut self,
        create: &CreateEntity<Option<Vec<SettingsElement>>>,
    ) -> Result<()> {
        let settings = create.options.clone().unwrap_or_default();
        self.check_settings_elements(&settings, None)?;
        for name in &create.names {
            if let Some(kind) = self.exists(name) {
                if create.if_not_exists && kind == EntityKind::Role {
                    continue;
                }
                if !(create.or_replace && kind == EntityKind::Role) {
                    return Err(already_exists(kind, name));
                }
            }
            self.roles.insert(
                name.clone(),
                Role {
                    name: name.clone(),
                    id: uuid::Uuid::new_v4(),
                    settings: settings.clone(),
                    rights: AccessRights::default(),
                    roles: BTreeMap::new(),
                },
            );
        }
        Ok(())
    }

    pub fn alter_role(&mut self, alter: &AlterEntity<Option<Vec<SettingsElement>>>) -> Result<()> {
        if let Some(settings) = &alter.options {
            self.check_settings_elements(settings, None)?;
        }
        for name in &alter.names {
            let Some(mut role) = self.roles.get(name).cloned() else {
                if alter.if_exists {
                    continue;
                }
                return Err(not_found(EntityKind::Role, name));
            };
            if let Some(settings) = &alter.options {
                role.settings = settings.clone();
            }
            if let Some(new_name) = &alter.rename_to {
                if new_name != name && self.exists(new_name).is_some() {
                    return Err(already_exists(EntityKind::Role, new_name));
                }
                self.roles.remove(name);
                self.rename_granted_role(name, new_name);
                role.name = new_name.clone();
            }
            self.roles.insert(role.name.clone(), role);
        }
        Ok(())
    }

    /// Grants of role `from` follow it to its new name.
    fn rename_granted_role(&mut self, from: &str, to: &str) {
        let rename = |roles: &mut BTreeMap<String, bool>| {
            if let Some(admin) = roles.remove(from) {
                roles.insert(to.to_string(), admin);
            }
        };
        self.users.values_mut().for_each(|u| rename(&mut u.roles));
        self.roles.values_mut().for_each(|r| rename(&mut r.roles));
    }

    pub fn drop(&mut self, kind: EntityKind, names: &[String], if_exists: bool) -> Result<()> {
        for name in names {
            let found = match kind {
                EntityKind::User => self.users.get(name).map(|u| u.storage),
                EntityKind::Role => self.roles.get(name).map(|_| Storage::LocalDirectory),
                EntityKind::Quota => self.quotas.get(name).map(|_| Storage::LocalDirectory),
                EntityKind::SettingsProfile => self.profiles.get(name).map(|p| p.storage),
            };
            match found {
                None if if_exists => continue,
                None => return Err(not_found(kind, name)),
                Some(Storage::UsersXml) if kind == EntityKind::SettingsProfile => {
                    return Err(read_only_profile(name));
                }
                Some(Storage::UsersXml) => return Err(read_only(name)),
                Some(Storage::LocalDirectory) => {}
            }
            match kind {
                EntityKind::User => {
                    self.users.remove(name);
                }
                EntityKind::Role => {
                    self.roles.remove(name);
                    self.users.values_mut().for_each(|u| {
                        u.roles.remove(name);
                    });
                    self.roles.values_mut().for_each(|r| {
                        r.roles.remove(name);
                    });
                }
                EntityKind::Quota => {
                    self.quotas.remove(name);
                }
                EntityKind::SettingsProfile => {
                    self.profiles.remove(name);
                }
            }
        }
        Ok(())
    }

    /// The rights of user or role `name`, for a change; file users are read-only.
    pub fn rights_mut(&mut self, name: &str) -> Result<&mut AccessRights> {
        if self.roles.contains_key(name) {
            return Ok(&mut self.roles.get_mut(name).expect("checked").rights);
        }
        if self.users.contains_key(name) {
            return Ok(&mut self.sql_user(name)?.rights);
        }
        // ClickHouse looks grantees up as roles last, and names that.
        Err(not_found(EntityKind::Role, name))
    }

    /// The roles granted to user or role `name`, for a change.
    fn granted_roles_mut(&mut self, name: &str) -> Result<&mut BTreeMap<String, bool>> {
        if self.roles.contains_key(name) {
            return Ok(&mut self.roles.get_mut(name).expect("checked").roles);
        }
        if self.users.contains_key(name) {
            return Ok(&mut self.sql_user(name)?.roles);
        }
        Err(not_found(EntityKind::Role, name))
    }

    /// GRANT of privileges; `WITH REPLACE OPTION` takes the grantees' others first.
    pub fn grant(&mut self, grant: &Grant, current_database: &str) -> Result<()> {
        let items = resolve(&grant.privileges, &grant.target, current_database)?;
        for grantee in &grant.grantees {
            let rights = self.rights_mut(grantee)?;
            if grant.replace {
                *rights = AccessRights::default();
            }
            for item in &items {
                rights.grant(item.flags, &item.path(), grant.with_grant_option);
            }
        }
        Ok(())
    }

    pub fn revoke(&mut self, revoke: &Revoke, current_database: &str) -> Result<()> {
        let items = resolve(&revoke.privileges, &revoke.target, current_database)?;
        for grantee in &revoke.grantees {
            let rights = self.rights_mut(grantee)?;
            for item in &items {
                rights.revoke(item.flags, &item.path(), revoke.grant_option_only);
            }
        }
        Ok(())
    }

    pub fn grant_roles(&mut self, grant: &RoleGrant) -> Result<()> {
        for role in &grant.roles {
            if !self.roles.contains_key(role) {
                return Err(not_found(EntityKind::Role, role));
            }
        }
        for grantee in &grant.grantees {
            for role in &grant.roles {
                if role == grantee || self.role_reaches(role, grantee) {
                    return Err(StrataError::new(
                        ErrorCode::BAD_ARGUMENTS,
                        format!(
                            "Role {role} cannot be granted to {grantee}: it would make a cycle"
                        ),
                    ));
                }
            }
            let roles = self.granted_roles_mut(grantee)?;
            if grant.replace {
                roles.clear();
            }
            for role in &grant.roles {
                let admin = roles.get(role).copied().unwrap_or(false) || grant.admin_option;
                roles.insert(role.clone(), admin);
            }
        }
        Ok(())
    }

    /// Whether role `from` grants `to`, directly or through other roles.
    fn role_reaches(&self, from: &str, to: &str) -> bool {
        let mut pending = vec![from.to_string()];
        let mut seen = std::collections::BTreeSet::new();
        while let Some(name) = pending.pop() {
            if name == to {
                return true;
            }
            if seen.insert(name.clone())
                && let Some(role) = self.roles.get(&name)
            {
                pending.extend(role.roles.keys().cloned());
            }
        }
        false
    }

    pub fn revoke_roles(&mut self, revoke: &RoleGrant) -> Result<()> {
        for grantee in &revoke.grantees {
            let roles = self.granted_roles_mut(grantee)?;
            for role in &revoke.roles {
                if revoke.admin_option {
                    if let Some(admin) = roles.get_mut(role) {
                        *admin = false;
                    }
                } else {
                    roles.remove(role);
                }
            }
        }
        Ok(())
    }

    pub fn set_default_roles(&mut self, roles: &RoleSet, users: &[String]) -> Result<()> {
        for name in users {
            let user = self.sql_user(name)?;
            check_default_roles(user, roles)?;
            user.default_roles = roles.clone();
        }
        Ok(())
    }
}

/// CREATE USER's default roles are granted to the user; ALTER USER's must be already.
fn apply_user_options(
    user: &mut User,
    options: &UserOptions,
    entities: &Entities,
    creating: bool,
) -> Result<()> {
    if let Some(spec) = &options.authentication {
        user.authentication = Authentication::from_spec(spec)?;
    }
    if let Some(hosts) = &options.hosts {
        user.hosts = Hosts::from_specs(hosts)?;
    }
    if let Some(roles) = &options.default_roles {
        for name in role_set_names(roles) {
            if !entities.roles.contains_key(name) {
                return Err(not_found(EntityKind::Role, name));
            }
            if creating && matches!(roles, RoleSet::Only(_)) {
                user.roles.entry(name.clone()).or_insert(false);
            }
        }
        check_default_roles(user, roles)?;
        user.default_roles = roles.clone();
    }
    if let Some(database) = &options.default_database {
        user.default_database = database.clone();
    }
    if let Some(settings) = &options.settings {
        entities.check_settings_elements(settings, None)?;
        user.settings = settings.clone();
    }
    Ok(())
}

/// Default roles must be granted to the user.
fn check_default_roles(user: &User, roles: &RoleSet) -> Result<()> {
    if let RoleSet::Only(names) = roles
        && let Some(missing) = names.iter().find(|n| !user.roles.contains_key(*n))
    {
        return Err(StrataError::new(
            ErrorCode::SET_NON_GRANTED_ROLE,
            format!(
                "Role {missing} should be granted to set as default for user {}",
                user.name
            ),
        ));
    }
    Ok(())
}
