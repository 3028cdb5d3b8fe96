//! ClickHouse's access-control statements, which sqlparser does not read:
//! `CREATE | ALTER | DROP USER`, `CREATE | ALTER | DROP ROLE`, `GRANT` and
//! `REVOKE` of privileges (`SELECT(a, b) ON db.t`) or roles, `SET ROLE`,
//! `SET DEFAULT ROLE`, `SHOW GRANTS | USERS | ROLES | CREATE USER | CREATE
//! ROLE | ACCESS | CURRENT ROLES | ENABLED ROLES`, and quotas (`CREATE |
//! ALTER | DROP QUOTA`, `SHOW QUOTA[S]`, clauses in `quota`) and settings
//! profiles (`CREATE | ALTER | DROP SETTINGS PROFILE`, `SHOW [SETTINGS]
//! PROFILES`, the SETTINGS clause in `settings_profile`). Read word by word with
//! sqlparser's parser, so names and literals read as everywhere else.
//! Privilege names are kept as written (words joined by one space); the
//! engine's catalog knows them.

use datafusion::sql::sqlparser::dialect::ClickHouseDialect;
use datafusion::sql::sqlparser::parser::Parser;
use datafusion::sql::sqlparser::tokenizer::Token;
use strata_common::{Result, StrataError};

use crate::part_statements::parse_word;

pub mod quota;
pub mod settings_profile;

use quota::QuotaOptions;
use settings_profile::{ProfileOptions, SettingsElement};

