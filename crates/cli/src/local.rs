//! `strata local`: run SQL from `-q`, `--queries-file`, stdin, or an
//! interactive prompt, in this process. With queries given as arguments,
//! stdin is the data of an `INSERT ... FORMAT`.

use std::io::{BufWriter, IsTerminal, Read, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::{Arc, Mutex};

use clap::Args;
use strata_common::Result;
use strata_common::settings::Scope;
use strata_engine::data_path::DataPath;
use strata_engine::{Engine, QueryContext, Session, StatementOutcome};
use strata_formats::OutputFormat;

use crate::exit_code;
use crate::output::{Summary, write_result};
use crate::prompt::{Names, Prompt, changes_names};
use crate::query_args::QueryArgs;

#[derive(Args)]
pub struct LocalArgs {
    #[command(flatten)]
    queries: QueryArgs,
    /// Print each statement's summary (rows, bytes, peak memory) to stderr.
    #[arg(long = "print-profile-events")]
    print_profile_events: bool,
    /// Directory for databases, table definitions and MergeTree parts; kept
    /// across runs. Without it, a temporary directory removed on exit.
    #[arg(long = "path")]
    path: Option<PathBuf>,
    /// A server configuration file (XML or YAML) whose server settings and
    /// `storage_configuration` (disks, storage policies) apply.
    #[arg(short = 'C', long = "config-file")]
    config_file: Option<PathBuf>,
}

/// Takes `--setting=value` and `--setting value` pairs for known settings out of
/// the argument list, as clickhouse-local accepts settings on its command line;
/// server settings (`--max_server_memory_usage`) are taken out the same way.
/// So are `--param_name=value` query parameters.
/// A flag of `strata local`, `strata client` or `strata benchmark` itself (`--format`, also a
/// setting's name) stays.
pub fn split_setting_args(args: Vec<String>) -> (Vec<String>, Vec<(String, String)>) {
    let local = LocalArgs::augment_args(clap::Command::new("local"));
    let benchmark = crate::benchmark::BenchmarkArgs::augment_args(clap::Command::new("benchmark"));
    let client = crate::client::ClientArgs::augment_args(clap::Command::new("client"));
    let own: Vec<String> = local
        .get_arguments()
        .chain(benchmark.get_arguments())
        .chain(client.get_arguments())
        .flat_map(|arg| arg.get_long_and_visible_aliases().unwrap_or_default())
        .map(str::to_string)
        .collect();
    let mut rest = Vec::new();
    let mut settings = Vec::new();
    let mut iter = args.into_iter().peekable();
    while let Some(arg) = iter.next() {
        if let Some(body) = arg.strip_prefix("--") {
            let (name, value) = match body.split_once('=') {
                Some((n, v)) => (n.to_string(), Some(v.to_string())),
                None => (body.to_string(), None),
            };
            // `--param_x` is the value of `{x:Type}` in a query.
            let setting = Scope::Query.find(&name).is_some()
                || Scope::Server.find(&name).is_some()
                || name.starts_with("param_");
            if setting && !own.contains(&name) {
                let value = match value {
                    Some(v) => v,
                    None => iter.next().unwrap_or_default(),
                };
                settings.push((name, value));
                continue;
            }
        }
        rest.push(arg);
    }
    (rest, settings)
}

/// The query currently running, so Ctrl-C can cancel it.
pub type Running = Arc<Mutex<Option<Arc<QueryContext>>>>;

pub fn run(args: LocalArgs, settings: Vec<(String, String)>) -> ExitCode {
    // Installed before anything else, so an early Ctrl-C cancels rather than kills.
    let running: Running = Arc::new(Mutex::new(None));
    {
        let running = Arc::clone(&running);
        let _ = ctrlc::set_handler(move || {
            if let Some(query) = running.lock().expect("lock").as_ref() {
                query.cancel();
            }
        });
    }
    let runtime = match crate::runtime() {
        Ok(runtime) => runtime,
        Err(code) => return code,
    };
    runtime.block_on(run_async(args, settings, running))
}

async fn run_async(args: LocalArgs, settings: Vec<(String, String)>, running: Running) -> ExitCode {
    let (server_args, query_args): (Vec<_>, Vec<_>) = settings
        .iter()
        .partition(|(name, _)| Scope::Server.find(name).is_some());
    // `--param_x=v` gives `{x:Type}` its value, as the HTTP interface does.
    let (params, query_args): (Vec<_>, Vec<_>) = query_args
        .into_iter()
        .partition(|(name, _)| name.starts_with("param_"));
    let params: Params = params
        .into_iter()
        .map(|(name, value)| (name["param_".len()..].to_string(), value.clone()))
        .collect();
    let config = match &args.config_file {
        Some(file) => match strata_server::config::ServerConfig::load(file) {
            Ok(config) => config,
            Err(e) => {
                eprintln!("{e}");
                return exit_code(&e);
            }
        },
        None => strata_server::config::ServerConfig::default(),
    };
    let mut server_settings = config.server_settings.clone();
    for (name, value) in &server_args {
        if let Err(e) = server_settings.set(name, value) {
            eprintln!("{e}");
            return exit_code(&e);
        }
    }
    let data_path = match &args.path {
        Some(dir) => DataPath::open(dir),
        None => DataPath::temporary(),
    };
    let opened = data_path
        .and_then(|path| Engine::open_with_storage(server_settings, path, &config.storage));
    let engine = match opened {
        Ok(engine) => engine,
        Err(e) => {
            eprintln!("{e}");
            return exit_code(&e);
        }
    };
    if let Some(file) = &args.config_file {
        let file = file.clone();
        let overrides: Vec<(String, String)> = server_args.into_iter().cloned().collect();
        engine.instance().set_config_source(Box::new(move || {
            let config = strata_server::config::ServerConfig::load(&file)?;
            let mut settings = config.server_settings;
            for (name, value) in &overrides {
                settings.set(name, value)?;
            }
            Ok(strata_engine::instance::ReloadedConfig {
                settings,
                storage: config.storage,
            })
        }));
    }
    if let Err(e) = engine.load_tables().await {
        eprintln!("{e}");
        return exit_code(&e);
    }
    let mut session = engine.new_session();
    for (name, value) in query_args {
        if let Err(e) = session.settings.set(name, value) {
            eprintln!("{e}");
            return exit_code(&e);
        }
    }
    let stdout_is_terminal = std::io::stdout().is_terminal();
    let default_format = match &args.queries.format {
        Some(name) => match OutputFormat::from_name(name) {
            Ok(f) => f,
            Err(e) => {
                eprintln!("{e}");
                return exit_code(&e);
            }
        },
        None if stdout_is_terminal => OutputFormat::PrettyCompact,
        None => OutputFormat::TabSeparated,
    };
    let mut batch = match args.queries.batch_text() {
        Ok(batch) => batch,
        Err(e) => {
            eprintln!("{e}");
            return exit_code(&e);
        }
    };
    let interactive = batch.trim().is_empty() && std::io::stdin().is_terminal();
    if interactive {
        return interactive_loop(&mut session, default_format, &params, &running).await;
    }
    if batch.trim().is_empty() {
        if let Err(e) = std::io::stdin().read_to_string(&mut batch) {
            eprintln!("Cannot read queries from stdin: {e}");
            return ExitCode::FAILURE;
        }
    } else if !std::io::stdin().is_terminal() {
        // With the queries on the command line, stdin is the data of an
        // `INSERT ... FORMAT`, as for clickhouse-local.
        session.set_input(Box::new(std::io::stdin()));
    }
    let batch = match with_params(&batch, &params) {
        Ok(batch) => batch,
        Err(e) => {
            eprintln!("{e}");
            return exit_code(&e);
        }
    };
    let options = BatchOptions {
        default_format,
        time: args.queries.time,
        summary: args.print_profile_events,
        ignore_error: args.queries.ignore_error,
    };
    run_batch(&mut session, &batch, &options, &running).await
}

struct BatchOptions {
    default_format: OutputFormat,
    time: bool,
    summary: bool,
    ignore_error: bool,
}

async fn run_batch(
    session: &mut Session,
    text: &str,
    options: &BatchOptions,
    running: &Running,
) -> ExitCode {
    let statements = match strata_sql::split_statements(text) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("{e}");
            return exit_code(&e);
        }
    };
    let mut stdout = BufWriter::new(std::io::stdout().lock());
    for statement in statements {
        match run_statement(
            session,
            &statement,
            options.default_format,
            &mut stdout,
            running,
        )
        .await
        {
            Ok(summary) => {
                let _ = stdout.flush();
                if options.time {
                    eprintln!("{:.3}", summary.elapsed.as_secs_f64());
                }
                if options.summary {
                    eprintln!("{}", summary.render());
                }
            }
            Err(e) => {
                let _ = stdout.flush();
                eprintln!("{e}");
                if !options.ignore_error {
                    return exit_code(&e);
                }
            }
        }
    }
    let _ = stdout.flush();
    ExitCode::SUCCESS
}

