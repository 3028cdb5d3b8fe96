//! `SETTINGS disk = disk(type = s3, endpoint = '...', ...)`: a disk defined
//! in a table's own settings (ClickHouse's custom disks), nested for a
//! cache over it: `disk(type = cache, max_size = '1Gi', path = 'c',
//! disk = disk(type = s3, ...))`, or naming a configured disk
//! (`disk = 's3disk'`). A definition is named by its `name` argument or by
//! a hash of its text, so the same definition always reopens the same disk
//! (a part's `disk.txt` names it) and tables that share one share the disk.

use std::sync::Arc;

use datafusion::sql::sqlparser::tokenizer::{Token, Tokenizer};
use strata_common::{ErrorCode, Result, StrataError};
use strata_sql::literal_text::quoted;
use strata_storage::disk::config::disk_config;
use strata_storage::disk::{Disk, Disks};

/// Arguments whose values SHOW CREATE TABLE and system.tables hide.
const SECRET_ARGUMENTS: [&str; 2] = ["secret_access_key", "session_token"];

#[derive(Debug, Clone, PartialEq)]
pub struct DiskDefinition {
    arguments: Vec<(String, Argument)>,
}

#[derive(Debug, Clone, PartialEq)]
enum Argument {
    /// A word (`s3`) or a quoted string (`'http://...'`).
    Text {
        value: String,
        quoted: bool,
    },
    Disk(DiskDefinition),
}

/// `statement` with the secrets of the disk definitions in it as
/// `'[HIDDEN]'`, as SHOW CREATE TABLE and system.tables show a table.
pub fn hide_secrets(statement: &str) -> String {
    static SECRET: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        regex::Regex::new(r"(?i)\b(secret_access_key|session_token)(\s*=\s*)'(?:[^'\\]|\\.)*'")
            .expect("a valid pattern")
    });
    SECRET
        .replace_all(statement, "${1}${2}'[HIDDEN]'")
        .into_owned()
}

/// Whether a setting's value is a `disk(...)` definition.
pub fn is_definition(value: &str) -> bool {
    let value = value.trim_start();
    value.len() > 4
        && value[..4].eq_ignore_ascii_case("disk")
        && value[4..].trim_start().starts_with('(')
}

impl DiskDefinition {
    pub fn parse(text: &str) -> Result<DiskDefinition> {
        let dialect = datafusion::sql::sqlparser::dialect::ClickHouseDialect {};
        let tokens: Vec<Token> = Tokenizer::new(&dialect, text)
            .tokenize()
            .map_err(|e| bad_definition(text, &e.to_string()))?
            .into_iter()
            .filter(|t| !matches!(t, Token::Whitespace(_)))
            .collect();
        let mut position = 0;
        let definition = parse_call(text, &tokens, &mut position)?;
        if position != tokens.len() {
            return Err(bad_definition(text, "unexpected text after disk(...)"));
        }
        Ok(definition)
    }

    fn text(&self, key: &str) -> Option<String> {
        self.arguments
            .iter()
            .find_map(|(name, argument)| match argument {
                Argument::Text { value, .. } if name == key => Some(value.clone()),
                _ => None,
            })
    }

    fn nested(&self) -> Option<&DiskDefinition> {
        self.arguments
            .iter()
            .find_map(|(name, argument)| match argument {
                Argument::Disk(nested) if name == "disk" => Some(nested),
                _ => None,
            })
    }

    /// The definition as SQL; secrets as `'[HIDDEN]'` when `masked`.
    pub fn render(&self, masked: bool) -> String {
        let arguments: Vec<String> = self
            .arguments
            .iter()
            .map(|(name, argument)| {
                let value = match argument {
                    _ if masked && SECRET_ARGUMENTS.contains(&name.as_str()) => {
                        "'[HIDDEN]'".to_string()
                    }
                    Argument::Text {
                        value,
                        quoted: true,
                    } => quoted(value),
                    Argument::Text { value, .. } => value.clone(),
                    Argument::Disk(nested) => nested.render(masked),
                };
                format!("{name} = {value}")
            })
            .collect();
        format!("disk({})", arguments.join(", "))
    }

    /// The disk's name: its `name` argument, else one made from a hash of
    /// the definition, stable across restarts.
    fn name(&self) -> String {
        self.text("name").unwrap_or_else(|| {
            use sha2::Digest;
            let hash = sha2::Sha256::digest(self.render(false).as_bytes());
            let short: String = hash[..8].iter().map(|b| format!("{b:02x}")).collect();
            format!("__disk_{short}")
        })
    }