#[derive(Debug, Clone, PartialEq)]
pub enum AccessStatement {
    CreateQuota(CreateEntity<QuotaOptions>),
    AlterQuota(AlterEntity<QuotaOptions>),
    /// `SHOW QUOTA`: the current user's usage.
    ShowQuota,
    CreateUser(CreateEntity<UserOptions>),
    AlterUser(AlterEntity<UserOptions>),
    /// A role's SETTINGS clause, if given.
    CreateRole(CreateEntity<Option<Vec<SettingsElement>>>),
    AlterRole(AlterEntity<Option<Vec<SettingsElement>>>),
    CreateSettingsProfile(CreateEntity<ProfileOptions>),
    AlterSettingsProfile(AlterEntity<ProfileOptions>),
    Drop {
        kind: EntityKind,
        names: Vec<String>,
        if_exists: bool,
    },
    Grant(Grant),
    Revoke(Revoke),
    GrantRoles(RoleGrant),
    RevokeRoles(RoleGrant),
    SetRole(RoleSet),
    SetDefaultRole {
        roles: RoleSet,
        users: Vec<String>,
    },
    /// `SHOW GRANTS [FOR a, b]`: None is the current user.
    ShowGrants(Option<Vec<String>>),
    ShowEntities(EntityKind),
    /// `SHOW CREATE USER | ROLE [names]`: no names is the current user.
    ShowCreate {
        kind: EntityKind,
        names: Vec<String>,
    },
    ShowAccess,
    ShowCurrentRoles,
    ShowEnabledRoles,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EntityKind {
    User,
    Role,
    Quota,
    SettingsProfile,
}

impl EntityKind {
    pub fn keyword(self) -> &'static str {
        match self {
            EntityKind::User => "USER",
            EntityKind::Role => "ROLE",
            EntityKind::Quota => "QUOTA",
            EntityKind::SettingsProfile => "SETTINGS PROFILE",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CreateEntity<T> {
    pub names: Vec<String>,
    pub if_not_exists: bool,
    pub or_replace: bool,
    pub options: T,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AlterEntity<T> {
    pub names: Vec<String>,
    pub if_exists: bool,
    pub rename_to: Option<String>,
    pub options: T,
}

/// What CREATE or ALTER USER sets; None leaves it as it is.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct UserOptions {
    pub authentication: Option<AuthenticationSpec>,
    pub hosts: Option<Vec<HostSpec>>,
    pub default_roles: Option<RoleSet>,
    /// `DEFAULT DATABASE name | NONE`.
    pub default_database: Option<Option<String>>,
    pub settings: Option<Vec<SettingsElement>>,
}

/// `NOT IDENTIFIED`, `IDENTIFIED BY 'p'`, `IDENTIFIED WITH type [BY 'x'] [SALT 's']`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuthenticationSpec {
    /// ClickHouse's type name in lower case; None for `IDENTIFIED BY`
    /// (the server's default type).
    pub kind: Option<String>,
    pub value: Option<String>,
    pub salt: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HostSpec {
    Any,
    Local,
    None,
    /// `IP 'address or network'`.
    Ip(String),
}

/// `ALL`, `NONE`, `ALL EXCEPT r`, or a list of roles.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RoleSet {
    All,
    None,
    AllExcept(Vec<String>),
    Only(Vec<String>),
    /// `SET ROLE DEFAULT`.
    Default,
}

/// `SELECT(a, b)`: a privilege's name as written and its columns.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PrivilegeSpec {
    pub name: String,
    pub columns: Vec<String>,
}

/// The object after `ON`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GrantTarget {
    /// `*.*`
    Global,
    /// `db.*`, or `*` (None: the current database).
    Database(Option<String>),
    /// `db.table`, or `table` in the current database.
    Table(Option<String>, String),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Grant {
    pub privileges: Vec<PrivilegeSpec>,
    pub target: GrantTarget,
    pub grantees: Vec<String>,
    pub with_grant_option: bool,
    /// `WITH REPLACE OPTION`: the grantees' earlier grants go first.
    pub replace: bool,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Revoke {
    pub privileges: Vec<PrivilegeSpec>,
    pub target: GrantTarget,
    pub grantees: Vec<String>,
    /// `REVOKE GRANT OPTION FOR ...`.
    pub grant_option_only: bool,
}

/// `GRANT r TO u [WITH ADMIN OPTION]` or `REVOKE [ADMIN OPTION FOR] r FROM u`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RoleGrant {
    pub roles: Vec<String>,
    pub grantees: Vec<String>,
    pub admin_option: bool,
    pub replace: bool,
}

/// Whether `sql` is an access-control statement (by its first words).
pub fn is_access_statement(sql: &str) -> bool {
    let words: Vec<String> = sql
        .split_whitespace()
        .take(4)
        .map(|w| w.to_ascii_uppercase())
        .collect();
    let word = |i: usize| words.get(i).map(String::as_str).unwrap_or("");
    // `SETTINGS` starts `SETTINGS PROFILE` only: nothing else is created so.
    let entity = |w: &str| matches!(w, "USER" | "ROLE" | "QUOTA" | "PROFILE" | "SETTINGS");
    match word(0) {
        "GRANT" | "REVOKE" => true,
        "CREATE" => entity(word(1)) || (word(1) == "OR" && word(2) == "REPLACE" && entity(word(3))),
        "ALTER" | "DROP" => entity(word(1)),
        "SET" => matches!(word(1), "ROLE" | "DEFAULT") && (word(1) == "ROLE" || word(2) == "ROLE"),
        "SHOW" => {
            matches!(
                word(1),
                "GRANTS"
                    | "USERS"
                    | "ROLES"
                    | "ACCESS"
                    | "CURRENT"
                    | "ENABLED"
                    | "QUOTA"
                    | "QUOTAS"
                    | "PROFILES"
            ) || (word(1) == "SETTINGS" && word(2) == "PROFILES")
                || (word(1) == "CREATE" && entity(word(2)))
        }
        _ => false,
    }
}

/// Reads one access-control statement.
pub fn parse_access_statement(sql: &str) -> Result<AccessStatement> {
    let dialect = ClickHouseDialect {};
    let mut parser = Parser::new(&dialect)
        .try_with_sql(sql)
        .map_err(|e| syntax(sql, &e.to_string()))?;
    let mut reader = Reader {
        sql,
        parser: &mut parser,
    };
    let statement = reader.statement()?;
    reader.end()?;
    Ok(statement)
}

struct Reader<'a, 'b> {
    sql: &'a str,
    parser: &'a mut Parser<'b>,
}

impl Reader<'_, '_> {
    fn statement(&mut self) -> Result<AccessStatement> {
        if self.word("GRANT") {
            return self.grant();
        }
        if self.word("REVOKE") {
            return self.revoke();
        }
        if self.word("CREATE") {
            let or_replace = self.words(&["OR", "REPLACE"]);
            let kind = self.entity_kind()?;
            return self.create(kind, or_replace);
        }
        if self.word("ALTER") {
            let kind = self.entity_kind()?;
            return self.alter(kind);
        }
        if self.word("DROP") {
            let kind = self.entity_kind()?;
            let if_exists = self.words(&["IF", "EXISTS"]);
            let names = self.names()?;
            return Ok(AccessStatement::Drop {
                kind,
                names,
                if_exists,
            });
        }
        if self.word("SET") {
            return self.set();
        }
        if self.word("SHOW") {
            return self.show();
        }
        Err(self.error("Expected an access-control statement"))
    }

