//! `strata client`: a terminal client for `strata server` (or any server
//! speaking ClickHouse's HTTP interface), like clickhouse-client. Queries
//! come from `-q`, `--queries-file`, stdin, or the interactive prompt; with
//! queries given as arguments, stdin is the data of an `INSERT ... FORMAT`.

mod connection;
mod statement;

use std::io::{BufWriter, IsTerminal, Read, Write};
use std::process::ExitCode;
use std::sync::Arc;

use bytes::Bytes;
use clap::Args;
use strata_common::{ErrorCode, Result, StrataError};
use tokio::io::AsyncReadExt;
use tokio::sync::watch;

use crate::exit_code;
use crate::prompt::{Names, Prompt, changes_names};
use crate::query_args::QueryArgs;
use connection::Connection;
use statement::{Finished, Statement};

#[derive(Args)]
pub struct ClientArgs {
    /// The server's host.
    #[arg(long = "host", short = 'h', default_value = "localhost")]
    host: String,
    /// The server's HTTP port.
    #[arg(long = "port", default_value_t = 8123)]
    port: u16,
    #[arg(long = "user", short = 'u', default_value = "default")]
    user: String,
    /// The password; `--password` alone asks for it at the terminal.
    #[arg(long = "password", num_args = 0..=1)]
    password: Option<Option<String>>,
    /// The database statements run in.
    #[arg(long = "database", short = 'd')]
    database: Option<String>,
    #[command(flatten)]
    queries: QueryArgs,
    /// Print help (`-h` is the host, as in clickhouse-client).
    #[arg(long = "help", action = clap::ArgAction::Help)]
    help: Option<bool>,
}

pub fn run(args: ClientArgs, settings: Vec<(String, String)>) -> ExitCode {
    let (sender, interrupts) = watch::channel(0u64);
    let _ = ctrlc::set_handler(move || sender.send_modify(|count| *count += 1));
    let runtime = match crate::runtime() {
        Ok(runtime) => runtime,
        Err(code) => return code,
    };
    match runtime.block_on(client(args, settings, interrupts)) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("{e}");
            exit_code(&e)
        }
    }
}

/// How statements of this run are sent and shown.
struct Client {
    connection: Arc<Connection>,
    default_format: String,
    interrupts: watch::Receiver<u64>,
    show_progress: bool,
    /// stdin still holds data for an `INSERT ... FORMAT`.
    stdin_data: bool,
}

async fn client(
    args: ClientArgs,
    settings: Vec<(String, String)>,
    interrupts: watch::Receiver<u64>,
) -> Result<ExitCode> {
    let password = match &args.password {
        None => String::new(),
        Some(Some(password)) => password.clone(),
        Some(None) => read_password(&args.user)?,
    };
    let batch = args.queries.batch_text()?;
    let interactive = batch.trim().is_empty() && std::io::stdin().is_terminal();
    let connection = Arc::new(Connection::new(
        &args.host,
        args.port,
        args.user.clone(),
        password,
        settings,
    ));
    if interactive {
        println!(
            "Connecting to {}:{} as user {}.",
            args.host, args.port, args.user
        );
    }
    let version = connection.server_version().await?;
    if interactive {
        println!("Connected to Strata server version {version}.\n");
    }
    let stdout_is_terminal = std::io::stdout().is_terminal();
    let default_format = match &args.queries.format {
        Some(name) => name.clone(),
        None if stdout_is_terminal || interactive => "PrettyCompact".to_string(),
        None => "TabSeparated".to_string(),
    };
    let mut client = Client {
        connection,
        default_format,
        interrupts,
        show_progress: std::io::stderr().is_terminal(),
        stdin_data: !batch.trim().is_empty() && !std::io::stdin().is_terminal(),
    };
    if let Some(database) = &args.database {
        let sql = format!("USE `{}`", database.replace('`', "\\`"));
        client.run(&sql, &mut std::io::sink(), false).await?;
    }
    if interactive {
        return Ok(client.interactive().await);
    }
    let batch = if batch.trim().is_empty() {
        let mut text = String::new();
        std::io::stdin().read_to_string(&mut text)?;
        text
    } else {
        batch
    };
    Ok(client.batch(&batch, &args.queries).await)
}

fn read_password(user: &str) -> Result<String> {
    rpassword::prompt_password(format!("Password for user ({user}): ")).map_err(|e| {
        StrataError::new(
            ErrorCode::BAD_ARGUMENTS,
            format!("Cannot read the password: {e}"),
        )
    })
}

impl Client {
    /// One statement; its result to `out`.
    async fn run(&mut self, sql: &str, out: &mut dyn Write, summary: bool) -> Result<Finished> {
        let data = (self.stdin_data && is_insert(sql)).then(|| {
            // The first INSERT takes all of stdin.
            self.stdin_data = false;
            reqwest::Body::wrap_stream(stdin_stream())
        });
        let statement = Statement {
            connection: &self.connection,
            default_format: &self.default_format,
            interrupts: &self.interrupts,
            show_progress: self.show_progress,
            data,
        };
        statement.run(sql, out, summary).await
    }

