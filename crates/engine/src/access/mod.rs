//! Access control: users and roles, what each may do, and who may connect.
//!
//! Users come from two storages, as in ClickHouse: the configuration file
//! (`users_xml`, read-only, given by the server) and SQL (`local_directory`:
//! `CREATE USER`, `GRANT`, ...), kept in `access/entities.sql` under the
//! data path as the statements that recreate them, rewritten whole on
//! each change. `privileges` is ClickHouse's catalog of privileges,
//! `rights` the tree of what one user or role holds, `authentication` the
//! passwords and networks, `entities` the changes the statements make,
//! `quotas` the limits per interval and their usage, `settings_profiles`
//! the settings and constraints sessions start with.

pub mod authentication;
pub mod entities;
pub mod privileges;
pub mod quotas;
pub mod rights;
pub mod settings_profiles;
mod store;
pub mod text;

use std::collections::{BTreeMap, BTreeSet};
use std::net::IpAddr;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};

use parking_lot::RwLock;
use strata_common::{ErrorCode, Result, StrataError};
use strata_sql::access::RoleSet;
use strata_sql::access::settings_profile::SettingsElement;

use authentication::{Authentication, Hosts, authentication_failed, decoy_check};
use privileges::{AccessFlags, catalog};
use rights::AccessRights;

/// Where a user or role is kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Storage {
    /// The configuration file: read-only to SQL.
    UsersXml,
    /// Created by SQL, kept under the data path.
    LocalDirectory,
}

impl Storage {
    pub fn name(self) -> &'static str {
        match self {
            Storage::UsersXml => "users_xml",
            Storage::LocalDirectory => "local_directory",
        }
    }
}

#[derive(Debug, Clone)]
pub struct User {
    pub name: String,
    pub id: uuid::Uuid,
    pub storage: Storage,
    pub authentication: Authentication,
    pub hosts: Hosts,
    /// Roles enabled when the user connects: `ALL`, `NONE`, a list, or
    /// `ALL EXCEPT` a list (of the roles granted).
    pub default_roles: RoleSet,
    pub default_database: Option<String>,
    /// Settings and constraints applied to the user's sessions.
    pub settings: Vec<SettingsElement>,
    /// The settings profile of a user from the configuration file.
    pub profile: Option<String>,
    pub rights: AccessRights,
    /// Roles granted, with whether the user may grant them on.
    pub roles: BTreeMap<String, bool>,
}

#[derive(Debug, Clone)]
pub struct Role {
    pub name: String,
    pub id: uuid::Uuid,
    pub settings: Vec<SettingsElement>,
    pub rights: AccessRights,
    pub roles: BTreeMap<String, bool>,
}

/// A user from the configuration file, as the server reads it.
#[derive(Debug, Clone)]
pub struct ConfigUser {
    pub name: String,
    pub authentication: Authentication,
    pub hosts: Hosts,
    pub profile: String,
    /// `access_management`: may manage users, roles and grants with SQL.
    pub access_management: bool,
}

impl ConfigUser {
    /// The user a server or `strata local` without configured users has:
    /// `default`, no password, any address, managing access.
    pub fn open_default() -> ConfigUser {
        ConfigUser {
            name: "default".to_string(),
            authentication: Authentication::NoPassword,
            hosts: Hosts::Any,
            profile: "default".to_string(),
            access_management: true,
        }
    }

    fn into_user(self) -> User {
        // Users of the file may do everything but, unless allowed, manage access.
        let mut rights = AccessRights::full();
        if !self.access_management {
            rights.revoke(catalog().flags("ACCESS MANAGEMENT"), &[], false);
        }
        User {
            id: name_uuid(&self.name),
            name: self.name,
            storage: Storage::UsersXml,
            authentication: self.authentication,
            hosts: self.hosts,
            default_roles: RoleSet::All,
            default_database: None,
            settings: Vec::new(),
            profile: Some(self.profile),
            rights,
            roles: BTreeMap::new(),
        }
    }
}

/// A file user's id: the same at every start, as ClickHouse derives it from the name.
fn name_uuid(name: &str) -> uuid::Uuid {
    use sha2::Digest;
    let digest = sha2::Sha256::digest(format!("users_xml:{name}").as_bytes());
    uuid::Builder::from_random_bytes(digest[..16].try_into().expect("16 bytes")).into_uuid()
}

/// Who a session is once authenticated: what it starts with.
#[derive(Debug, Clone)]
pub struct Login {
    pub name: String,
    /// From the user's profiles, roles and own SETTINGS clause.
    pub settings: settings_profiles::SessionSettings,
    pub default_database: Option<String>,
}