    fn entity_kind(&mut self) -> Result<EntityKind> {
        if self.word("USER") {
            Ok(EntityKind::User)
        } else if self.word("ROLE") {
            Ok(EntityKind::Role)
        } else if self.word("QUOTA") {
            Ok(EntityKind::Quota)
        } else if self.words(&["SETTINGS", "PROFILE"]) || self.word("PROFILE") {
            Ok(EntityKind::SettingsProfile)
        } else {
            Err(self.error("Expected USER, ROLE, QUOTA or SETTINGS PROFILE"))
        }
    }

    fn create(&mut self, kind: EntityKind, or_replace: bool) -> Result<AccessStatement> {
        let if_not_exists = self.words(&["IF", "NOT", "EXISTS"]);
        let names = self.names()?;
        Ok(match kind {
            EntityKind::User => AccessStatement::CreateUser(CreateEntity {
                names,
                if_not_exists,
                or_replace,
                options: self.user_options()?,
            }),
            EntityKind::Role => AccessStatement::CreateRole(CreateEntity {
                names,
                if_not_exists,
                or_replace,
                options: self.role_settings()?,
            }),
            EntityKind::Quota => AccessStatement::CreateQuota(CreateEntity {
                names,
                if_not_exists,
                or_replace,
                options: self.quota_options()?,
            }),
            EntityKind::SettingsProfile => AccessStatement::CreateSettingsProfile(CreateEntity {
                names,
                if_not_exists,
                or_replace,
                options: self.profile_options()?,
            }),
        })
    }

    fn alter(&mut self, kind: EntityKind) -> Result<AccessStatement> {
        let if_exists = self.words(&["IF", "EXISTS"]);
        let names = self.names()?;
        let rename_to = if self.words(&["RENAME", "TO"]) {
            Some(self.name()?)
        } else {
            None
        };
        Ok(match kind {
            EntityKind::User => AccessStatement::AlterUser(AlterEntity {
                names,
                if_exists,
                rename_to,
                options: self.user_options()?,
            }),
            EntityKind::Role => AccessStatement::AlterRole(AlterEntity {
                names,
                if_exists,
                rename_to,
                options: self.role_settings()?,
            }),
            EntityKind::Quota => AccessStatement::AlterQuota(AlterEntity {
                names,
                if_exists,
                rename_to,
                options: self.quota_options()?,
            }),
            EntityKind::SettingsProfile => AccessStatement::AlterSettingsProfile(AlterEntity {
                names,
                if_exists,
                rename_to,
                options: self.profile_options()?,
            }),
        })
    }

    /// The clauses of CREATE or ALTER USER, in any order.
    fn user_options(&mut self) -> Result<UserOptions> {
        let mut options = UserOptions::default();
        loop {
            if self.words(&["NOT", "IDENTIFIED"]) {
                options.authentication = Some(AuthenticationSpec {
                    kind: Some("no_password".to_string()),
                    value: None,
                    salt: None,
                });
            } else if self.word("IDENTIFIED") {
                options.authentication = Some(self.authentication()?);
            } else if self.word("HOST") {
                options.hosts = Some(self.hosts()?);
            } else if self.words(&["DEFAULT", "ROLE"]) {
                options.default_roles = Some(self.role_set(false)?);
            } else if self.words(&["DEFAULT", "DATABASE"]) {
                options.default_database = Some(if self.word("NONE") {
                    None
                } else {
                    Some(self.name()?)
                });
            } else if self.word("SETTINGS") {
                options.settings = Some(self.settings_elements()?);
            } else {
                return Ok(options);
            }
        }
    }

