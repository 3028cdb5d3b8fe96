//! The clauses of `CREATE | ALTER QUOTA`:
//! `[KEYED BY key, ... | NOT KEYED]`,
//! `[FOR [RANDOMIZED] INTERVAL n unit {MAX resource = n, ... | NO LIMITS | TRACKING ONLY}, ...]`,
//! `[TO {name, ... | ALL | ALL EXCEPT name, ... | NONE}]`.

use datafusion::sql::sqlparser::tokenizer::Token;
use strata_common::Result;

use super::{Reader, RoleSet};

/// What a quota counts, in ClickHouse's order and names.
pub const QUOTA_RESOURCES: [&str; 11] = [
    "queries",
    "query_selects",
    "query_inserts",
    "errors",
    "result_rows",
    "result_bytes",
    "read_rows",
    "read_bytes",
    "execution_time",
    "written_bytes",
    "failed_sequential_authentications",
];

/// What a quota is keyed by, as ClickHouse names the keys.
pub const QUOTA_KEYS: [&str; 4] = [
    "user_name",
    "ip_address",
    "forwarded_ip_address",
    "client_key",
];

/// Interval units and their lengths in seconds (months, quarters and years
/// at their average length, as ClickHouse counts them).
pub const INTERVAL_UNITS: [(&str, u64); 8] = [
    ("year", 31_556_952),
    ("quarter", 7_889_238),
    ("month", 2_629_746),
    ("week", 604_800),
    ("day", 86_400),
    ("hour", 3_600),
    ("minute", 60),
    ("second", 1),
];

/// What CREATE or ALTER QUOTA sets; None leaves it as it is.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct QuotaOptions {
    /// `KEYED BY`; empty for `NOT KEYED`.
    pub keys: Option<Vec<String>>,
    pub intervals: Option<Vec<QuotaIntervalSpec>>,
    /// `TO`: users and roles the quota applies to.
    pub to: Option<RoleSet>,
}

/// `FOR [RANDOMIZED] INTERVAL n unit ...`.
#[derive(Debug, Clone, PartialEq)]
pub struct QuotaIntervalSpec {
    pub seconds: u64,
    pub randomized: bool,
    /// Indexes into [`QUOTA_RESOURCES`] and their maximums; empty for
    /// `TRACKING ONLY` (counted, never limited).
    pub limits: Vec<(usize, f64)>,
    /// `NO LIMITS`: the interval is not kept.
    pub no_limits: bool,
}

impl Reader<'_, '_> {
    /// The clauses of CREATE or ALTER QUOTA, in any order.
    pub(super) fn quota_options(&mut self) -> Result<QuotaOptions> {
        let mut options = QuotaOptions::default();
        loop {
            if self.words(&["NOT", "KEYED"]) {
                options.keys = Some(Vec::new());
            } else if self.words(&["KEYED", "BY"]) {
                options.keys = Some(self.quota_keys()?);
            } else if self.word("FOR") {
                let mut intervals = vec![self.quota_interval()?];
                while self.parser.peek_token().token == Token::Comma {
                    self.comma();
                    self.expect_word("FOR")?;
                    intervals.push(self.quota_interval()?);
                }
                options.intervals = Some(intervals);
            } else if self.word("TO") {
                options.to = Some(self.role_set(false)?);
            } else {
                return Ok(options);
            }
        }
    }

    fn quota_keys(&mut self) -> Result<Vec<String>> {
        let mut keys = Vec::new();
        loop {
            let key = self.name()?.to_ascii_lowercase();
            if !QUOTA_KEYS.contains(&key.as_str()) {
                return Err(self.error(&format!(
                    "Unknown quota key {key}; expected one of {}",
                    QUOTA_KEYS.join(", ")
                )));
            }
            keys.push(key);
            if !self.comma() {
                return Ok(keys);
            }
        }
    }

    fn quota_interval(&mut self) -> Result<QuotaIntervalSpec> {
        let randomized = self.word("RANDOMIZED");
        self.expect_word("INTERVAL")?;
        let count = self.number()?;
        let unit = self.name()?.to_ascii_lowercase();
        let singular = unit.strip_suffix('s').unwrap_or(&unit);
        let Some((_, seconds)) = INTERVAL_UNITS.iter().find(|(u, _)| *u == singular) else {
            return Err(self.error(&format!("Unknown interval unit {unit}")));
        };
        if count <= 0.0 || count.fract() != 0.0 {
            return Err(self.error("An interval's length must be a positive whole number"));
        }
        let mut spec = QuotaIntervalSpec {
            seconds: count as u64 * seconds,
            randomized,
            limits: Vec::new(),
            no_limits: false,
        };
        if self.words(&["NO", "LIMITS"]) {
            spec.no_limits = true;
        } else if self.words(&["TRACKING", "ONLY"]) {
        } else {
            self.expect_word("MAX")?;
            spec.limits = self.quota_limits()?;
        }
        Ok(spec)
    }

    /// `resource = n, ...` (the `=` may be left out); stops before `, FOR`.
    fn quota_limits(&mut self) -> Result<Vec<(usize, f64)>> {
        let mut limits = Vec::new();
        loop {
            let name = self.name()?.to_ascii_lowercase();
            let Some(resource) = QUOTA_RESOURCES.iter().position(|r| *r == name) else {
                return Err(self.error(&format!("Unknown quota resource {name}")));
            };
            let _ = self.parser.consume_token(&Token::Eq);
            limits.push((resource, self.number()?));
            let more = self.parser.peek_token().token == Token::Comma
                && !matches!(self.parser.peek_nth_token(1).token,
                    Token::Word(w) if w.value.eq_ignore_ascii_case("FOR"));
            if !more {
                return Ok(limits);
            }
            self.comma();
        }
    }

    fn number(&mut self) -> Result<f64> {
        match self.parser.next_token().token {
            Token::Number(text, _) => text
                .parse()
                .map_err(|_| self.error(&format!("Expected a number, got {text}"))),
            _ => Err(self.error("Expected a number")),
        }
    }
}
