//! Quotas: limits on what a user (or a key such as the client's address)
//! may use per interval of time, as ClickHouse defines them.
//!
//! A query is counted when it starts (`queries`, `query_selects`,
//! `query_inserts`) and fails with QUOTA_EXCEEDED when that passes a
//! maximum, or when a figure counted for earlier queries of the interval
//! already has; the rest (rows and bytes read, result rows and bytes,
//! bytes written, execution time, errors) is counted when the query ends.
//! Usage lives in memory, as in ClickHouse, and restarts with the server.

use std::collections::{BTreeMap, HashMap};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use parking_lot::Mutex;
use strata_common::{ErrorCode, Result, StrataError};
use strata_sql::access::quota::{INTERVAL_UNITS, QUOTA_RESOURCES, QuotaIntervalSpec, QuotaOptions};
use strata_sql::access::{AlterEntity, CreateEntity, EntityKind, RoleSet};

use super::entities::{already_exists, not_found};
use super::text::role_set_text;
use super::{EnabledAccess, Entities, role_set_applies};
use crate::table_definition::quote_name;

/// Counted figures, indexed as [`QUOTA_RESOURCES`].
pub type Figures = [f64; QUOTA_RESOURCES.len()];

const QUERIES: usize = 0;
const QUERY_SELECTS: usize = 1;
const QUERY_INSERTS: usize = 2;
const ERRORS: usize = 3;
const RESULT_ROWS: usize = 4;
const RESULT_BYTES: usize = 5;
const READ_ROWS: usize = 6;
const READ_BYTES: usize = 7;
const EXECUTION_TIME: usize = 8;
const WRITTEN_BYTES: usize = 9;

#[derive(Debug, Clone)]
pub struct Quota {
    pub name: String,
    pub id: uuid::Uuid,
    /// `user_name`, `ip_address`, ...; empty: one usage shared by everyone.
    pub keys: Vec<String>,
    pub intervals: Vec<QuotaInterval>,
    /// The users and roles it applies to.
    pub to: RoleSet,
}

#[derive(Debug, Clone, PartialEq)]
pub struct QuotaInterval {
    pub seconds: u64,
    pub randomized: bool,
    pub max: [Option<f64>; QUOTA_RESOURCES.len()],
}

impl QuotaInterval {
    fn of(spec: &QuotaIntervalSpec) -> QuotaInterval {
        let mut max = [None; QUOTA_RESOURCES.len()];
        for (resource, value) in &spec.limits {
            max[*resource] = Some(*value);
        }
        QuotaInterval {
            seconds: spec.seconds,
            randomized: spec.randomized,
            max,
        }
    }
}

impl Quota {
    /// Whether the quota applies to `user` with `roles` enabled.
    /// `CREATE QUOTA ...` that recreates it.
    pub fn create_text(&self) -> String {
        let mut text = format!("CREATE QUOTA {}", quote_name(&self.name));
        if !self.keys.is_empty() {
            text.push_str(&format!(" KEYED BY {}", self.keys.join(", ")));
        }
        let intervals: Vec<String> = self.intervals.iter().map(interval_text).collect();
        if !intervals.is_empty() {
            text.push(' ');
            text.push_str(&intervals.join(", "));
        }
        if self.to != RoleSet::None {
            text.push_str(&format!(" TO {}", role_set_text(&self.to)));
        }
        text
    }
}

/// `FOR [RANDOMIZED] INTERVAL n unit MAX a = 1, ...` in the largest unit
/// that divides the length.
fn interval_text(interval: &QuotaInterval) -> String {
    let (unit, length) = INTERVAL_UNITS
        .iter()
        .find(|(_, length)| interval.seconds % length == 0)
        .expect("seconds divide every length");
    let randomized = if interval.randomized {
        "RANDOMIZED "
    } else {
        ""
    };
    let limits: Vec<String> = QUOTA_RESOURCES
        .iter()
        .zip(interval.max)
        .filter_map(|(name, max)| Some(format!("{name} = {}", max?)))
        .collect();
    let limits = if limits.is_empty() {
        "TRACKING ONLY".to_string()
    } else {
        format!("MAX {}", limits.join(", "))
    };
    format!(
        "FOR {randomized}INTERVAL {} {unit} {limits}",
        interval.seconds / length
    )
}