    fn role_settings(&mut self) -> Result<Option<Vec<SettingsElement>>> {
        if self.word("SETTINGS") {
            self.settings_elements().map(Some)
        } else {
            Ok(None)
        }
    }

    fn authentication(&mut self) -> Result<AuthenticationSpec> {
        let kind = if self.word("WITH") {
            Some(self.name()?.to_ascii_lowercase())
        } else {
            None
        };
        let value = if self.word("BY") {
            Some(self.string()?)
        } else {
            None
        };
        let salt = if self.word("SALT") {
            Some(self.string()?)
        } else {
            None
        };
        if kind.is_none() && value.is_none() {
            return Err(self.error("Expected WITH or BY after IDENTIFIED"));
        }
        Ok(AuthenticationSpec { kind, value, salt })
    }

    fn hosts(&mut self) -> Result<Vec<HostSpec>> {
        let mut hosts = Vec::new();
        loop {
            let host = if self.word("ANY") {
                HostSpec::Any
            } else if self.word("LOCAL") {
                HostSpec::Local
            } else if self.word("NONE") {
                HostSpec::None
            } else if self.word("IP") {
                HostSpec::Ip(self.string()?)
            } else {
                return Err(self.error("Expected ANY, LOCAL, NONE or IP after HOST"));
            };
            hosts.push(host);
            if !self.comma() {
                return Ok(hosts);
            }
        }
    }

    /// `ALL [EXCEPT r, ...]`, `NONE`, `DEFAULT` (where `allow_default`) or roles.
    fn role_set(&mut self, allow_default: bool) -> Result<RoleSet> {
        if self.word("NONE") {
            return Ok(RoleSet::None);
        }
        if allow_default && self.word("DEFAULT") {
            return Ok(RoleSet::Default);
        }
        if self.word("ALL") {
            if self.word("EXCEPT") {
                return Ok(RoleSet::AllExcept(self.names()?));
            }
            return Ok(RoleSet::All);
        }
        Ok(RoleSet::Only(self.names()?))
    }

    fn grant(&mut self) -> Result<AccessStatement> {
        if let Some(privileges) = self.privileges_on()? {
            let (privileges, target) = privileges;
            self.expect_word("TO")?;
            let grantees = self.names()?;
            let mut with_grant_option = false;
            let mut replace = false;
            loop {
                if self.words(&["WITH", "GRANT", "OPTION"]) {
                    with_grant_option = true;
                } else if self.words(&["WITH", "REPLACE", "OPTION"]) {
                    replace = true;
                } else {
                    break;
                }
            }
            return Ok(AccessStatement::Grant(Grant {
                privileges,
                target,
                grantees,
                with_grant_option,
                replace,
            }));
        }
        let roles = self.names()?;
        self.expect_word("TO")?;
        let grantees = self.names()?;
        let mut grant = RoleGrant {
            roles,
            grantees,
            admin_option: false,
            replace: false,
        };
        loop {
            if self.words(&["WITH", "ADMIN", "OPTION"]) {
                grant.admin_option = true;
            } else if self.words(&["WITH", "REPLACE", "OPTION"]) {
                grant.replace = true;
            } else {
                return Ok(AccessStatement::GrantRoles(grant));
            }
        }
    }

    fn revoke(&mut self) -> Result<AccessStatement> {
        let grant_option_only = self.words(&["GRANT", "OPTION", "FOR"]);
        let admin_option_only = !grant_option_only && self.words(&["ADMIN", "OPTION", "FOR"]);
        if !admin_option_only && let Some((privileges, target)) = self.privileges_on()? {
            self.expect_word("FROM")?;
            return Ok(AccessStatement::Revoke(Revoke {
                privileges,
                target,
                grantees: self.names()?,
                grant_option_only,
            }));
        }
        let roles = self.names()?;
        self.expect_word("FROM")?;
        Ok(AccessStatement::RevokeRoles(RoleGrant {
            roles,
            grantees: self.names()?,
            admin_option: admin_option_only,
            replace: false,
        }))
    }

