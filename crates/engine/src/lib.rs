//! The Strata engine: sessions, the catalog, table sources, system tables and
//! statement execution on DataFusion.
//!
//! Callers (the CLI, later the HTTP server) hand a [`Session`] statement text
//! and get back either a stream of record batches to format or a finished
//! statement; both carry the [`QueryContext`] whose counters make the summary.

pub mod access;
mod bounded_log;
pub mod data_path;
pub mod engine;
pub mod error_counts;
pub mod instance;
mod old_engine_syntax;
pub mod part_log;
pub mod process_list;
pub mod query_context;
pub mod query_log;
pub mod session;
pub mod sources;
mod statements;
pub mod status_file;
pub mod system;
pub mod table_definition;
pub mod table_engine;
pub mod user_functions;

pub use engine::Engine;
pub use instance::Instance;
pub use query_context::QueryContext;
pub use session::{QueryResult, Session, StatementOutcome};
pub use strata_execution::spill::SpillFigures;
