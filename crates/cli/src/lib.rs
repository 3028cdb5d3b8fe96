//! The command-line front end: `strata local`, `strata server`,
//! `strata benchmark`, and the
//! result writing and summaries `local` shares with the SQL test harness.

pub mod benchmark;
pub mod local;
pub mod logging;
pub mod output;
pub mod server;