    /// `priv[(cols)], ... ON target` if the list ends in ON; else nothing
    /// is consumed (a list of roles follows).
    fn privileges_on(&mut self) -> Result<Option<(Vec<PrivilegeSpec>, GrantTarget)>> {
        if !self.has_on_before_to() {
            return Ok(None);
        }
        let mut privileges = Vec::new();
        loop {
            let mut words = Vec::new();
            while let Token::Word(word) = self.parser.peek_token().token {
                if word.quote_style.is_none() && word.value.eq_ignore_ascii_case("ON") {
                    break;
                }
                self.parser.next_token();
                words.push(word.value.to_ascii_uppercase());
            }
            if words.is_empty() {
                return Err(self.error("Expected a privilege"));
            }
            let columns = if self.parser.consume_token(&Token::LParen) {
                let columns = self.names()?;
                self.expect(&Token::RParen)?;
                columns
            } else {
                Vec::new()
            };
            privileges.push(PrivilegeSpec {
                name: words.join(" "),
                columns,
            });
            if !self.comma() {
                break;
            }
        }
        self.expect_word("ON")?;
        Ok(Some((privileges, self.target()?)))
    }

    /// Whether an unquoted `ON` comes before `TO`/`FROM` at the top level.
    fn has_on_before_to(&self) -> bool {
        for i in 0.. {
            match self.parser.peek_nth_token(i).token {
                Token::EOF => return false,
                Token::Word(w) if w.quote_style.is_none() => {
                    let value = w.value.to_ascii_uppercase();
                    if value == "ON" {
                        return true;
                    }
                    if value == "TO" || value == "FROM" {
                        return false;
                    }
                }
                _ => {}
            }
        }
        false
    }

    fn target(&mut self) -> Result<GrantTarget> {
        let first = if self.parser.consume_token(&Token::Mul) {
            None
        } else {
            Some(self.name()?)
        };
        if !self.parser.consume_token(&Token::Period) {
            return Ok(match first {
                None => GrantTarget::Database(None),
                Some(table) => GrantTarget::Table(None, table),
            });
        }
        let second = if self.parser.consume_token(&Token::Mul) {
            None
        } else {
            Some(self.name()?)
        };
        match (first, second) {
            (None, None) => Ok(GrantTarget::Global),
            (Some(database), None) => Ok(GrantTarget::Database(Some(database))),
            (Some(database), Some(table)) => Ok(GrantTarget::Table(Some(database), table)),
            (None, Some(_)) => Err(self.error("Expected a database before a table")),
        }
    }

    fn set(&mut self) -> Result<AccessStatement> {
        if self.word("ROLE") {
            return Ok(AccessStatement::SetRole(self.role_set(true)?));
        }
        self.expect_word("DEFAULT")?;
        self.expect_word("ROLE")?;
        let roles = self.role_set(false)?;
        self.expect_word("TO")?;
        Ok(AccessStatement::SetDefaultRole {
            roles,
            users: self.names()?,
        })
    }

    fn show(&mut self) -> Result<AccessStatement> {
        if self.word("GRANTS") {
            if self.word("FOR") {
                return Ok(AccessStatement::ShowGrants(Some(self.names()?)));
            }
            return Ok(AccessStatement::ShowGrants(None));
        }
        if self.word("USERS") {
            return Ok(AccessStatement::ShowEntities(EntityKind::User));
        }
        if self.word("ROLES") {
            return Ok(AccessStatement::ShowEntities(EntityKind::Role));
        }
        if self.word("QUOTAS") {
            return Ok(AccessStatement::ShowEntities(EntityKind::Quota));
        }
        if self.words(&["SETTINGS", "PROFILES"]) || self.word("PROFILES") {
            return Ok(AccessStatement::ShowEntities(EntityKind::SettingsProfile));
        }
        if self.word("QUOTA") {
            return Ok(AccessStatement::ShowQuota);
        }
        if self.word("ACCESS") {
            return Ok(AccessStatement::ShowAccess);
        }
        if self.words(&["CURRENT", "ROLES"]) {
            return Ok(AccessStatement::ShowCurrentRoles);
        }
        if self.words(&["ENABLED", "ROLES"]) {
            return Ok(AccessStatement::ShowEnabledRoles);
        }
        self.expect_word("CREATE")?;
        let kind = self.entity_kind()?;
        let names = if self.at_end() {
            Vec::new()
        } else {
            self.names()?
        };
        Ok(AccessStatement::ShowCreate { kind, names })
    }

