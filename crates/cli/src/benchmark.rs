//! `strata benchmark`: runs queries from concurrent clients and reports
//! queries per second and latency percentiles every interval and at the
//! end, like clickhouse-benchmark. Clients run in this process against a
//! data path (`--path`) or against a server over HTTP (`--host`/`--port`).
//! `{key}` in a query is replaced by a key drawn per run from `--keys`
//! values, uniform, Pareto (sysbench's formula, h = 0.2) or Zipfian.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use clap::{Args, ValueEnum};
use futures::StreamExt;
use parking_lot::Mutex;
use rand::{Rng, SeedableRng};
use rand_distr::Distribution as _;
use strata_common::settings::Settings;
use strata_common::{ErrorCode, Result, StrataError};
use strata_engine::data_path::DataPath;
use strata_engine::{Engine, Session, StatementOutcome};

/// sysbench's Pareto parameter: about 80% of draws fall in 20% of the keys.
const PARETO_H: f64 = 0.2;
/// The Zipfian exponent.
const ZIPF_S: f64 = 1.1;

#[derive(Args)]
pub struct BenchmarkArgs {
    /// A query to run (repeatable); without one, queries are read from
    /// stdin, one per line. Clients take them round-robin.
    #[arg(short = 'q', long = "query")]
    query: Vec<String>,
    /// Clients running queries at once.
    #[arg(short = 'c', long = "concurrency", default_value_t = 1)]
    concurrency: usize,
    /// Stop after this many queries in all (0: no limit).
    #[arg(short = 'i', long = "iterations", default_value_t = 0)]
    iterations: u64,
    /// Stop after this many seconds (0: no limit; with no limit at all, 10).
    #[arg(short = 't', long = "timelimit", default_value_t = 0.0)]
    timelimit: f64,
    /// Seconds between interval reports.
    #[arg(short = 'd', long = "delay", default_value_t = 1.0)]
    delay: f64,
    /// Keys `{key}` is drawn from: 0 to this less one.
    #[arg(long = "keys", default_value_t = 1_000_000)]
    keys: u64,
    /// How `{key}` is drawn.
    #[arg(long = "distribution", value_enum, default_value_t = KeyDistribution::Uniform)]
    distribution: KeyDistribution,
    /// Run in this process on this data path.
    #[arg(long = "path")]
    path: Option<PathBuf>,
    /// Run against a server at this host (HTTP).
    #[arg(long = "host")]
    host: Option<String>,
    #[arg(long = "port", default_value_t = 8123)]
    port: u16,
    #[arg(long = "user", default_value = "default")]
    user: String,
    #[arg(long = "password", default_value = "")]
    password: String,
    /// Write the final report as JSON to this file.
    #[arg(long = "json")]
    json: Option<PathBuf>,
}

#[derive(Clone, Copy, ValueEnum)]
enum KeyDistribution {
    Uniform,
    Pareto,
    Zipf,
}

/// Draws keys for one client.
struct KeyDraw {
    rng: rand::rngs::StdRng,
    distribution: KeyDistribution,
    keys: u64,
    zipf: Option<rand_distr::Zipf<f64>>,
}

impl KeyDraw {
    fn new(distribution: KeyDistribution, keys: u64, seed: u64) -> KeyDraw {
        let keys = keys.max(1);
        KeyDraw {
            rng: rand::rngs::StdRng::seed_from_u64(seed),
            distribution,
            keys,
            zipf: rand_distr::Zipf::new(keys as f64, ZIPF_S).ok(),
        }
    }

    fn next(&mut self) -> u64 {
        let key = match self.distribution {
            KeyDistribution::Uniform => self.rng.random_range(0..self.keys),
            KeyDistribution::Pareto => {
                let exponent = PARETO_H.ln() / (1.0 - PARETO_H).ln();
                (self.keys as f64 * self.rng.random::<f64>().powf(exponent)) as u64
            }
            KeyDistribution::Zipf => match &self.zipf {
                Some(zipf) => zipf.sample(&mut self.rng) as u64 - 1,
                None => 0,
            },
        };
        key.min(self.keys - 1)
    }
}

/// Where queries run.
enum Target {
    Engine {
        engine: Arc<Engine>,
        /// Query settings every client's session starts with.
        settings: Vec<(String, String)>,
    },
    Http {
        client: reqwest::Client,
        url: String,
        /// Query settings sent with every query.
        settings: Vec<(String, String)>,
        user: String,
        password: String,
    },
}