/// Runs one statement, writing its result to `out`.
pub async fn run_statement(
    session: &mut Session,
    text: &str,
    default_format: OutputFormat,
    out: &mut dyn Write,
    running: &Running,
) -> Result<Summary> {
    let outcome = session.execute(text).await?;
    match outcome {
        StatementOutcome::Rows(result) => {
            let query = Arc::clone(&result.query);
            *running.lock().expect("lock") = Some(Arc::clone(&query));
            let written = write_result(result, default_format, out).await;
            *running.lock().expect("lock") = None;
            Ok(Summary::of(&query, Some(written?)))
        }
        StatementOutcome::Done(query) => Ok(Summary::of(&query, None)),
    }
}

/// Query parameters by name (without `param_`).
type Params = std::collections::HashMap<String, String>;

/// `text` with each `{name:Type}` given its parameter's value; as it was
/// when no parameter is given, so braces mean nothing else then.
fn with_params(text: &str, params: &Params) -> Result<String> {
    if params.is_empty() {
        return Ok(text.to_string());
    }
    strata_server::query_params::substitute(text, params)
}

async fn interactive_loop(
    session: &mut Session,
    default_format: OutputFormat,
    params: &Params,
    running: &Running,
) -> ExitCode {
    let mut prompt = match Prompt::new() {
        Ok(prompt) => prompt,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::FAILURE;
        }
    };
    println!(
        "Strata {} local (ClickHouse {} SQL). Statements end with ';'. Type exit or quit to leave.\n",
        strata_engine::engine::VERSION,
        strata_engine::engine::CLICKHOUSE_VERSION
    );
    prompt.set_names(catalog_names(session).await);
    while let Some(text) = prompt.next_statement() {
        match with_params(&text, params) {
            Ok(sql) => run_interactive(session, &sql, default_format, running).await,
            Err(e) => eprintln!("{e}\n"),
        }
        if changes_names(&text) {
            prompt.set_names(catalog_names(session).await);
        }
    }
    println!("Bye.");
    ExitCode::SUCCESS
}

