//! Statement execution, one module per statement family, each adding the
//! methods that run its statements to [`Session`](crate::session::Session);
//! `session.rs` dispatches to them by statement kind.
//!
//! - `query`: SELECT and its result stream
//! - `insert`, `insert_format`: INSERT ... SELECT/VALUES, INSERT ... FORMAT
//! - `create`, `drop`, `rename`: CREATE/DROP/TRUNCATE/RENAME of tables and databases
//! - `alter`, `parts`, `optimize`: ALTER TABLE, part operations and CHECK TABLE, OPTIMIZE
//! - `mutations`, `mutation_subqueries`: ALTER TABLE ... DELETE/UPDATE and DELETE FROM
//! - `show`, `explain`: SHOW, DESCRIBE, EXPLAIN
//! - `set`: SET and USE, which change the session
//! - `system`, `kill`: SYSTEM commands, KILL QUERY

mod access;
mod alter;
mod alter_constraint;
mod alter_index;
mod alter_settings;
mod create;
mod detach;
mod drop;
mod explain;
mod function;
mod insert;
mod insert_file;
mod insert_format;
mod kill;
mod memory_mutations;
mod modify_column;
mod mutation_subqueries;
mod mutations;
mod optimize;
mod parts;
mod query;
mod rename;
mod set;
mod show;
mod system;
mod view;

pub(crate) use create::{constant_defaults, create_table_columns};
pub(crate) use view::ReadView;