/// What a session of `user` may do now: its rights with those of its
/// enabled roles.
#[derive(Debug, Clone)]
pub struct EnabledAccess {
    pub user: String,
    pub rights: AccessRights,
    /// Roles chosen (the defaults, or `SET ROLE`), with admin option.
    pub current_roles: BTreeMap<String, bool>,
    /// The current roles and every role granted to them.
    pub enabled_roles: BTreeSet<String>,
    /// Roles the user holds with ADMIN OPTION, directly or through roles.
    pub admin_roles: BTreeSet<String>,
    /// The access-control version these were computed at.
    pub version: u64,
}

impl EnabledAccess {
    pub fn is_granted(&self, flags: AccessFlags, path: &[&str]) -> bool {
        self.rights.is_granted(flags, path)
    }
}

#[derive(Debug, Clone, Default)]
pub(crate) struct Entities {
    pub users: BTreeMap<String, User>,
    pub roles: BTreeMap<String, Role>,
    pub quotas: BTreeMap<String, quotas::Quota>,
    pub profiles: BTreeMap<String, settings_profiles::SettingsProfile>,
    /// Set while the access file is replayed: names of profiles are not
    /// checked then, since the configuration's come later.
    pub loading: bool,
}

#[derive(Debug)]
pub struct AccessControl {
    entities: RwLock<Entities>,
    /// Where SQL-made users and roles are kept; None keeps them in memory.
    directory: Option<PathBuf>,
    /// Bumped on every change, so sessions know to recompute their rights.
    version: AtomicU64,
    pub quota_usage: quotas::QuotaUsage,
}

impl AccessControl {
    /// Loads the SQL-made users and roles kept in `directory`, with the
    /// configuration's `default` user until the server gives its own.
    pub fn open(directory: Option<PathBuf>) -> Result<AccessControl> {
        let control = AccessControl {
            entities: RwLock::new(Entities::default()),
            directory,
            version: AtomicU64::new(1),
            quota_usage: quotas::QuotaUsage::default(),
        };
        control.set_config_users(vec![ConfigUser::open_default()]);
        if let Some(directory) = &control.directory {
            let loaded = store::load(directory, control.entities.read().clone())?;
            *control.entities.write() = loaded;
        }
        Ok(control)
    }

    pub fn version(&self) -> u64 {
        self.version.load(Ordering::Acquire)
    }

    /// Replaces the settings profiles of the configuration file, checked
    /// as they were read.
    pub fn set_config_profiles(&self, profiles: BTreeMap<String, Vec<SettingsElement>>) {
        let mut entities = self.entities.write();
        entities
            .profiles
            .retain(|_, profile| profile.storage != Storage::UsersXml);
        for (name, elements) in profiles {
            let profile = settings_profiles::SettingsProfile {
                id: name_uuid(&format!("profile:{name}")),
                name: name.clone(),
                storage: Storage::UsersXml,
                elements,
                to: RoleSet::None,
            };
            entities.profiles.insert(name, profile);
        }
        self.version.fetch_add(1, Ordering::AcqRel);
    }

    /// Replaces the users of the configuration file.
    pub fn set_config_users(&self, users: Vec<ConfigUser>) {
        let mut entities = self.entities.write();
        entities
            .users
            .retain(|_, user| user.storage != Storage::UsersXml);
        for user in users {
            let user = user.into_user();
            entities.users.insert(user.name.clone(), user);
        }
        self.version.fetch_add(1, Ordering::AcqRel);
    }

    pub(crate) fn read(&self) -> parking_lot::RwLockReadGuard<'_, Entities> {
        self.entities.read()
    }

    /// Applies `change` to a copy of the entities, stores the result and
    /// only then makes it current, so a failed write changes nothing.
    pub(crate) fn modify<T>(&self, change: impl FnOnce(&mut Entities) -> Result<T>) -> Result<T> {
        let mut entities = self.entities.write();
        let mut changed = entities.clone();
        let out = change(&mut changed)?;
        if let Some(directory) = &self.directory {
            store::save(directory, &changed)?;
        }
        *entities = changed;
        self.version.fetch_add(1, Ordering::AcqRel);
        Ok(out)
    }

    /// The user `name` if `password` is theirs and `address` may connect;
    /// every failure is the same AUTHENTICATION_FAILED.
    pub fn authenticate(&self, name: &str, password: &str, address: IpAddr) -> Result<Login> {
        let entities = self.entities.read();
        let Some(user) = entities.users.get(name) else {
            decoy_check(password);
            return Err(authentication_failed(name));
        };
        if !user.authentication.accepts(password) || !user.hosts.allows(address) {
            return Err(authentication_failed(name));
        }
        let roles = enabled_roles(&entities, current_roles(user, None)?.into_keys());
        Ok(Login {
            name: user.name.clone(),
            settings: settings_profiles::session_settings(&entities, user, &roles),
            default_database: user.default_database.clone(),
        })
    }

    /// What `user` may do with roles `choice` (None: the user's defaults).
    pub fn enabled(&self, user: &str, choice: Option<&RoleSet>) -> Result<EnabledAccess> {
        let version = self.version();
        let entities = self.entities.read();
        let found = entities.users.get(user).ok_or_else(|| {
            StrataError::new(
                ErrorCode::UNKNOWN_USER,
                format!("There is no user `{user}` in user directories"),
            )
        })?;
        let current = current_roles(found, choice)?;
        let mut enabled = BTreeSet::new();
        let mut admin_roles: BTreeSet<String> = found
            .roles
            .iter()
            .filter(|(_, admin)| **admin)
            .map(|(name, _)| name.clone())
            .collect();
        let mut pending: Vec<String> = current.keys().cloned().collect();
        let mut rights = found.rights.clone();
        while let Some(name) = pending.pop() {
            if !enabled.insert(name.clone()) {
                continue;
            }
            // A role dropped since it was granted grants nothing.
            if let Some(role) = entities.roles.get(&name) {
                rights = rights.union(&role.rights);
                for (granted, admin) in &role.roles {
                    if *admin {
                        admin_roles.insert(granted.clone());
                    }
                    pending.push(granted.clone());
                }
            }
        }
        Ok(EnabledAccess {
            user: user.to_string(),
            rights,
            current_roles: current,
            enabled_roles: enabled,
            admin_roles,
            version,
        })
    }
}

