//! EXPLAIN [PLAN | PIPELINE | ANALYZE | SYNTAX | AST] [setting = value, ...]
//! of a query. `indexes = 1` adds, for each MergeTree table read, the parts
//! and granules each pruning step kept.

use std::sync::Arc;

use datafusion::physical_plan::{ExecutionPlan, displayable, execute_stream};
use datafusion::sql::sqlparser::ast::Statement;
use futures::StreamExt;
use strata_common::{ErrorCode, Result, StrataError};
use strata_storage::merge_tree::{MergeTreeScanExec, StepKind};

use crate::engine::task_context;
use crate::session::{Session, StatementOutcome, strings_result, strip_keyword};

/// ClickHouse's settings of each kind of EXPLAIN. Strata acts on `indexes`
/// (and its alias `indices`) and accepts the others.
fn explain_settings(kind: &str) -> &'static [&'static str] {
    match kind {
        "PIPELINE" => &[
            "compact_repeated_processor_chains",
            "compact",
            "distributed",
            "graph",
            "header",
        ],
        "SYNTAX" => &["oneline", "run_query_tree_passes", "query_tree_passes"],
        "AST" => &["graph", "optimize"],
        _ => &[
            "compact",
            "column_structure",
            "distributed",
            "description",
            "json",
            "sorting",
            "input_headers",
            "projections",
            "keep_logical_steps",
            "indexes",
            "actions",
            "pretty",
            "indices",
            "estimates",
            "optimize",
            "header",
        ],
    }
}

/// The `name = value, ...` settings at the start of `body` and the query
/// after them.
fn split_settings<'a>(kind: &str, body: &'a str) -> Result<(Vec<(String, u64)>, &'a str)> {
    let mut settings: Vec<(String, u64)> = Vec::new();
    let mut rest = body.trim_start();
    loop {
        let name_end = rest
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(rest.len());
        let after_name = rest[name_end..].trim_start();
        let Some(value_text) = after_name.strip_prefix('=').filter(|_| name_end > 0) else {
            return Ok((settings, rest));
        };
        let value_text = value_text.trim_start();
        let value_end = value_text
            .find(|c: char| !c.is_ascii_alphanumeric())
            .unwrap_or(value_text.len());
        let name = rest[..name_end].to_ascii_lowercase();
        if !explain_settings(kind).contains(&name.as_str()) {
            return Err(StrataError::new(
                ErrorCode::UNKNOWN_SETTING,
                format!(
                    "Unknown setting \"{name}\" for EXPLAIN {kind} query. Supported settings: {}",
                    explain_settings(kind).join(", ")
                ),
            ));
        }
        let value = match &value_text[..value_end] {
            v if v.eq_ignore_ascii_case("true") => 1,
            v if v.eq_ignore_ascii_case("false") => 0,
            v => v.parse().map_err(|_| {
                StrataError::new(
                    ErrorCode::SYNTAX_ERROR,
                    format!("Syntax error: expected a number for {name}, found {v}"),
                )
            })?,
        };
        if value > 1 {
            return Err(StrataError::new(
                ErrorCode::INVALID_SETTING_VALUE,
                format!("Invalid value {value} for setting \"{name}\". Expected boolean type"),
            ));
        }
        settings.push((name, value));
        rest = value_text[value_end..].trim_start();
        rest = rest.strip_prefix(',').map_or(rest, str::trim_start);
    }
}

/// For each MergeTree scan of `plan`, the parts and granules it reads and
/// what each pruning step kept, in ClickHouse's layout.
fn index_lines(plan: &Arc<dyn ExecutionPlan>, lines: &mut Vec<String>) {
    if let Some(scan) = plan.downcast_ref::<MergeTreeScanExec>() {
        let ((parts, _), (granules, _)) = scan.selected();
        lines.push(format!("ReadFromMergeTree ({})", scan.table()));
        lines.push(format!("  Parts: {parts} | Granules: {granules}"));
        if !scan.report().steps.is_empty() {
            lines.push("  Indexes:".to_string());
        }
        for step in &scan.report().steps {
            match &step.kind {
                StepKind::MinMax => lines.push("    Min-Max".to_string()),
                StepKind::PrimaryKey => lines.push("    PrimaryKey".to_string()),
                StepKind::GranuleBounds => lines.push("    Granule bounds".to_string()),
                StepKind::Skip { name, description } => {
                    lines.push("    Skip".to_string());
                    lines.push(format!("      Name: {name}"));
                    lines.push(format!("      Description: {description}"));
                }
            }
            lines.push(format!(
                "      Parts: {}/{}",
                step.parts_kept, step.parts_in
            ));
            lines.push(format!(
                "      Granules: {}/{}",
                step.granules_kept, step.granules_in
            ));
        }
    }
    for child in plan.children() {
        index_lines(child, lines);
    }
}

impl Session {
    pub(crate) async fn explain(&mut self, rest: &str) -> Result<StatementOutcome> {
        let lines = self.explain_lines(rest).await?;
        let (schema, batches) = strings_result("explain", lines)?;
        self.rows(schema, batches)
    }

    /// `text` with each `(EXPLAIN ...)` subquery replaced by a query of its
    /// lines, in a column named `explain`; `None` where it has none.
    pub(crate) async fn explain_subqueries(&mut self, text: &str) -> Result<Option<String>> {
        let ranges = strata_sql::explain_subqueries(text)?;
        if ranges.is_empty() {
            return Ok(None);
        }
        let mut replaced = String::with_capacity(text.len());
        let mut done = 0;
        for range in ranges {
            let (_, rest) = strip_keyword(&text[range.clone()], &["EXPLAIN"])
                .expect("an EXPLAIN subquery starts with EXPLAIN");
            let lines: Vec<String> = self
                .explain_lines(rest)
                .await?
                .iter()
                .map(|line| format!("'{}'", line.replace('\\', "\\\\").replace('\'', "\\'")))
                .collect();
            replaced.push_str(&text[done..range.start]);
            replaced.push_str(&format!(
                "SELECT arrayJoin(CAST([{}], 'Array(String)')) AS explain",
                lines.join(", ")
            ));
            done = range.end;
        }
        replaced.push_str(&text[done..]);
        Ok(Some(replaced))
    }

    async fn explain_lines(&mut self, rest: &str) -> Result<Vec<String>> {
        let kinds = ["PLAN", "PIPELINE", "ANALYZE", "SYNTAX", "AST"];
        let (kind, body) = strip_keyword(rest, &kinds).unwrap_or(("PLAN", rest));
        let (explain_settings, body) = split_settings(kind, body)?;
        let indexes = explain_settings
            .iter()
            .any(|(name, value)| (name == "indexes" || name == "indices") && *value != 0);
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
                        let mut lines: Vec<String> = optimized
                            .display_indent()
                            .to_string()
                            .lines()
                            .map(str::to_string)
                            .collect();
                        if indexes {
                            let physical = self.physical_plan(&state, &plan).await?;
                            index_lines(&physical, &mut lines);
                        }
                        lines
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
        Ok(lines)
    }
}
