//! Settings profiles: named lists of settings and constraints, from the
//! configuration file (`<profiles>`) or SQL (`CREATE SETTINGS PROFILE`),
//! inherited with `PROFILE 'name'` and applied to users and roles with `TO`
//! or from their own SETTINGS clause. A session starts with what
//! [`session_settings`] gathers for its user.

use std::collections::BTreeSet;

use strata_common::settings::Settings;
use strata_common::settings::constraints::SettingsConstraints;
use strata_common::{ErrorCode, Result, StrataError};
use strata_sql::access::settings_profile::{ProfileOptions, SettingElement, SettingsElement};
use strata_sql::access::{AlterEntity, CreateEntity, EntityKind, RoleSet};
use strata_sql::literal_text::quoted;

use super::entities::{already_exists, not_found};
use super::text::role_set_text;
use super::{Entities, Storage, User, role_set_applies, role_set_names};
use crate::table_definition::quote_name;

/// Profiles inherit profiles; a chain deeper than this is a cycle.
const MAX_INHERITANCE_DEPTH: usize = 16;

#[derive(Debug, Clone, PartialEq)]
pub struct SettingsProfile {
    pub name: String,
    pub id: uuid::Uuid,
    pub storage: Storage,
    pub elements: Vec<SettingsElement>,
    /// The users and roles it applies to.
    pub to: RoleSet,
}

impl SettingsProfile {
    /// `CREATE SETTINGS PROFILE ...` that recreates it.
    pub fn create_text(&self) -> String {
        let mut text = format!(
            "CREATE SETTINGS PROFILE {}{}",
            quote_name(&self.name),
            settings_clause(&self.elements)
        );
        if self.to != RoleSet::None {
            text.push_str(&format!(" TO {}", role_set_text(&self.to)));
        }
        text
    }
}

/// ` SETTINGS a = 1 MIN 0 MAX 2 CONST, PROFILE 'p'`, or nothing.
pub fn settings_clause(elements: &[SettingsElement]) -> String {
    if elements.is_empty() {
        return String::new();
    }
    let items: Vec<String> = elements.iter().map(element_text).collect();
    format!(" SETTINGS {}", items.join(", "))
}

fn element_text(element: &SettingsElement) -> String {
    let setting = match element {
        SettingsElement::Profile(name) => return format!("PROFILE {}", quoted(name)),
        SettingsElement::Setting(setting) => setting,
    };
    let mut text = setting.name.clone();
    if let Some(value) = &setting.value {
        text.push_str(&format!(" = {}", literal(value)));
    }
    if let Some(min) = &setting.min {
        text.push_str(&format!(" MIN {}", literal(min)));
    }
    if let Some(max) = &setting.max {
        text.push_str(&format!(" MAX {}", literal(max)));
    }
    if let Some(writability) = setting.writability {
        text.push(' ');
        text.push_str(writability.name());
    }
    text
}

/// A value as ClickHouse writes it back: a number bare, anything else quoted.
fn literal(value: &str) -> String {
    let numeric = !value.is_empty()
        && value
            .chars()
            .all(|c| c.is_ascii_digit() || "+-.eE".contains(c))
        && value.parse::<f64>().is_ok_and(f64::is_finite);
    if numeric {
        value.to_string()
    } else {
        quoted(value)
    }
}

/// The settings a session starts with, and the constraints on changing them.
#[derive(Debug, Clone, Default)]
pub struct SessionSettings {
    /// In the order they apply: a later value of a setting wins.
    pub values: Vec<(String, String)>,
    pub constraints: SettingsConstraints,
}

impl SessionSettings {
    /// Adds `elements`, those of the profiles they name first.
    fn add(&mut self, entities: &Entities, elements: &[SettingsElement], depth: usize) {
        for element in elements {
            match element {
                // A profile dropped since it was named gives nothing.
                SettingsElement::Profile(name) => {
                    if let Some(profile) = entities.profiles.get(name)
                        && depth < MAX_INHERITANCE_DEPTH
                    {
                        self.add(entities, &profile.elements, depth + 1);
                    }
                }
                SettingsElement::Setting(setting) => self.add_setting(setting),
            }
        }
    }

    /// Elements were checked when their statement ran, so they apply.
    fn add_setting(&mut self, setting: &SettingElement) {
        if let Some(value) = &setting.value {
            self.values.push((setting.name.clone(), value.clone()));
        }
        if setting.min.is_some() || setting.max.is_some() || setting.writability.is_some() {
            let _ = self.constraints.add(
                &setting.name,
                setting.min.as_deref(),
                setting.max.as_deref(),
                setting.writability,
            );
        }
    }
}

