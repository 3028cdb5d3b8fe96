//! The command-line front end: `strata local`, `strata server`, and the
//! result writing and summaries `local` shares with the SQL test harness.

pub mod local;
pub mod logging;
pub mod output;
pub mod server;
