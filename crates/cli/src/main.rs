//! The `strata` binary. `strata local` runs queries in-process, like
//! clickhouse-local; `strata server` serves ClickHouse's HTTP interface;
//! `strata client` talks to it from a terminal.

use std::process::ExitCode;

use clap::{Parser, Subcommand};
use strata_cli::{benchmark, client, local, server};

#[derive(Parser)]
#[command(
    name = "strata",
    version,
    about = "Strata: a ClickHouse-compatible analytical database"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run queries in this process, like clickhouse-local.
    Local(local::LocalArgs),
    /// Serve ClickHouse's HTTP interface, like clickhouse-server.
    Server(server::ServerArgs),
    /// A terminal client for a server, like clickhouse-client (`-h` is the host).
    #[command(disable_help_flag = true)]
    Client(client::ClientArgs),
    /// Run queries from concurrent clients and report QPS and latency,
    /// like clickhouse-benchmark.
    Benchmark(benchmark::BenchmarkArgs),
}

/// Counts every heap byte (for system.asynchronous_metrics) over mimalloc.
#[global_allocator]
static ALLOCATOR: strata_memory::allocator::StrataAllocator =
    strata_memory::allocator::strata_allocator();

fn main() -> ExitCode {
    strata_memory::allocator::mark_installed();
    // Settings may be given as `--name=value`; take them out before clap sees them.
    let (args, settings) = local::split_setting_args(std::env::args().collect());
    let cli = Cli::parse_from(args);
    match cli.command {
        Command::Local(args) => {
            strata_cli::logging::init(log::LevelFilter::Warn);
            local::run(args, settings)
        }
        Command::Server(args) => {
            strata_cli::logging::init(log::LevelFilter::Info);
            server::run(args, settings)
        }
        Command::Client(args) => {
            strata_cli::logging::init(log::LevelFilter::Warn);
            client::run(args, settings)
        }
        Command::Benchmark(args) => {
            strata_cli::logging::init(log::LevelFilter::Warn);
            benchmark::run(args, settings)
        }
    }
}