    fn names(&mut self) -> Result<Vec<String>> {
        let mut names = vec![self.name()?];
        while self.comma() {
            names.push(self.name()?);
        }
        Ok(names)
    }

    /// A name: a word (quoted or not) or a string literal; `CURRENT_USER`
    /// is kept as written for the engine.
    fn name(&mut self) -> Result<String> {
        match self.parser.next_token().token {
            Token::Word(word) => Ok(word.value),
            Token::SingleQuotedString(text) => Ok(text),
            _ => Err(self.error("Expected a name")),
        }
    }

    fn string(&mut self) -> Result<String> {
        match self.parser.next_token().token {
            Token::SingleQuotedString(text) => Ok(text),
            _ => Err(self.error("Expected a string literal")),
        }
    }

    fn comma(&mut self) -> bool {
        self.parser.consume_token(&Token::Comma)
    }

    fn word(&mut self, word: &str) -> bool {
        parse_word(self.parser, word)
    }

    /// Consumes `words` if all come next, else nothing.
    fn words(&mut self, words: &[&str]) -> bool {
        let all = words.iter().enumerate().all(|(i, expected)| {
            matches!(self.parser.peek_nth_token(i).token,
                Token::Word(w) if w.quote_style.is_none() && w.value.eq_ignore_ascii_case(expected))
        });
        if all {
            for _ in words {
                self.parser.next_token();
            }
        }
        all
    }

    fn expect_word(&mut self, word: &str) -> Result<()> {
        if self.word(word) {
            Ok(())
        } else {
            Err(self.error(&format!("Expected {word}")))
        }
    }

    fn expect(&mut self, token: &Token) -> Result<()> {
        if self.parser.consume_token(token) {
            Ok(())
        } else {
            Err(self.error(&format!("Expected {token}")))
        }
    }

    fn at_end(&self) -> bool {
        matches!(
            self.parser.peek_token().token,
            Token::EOF | Token::SemiColon
        )
    }

    fn end(&mut self) -> Result<()> {
        let _ = self.parser.consume_token(&Token::SemiColon);
        if self.at_end() {
            Ok(())
        } else {
            let next = self.parser.peek_token().token.to_string();
            Err(self.error(&format!("Unexpected {next}")))
        }
    }

    fn error(&self, detail: &str) -> StrataError {
        syntax(self.sql, detail)
    }
}

fn syntax(sql: &str, detail: &str) -> StrataError {
    crate::parser::syntax_error(sql, detail)
}

#[cfg(test)]
mod tests {
    use strata_common::ErrorCode;

    use super::*;

    fn parse(sql: &str) -> AccessStatement {
        assert!(is_access_statement(sql), "{sql}");
        parse_access_statement(sql).unwrap_or_else(|e| panic!("{sql}: {e}"))
    }

    #[test]
    fn quotas() {
        let AccessStatement::CreateQuota(create) = parse(
            "CREATE QUOTA q KEYED BY user_name FOR INTERVAL 1 hour MAX queries = 10, read_rows = 1e6, \
             FOR RANDOMIZED INTERVAL 2 days TRACKING ONLY TO alice, r",
        ) else {
            panic!("not CREATE QUOTA");
        };
        let options = create.options;
        assert_eq!(options.keys, Some(vec!["user_name".to_string()]));
        let intervals = options.intervals.unwrap();
        assert_eq!(intervals.len(), 2);
        assert_eq!(intervals[0].seconds, 3600);
        assert_eq!(intervals[0].limits, vec![(0, 10.0), (6, 1e6)]);
        assert!(intervals[1].randomized && intervals[1].limits.is_empty());
        assert_eq!(intervals[1].seconds, 2 * 86_400);
        assert_eq!(
            options.to,
            Some(RoleSet::Only(vec!["alice".into(), "r".into()]))
        );
        assert!(matches!(
            parse("ALTER QUOTA IF EXISTS q NOT KEYED FOR INTERVAL 1 minute NO LIMITS"),
            AccessStatement::AlterQuota(_)
        ));
        assert!(matches!(parse("SHOW QUOTA"), AccessStatement::ShowQuota));
        assert!(matches!(
            parse("DROP QUOTA IF EXISTS q"),
            AccessStatement::Drop {
                kind: EntityKind::Quota,
                ..
            }
        ));
        let error =
            parse_access_statement("CREATE QUOTA q FOR INTERVAL 1 hour MAX rows = 1").unwrap_err();
        assert_eq!(error.code, ErrorCode::SYNTAX_ERROR);
    }

