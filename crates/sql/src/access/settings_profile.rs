//! Settings clauses of access entities and the clauses of `CREATE | ALTER
//! SETTINGS PROFILE`: `SETTINGS {PROFILE 'p' | INHERIT 'p' | name [= value]
//! [MIN [=] v] [MAX [=] v] [CONST | READONLY | WRITABLE |
//! CHANGEABLE_IN_READONLY]}, ... | SETTINGS NONE`, and `TO` the users and
//! roles a profile applies to.

use datafusion::sql::sqlparser::ast::{Expr, Value};
use datafusion::sql::sqlparser::tokenizer::Token;
use strata_common::Result;
use strata_common::settings::constraints::Writability;

use super::{Reader, RoleSet, syntax};

/// One element of a SETTINGS clause.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SettingsElement {
    /// `PROFILE 'name'` or `INHERIT 'name'`: that profile's elements.
    Profile(String),
    Setting(SettingElement),
}

/// A setting's value and constraint, as written (values as text).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SettingElement {
    pub name: String,
    pub value: Option<String>,
    pub min: Option<String>,
    pub max: Option<String>,
    pub writability: Option<Writability>,
}

/// What CREATE or ALTER SETTINGS PROFILE sets; None leaves it as it is.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ProfileOptions {
    pub settings: Option<Vec<SettingsElement>>,
    pub to: Option<RoleSet>,
}

impl Reader<'_, '_> {
    /// The clauses of CREATE or ALTER SETTINGS PROFILE, in any order.
    pub(super) fn profile_options(&mut self) -> Result<ProfileOptions> {
        let mut options = ProfileOptions::default();
        loop {
            if self.word("SETTINGS") {
                options.settings = Some(self.settings_elements()?);
            } else if self.word("TO") {
                options.to = Some(self.role_set(false)?);
            } else {
                return Ok(options);
            }
        }
    }

    /// The elements after SETTINGS; `NONE` is none.
    pub(super) fn settings_elements(&mut self) -> Result<Vec<SettingsElement>> {
        if self.word("NONE") {
            return Ok(Vec::new());
        }
        let mut elements = Vec::new();
        loop {
            let element = if self.word("PROFILE") || self.word("INHERIT") {
                SettingsElement::Profile(self.name()?)
            } else {
                SettingsElement::Setting(self.setting_element()?)
            };
            elements.push(element);
            if !self.comma() {
                return Ok(elements);
            }
        }
    }

    fn setting_element(&mut self) -> Result<SettingElement> {
        let mut element = SettingElement {
            name: self.name()?,
            ..SettingElement::default()
        };
        if self.parser.consume_token(&Token::Eq) {
            element.value = Some(self.value_text()?);
        }
        loop {
            if self.word("MIN") {
                let _ = self.parser.consume_token(&Token::Eq);
                element.min = Some(self.value_text()?);
            } else if self.word("MAX") {
                let _ = self.parser.consume_token(&Token::Eq);
                element.max = Some(self.value_text()?);
            } else if let Some(writability) = self.writability() {
                element.writability = Some(writability);
            } else {
                return Ok(element);
            }
        }
    }

    fn writability(&mut self) -> Option<Writability> {
        Writability::NAMES
            .iter()
            .find(|(name, _)| self.word(name))
            .map(|(_, writability)| *writability)
    }

    /// A constant as the text a setting is set from (a string without quotes).
    pub(super) fn value_text(&mut self) -> Result<String> {
        let value = self
            .parser
            .parse_expr()
            .map_err(|e| syntax(self.sql, &e.to_string()))?;
        Ok(match value {
            Expr::Value(v) => match v.value {
                Value::SingleQuotedString(s) => s,
                other => other.to_string(),
            },
            other => other.to_string(),
        })
    }
}
