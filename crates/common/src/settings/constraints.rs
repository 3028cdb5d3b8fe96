//! Settings constraints, as settings profiles give them (`SETTINGS
//! max_memory_usage = 1e9 MIN 1e8 MAX 2e9`, `CONST`, `CHANGEABLE_IN_READONLY`):
//! what a session may change of its settings, checked on every change (SET,
//! a query's SETTINGS clause, an HTTP request's settings) together with
//! `readonly`.

use std::collections::BTreeMap;

use super::{SettingValue, Settings};
use crate::error::{ErrorCode, Result, StrataError};

/// Whether a constrained setting may change, as ClickHouse names it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Writability {
    /// Within MIN and MAX, unless `readonly` forbids it.
    #[default]
    Writable,
    /// Never (`CONST`, also written `READONLY`).
    Const,
    /// Within MIN and MAX, even under `readonly = 1`.
    ChangeableInReadonly,
}

impl Writability {
    pub const NAMES: [(&'static str, Writability); 4] = [
        ("WRITABLE", Writability::Writable),
        ("CONST", Writability::Const),
        ("READONLY", Writability::Const),
        ("CHANGEABLE_IN_READONLY", Writability::ChangeableInReadonly),
    ];

    /// `WRITABLE`, `CONST` or `CHANGEABLE_IN_READONLY`: the name ClickHouse shows.
    pub fn name(self) -> &'static str {
        match self {
            Writability::Writable => "WRITABLE",
            Writability::Const => "CONST",
            Writability::ChangeableInReadonly => "CHANGEABLE_IN_READONLY",
        }
    }

    pub fn from_name(word: &str) -> Option<Writability> {
        Writability::NAMES
            .iter()
            .find(|(name, _)| name.eq_ignore_ascii_case(word))
            .map(|(_, w)| *w)
    }
}

/// The constraint on one setting; values are of the setting's own type.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Constraint {
    pub min: Option<SettingValue>,
    pub max: Option<SettingValue>,
    pub writability: Writability,
}

/// The constraints a session's user has, by the setting's own name.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SettingsConstraints {
    by_name: BTreeMap<&'static str, Constraint>,
}

impl SettingsConstraints {
    /// Adds what one profile element says of `name`; a later element
    /// overrides the bounds and writability it gives.
    pub fn add(
        &mut self,
        name: &str,
        min: Option<&str>,
        max: Option<&str>,
        writability: Option<Writability>,
    ) -> Result<()> {
        let def = Settings::default().def(name)?;
        let value = |text: &str| super::parse::parse_value(def, text);
        let constraint = self.by_name.entry(def.name).or_default();
        if let Some(min) = min {
            constraint.min = Some(value(min)?);
        }
        if let Some(max) = max {
            constraint.max = Some(value(max)?);
        }
        if let Some(writability) = writability {
            constraint.writability = writability;
        }
        Ok(())
    }

    pub fn get(&self, name: &str) -> Option<&Constraint> {
        let def = Settings::default().def(name).ok()?;
        self.by_name.get(def.name)
    }

    /// Whether the session may change `name` at all now.
    pub fn is_readonly(&self, settings: &Settings, name: &str) -> bool {
        let writability = self.get(name).map(|c| c.writability).unwrap_or_default();
        match writability {
            Writability::Const => true,
            Writability::ChangeableInReadonly => false,
            Writability::Writable => match settings.readonly() {
                0 => false,
                1 => true,
                _ => name == "readonly",
            },
        }
    }

    /// Checks the change from `before` to `after`: CONST settings stay,
    /// `readonly = 1` forbids changing any setting (and `readonly = 2`
    /// changing `readonly`) but those CHANGEABLE_IN_READONLY, and new values
    /// stay within MIN and MAX.
    pub fn check(&self, before: &Settings, after: &Settings) -> Result<()> {
        for name in before.differences(after) {
            let constraint = self.by_name.get(name).cloned().unwrap_or_default();
            if constraint.writability == Writability::Const {
                return Err(violation(format!("Setting {name} should not be changed")));
            }
            if constraint.writability != Writability::ChangeableInReadonly
                && forbidden_by_readonly(before, after, name)
            {
                return Err(StrataError::new(
                    ErrorCode::READONLY,
                    format!("Cannot modify '{name}' setting in readonly mode"),
                ));
            }
            let value = after.get(name)?;
            if let Some(min) = &constraint.min
                && less(&value, min)
            {
                return Err(violation(format!(
                    "Setting {name} shouldn't be less than {min}"
                )));
            }
            if let Some(max) = &constraint.max
                && less(max, &value)
            {
                return Err(violation(format!(
                    "Setting {name} shouldn't be greater than {max}"
                )));
            }
        }
        Ok(())
    }
}