    /// The disk this definition makes, built at first use and kept by
    /// `disks` under its name; a nested definition first.
    pub fn disk(&self, disks: &Disks) -> Result<Arc<Disk>> {
        let name = self.name();
        let inner = match self.nested() {
            Some(nested) => Some(nested.disk(disks)?.name.clone()),
            None => None,
        };
        let lookup = |key: &str| match (key, &inner) {
            ("disk", Some(inner)) => Some(inner.clone()),
            _ => self.text(key),
        };
        let config = disk_config(&name, &lookup)
            .map_err(|message| StrataError::new(ErrorCode::BAD_ARGUMENTS, message))?;
        disks.custom(config)
    }
}

/// `disk(key = value, ...)` from `tokens[*position..]`.
fn parse_call(text: &str, tokens: &[Token], position: &mut usize) -> Result<DiskDefinition> {
    let mut next = || {
        let token = tokens.get(*position).cloned();
        *position += 1;
        token
    };
    match (next(), next()) {
        (Some(Token::Word(word)), Some(Token::LParen))
            if word.value.eq_ignore_ascii_case("disk") => {}
        _ => return Err(bad_definition(text, "expected disk(...)")),
    }
    let mut arguments = Vec::new();
    if tokens.get(*position) == Some(&Token::RParen) {
        *position += 1;
        return Ok(DiskDefinition { arguments });
    }
    loop {
        let key = match (tokens.get(*position), tokens.get(*position + 1)) {
            (Some(Token::Word(key)), Some(Token::Eq)) => key.value.to_ascii_lowercase(),
            _ => return Err(bad_definition(text, "expected name = value")),
        };
        *position += 2;
        let value = match tokens.get(*position) {
            Some(Token::Word(word))
                if word.value.eq_ignore_ascii_case("disk")
                    && tokens.get(*position + 1) == Some(&Token::LParen) =>
            {
                Argument::Disk(parse_call(text, tokens, position)?)
            }
            Some(token) => {
                *position += 1;
                scalar(token).ok_or_else(|| bad_definition(text, &format!("unexpected {token}")))?
            }
            None => return Err(bad_definition(text, "a value is missing")),
        };
        arguments.push((key, value));
        let separator = tokens.get(*position).cloned();
        *position += 1;
        match separator {
            Some(Token::Comma) => continue,
            Some(Token::RParen) => return Ok(DiskDefinition { arguments }),
            _ => return Err(bad_definition(text, "expected , or )")),
        }
    }
}

fn scalar(token: &Token) -> Option<Argument> {
    let (value, quoted) = match token {
        Token::Word(word) => (word.value.clone(), false),
        Token::Number(number, _) => (number.clone(), false),
        Token::SingleQuotedString(text) => (text.clone(), true),
        _ => return None,
    };
    Some(Argument::Text { value, quoted })
}

fn bad_definition(text: &str, why: &str) -> StrataError {
    StrataError::new(
        ErrorCode::BAD_ARGUMENTS,
        format!("Cannot read the disk definition {text}: {why}"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn definitions_nest_and_render_with_secrets_hidden() {
        let text = "disk(type = cache, max_size = '1Gi', path = 'c', \
                    disk = disk(type = s3, endpoint = 'http://h:9000/b/', secret_access_key = 'x'))";
        assert!(is_definition(text));
        assert!(is_definition("DISK (type = local, path = 'p')"));
        assert!(!is_definition("s3disk"));
        let definition = DiskDefinition::parse(text).unwrap();
        assert_eq!(definition.text("type").as_deref(), Some("cache"));
        assert_eq!(
            definition.nested().unwrap().text("endpoint").as_deref(),
            Some("http://h:9000/b/")
        );
        assert_eq!(
            DiskDefinition::parse(&definition.render(false)).unwrap(),
            definition
        );
        let shown = definition.render(true);
        assert!(shown.contains("secret_access_key = '[HIDDEN]'"), "{shown}");
        assert!(!shown.contains("'x'"), "{shown}");
        assert_eq!(
            definition.name(),
            DiskDefinition::parse(text).unwrap().name()
        );
        let named = DiskDefinition::parse("disk(name = 'mine', type = local, path = 'p')").unwrap();
        assert_eq!(named.name(), "mine");
        assert_eq!(
            hide_secrets("SETTINGS disk = disk(secret_access_key = 'a\\'b', session_token='t')"),
            "SETTINGS disk = disk(secret_access_key = '[HIDDEN]', session_token='[HIDDEN]')"
        );
        for bad in [
            "disk(type)",
            "disk(type = s3",
            "disk(type = s3) x",
            "disk(= s3)",
        ] {
            let error = DiskDefinition::parse(bad).unwrap_err();
            assert_eq!(error.code, ErrorCode::BAD_ARGUMENTS, "{bad}");
        }
    }
}
