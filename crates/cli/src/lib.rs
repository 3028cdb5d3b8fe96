//! The command-line front end: `strata local` and the result writing and
//! summaries it shares with the SQL test harness.

pub mod local;
pub mod logging;
pub mod output;