    async fn batch(&mut self, text: &str, args: &QueryArgs) -> ExitCode {
        let statements = match strata_sql::split_statements(text) {
            Ok(statements) => statements,
            Err(e) => {
                eprintln!("{e}");
                return exit_code(&e);
            }
        };
        let mut stdout = BufWriter::new(std::io::stdout().lock());
        for sql in statements {
            let outcome = self.run(&sql, &mut stdout, false).await;
            let _ = stdout.flush();
            match outcome {
                Ok(finished) if args.time => eprintln!("{:.3}", finished.elapsed.as_secs_f64()),
                Ok(_) => {}
                Err(e) => {
                    eprintln!("{}", received(&e));
                    if !args.ignore_error {
                        return exit_code(&e);
                    }
                }
            }
        }
        ExitCode::SUCCESS
    }

    async fn interactive(&mut self) -> ExitCode {
        let mut prompt = match Prompt::new() {
            Ok(prompt) => prompt,
            Err(e) => {
                eprintln!("{e}");
                return ExitCode::FAILURE;
            }
        };
        prompt.set_names(self.names().await);
        while let Some(text) = prompt.next_statement() {
            self.run_interactive(&text).await;
            if changes_names(&text) {
                prompt.set_names(self.names().await);
            }
        }
        println!("Bye.");
        ExitCode::SUCCESS
    }

    async fn run_interactive(&mut self, text: &str) {
        let statements = match strata_sql::split_statements(text) {
            Ok(statements) => statements,
            Err(e) => {
                eprintln!("{e}\n");
                return;
            }
        };
        for sql in statements {
            let mut stdout = std::io::stdout().lock();
            match self.run(&sql, &mut stdout, true).await {
                Ok(finished) => println!("\n{}\n", summary_text(&sql, &finished)),
                Err(e) => eprintln!("{}\n", received(&e)),
            }
        }
    }

    /// What Tab completes, from the server's catalog; none when it cannot be read.
    async fn names(&self) -> Names {
        match self.connection.helper(Names::QUERY).await {
            Ok(text) => Names::from_tsv(&text),
            Err(_) => Names::default(),
        }
    }
}

/// `N rows in set. Elapsed: ... Processed ...` as the server counted it; the
/// elapsed time alone when the server has no figures for the query.
fn summary_text(sql: &str, finished: &Finished) -> String {
    match &finished.summary {
        Some(summary) => {
            let mut summary = summary.clone();
            summary.elapsed = finished.elapsed;
            if !returns_rows(sql) {
                summary.result_rows = None;
            }
            summary.render()
        }
        None => format!("Elapsed: {:.3} sec.", finished.elapsed.as_secs_f64()),
    }
}

/// Whether a statement answers with rows (`N rows in set`) rather than `Ok.`.
fn returns_rows(sql: &str) -> bool {
    let first = sql.split_whitespace().next().unwrap_or("");
    let first = first.trim_start_matches('(');
    [
        "SELECT", "WITH", "SHOW", "DESCRIBE", "DESC", "EXPLAIN", "EXISTS", "CHECK", "KILL",
    ]
    .iter()
    .any(|k| first.eq_ignore_ascii_case(k))
}

fn is_insert(sql: &str) -> bool {
    let first = sql.split_whitespace().next().unwrap_or("");
    first.eq_ignore_ascii_case("INSERT")
}

/// How clickhouse-client shows an error: the server's own errors with the
/// line that says they came from it.
fn received(error: &StrataError) -> String {
    match error.code {
        ErrorCode::NETWORK_ERROR | ErrorCode::QUERY_WAS_CANCELLED => error.to_string(),
        _ => format!("Received exception from server:\n{error}"),
    }
}

/// stdin as an HTTP body, read as it is sent.
fn stdin_stream() -> impl futures::Stream<Item = std::io::Result<Bytes>> + Send + 'static {
    /// Bytes read from stdin at a time.
    const READ_SIZE: usize = 1 << 16;
    futures::stream::unfold(Some(tokio::io::stdin()), |stdin| async move {
        let mut stdin = stdin?;
        let mut buffer = vec![0u8; READ_SIZE];
        match stdin.read(&mut buffer).await {
            Ok(0) => None,
            Ok(n) => {
                buffer.truncate(n);
                Some((Ok(Bytes::from(buffer)), Some(stdin)))
            }
            Err(e) => Some((Err(e), None)),
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statements_with_rows_are_told_from_the_rest() {
        assert!(returns_rows("select 1"));
        assert!(returns_rows("(SELECT 1) UNION ALL (SELECT 2)"));
        assert!(!returns_rows("INSERT INTO t VALUES (1)"));
        assert!(!returns_rows("CREATE TABLE t (a UInt8) ENGINE = Memory"));
        assert!(is_insert("insert into t format CSV"));
    }
}
