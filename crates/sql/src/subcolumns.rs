//! ClickHouse's subcolumns of a Map (`m.keys`, `m.values`, `m.size0`) and
//! of an Array (`a.size0`), planned where DataFusion plans `m.keys` as a
//! field access: on a Map that looks up the key `'keys'`, on an Array it fails.

use std::sync::Arc;

use datafusion::arrow::datatypes::{DataType, Field};
use datafusion::common::{Column, Result, TableReference};
use datafusion::functions_nested::expr_fn::{map_keys, map_values};
use datafusion::logical_expr::expr::ScalarFunction;
use datafusion::logical_expr::planner::{ExprPlanner, PlannerResult};
use datafusion::logical_expr::{Expr, ScalarUDF};

/// Plans subcolumns; `length` is ClickHouse's `length`, which counts a
/// Map's entries and an Array's elements.
#[derive(Debug)]
pub struct Subcolumns {
    length: Arc<ScalarUDF>,
}

impl Subcolumns {
    pub fn new(length: Arc<ScalarUDF>) -> Self {
        Subcolumns { length }
    }
}

impl ExprPlanner for Subcolumns {
    fn plan_compound_identifier(
        &self,
        field: &Field,
        qualifier: Option<&TableReference>,
        nested_names: &[String],
    ) -> Result<PlannerResult<Vec<Expr>>> {
        let [name] = nested_names else {
            return Ok(PlannerResult::Original(Vec::new()));
        };
        let column = Expr::Column(Column::new(qualifier.cloned(), field.name()));
        let size = || {
            Expr::ScalarFunction(ScalarFunction::new_udf(
                Arc::clone(&self.length),
                vec![column.clone()],
            ))
        };
        let subcolumn = match (field.data_type(), name.as_str()) {
            (DataType::Map(..), "keys") => map_keys(column.clone()),
            (DataType::Map(..), "values") => map_values(column.clone()),
            (DataType::Map(..) | DataType::List(_) | DataType::LargeList(_), "size0") => size(),
            _ => return Ok(PlannerResult::Original(Vec::new())),
        };
        // Named as ClickHouse names the subcolumn.
        let name = format!("{}.{name}", field.name());
        Ok(PlannerResult::Planned(subcolumn.alias(name)))
    }
}