impl AccessControl {
    /// Counts a query's start in the quota that applies to its user;
    /// QUOTA_EXCEEDED when that passes a maximum. The ticket says where the
    /// query's end is counted.
    pub fn begin_query(
        &self,
        access: &EnabledAccess,
        address: &str,
        client_key: &str,
        kind: quotas::QueryKind,
    ) -> Result<Option<quotas::QuotaTicket>> {
        let entities = self.entities.read();
        let Some(ticket) = quotas::ticket(&entities.quotas, access, address, client_key) else {
            return Ok(None);
        };
        let quota = &entities.quotas[&ticket.quota];
        self.quota_usage.begin(quota, &ticket, kind)?;
        Ok(Some(ticket))
    }

    /// Where a session's usage is counted, if a quota applies to it.
    pub fn quota_ticket(
        &self,
        access: &EnabledAccess,
        address: &str,
        client_key: &str,
    ) -> Option<quotas::QuotaTicket> {
        quotas::ticket(&self.entities.read().quotas, access, address, client_key)
    }

    /// Counts what a finished query used; nothing if its quota was dropped.
    pub fn end_query(&self, ticket: &quotas::QuotaTicket, used: &quotas::Figures) {
        let entities = self.entities.read();
        if let Some(quota) = entities.quotas.get(&ticket.quota) {
            self.quota_usage.end(quota, ticket, used);
        }
    }
}

/// `roles` and every role they grant, directly or through other roles.
fn enabled_roles(entities: &Entities, roles: impl Iterator<Item = String>) -> BTreeSet<String> {
    let mut enabled = BTreeSet::new();
    let mut pending: Vec<String> = roles.collect();
    while let Some(name) = pending.pop() {
        if enabled.insert(name.clone())
            && let Some(role) = entities.roles.get(&name)
        {
            pending.extend(role.roles.keys().cloned());
        }
    }
    enabled
}

/// Whether `set` (a quota's or profile's `TO`) names `user` or one of its
/// roles (`has_role`).
pub(crate) fn role_set_applies(set: &RoleSet, user: &str, has_role: impl Fn(&str) -> bool) -> bool {
    let named = |names: &[String]| names.iter().any(|n| n == user || has_role(n));
    match set {
        RoleSet::All => true,
        RoleSet::None | RoleSet::Default => false,
        RoleSet::AllExcept(names) => !named(names),
        RoleSet::Only(names) => named(names),
    }
}

/// The names a role set lists.
pub(crate) fn role_set_names(roles: &RoleSet) -> &[String] {
    match roles {
        RoleSet::AllExcept(names) | RoleSet::Only(names) => names,
        _ => &[],
    }
}

/// The roles a session of `user` starts with, or `SET ROLE` chose.
fn current_roles(user: &User, choice: Option<&RoleSet>) -> Result<BTreeMap<String, bool>> {
    let granted = |names: &[String], all_except: bool| -> BTreeMap<String, bool> {
        user.roles
            .iter()
            .filter(|(name, _)| names.contains(name) != all_except)
            .map(|(n, a)| (n.clone(), *a))
            .collect()
    };
    let set = match choice {
        None | Some(RoleSet::Default) => &user.default_roles,
        Some(set) => set,
    };
    Ok(match set {
        RoleSet::All => granted(&[], true),
        RoleSet::None | RoleSet::Default => BTreeMap::new(),
        RoleSet::AllExcept(names) => granted(names, true),
        RoleSet::Only(names) => {
            if choice.is_some()
                && let Some(missing) = names.iter().find(|n| !user.roles.contains_key(*n))
            {
                return Err(StrataError::new(
                    ErrorCode::SET_NON_GRANTED_ROLE,
                    format!("Role {missing} should be granted to set current"),
                ));
            }
            granted(names, false)
        }
    })
}
