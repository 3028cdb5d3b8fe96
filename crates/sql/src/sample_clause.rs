//! `FROM t SAMPLE k [OFFSET m]`: the engine reads the clauses, in order,
//! then puts in place of each sampled table a subquery that keeps the
//! sample's rows (each occurrence its own sample). `k` and `m` are exact
//! ratios, as ClickHouse reads them: `0.1`, `1/10`, or a row count when
//! above 1.

use std::ops::ControlFlow;

use datafusion::sql::sqlparser::ast::{
    BinaryOperator, Expr, FunctionArg, FunctionArgExpr, FunctionArguments, Ident, ObjectName,
    Query, Statement, TableAlias, TableFactor, TableSampleKind, Value, VisitMut, VisitorMut,
};
use strata_common::{ErrorCode, Result, StrataError};

/// A non-negative rational number, in lowest terms.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Ratio {
    pub numerator: u128,
    pub denominator: u128,
}

/// Decimal digits a ratio keeps after the point: 10^18 < 2^60, so products
/// of two denominators and a 2^64 universe stay inside u128 where needed.
const MAX_FRACTION_DIGITS: u32 = 18;

/// The largest numerator or denominator a SAMPLE ratio may have, so that
/// products of two terms stay inside u128.
pub const MAX_TERM: u128 = u64::MAX as u128;

impl Ratio {
    pub const ZERO: Ratio = Ratio {
        numerator: 0,
        denominator: 1,
    };
    pub const ONE: Ratio = Ratio {
        numerator: 1,
        denominator: 1,
    };

    pub fn new(numerator: u128, denominator: u128) -> Ratio {
        assert!(denominator > 0, "a ratio's denominator is positive");
        let divisor = gcd(numerator, denominator).max(1);
        Ratio {
            numerator: numerator / divisor,
            denominator: denominator / divisor,
        }
    }

    /// `a <= b`, compared exactly (terms fit in 64 bits: see [`MAX_TERM`]).
    pub fn le(self, other: Ratio) -> bool {
        debug_assert!(self.fits() && other.fits());
        self.numerator * other.denominator <= other.numerator * self.denominator
    }

    /// Whether both terms are at most [`MAX_TERM`].
    pub fn fits(self) -> bool {
        self.numerator <= MAX_TERM && self.denominator <= MAX_TERM
    }

    /// A row count too large for 64 bits as the largest that fits: more
    /// rows than any table has either way.
    fn saturated(self) -> Ratio {
        if !self.fits() && self.denominator <= self.numerator {
            Ratio::new(MAX_TERM, 1)
        } else {
            self
        }
    }

    pub fn is_zero(self) -> bool {
        self.numerator == 0
    }

    /// The whole part, as ClickHouse takes a row count from a ratio.
    pub fn floor(self) -> u128 {
        self.numerator / self.denominator
    }

    /// `0.1`, `1e-3` or `10` read exactly.
    fn from_decimal(text: &str) -> Option<Ratio> {
        let (mantissa, exponent) = match text.find(['e', 'E']) {
            Some(at) => (&text[..at], text[at + 1..].parse::<i32>().ok()?),
            None => (text, 0),
        };
        let (whole, fraction) = mantissa.split_once('.').unwrap_or((mantissa, ""));
        let fraction = &fraction[..fraction.len().min(MAX_FRACTION_DIGITS as usize)];
        if !(whole.chars().chain(fraction.chars())).all(|c| c.is_ascii_digit()) {
            return None;
        }
        let digits: u128 = format!("{whole}{fraction}").parse().ok()?;
        let scale = fraction.len() as i32 - exponent;
        if scale >= 0 {
            let scale = u32::try_from(scale)
                .ok()
                .filter(|&s| s <= MAX_FRACTION_DIGITS)?;
            Some(Ratio::new(digits, 10u128.pow(scale)))
        } else {
            let factor = 10u128.checked_pow(u32::try_from(-scale).ok()?)?;
            Some(Ratio::new(digits.checked_mul(factor)?, 1))
        }
    }