/// What Tab completes, read from this session's catalog; none when the read fails.
async fn catalog_names(session: &mut Session) -> Names {
    let mut text = Vec::new();
    let running = Running::default();
    let read = run_statement(
        session,
        Names::QUERY,
        OutputFormat::TabSeparated,
        &mut text,
        &running,
    )
    .await;
    match read {
        Ok(_) => Names::from_tsv(&String::from_utf8_lossy(&text)),
        Err(_) => Names::default(),
    }
}

async fn run_interactive(
    session: &mut Session,
    text: &str,
    default_format: OutputFormat,
    running: &Running,
) {
    let statements = match strata_sql::split_statements(text) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("{e}\n");
            return;
        }
    };
    for statement in statements {
        let mut stdout = std::io::stdout().lock();
        match run_statement(session, &statement, default_format, &mut stdout, running).await {
            Ok(summary) => println!("\n{}\n", summary.render()),
            Err(e) => eprintln!("{e}\n"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_are_taken_from_the_command_line() {
        let args: Vec<String> = [
            "strata",
            "local",
            "--max_threads=2",
            "-q",
            "SELECT 1",
            "--max_block_size",
            "100",
            "--format",
            "JSON",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        let (rest, settings) = split_setting_args(args);
        assert_eq!(
            rest,
            vec!["strata", "local", "-q", "SELECT 1", "--format", "JSON"]
        );
        assert_eq!(
            settings,
            vec![
                ("max_threads".into(), "2".into()),
                ("max_block_size".into(), "100".into())
            ]
        );
    }
}
