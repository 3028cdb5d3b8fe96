//! Every statement is checked against the session user's rights (with
//! those of their enabled roles) before it runs: each family asks for the
//! privilege it needs on its object; reads are checked on the optimized
//! plan, where each table scan names the columns it reads, so `SELECT a`
//! needs `SELECT(a)` and `count()` SELECT on at least one column.

use std::sync::Arc;

use datafusion::common::tree_node::TreeNodeRecursion;
use datafusion::execution::session_state::SessionState;
use datafusion::logical_expr::{LogicalPlan, TableScan};
use datafusion::physical_plan::ExecutionPlan;
use datafusion::sql::sqlparser::ast::ObjectName;
use strata_common::{ErrorCode, Result, StrataError};

use crate::access::EnabledAccess;
use crate::access::privileges::{AccessFlags, Depth, catalog};
use crate::access::text::object_text;
use crate::session::{Session, is_temporary_database};
use crate::system::SYSTEM_DATABASE;

/// System tables anyone may read (ClickHouse's constant and catalog tables).
const OPEN_SYSTEM_TABLES: [&str; 15] = [
    "one",
    "numbers",
    "numbers_mt",
    "zeros",
    "zeros_mt",
    "settings",
    "functions",
    "formats",
    "data_type_families",
    "table_engines",
    "aggregate_function_combinators",
    "privileges",
    "databases",
    "tables",
    "columns",
];

impl Session {
    /// The session user's rights now, recomputed when access control changed.
    pub(crate) fn enabled_access(&self) -> Result<Arc<EnabledAccess>> {
        let control = &self.engine.instance.access;
        let mut cached = self.access_cache.lock();
        if let Some(access) = cached.as_ref()
            && access.version == control.version()
        {
            return Ok(Arc::clone(access));
        }
        let access = Arc::new(control.enabled(&self.client.user, self.role_choice.as_ref())?);
        *cached = Some(Arc::clone(&access));
        Ok(access)
    }

    /// Fails with ACCESS_DENIED unless `privilege` is granted on `path`.
    pub(crate) fn require(&self, privilege: &str, path: &[&str]) -> Result<()> {
        self.require_flags(catalog().flags(privilege), path, &[])
    }

    /// `flags` on `path`, or on each of `columns` of the table at `path`.
    pub(crate) fn require_flags(
        &self,
        flags: AccessFlags,
        path: &[&str],
        columns: &[&str],
    ) -> Result<()> {
        let access = self.enabled_access()?;
        let granted = if columns.is_empty() {
            access.is_granted(flags, path)
        } else {
            columns.iter().all(|column| {
                let mut full = path.to_vec();
                full.push(column);
                access.is_granted(flags, &full)
            })
        };
        if granted {
            return Ok(());
        }
        let depth = if columns.is_empty() {
            Depth::of_path(path.len())
        } else {
            Depth::Column
        };
        let names = catalog().names(flags, depth).join(", ");
        let columns = if columns.is_empty() {
            String::new()
        } else {
            format!("({})", columns.join(", "))
        };
        Err(access_denied(
            &access.user,
            &format!("{names}{columns}"),
            path,
        ))
    }

    /// `privilege` on `database.table` (on each of `columns`, if given);
    /// a session's temporary tables are its own.
    pub(crate) fn require_on_table(
        &self,
        privilege: &str,
        (database, table): (&str, &str),
        columns: &[String],
    ) -> Result<()> {
        if is_temporary_database(database) {
            return Ok(());
        }
        let columns: Vec<&str> = columns.iter().map(String::as_str).collect();
        self.require_flags(catalog().flags(privilege), &[database, table], &columns)
    }

    /// `require_on_table` for a table as the statement names it.
    pub(crate) fn require_on_name(
        &self,
        privilege: &str,
        name: &ObjectName,
        columns: &[String],
    ) -> Result<()> {
        let (database, table) = self.table_name(name)?;
        self.require_on_table(privilege, (&database, &table), columns)
    }

    /// Whether the user may see the object at `path` at all: any privilege
    /// on it or below it shows it (ClickHouse's implicit SHOW).
    pub(crate) fn may_show(&self, path: &[&str]) -> Result<bool> {
        let access = self.enabled_access()?;
        Ok(path.first() == Some(&SYSTEM_DATABASE)
            || access.rights.is_granted_anywhere(catalog().all(), path))
    }

    /// Whether some privilege is granted on `*.*`, so every object shows.
    pub(crate) fn sees_everything(&self) -> Result<bool> {
        Ok(!self.enabled_access()?.rights.flags_at(&[]).is_empty())
    }

