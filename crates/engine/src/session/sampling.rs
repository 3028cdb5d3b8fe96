//! Planning `FROM t SAMPLE k [OFFSET m]`: each sampled table becomes a
//! subquery keeping the rows of its key range (see
//! [`crate::sources::sampling`]); the filter reaches the scan, where the
//! primary key prunes granules by it. `_sample_factor` becomes the inverse
//! of the share sampled.

use std::ops::ControlFlow;

use datafusion::sql::sqlparser::ast::{
    Expr, Ident, Query, Statement, Value, visit_expressions_mut,
};
use strata_common::settings::Settings;
use strata_common::{ErrorCode, Result, StrataError};
use strata_sql::sample_clause::{SampleClause, replace_sampled_tables, sample_clauses};

use super::{Session, UserTable};
use crate::sources::sampling::Sample;

/// ClickHouse's virtual column of a sampled read.
const SAMPLE_FACTOR: &str = "_sample_factor";

impl Session {
    /// Puts a subquery keeping its sample in place of each sampled table of
    /// `statement`, and writes `_sample_factor` as the first sample's.
    pub(super) async fn read_samples(
        &self,
        statement: &mut Statement,
        settings: &Settings,
    ) -> Result<()> {
        let clauses = sample_clauses(statement)?;
        if clauses.is_empty() {
            return Ok(());
        }
        let mut factor = None;
        let mut subqueries = Vec::with_capacity(clauses.len());
        for clause in &clauses {
            let (sample, condition) = self.sample(clause).await?;
            debug_assert!(sample.factor >= 1.0);
            factor.get_or_insert(sample.factor);
            let subquery = match condition {
                Some(condition) => Some(self.sample_subquery(clause, &condition, settings)?),
                None => None,
            };
            subqueries.push(subquery);
        }
        replace_sampled_tables(statement, subqueries);
        write_sample_factor(statement, factor.unwrap_or(1.0));
        Ok(())
    }

    /// The sample `clause` takes of its table, and the condition keeping it.
    async fn sample(&self, clause: &SampleClause) -> Result<(Sample, Option<String>)> {
        let (database, table) = self.table_name(&clause.table)?;
        let not_supported = || {
            StrataError::new(
                ErrorCode::SAMPLING_NOT_SUPPORTED,
                format!("Storage {database}.{table} doesn't support sampling"),
            )
        };
        let UserTable::MergeTree(provider) = self
            .user_table(&clause.table)
            .await
            .map_err(|_| not_supported())?
        else {
            return Err(not_supported());
        };
        let key = provider.sampling().ok_or_else(not_supported)?;
        let (rows, _) = provider.totals();
        let sample = key.sample(clause.size, clause.offset, rows)?;
        let condition = key.condition(&sample.range);
        Ok((sample, condition))
    }

    /// `SELECT * FROM t WHERE condition`, rewritten as any query is.
    fn sample_subquery(
        &self,
        clause: &SampleClause,
        condition: &str,
        settings: &Settings,
    ) -> Result<Box<Query>> {
        let text = format!("SELECT * FROM {} WHERE {condition}", clause.table);
        let mut statement = strata_sql::parse_statement(&text)?.statement;
        self.rewrite(&mut statement, settings)?;
        match statement {
            Statement::Query(query) => Ok(query),
            _ => unreachable!("a SELECT parses as a query"),
        }
    }
}

/// Replaces `_sample_factor` (bare or qualified) with `factor`.
fn write_sample_factor(statement: &mut Statement, factor: f64) {
    let is_factor = |ident: &Ident| ident.quote_style.is_none() && ident.value == SAMPLE_FACTOR;
    let _ = visit_expressions_mut(statement, |expr: &mut Expr| {
        let named = match expr {
            Expr::Identifier(ident) => is_factor(ident),
            Expr::CompoundIdentifier(parts) => parts.last().is_some_and(is_factor),
            _ => false,
        };
        if named {
            // `{:?}` keeps a point or exponent, so the literal is a Float64.
            *expr = Expr::value(Value::Number(format!("{factor:?}"), false));
        }
        ControlFlow::<()>::Continue(())
    });
}