    /// A ratio as written: a number, or a number divided by a number.
    fn from_expr(expr: &Expr) -> Option<Ratio> {
        match expr {
            Expr::Value(v) => match &v.value {
                Value::Number(text, _) => Ratio::from_decimal(text),
                _ => None,
            },
            Expr::Nested(inner) => Ratio::from_expr(inner),
            Expr::BinaryOp {
                left,
                op: BinaryOperator::Divide,
                right,
            } => Ratio::from_expr(left)?.divided_by(Ratio::from_expr(right)?),
            // `a / b` as the ClickHouse rewrite pass leaves it.
            Expr::Function(f) if f.name.to_string() == "divide" => {
                let FunctionArguments::List(list) = &f.args else {
                    return None;
                };
                let [a, b] = &list.args[..] else {
                    return None;
                };
                let operand = |arg: &FunctionArg| match arg {
                    FunctionArg::Unnamed(FunctionArgExpr::Expr(e)) => Ratio::from_expr(e),
                    _ => None,
                };
                operand(a)?.divided_by(operand(b)?)
            }
            _ => None,
        }
    }

    fn divided_by(self, divisor: Ratio) -> Option<Ratio> {
        if divisor.is_zero() {
            return None;
        }
        Some(Ratio::new(
            self.numerator.checked_mul(divisor.denominator)?,
            self.denominator.checked_mul(divisor.numerator)?,
        ))
    }
}

fn gcd(mut a: u128, mut b: u128) -> u128 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// One table's `SAMPLE size [OFFSET offset]`, as written.
#[derive(Debug, Clone, PartialEq)]
pub struct SampleClause {
    pub table: ObjectName,
    pub size: Ratio,
    pub offset: Ratio,
}

/// The SAMPLE clauses of `statement`, in the order
/// [`replace_sampled_tables`] visits them. A table function with SAMPLE
/// fails as ClickHouse's do: they cannot sample.
pub fn sample_clauses(statement: &mut Statement) -> Result<Vec<SampleClause>> {
    let mut visitor = SampleClauses {
        clauses: Vec::new(),
    };
    match statement.visit(&mut visitor) {
        ControlFlow::Break(error) => Err(error),
        ControlFlow::Continue(()) => Ok(visitor.clauses),
    }
}

/// Takes each SAMPLE clause off, in [`sample_clauses`]' order, and puts
/// the matching subquery, where there is one, in place of its table (named
/// as the table was, so references to it still resolve).
pub fn replace_sampled_tables(statement: &mut Statement, subqueries: Vec<Option<Box<Query>>>) {
    let mut visitor = SampledTables(subqueries.into_iter());
    let _ = statement.visit(&mut visitor);
}

struct SampleClauses {
    clauses: Vec<SampleClause>,
}

impl VisitorMut for SampleClauses {
    type Break = StrataError;

    fn pre_visit_table_factor(&mut self, factor: &mut TableFactor) -> ControlFlow<StrataError> {
        let TableFactor::Table {
            name,
            sample: Some(kind),
            args,
            ..
        } = factor
        else {
            return ControlFlow::Continue(());
        };
        if args.is_some() {
            return ControlFlow::Break(StrataError::new(
                ErrorCode::SAMPLING_NOT_SUPPORTED,
                format!("Storage _table_function.{name} doesn't support sampling"),
            ));
        }
        match sample_clause(name, kind) {
            Ok(clause) => {
                self.clauses.push(clause);
                ControlFlow::Continue(())
            }
            Err(error) => ControlFlow::Break(error),
        }
    }
}

fn sample_clause(table: &ObjectName, kind: &TableSampleKind) -> Result<SampleClause> {
    let (TableSampleKind::BeforeTableAlias(sample) | TableSampleKind::AfterTableAlias(sample)) =
        kind;
    let ratio = |expr: &Expr| {
        Ratio::from_expr(expr)
            .map(Ratio::saturated)
            .filter(|r| r.fits())
            .ok_or_else(|| {
            StrataError::new(
                ErrorCode::SYNTAX_ERROR,
                format!(
                    "Syntax error: SAMPLE takes a non-negative number or a fraction a/b, not {expr}"
                ),
            )
        })
    };
    let Some(quantity) = &sample.quantity else {
        return Err(StrataError::new(
            ErrorCode::SYNTAX_ERROR,
            "Syntax error: SAMPLE needs a size",
        ));
    };
    Ok(SampleClause {
        table: table.clone(),
        size: ratio(&quantity.value)?,
        offset: sample
            .offset
            .as_ref()
            .map(ratio)
            .transpose()?
            .unwrap_or(Ratio::ZERO),
    })
}