    /// ACCESS_DENIED as for SHOW TABLES unless the user may see `path`.
    pub(crate) fn require_show(&self, path: &[&str]) -> Result<()> {
        if self.may_show(path)? {
            return Ok(());
        }
        let privilege = if path.len() == 1 {
            "SHOW DATABASES"
        } else {
            "SHOW COLUMNS"
        };
        let user = self.client.user.clone();
        Err(access_denied(&user, privilege, path))
    }

    /// Optimizes `plan`, checks what it reads, and plans its execution.
    pub(crate) async fn physical_plan(
        &self,
        state: &SessionState,
        plan: &LogicalPlan,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        let optimized = state.optimize(plan)?;
        self.check_reads(&optimized)?;
        Ok(state
            .query_planner()
            .create_physical_plan(&optimized, state)
            .await?)
    }

    /// SELECT on the columns each table scan of `plan` reads.
    pub(crate) fn check_reads(&self, plan: &LogicalPlan) -> Result<()> {
        let mut failure = None;
        plan.apply_with_subqueries(|node| {
            if let LogicalPlan::TableScan(scan) = node
                && let Err(error) = self.check_scan(scan)
            {
                failure = Some(error);
                return Ok(TreeNodeRecursion::Stop);
            }
            Ok(TreeNodeRecursion::Continue)
        })?;
        failure.map_or(Ok(()), Err)
    }

    fn check_scan(&self, scan: &TableScan) -> Result<()> {
        let name = &scan.table_name;
        let database = match name.schema() {
            Some(database) => database.to_string(),
            // A table function (`numbers(10)`) reads no table.
            None if name.table().contains("()") => return Ok(()),
            None => self.current_database.clone(),
        };
        let table = name.table();
        if is_temporary_database(&database) {
            return Ok(());
        }
        if database == SYSTEM_DATABASE {
            return self.check_system_read(table);
        }
        // Filters pushed into the scan read columns the projection may not list.
        let mut columns: Vec<&str> = scan
            .projected_schema
            .fields()
            .iter()
            .map(|f| f.name().as_str())
            .collect();
        for filter in &scan.filters {
            for column in filter.column_refs() {
                if !columns.contains(&column.name.as_str()) {
                    columns.push(&column.name);
                }
            }
        }
        if columns.is_empty() {
            return self.require_select_any(&database, table);
        }
        self.require_flags(catalog().flags("SELECT"), &[&database, table], &columns)
    }

    /// SELECT on at least one column of `database.table`, as reading a
    /// view or `count()` needs.
    pub(crate) fn require_select_any(&self, database: &str, table: &str) -> Result<()> {
        let access = self.enabled_access()?;
        if access
            .rights
            .is_granted_anywhere(catalog().flags("SELECT"), &[database, table])
        {
            return Ok(());
        }
        Err(StrataError::new(
            ErrorCode::ACCESS_DENIED,
            format!(
                "{}: Not enough privileges. To execute this query, it's necessary to have \
                 the grant SELECT for at least one column on {}",
                access.user,
                object_text(Some(database), Some(table))
            ),
        ))
    }

    /// System tables need SELECT on them, but for the open ones; those of
    /// users and grants need SHOW USERS or SHOW ROLES instead, those of
    /// quotas SHOW QUOTAS.
    fn check_system_read(&self, table: &str) -> Result<()> {
        if OPEN_SYSTEM_TABLES.contains(&table) {
            return Ok(());
        }
        let show = |names: &[&str]| {
            names
                .iter()
                .fold(AccessFlags::NONE, |acc, n| acc | catalog().flags(n))
        };
        match table {
            "users" => self.require_flags(show(&["SHOW USERS"]), &[], &[]),
            "roles" => self.require_flags(show(&["SHOW ROLES"]), &[], &[]),
            "grants" | "role_grants" => {
                self.require_flags(show(&["SHOW USERS", "SHOW ROLES"]), &[], &[])
            }
            "quotas" | "quota_limits" | "quotas_usage" => {
                self.require_flags(show(&["SHOW QUOTAS"]), &[], &[])
            }
            _ => self.require("SELECT", &[SYSTEM_DATABASE, table]),
        }
    }
}

pub(crate) fn access_denied(user: &str, privileges: &str, path: &[&str]) -> StrataError {
    let object = if path.len() > 2 {
        object_text(Some(path[0]), Some(path[1]))
    } else {
        object_text(path.first().copied(), path.get(1).copied())
    };
    StrataError::new(
        ErrorCode::ACCESS_DENIED,
        format!(
            "{user}: Not enough privileges. To execute this query, it's necessary to have the \
             grant {privileges} ON {object}"
        ),
    )
}
