//! EXPLAIN [PLAN | PIPELINE | ANALYZE | SYNTAX | AST] of a query.

use std::sync::Arc;

use datafusion::physical_plan::{ExecutionPlan, displayable, execute_stream};
use datafusion::sql::sqlparser::ast::Statement;
use futures::StreamExt;
use strata_common::{ErrorCode, Result};

use crate::engine::task_context;
use crate::session::{Session, StatementOutcome, strings_result, strip_keyword};

impl Session {
    pub(crate) async fn explain(&mut self, rest: &str) -> Result<StatementOutcome> {
        let kinds = ["PLAN", "PIPELINE", "ANALYZE", "SYNTAX", "AST"];
        let (kind, body) = strip_keyword(rest, &kinds).unwrap_or(("PLAN", rest));
        let (query, settings) = self.parse_query(
            body.trim(),
            (
                ErrorCode::NOT_IMPLEMENTED,
                "EXPLAIN supports SELECT queries",
            ),
        )?;
        let lines: Vec<String> = match kind {
            "SYNTAX" | "AST" => {
                let mut statement = Statement::Query(query);
                self.rewrite(&mut statement, &settings)?;
                vec![statement.to_string()]
            }
            _ => {
                let (plan, state, _) = self.plan(Statement::Query(query), settings).await?;
                match kind {
                    "PLAN" => {
                        let optimized = state.optimize(&plan)?;
                        self.check_reads(&optimized)?;
                        optimized
                            .display_indent()
                            .to_string()
                            .lines()
                            .map(str::to_string)
                            .collect()
                    }
                    "PIPELINE" => {
                        let physical = self.physical_plan(&state, &plan).await?;
                        displayable(physical.as_ref())
                            .indent(true)
                            .to_string()
                            .lines()
                            .map(str::to_string)
                            .collect()
                    }
                    _ => {
                        let physical: Arc<dyn ExecutionPlan> =
                            self.physical_plan(&state, &plan).await?;
                        let mut stream =
                            execute_stream(Arc::clone(&physical), task_context(&state))?;
                        while let Some(batch) = stream.next().await {
                            batch?;
                        }
                        datafusion::physical_plan::display::DisplayableExecutionPlan::with_metrics(
                            physical.as_ref(),
                        )
                        .indent(true)
                        .to_string()
                        .lines()
                        .map(str::to_string)
                        .collect()
                    }
                }
            }
        };
        let (schema, batches) = strings_result("explain", lines)?;
        self.rows(schema, batches)
    }
}