/// `readonly = 1` forbids any change, `readonly = 2` changing `readonly`;
/// the change that turns `readonly = 1` on may change nothing else.
fn forbidden_by_readonly(before: &Settings, after: &Settings, name: &str) -> bool {
    match (before.readonly(), after.readonly()) {
        (1, _) => true,
        (0, 1) => name != "readonly",
        (0, _) => false,
        _ => name == "readonly",
    }
}

/// `a < b` for numbers; other values have no order, so bound nothing.
fn less(a: &SettingValue, b: &SettingValue) -> bool {
    match (number(a), number(b)) {
        (Some(a), Some(b)) => a < b,
        _ => false,
    }
}

fn number(value: &SettingValue) -> Option<f64> {
    match value {
        SettingValue::Bool(b) => Some(f64::from(u8::from(*b))),
        SettingValue::UInt64(v) => Some(*v as f64),
        SettingValue::Int64(v) => Some(*v as f64),
        SettingValue::Float(v) => Some(*v),
        SettingValue::String(_) => None,
    }
}

fn violation(message: String) -> StrataError {
    StrataError::new(ErrorCode::SETTING_CONSTRAINT_VIOLATION, message)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn changed(pairs: &[(&str, &str)]) -> Settings {
        let mut settings = Settings::default();
        for (name, value) in pairs {
            settings.set(name, value).unwrap();
        }
        settings
    }

    #[test]
    fn bounds_and_const() {
        let mut constraints = SettingsConstraints::default();
        constraints
            .add("max_memory_usage", Some("1000"), Some("2000"), None)
            .unwrap();
        constraints
            .add("max_threads", None, None, Some(Writability::Const))
            .unwrap();
        let before = Settings::default();
        let low = constraints.check(&before, &changed(&[("max_memory_usage", "999")]));
        assert_eq!(
            low.unwrap_err().message,
            "Setting max_memory_usage shouldn't be less than 1000"
        );
        let high = constraints.check(&before, &changed(&[("max_memory_usage", "2001")]));
        assert_eq!(
            high.unwrap_err().code,
            ErrorCode::SETTING_CONSTRAINT_VIOLATION
        );
        assert!(
            constraints
                .check(&before, &changed(&[("max_memory_usage", "1500")]))
                .is_ok()
        );
        let fixed = constraints.check(&before, &changed(&[("max_threads", "3")]));
        assert_eq!(
            fixed.unwrap_err().message,
            "Setting max_threads should not be changed"
        );
    }

    #[test]
    fn readonly_with_changeable_settings() {
        let mut constraints = SettingsConstraints::default();
        constraints
            .add(
                "max_threads",
                None,
                Some("4"),
                Some(Writability::ChangeableInReadonly),
            )
            .unwrap();
        let before = changed(&[("readonly", "1")]);
        let after = changed(&[("readonly", "1"), ("max_threads", "2")]);
        assert!(constraints.check(&before, &after).is_ok());
        assert!(constraints.is_readonly(&before, "max_block_size"));
        assert!(!constraints.is_readonly(&before, "max_threads"));
        let other = changed(&[("readonly", "1"), ("max_block_size", "10")]);
        assert_eq!(
            constraints.check(&before, &other).unwrap_err().code,
            ErrorCode::READONLY
        );
        let over = changed(&[("readonly", "1"), ("max_threads", "8")]);
        assert_eq!(
            constraints.check(&before, &over).unwrap_err().code,
            ErrorCode::SETTING_CONSTRAINT_VIOLATION
        );
    }
}
