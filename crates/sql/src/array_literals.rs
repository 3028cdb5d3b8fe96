//! `[a, b, ...]` planned with Strata's `make_array` from the start.
//! DataFusion's own planner of array literals calls its `make_array`
//! directly, whose type coercion refuses elements Strata's accepts (a
//! FixedString beside a NULL) before the plan rewrite could swap it.

use std::sync::Arc;

use datafusion::common::{DFSchema, Result};
use datafusion::logical_expr::expr::ScalarFunction;
use datafusion::logical_expr::planner::{ExprPlanner, PlannerResult};
use datafusion::logical_expr::{Expr, ScalarUDF};

#[derive(Debug)]
pub struct ArrayLiterals {
    make_array: Arc<ScalarUDF>,
}

impl ArrayLiterals {
    /// Plans literals with `make_array`, the registered function.
    pub fn new(make_array: Arc<ScalarUDF>) -> Self {
        ArrayLiterals { make_array }
    }
}

impl ExprPlanner for ArrayLiterals {
    fn plan_array_literal(
        &self,
        exprs: Vec<Expr>,
        _schema: &DFSchema,
    ) -> Result<PlannerResult<Vec<Expr>>> {
        Ok(PlannerResult::Planned(Expr::ScalarFunction(
            ScalarFunction::new_udf(Arc::clone(&self.make_array), exprs),
        )))
    }
}