impl Entities {
    pub fn create_quota(&mut self, create: &CreateEntity<QuotaOptions>) -> Result<()> {
        for name in &create.names {
            if self.quotas.contains_key(name) {
                if create.if_not_exists {
                    continue;
                }
                if !create.or_replace {
                    return Err(already_exists(EntityKind::Quota, name));
                }
            }
            let mut quota = Quota {
                name: name.clone(),
                id: uuid::Uuid::new_v4(),
                keys: Vec::new(),
                intervals: Vec::new(),
                to: RoleSet::None,
            };
            apply(&mut quota, &create.options);
            self.quotas.insert(name.clone(), quota);
        }
        Ok(())
    }

    pub fn alter_quota(&mut self, alter: &AlterEntity<QuotaOptions>) -> Result<()> {
        for name in &alter.names {
            let Some(quota) = self.quotas.get(name) else {
                if alter.if_exists {
                    continue;
                }
                return Err(not_found(EntityKind::Quota, name));
            };
            let mut quota = quota.clone();
            apply(&mut quota, &alter.options);
            if let Some(new_name) = &alter.rename_to {
                if new_name != name && self.quotas.contains_key(new_name) {
                    return Err(already_exists(EntityKind::Quota, new_name));
                }
                self.quotas.remove(name);
                quota.name = new_name.clone();
            }
            self.quotas.insert(quota.name.clone(), quota);
        }
        Ok(())
    }
}

fn apply(quota: &mut Quota, options: &QuotaOptions) {
    if let Some(keys) = &options.keys {
        quota.keys = keys.clone();
    }
    if let Some(intervals) = &options.intervals {
        for spec in intervals {
            // An interval given again replaces the one of the same length.
            quota.intervals.retain(|i| i.seconds != spec.seconds);
            if !spec.no_limits {
                quota.intervals.push(QuotaInterval::of(spec));
            }
        }
        quota.intervals.sort_by_key(|i| i.seconds);
    }
    if let Some(to) = &options.to {
        quota.to = to.clone();
    }
}

/// Which usage a query is counted in: a quota and its key's value.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct QuotaTicket {
    pub quota: String,
    pub key: String,
}

/// What a query is, for the counters that tell kinds apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum QueryKind {
    Select,
    Insert,
    Other,
}

/// One interval's usage.
#[derive(Debug, Clone)]
pub struct IntervalUsage {
    pub seconds: u64,
    pub end: SystemTime,
    pub used: Figures,
}

/// Usage per quota and key.
#[derive(Debug, Default)]
pub struct QuotaUsage {
    usage: Mutex<HashMap<QuotaTicket, Vec<IntervalUsage>>>,
}

/// The first quota (by name) that applies to the session's user, and the key
/// its usage is kept under.
pub(super) fn ticket(
    quotas: &BTreeMap<String, Quota>,
    access: &EnabledAccess,
    address: &str,
    client_key: &str,
) -> Option<QuotaTicket> {
    let quota = quotas
        .values()
        .find(|q| role_set_applies(&q.to, &access.user, |r| access.enabled_roles.contains(r)))?;
    let key = quota
        .keys
        .iter()
        .map(|key| match key.as_str() {
            "user_name" => access.user.clone(),
            "client_key" if !client_key.is_empty() => client_key.to_string(),
            "client_key" => access.user.clone(),
            _ => address.to_string(),
        })
        .collect::<Vec<_>>()
        .join(",");
    Some(QuotaTicket {
        quota: quota.name.clone(),
        key,
    })
}

impl QuotaUsage {
    /// Counts a query's start; fails when that, or what earlier queries of
    /// an interval used, passes a maximum.
    pub(super) fn begin(&self, quota: &Quota, ticket: &QuotaTicket, kind: QueryKind) -> Result<()> {
        let mut usage = self.usage.lock();
        let intervals = current(usage.entry(ticket.clone()).or_default(), quota);
        for interval in intervals.iter_mut() {
            interval.used[QUERIES] += 1.0;
            match kind {
                QueryKind::Select => interval.used[QUERY_SELECTS] += 1.0,
                QueryKind::Insert => interval.used[QUERY_INSERTS] += 1.0,
                QueryKind::Other => {}
            }
        }
        for (interval, limits) in intervals.iter().zip(&quota.intervals) {
            let passed = (0..QUOTA_RESOURCES.len())
                .find(|i| limits.max[*i].is_some_and(|max| interval.used[*i] > max));
            if let Some(resource) = passed {
                let max = limits.max[resource].expect("found by its maximum");
                return Err(exceeded(quota, ticket, interval, resource, max));
            }
        }
        Ok(())
    }