    #[test]
    fn users_and_roles() {
        let AccessStatement::CreateUser(create) = parse(
            "CREATE USER IF NOT EXISTS alice, bob IDENTIFIED WITH sha256_password BY 'x' \
             HOST IP '10.0.0.0/8', LOCAL DEFAULT ROLE r1 DEFAULT DATABASE db SETTINGS max_threads = 2",
        ) else {
            panic!("not CREATE USER");
        };
        assert_eq!(create.names, vec!["alice", "bob"]);
        assert!(create.if_not_exists);
        let auth = create.options.authentication.unwrap();
        assert_eq!(auth.kind.as_deref(), Some("sha256_password"));
        assert_eq!(auth.value.as_deref(), Some("x"));
        assert_eq!(
            create.options.hosts,
            Some(vec![HostSpec::Ip("10.0.0.0/8".into()), HostSpec::Local])
        );
        assert_eq!(
            create.options.default_roles,
            Some(RoleSet::Only(vec!["r1".into()]))
        );
        assert_eq!(create.options.default_database, Some(Some("db".into())));
        assert_eq!(
            create.options.settings,
            Some(vec![SettingsElement::Setting(
                settings_profile::SettingElement {
                    name: "max_threads".into(),
                    value: Some("2".into()),
                    ..Default::default()
                }
            )])
        );
        assert!(matches!(
            parse("ALTER USER alice RENAME TO carol NOT IDENTIFIED"),
            AccessStatement::AlterUser(AlterEntity {
                rename_to: Some(_),
                ..
            })
        ));
        assert!(matches!(
            parse("DROP ROLE IF EXISTS r1, r2"),
            AccessStatement::Drop {
                kind: EntityKind::Role,
                if_exists: true,
                ..
            }
        ));
        assert!(matches!(
            parse("CREATE OR REPLACE ROLE r"),
            AccessStatement::CreateRole(_)
        ));
    }

    #[test]
    fn grants_of_privileges_and_roles() {
        let AccessStatement::Grant(grant) = parse(
            "GRANT SELECT(a, b), ALTER UPDATE, INSERT ON db.t TO alice, r1 WITH GRANT OPTION",
        ) else {
            panic!("not GRANT");
        };
        assert_eq!(grant.privileges.len(), 3);
        assert_eq!(grant.privileges[0].columns, vec!["a", "b"]);
        assert_eq!(grant.privileges[1].name, "ALTER UPDATE");
        assert_eq!(
            grant.target,
            GrantTarget::Table(Some("db".into()), "t".into())
        );
        assert!(grant.with_grant_option);
        let AccessStatement::Grant(grant) = parse("GRANT ALL ON *.* TO admin") else {
            panic!("not GRANT");
        };
        assert_eq!(grant.target, GrantTarget::Global);
        let AccessStatement::GrantRoles(roles) = parse("GRANT r1, r2 TO alice WITH ADMIN OPTION")
        else {
            panic!("not a role grant");
        };
        assert!(roles.admin_option);
        let AccessStatement::Revoke(revoke) =
            parse("REVOKE GRANT OPTION FOR SELECT ON db.* FROM a")
        else {
            panic!("not REVOKE");
        };
        assert!(revoke.grant_option_only);
        assert_eq!(revoke.target, GrantTarget::Database(Some("db".into())));
        assert!(matches!(
            parse("REVOKE r1 FROM alice"),
            AccessStatement::RevokeRoles(_)
        ));
        assert!(matches!(
            parse("SET ROLE DEFAULT"),
            AccessStatement::SetRole(RoleSet::Default)
        ));
        assert!(matches!(
            parse("SET DEFAULT ROLE ALL EXCEPT r1 TO alice"),
            AccessStatement::SetDefaultRole {
                roles: RoleSet::AllExcept(_),
                ..
            }
        ));
        assert!(matches!(
            parse("SHOW GRANTS FOR alice"),
            AccessStatement::ShowGrants(Some(_))
        ));
        assert!(matches!(
            parse("SHOW CREATE USER"),
            AccessStatement::ShowCreate { .. }
        ));
    }

