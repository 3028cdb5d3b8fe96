//! Vocabulary shared by every Strata layer: errors carrying ClickHouse's codes,
//! the settings registry, the mapping between ClickHouse and Arrow types, and the
//! text form of UUIDs and the visible width of text that input formats, output
//! formats and functions share.
//!
//! It exists so that the SQL front, the engine, the formats and the CLI agree on
//! one error table and one list of settings instead of each keeping its own.

pub mod error;
pub mod events;
pub mod ip_text;
pub mod pretty_types;
pub mod readable;
pub mod settings;
pub mod text_log;
pub mod types;
pub mod uuid_text;
pub mod visible_width;

pub use error::{ErrorCode, Result, StrataError};
