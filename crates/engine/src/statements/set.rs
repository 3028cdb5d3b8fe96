//! SET and USE: statements that change the session itself.

use datafusion::sql::sqlparser::ast::{BinaryOperator, Expr, ObjectName, Set};
use strata_common::{ErrorCode, Result, StrataError};

use crate::session::{Session, StatementOutcome, single_name, value_text};

impl Session {
    /// SET: every value is checked before any changes, so all or none apply.
    pub(crate) fn set(&mut self, set: Set) -> Result<StatementOutcome> {
        let mut settings = self.settings.clone();
        for (name, value) in set_assignments(set)? {
            settings.set(&name, &value_text(&value)?)?;
        }
        self.constraints.check(&self.settings, &settings)?;
        self.settings = settings;
        self.done()
    }

    pub(crate) fn use_database(&mut self, name: &ObjectName) -> Result<StatementOutcome> {
        let database = single_name(name)?;
        self.engine.database_exists(&database)?;
        self.require_show(&[&database])?;
        self.current_database = database;
        self.done()
    }
}

/// The `name = value` pairs of `SET a = 1` and `SET a = 1, b = 2`.
fn set_assignments(set: Set) -> Result<Vec<(String, Expr)>> {
    match set {
        // ClickHouse's SET has no scope: `SET GLOBAL x = 1` is a syntax
        // error there, not a session setting.
        Set::SingleAssignment {
            scope: Some(scope), ..
        } => Err(StrataError::new(
            ErrorCode::SYNTAX_ERROR,
            format!(
                "Syntax error: SET takes no {}modifier: settings are per session or per query",
                scope.to_string().to_uppercase()
            ),
        )),
        // sqlparser reads `SET a = 1, b = 2` as `a` set to the list `1, b = 2`.
        Set::SingleAssignment {
            variable, values, ..
        } => {
            let mut values = values.into_iter();
            let first = values
                .next()
                .ok_or_else(|| StrataError::new(ErrorCode::SYNTAX_ERROR, "SET needs a value"))?;
            let mut assignments = vec![(variable.to_string(), first)];
            for value in values {
                let Expr::BinaryOp {
                    left,
                    op: BinaryOperator::Eq,
                    right,
                } = value
                else {
                    return Err(StrataError::new(
                        ErrorCode::SYNTAX_ERROR,
                        format!("Syntax error: expected `name = value` in SET, got {value}"),
                    ));
                };
                assignments.push((left.to_string(), *right));
            }
            Ok(assignments)
        }
        Set::MultipleAssignments { assignments } => Ok(assignments
            .into_iter()
            .map(|a| (a.name.to_string(), a.value))
            .collect()),
        other => Err(StrataError::new(
            ErrorCode::NOT_IMPLEMENTED,
            format!("Statement is not supported yet: {other}"),
        )),
    }
}