struct SampledTables(std::vec::IntoIter<Option<Box<Query>>>);

impl VisitorMut for SampledTables {
    type Break = ();

    fn pre_visit_table_factor(&mut self, factor: &mut TableFactor) -> ControlFlow<()> {
        let TableFactor::Table {
            name,
            alias,
            sample,
            ..
        } = factor
        else {
            return ControlFlow::Continue(());
        };
        if sample.take().is_none() {
            return ControlFlow::Continue(());
        }
        if let Some(subquery) = self.0.next().flatten() {
            let alias = alias.clone().unwrap_or_else(|| TableAlias {
                explicit: true,
                name: name
                    .0
                    .last()
                    .and_then(|part| part.as_ident())
                    .cloned()
                    .unwrap_or_else(|| Ident::new("_sample")),
                columns: Vec::new(),
                at: None,
            });
            *factor = TableFactor::Derived {
                lateral: false,
                subquery,
                alias: Some(alias),
                sample: None,
            };
        }
        ControlFlow::Continue(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse_statement;

    #[test]
    fn ratios_are_read_exactly() {
        assert_eq!(Ratio::from_decimal("0.1"), Some(Ratio::new(1, 10)));
        assert_eq!(Ratio::from_decimal("0.50"), Some(Ratio::new(1, 2)));
        assert_eq!(Ratio::from_decimal("1000"), Some(Ratio::new(1000, 1)));
        assert_eq!(Ratio::from_decimal("1e3"), Some(Ratio::new(1000, 1)));
        assert_eq!(Ratio::from_decimal("25e-2"), Some(Ratio::new(1, 4)));
        assert_eq!(Ratio::from_decimal("-1"), None);
        assert!(!Ratio::from_decimal("1e30").unwrap().fits());
        assert_eq!(
            Ratio::from_decimal("1e30").unwrap().saturated(),
            Ratio::new(MAX_TERM, 1)
        );
        assert!(Ratio::new(1, 3).le(Ratio::new(1, 2)));
        assert!(!Ratio::new(2, 3).le(Ratio::new(1, 2)));
    }

    #[test]
    fn sampled_tables_become_subqueries_in_order() {
        let mut statement = parse_statement(
            "SELECT count() FROM db.t AS a SAMPLE 1/10 OFFSET 1/2 WHERE x IN (SELECT x FROM u SAMPLE 5)",
        )
        .unwrap()
        .statement;
        let clauses = sample_clauses(&mut statement).unwrap();
        assert_eq!(clauses.len(), 2);
        assert_eq!(clauses[0].table.to_string(), "db.t");
        assert_eq!(clauses[0].size, Ratio::new(1, 10));
        assert_eq!(clauses[0].offset, Ratio::new(1, 2));
        assert_eq!(clauses[1].table.to_string(), "u");
        assert_eq!(clauses[1].size, Ratio::new(5, 1));
        let Statement::Query(subquery) = parse_statement("SELECT * FROM u WHERE k < 10")
            .unwrap()
            .statement
        else {
            unreachable!()
        };
        replace_sampled_tables(&mut statement, vec![None, Some(subquery)]);
        assert_eq!(
            statement.to_string(),
            "SELECT count() FROM db.t AS a WHERE x IN (SELECT x FROM (SELECT * FROM u WHERE k < 10) AS u)"
        );
        let mut function = parse_statement("SELECT * FROM numbers(10) SAMPLE 0.1")
            .unwrap()
            .statement;
        let error = sample_clauses(&mut function).unwrap_err();
        assert_eq!(error.code, ErrorCode::SAMPLING_NOT_SUPPORTED);
    }
}
