//! The command-line front end: `strata local`, `strata server`,
//! `strata client`, `strata benchmark`, and the result writing and summaries `local` shares
//! with the SQL test harness.

pub mod benchmark;
pub mod client;
pub mod local;
pub mod logging;
pub mod output;
pub mod progress;
pub mod prompt;
pub mod query_args;
pub mod server;

use std::process::ExitCode;

use strata_common::StrataError;

/// The multi-threaded runtime a command runs on; when it cannot start, the
/// reason is printed and the exit status returned.
pub fn runtime() -> Result<tokio::runtime::Runtime, ExitCode> {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| {
            eprintln!("Cannot start the runtime: {e}");
            ExitCode::FAILURE
        })
}

/// Runs a command's `work` on a fresh [`runtime`]; an error is printed and
/// becomes the exit status.
pub fn run_command(work: impl std::future::Future<Output = strata_common::Result<()>>) -> ExitCode {
    let runtime = match runtime() {
        Ok(runtime) => runtime,
        Err(code) => return code,
    };
    match runtime.block_on(work) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("{e}");
            exit_code(&e)
        }
    }
}

/// The exit status of a command that failed with `error`: its code modulo
/// 256, as clickhouse-local exits, and never 0.
pub fn exit_code(error: &StrataError) -> ExitCode {
    let code = (error.code.code % 256) as u8;
    ExitCode::from(if code == 0 { 1 } else { code })
}
