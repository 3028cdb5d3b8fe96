//! Vocabulary shared by every Strata layer: errors carrying ClickHouse's codes,
//! the settings registry, and the mapping between ClickHouse and Arrow types.
//!
//! It exists so that the SQL front, the engine, the formats and the CLI agree on
//! one error table and one list of settings instead of each keeping its own.

pub mod error;
pub mod readable;
pub mod settings;
pub mod types;

pub use error::{ErrorCode, Result, StrataError};