impl Target {
    async fn run(&self, sql: &str, session: &mut Option<Session>) -> Result<()> {
        match self {
            Target::Engine { engine, settings } => {
                if session.is_none() {
                    *session = Some(new_session(engine, settings)?);
                }
                let session = session.as_mut().expect("made above");
                if let StatementOutcome::Rows(mut result) = session.execute(sql).await? {
                    while let Some(batch) = result.stream.next().await {
                        batch.map_err(StrataError::from)?;
                    }
                }
                Ok(())
            }
            Target::Http {
                client,
                url,
                settings,
                user,
                password,
            } => {
                let response = client
                    .post(url)
                    .query(settings)
                    .basic_auth(user, Some(password))
                    .body(sql.to_string())
                    .send()
                    .await
                    .map_err(http_error)?;
                let status = response.status();
                let body = response.bytes().await.map_err(http_error)?;
                if !status.is_success() {
                    return Err(StrataError::new(
                        ErrorCode::NETWORK_ERROR,
                        String::from_utf8_lossy(&body).trim().to_string(),
                    ));
                }
                Ok(())
            }
        }
    }
}

fn new_session(engine: &Arc<Engine>, settings: &[(String, String)]) -> Result<Session> {
    let mut session = engine.new_session();
    for (name, value) in settings {
        session.settings.set(name, value)?;
    }
    Ok(session)
}

fn http_error(error: reqwest::Error) -> StrataError {
    StrataError::new(
        ErrorCode::NETWORK_ERROR,
        format!("HTTP request failed: {error}"),
    )
}

/// Latencies of the queries finished since the last report, and of all.
#[derive(Default)]
struct Latencies {
    interval: Vec<Duration>,
    all: Vec<Duration>,
}

/// One report's figures.
#[derive(Debug)]
struct Report {
    queries: usize,
    seconds: f64,
    qps: f64,
    percentiles_ms: [f64; 4],
}

const PERCENTILES: [f64; 4] = [0.50, 0.95, 0.99, 0.999];

impl Report {
    fn of(latencies: &mut [Duration], seconds: f64) -> Report {
        latencies.sort_unstable();
        let pick = |q: f64| {
            latencies
                .get(((latencies.len() as f64 * q) as usize).min(latencies.len().saturating_sub(1)))
                .map_or(0.0, |d| d.as_secs_f64() * 1000.0)
        };
        Report {
            queries: latencies.len(),
            seconds,
            qps: latencies.len() as f64 / seconds.max(1e-9),
            percentiles_ms: PERCENTILES.map(pick),
        }
    }

    fn line(&self) -> String {
        let [p50, p95, p99, p999] = self.percentiles_ms;
        format!(
            "queries {}, QPS {:.1}, p50 {p50:.3} ms, p95 {p95:.3} ms, p99 {p99:.3} ms, p99.9 {p999:.3} ms",
            self.queries, self.qps
        )
    }

    fn json(&self, per_second: &[f64]) -> String {
        let [p50, p95, p99, p999] = self.percentiles_ms;
        serde_json::json!({
            "queries": self.queries,
            "seconds": self.seconds,
            "qps": self.qps,
            "p50_ms": p50,
            "p95_ms": p95,
            "p99_ms": p99,
            "p999_ms": p999,
            "qps_per_interval": per_second,
        })
        .to_string()
    }
}

pub fn run(args: BenchmarkArgs, settings: Vec<(String, String)>) -> ExitCode {
    crate::run_command(benchmark(args, settings))
}