    #[test]
    fn bad_statements_are_syntax_errors() {
        for sql in [
            "GRANT SELECT ON db.t",
            "CREATE USER",
            "GRANT SELECT ON *.t TO a",
            "CREATE USER a IDENTIFIED",
            "CREATE USER a HOST NAME 'x'",
        ] {
            let error = parse_access_statement(sql).unwrap_err();
            assert_eq!(error.code, ErrorCode::SYNTAX_ERROR, "{sql}");
        }
        assert!(!is_access_statement("SET max_threads = 1"));
        assert!(!is_access_statement(
            "CREATE TABLE t (a Int8) ENGINE = Memory"
        ));
        assert!(!is_access_statement("SHOW TABLES"));
        assert!(!is_access_statement("SHOW SETTINGS LIKE 'max%'"));
    }

    #[test]
    fn settings_profiles() {
        use settings_profile::SettingElement;
        use strata_common::settings::constraints::Writability;
        let sql = "CREATE SETTINGS PROFILE p SETTINGS PROFILE 'base', \
                   max_memory_usage = 100000001 MIN 90000000 MAX = 110000000, \
                   max_threads READONLY, readonly = 1 CHANGEABLE_IN_READONLY TO robin, r";
        assert!(is_access_statement("CREATE OR REPLACE SETTINGS PROFILE p"));
        let AccessStatement::CreateSettingsProfile(create) = parse(sql) else {
            panic!("not CREATE SETTINGS PROFILE");
        };
        assert_eq!(create.names, ["p"]);
        let elements = create.options.settings.unwrap();
        assert_eq!(elements[0], SettingsElement::Profile("base".into()));
        assert_eq!(
            elements[1],
            SettingsElement::Setting(SettingElement {
                name: "max_memory_usage".into(),
                value: Some("100000001".into()),
                min: Some("90000000".into()),
                max: Some("110000000".into()),
                writability: None,
            })
        );
        let SettingsElement::Setting(constant) = &elements[2] else {
            panic!("a setting")
        };
        assert_eq!(constant.writability, Some(Writability::Const));
        assert_eq!(constant.value, None);
        let SettingsElement::Setting(changeable) = &elements[3] else {
            panic!("a setting")
        };
        assert_eq!(
            changeable.writability,
            Some(Writability::ChangeableInReadonly)
        );
        assert_eq!(
            create.options.to,
            Some(RoleSet::Only(vec!["robin".into(), "r".into()]))
        );
        let AccessStatement::AlterSettingsProfile(alter) =
            parse("ALTER PROFILE p SETTINGS NONE TO NONE")
        else {
            panic!("not ALTER SETTINGS PROFILE");
        };
        assert_eq!(alter.options.settings, Some(Vec::new()));
        assert_eq!(alter.options.to, Some(RoleSet::None));
        assert_eq!(
            parse("SHOW SETTINGS PROFILES"),
            AccessStatement::ShowEntities(EntityKind::SettingsProfile)
        );
        assert!(matches!(
            parse("DROP SETTINGS PROFILE IF EXISTS p, q"),
            AccessStatement::Drop {
                kind: EntityKind::SettingsProfile,
                ..
            }
        ));
        assert!(matches!(
            parse("SHOW CREATE PROFILE p"),
            AccessStatement::ShowCreate {
                kind: EntityKind::SettingsProfile,
                ..
            }
        ));
    }
}