    /// Counts what a finished query used.
    pub(super) fn end(&self, quota: &Quota, ticket: &QuotaTicket, used: &Figures) {
        let mut usage = self.usage.lock();
        for interval in current(usage.entry(ticket.clone()).or_default(), quota) {
            for (total, add) in interval.used.iter_mut().zip(used) {
                *total += add;
            }
        }
    }

    /// Every key's usage of every interval, for `system.quotas_usage`.
    pub fn snapshot(&self) -> Vec<(QuotaTicket, Vec<IntervalUsage>)> {
        let usage = self.usage.lock();
        let mut rows: Vec<_> = usage.iter().map(|(t, u)| (t.clone(), u.clone())).collect();
        rows.sort_by(|a, b| (&a.0.quota, &a.0.key).cmp(&(&b.0.quota, &b.0.key)));
        rows
    }
}

/// The usage of each of `quota`'s intervals now: an interval past its end
/// starts again at zero, and a changed quota's intervals are rebuilt.
fn current<'a>(intervals: &'a mut Vec<IntervalUsage>, quota: &Quota) -> &'a mut Vec<IntervalUsage> {
    let now = SystemTime::now();
    let same = intervals.len() == quota.intervals.len()
        && intervals
            .iter()
            .zip(&quota.intervals)
            .all(|(u, q)| u.seconds == q.seconds);
    if !same {
        *intervals = quota
            .intervals
            .iter()
            .map(|q| IntervalUsage {
                seconds: q.seconds,
                end: interval_end(now, q),
                used: [0.0; QUOTA_RESOURCES.len()],
            })
            .collect();
    }
    for (usage, limits) in intervals.iter_mut().zip(&quota.intervals) {
        if now >= usage.end {
            usage.end = interval_end(now, limits);
            usage.used = [0.0; QUOTA_RESOURCES.len()];
        }
    }
    intervals
}

/// The end of the interval `now` is in: intervals are aligned to multiples
/// of their length since the epoch; a randomized one is shifted by a random
/// part of its length, so keys do not all start again at once.
fn interval_end(now: SystemTime, interval: &QuotaInterval) -> SystemTime {
    let length = interval.seconds.max(1);
    let offset = if interval.randomized {
        rand::random_range(0..length)
    } else {
        0
    };
    let since = now.duration_since(UNIX_EPOCH).unwrap_or_default().as_secs();
    let end = (since.saturating_sub(offset) / length + 1) * length + offset;
    UNIX_EPOCH + Duration::from_secs(end)
}

fn exceeded(
    quota: &Quota,
    ticket: &QuotaTicket,
    interval: &IntervalUsage,
    resource: usize,
    max: f64,
) -> StrataError {
    let end: chrono::DateTime<chrono::Utc> = interval.end.into();
    StrataError::new(
        ErrorCode::QUOTA_EXCEEDED,
        format!(
            "Quota for user {} for {}s has been exceeded: {} = {}/{}. \
             Interval will end at {}. Name of quota template: {}",
            backquoted(&ticket.key),
            interval.seconds,
            QUOTA_RESOURCES[resource],
            interval.used[resource],
            max,
            end.format("%Y-%m-%d %H:%M:%S"),
            backquoted(&quota.name)
        ),
    )
}

/// A name in backquotes, as ClickHouse's quota messages write every name.
fn backquoted(name: &str) -> String {
    format!("`{}`", name.replace('`', "\\`"))
}

/// What a finished query used, as quotas count it.
pub fn used_by(query: &crate::query_context::QueryContext, failed: bool) -> Figures {
    let mut used = [0.0; QUOTA_RESOURCES.len()];
    used[ERRORS] = f64::from(u8::from(failed));
    used[RESULT_ROWS] = query.result_rows() as f64;
    used[RESULT_BYTES] = query.result_bytes() as f64;
    used[READ_ROWS] = query.rows_read() as f64;
    used[READ_BYTES] = query.bytes_read() as f64;
    used[EXECUTION_TIME] = query.started.elapsed().as_secs_f64();
    used[WRITTEN_BYTES] = query.written_bytes() as f64;
    used
}

impl QueryKind {
    /// The kind of a statement, by its first word.
    pub fn of(text: &str) -> QueryKind {
        let first = text.trim_start().trim_start_matches('(');
        let first = first.split_whitespace().next().unwrap_or("");
        if ["SELECT", "WITH"]
            .iter()
            .any(|k| first.eq_ignore_ascii_case(k))
        {
            QueryKind::Select
        } else if first.eq_ignore_ascii_case("INSERT") {
            QueryKind::Insert
        } else {
            QueryKind::Other
        }
    }
}