/// What a session of `user` with roles `enabled_roles` starts with, in
/// ClickHouse's order: the user's profile from the configuration file, the
/// profiles applied to the user or its roles, the roles' settings, then the
/// user's own.
pub(super) fn session_settings(
    entities: &Entities,
    user: &User,
    enabled_roles: &BTreeSet<String>,
) -> SessionSettings {
    let mut out = SessionSettings::default();
    if let Some(profile) = &user.profile {
        out.add(entities, &[SettingsElement::Profile(profile.clone())], 0);
    }
    for profile in entities.profiles.values() {
        if role_set_applies(&profile.to, &user.name, |r| enabled_roles.contains(r)) {
            out.add(entities, &profile.elements, 1);
        }
    }
    for role in enabled_roles {
        if let Some(role) = entities.roles.get(role) {
            out.add(entities, &role.settings, 0);
        }
    }
    out.add(entities, &user.settings, 0);
    out
}

/// UNKNOWN_SETTING or a value error unless `setting` names a setting and
/// its value and bounds are of its type.
pub fn check_setting_element(setting: &SettingElement) -> Result<()> {
    if let Some(value) = &setting.value {
        Settings::default().set(&setting.name, value)?;
    }
    SettingsConstraints::default().add(
        &setting.name,
        setting.min.as_deref(),
        setting.max.as_deref(),
        setting.writability,
    )
}

impl Entities {
    /// Checks that every setting of `elements` exists and takes its values,
    /// and that every profile named exists without inheriting `own` back.
    pub fn check_settings_elements(
        &self,
        elements: &[SettingsElement],
        own: Option<&str>,
    ) -> Result<()> {
        for element in elements {
            match element {
                // The access file names profiles of the configuration file,
                // which may not be loaded yet.
                SettingsElement::Profile(_) if self.loading => {}
                SettingsElement::Profile(name) => {
                    if !self.profiles.contains_key(name) {
                        return Err(not_found(EntityKind::SettingsProfile, name));
                    }
                    if let Some(own) = own
                        && self.profile_inherits(name, own, 0)
                    {
                        return Err(StrataError::new(
                            ErrorCode::BAD_ARGUMENTS,
                            format!(
                                "Settings profile {own} cannot inherit {name}: it would make a cycle"
                            ),
                        ));
                    }
                }
                SettingsElement::Setting(setting) => check_setting_element(setting)?,
            }
        }
        Ok(())
    }

    /// Whether profile `from` is `to` or inherits it.
    fn profile_inherits(&self, from: &str, to: &str, depth: usize) -> bool {
        if from == to || depth > MAX_INHERITANCE_DEPTH {
            return true;
        }
        self.profiles.get(from).is_some_and(|profile| {
            profile.elements.iter().any(|element| match element {
                SettingsElement::Profile(name) => self.profile_inherits(name, to, depth + 1),
                SettingsElement::Setting(_) => false,
            })
        })
    }

    pub fn create_settings_profile(&mut self, create: &CreateEntity<ProfileOptions>) -> Result<()> {
        for name in &create.names {
            if let Some(existing) = self.profiles.get(name) {
                if create.if_not_exists {
                    continue;
                }
                if !create.or_replace || existing.storage == Storage::UsersXml {
                    return Err(already_exists(EntityKind::SettingsProfile, name));
                }
            }
            let mut profile = SettingsProfile {
                name: name.clone(),
                id: uuid::Uuid::new_v4(),
                storage: Storage::LocalDirectory,
                elements: Vec::new(),
                to: RoleSet::None,
            };
            self.apply_profile_options(&mut profile, &create.options)?;
            self.profiles.insert(name.clone(), profile);
        }
        Ok(())
    }

    pub fn alter_settings_profile(&mut self, alter: &AlterEntity<ProfileOptions>) -> Result<()> {
        for name in &alter.names {
            let Some(profile) = self.profiles.get(name) else {
                if alter.if_exists {
                    continue;
                }
                return Err(not_found(EntityKind::SettingsProfile, name));
            };
            if profile.storage == Storage::UsersXml {
                return Err(read_only_profile(name));
            }
            let mut profile = profile.clone();
            self.apply_profile_options(&mut profile, &alter.options)?;
            if let Some(new_name) = &alter.rename_to {
                if new_name != name && self.profiles.contains_key(new_name) {
                    return Err(already_exists(EntityKind::SettingsProfile, new_name));
                }
                self.profiles.remove(name);
                profile.name = new_name.clone();
            }
            self.profiles.insert(profile.name.clone(), profile);
        }
        Ok(())
    }

    fn apply_profile_options(
        &self,
        profile: &mut SettingsProfile,
        options: &ProfileOptions,
    ) -> Result<()> {
        if let Some(elements) = &options.settings {
            self.check_settings_elements(elements, Some(&profile.name))?;
            profile.elements = elements.clone();
        }
        if let Some(to) = &options.to {
            for name in role_set_names(to) {
                let known = self.users.contains_key(name) || self.roles.contains_key(name);
                if !known && !self.loading {
                    return Err(not_found(EntityKind::Role, name));
                }
            }
            profile.to = to.clone();
        }
        Ok(())
    }
}

pub(super) fn read_only_profile(name: &str) -> StrataError {
    StrataError::new(
        ErrorCode::ACCESS_STORAGE_READONLY,
        format!(
            "Cannot update settings profile `{name}` in users_xml because this storage is readonly"
        ),
    )
}