async fn benchmark(args: BenchmarkArgs, settings: Vec<(String, String)>) -> Result<()> {
    let queries = Arc::new(queries(&args)?);
    let target = Arc::new(target(&args, &settings).await?);
    let timelimit = match (args.iterations, args.timelimit) {
        (0, t) if t <= 0.0 => Some(Duration::from_secs(10)),
        (_, t) if t > 0.0 => Some(Duration::from_secs_f64(t)),
        _ => None,
    };
    let started = Instant::now();
    let deadline = timelimit.map(|t| started + t);
    let issued = Arc::new(AtomicU64::new(0));
    let latencies = Arc::new(Mutex::new(Latencies::default()));
    let stop = Arc::new(AtomicBool::new(false));
    let clients: Vec<_> = (0..args.concurrency.max(1))
        .map(|client| {
            let (queries, target, issued, latencies, stop) = (
                Arc::clone(&queries),
                Arc::clone(&target),
                Arc::clone(&issued),
                Arc::clone(&latencies),
                Arc::clone(&stop),
            );
            let mut keys = KeyDraw::new(args.distribution, args.keys, client as u64);
            let (iterations, concurrency) = (args.iterations, args.concurrency);
            tokio::spawn(async move {
                let mut session = None;
                loop {
                    let n = issued.fetch_add(1, Ordering::Relaxed);
                    let over_time = deadline.is_some_and(|d| Instant::now() >= d);
                    if stop.load(Ordering::Relaxed)
                        || over_time
                        || (iterations > 0 && n >= iterations)
                    {
                        return Ok(());
                    }
                    let sql = queries[n as usize % queries.len()]
                        .replace("{key}", &keys.next().to_string());
                    let sent = Instant::now();
                    if let Err(e) = target.run(&sql, &mut session).await {
                        stop.store(true, Ordering::Relaxed);
                        return Err(e);
                    }
                    {
                        let mut latencies = latencies.lock();
                        latencies.interval.push(sent.elapsed());
                        latencies.all.push(sent.elapsed());
                    }
                    // A query that never waited would let this client run
                    // the next at once and keep its worker from the others,
                    // whose queries then wait mid-way: yield as a network
                    // client would.
                    if concurrency > 1 {
                        tokio::task::yield_now().await;
                    }
                }
            })
        })
        .collect();
    let per_interval = report_intervals(&args, &clients, &latencies, started).await;
    for client in clients {
        client
            .await
            .map_err(|e| StrataError::new(ErrorCode::LOGICAL_ERROR, e.to_string()))??;
    }
    let seconds = started.elapsed().as_secs_f64();
    let total = Report::of(&mut latencies.lock().all, seconds);
    println!("total: {}", total.line());
    if let Some(path) = &args.json {
        std::fs::write(path, total.json(&per_interval)).map_err(|e| {
            StrataError::new(
                ErrorCode::CANNOT_OPEN_FILE,
                format!("Cannot write {}: {e}", path.display()),
            )
        })?;
    }
    Ok(())
}

/// Prints a report every `--delay` seconds until every client is done; the
/// QPS of each interval.
async fn report_intervals(
    args: &BenchmarkArgs,
    clients: &[tokio::task::JoinHandle<Result<()>>],
    latencies: &Mutex<Latencies>,
    started: Instant,
) -> Vec<f64> {
    let delay = Duration::from_secs_f64(args.delay.max(0.01));
    let mut per_interval = Vec::new();
    let mut last = started;
    while !clients.iter().all(|c| c.is_finished()) {
        tokio::time::sleep(delay.min(Duration::from_millis(50))).await;
        if last.elapsed() < delay && !clients.iter().all(|c| c.is_finished()) {
            continue;
        }
        let seconds = last.elapsed().as_secs_f64();
        last = Instant::now();
        let mut interval = std::mem::take(&mut latencies.lock().interval);
        let report = Report::of(&mut interval, seconds);
        println!(
            "{:.1} s: {}",
            started.elapsed().as_secs_f64(),
            report.line()
        );
        per_interval.push(report.qps);
    }
    per_interval
}

fn queries(args: &BenchmarkArgs) -> Result<Vec<String>> {
    let mut queries = args.query.clone();
    if queries.is_empty() {
        let mut text = String::new();
        std::io::Read::read_to_string(&mut std::io::stdin(), &mut text).map_err(|e| {
            StrataError::new(
                ErrorCode::CANNOT_READ_FROM_FILE_DESCRIPTOR,
                format!("Cannot read stdin: {e}"),
            )
        })?;
        queries = text
            .lines()
            .map(|line| line.trim().trim_end_matches(';').to_string())
            .filter(|line| !line.is_empty())
            .collect();
    }
    if queries.is_empty() {
        return Err(StrataError::new(
            ErrorCode::BAD_ARGUMENTS,
            "No queries to run: give --query or queries on stdin, one per line",
        ));
    }
    Ok(queries)
}

async fn target(args: &BenchmarkArgs, settings: &[(String, String)]) -> Result<Target> {
    match (&args.host, &args.path) {
        (Some(host), None) => Ok(Target::Http {
            client: reqwest::Client::new(),
            url: format!("http://{host}:{}/", args.port),
            settings: settings.to_vec(),
            user: args.user.clone(),
            password: args.password.clone(),
        }),
        (None, Some(path)) => {
            let mut server_settings = Settings::server();
            let mut query_settings = Vec::new();
            for (name, value) in settings {
                match strata_common::settings::Scope::Server.find(name) {
                    Some(_) => server_settings.set(name, value)?,
                    None => query_settings.push((name.clone(), value.clone())),
                }
            }
            let engine = Engine::open(server_settings, DataPath::open(path)?)?;
            engine.load_tables().await?;
            // A bad setting fails here, before any client starts.
            new_session(&engine, &query_settings)?;
            Ok(Target::Engine {
                engine,
                settings: query_settings,
            })
        }
        _ => Err(StrataError::new(
            ErrorCode::BAD_ARGUMENTS,
            "Give either --path (run in this process) or --host (a server)",
        )),
    }
}
