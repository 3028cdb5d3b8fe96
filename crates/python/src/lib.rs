//! `strata._strata`: the engine in a Python process. A [`Connection`] is one
//! engine (a data path, temporary or kept) with one session; the Python
//! package (`python/strata`) wraps it with results as bytes, Arrow tables and
//! DataFrames, and with Python objects queryable by name.
//!
//! Queries run on a process-wide Tokio runtime with the GIL released; the
//! caller's thread wakes every [`SIGNAL_CHECK_INTERVAL`] so Ctrl-C cancels
//! the running statement (KeyboardInterrupt, as everywhere in Python).

use std::io::Cursor;
use std::path::PathBuf;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use datafusion::arrow::ipc::reader::StreamReader;
use datafusion::arrow::ipc::writer::StreamWriter;
use futures::StreamExt;
use pyo3::exceptions::PyException;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};
use strata_common::settings::{Scope, Settings};
use strata_common::types::field_type_name;
use strata_common::{ErrorCode, Result, StrataError};
use strata_engine::data_path::DataPath;
use strata_engine::{Engine, QueryContext, QueryResult, Session, StatementOutcome};
use strata_formats::OutputFormat;
use strata_sql::literal_text::backquoted;

pyo3::create_exception!(
    strata,
    Error,
    PyException,
    "A Strata error: `code` and `name` are ClickHouse's (62, 'SYNTAX_ERROR')."
);

/// How often a waiting query checks for Ctrl-C.
const SIGNAL_CHECK_INTERVAL: Duration = Duration::from_millis(100);

fn runtime() -> &'static tokio::runtime::Runtime {
    static RUNTIME: OnceLock<tokio::runtime::Runtime> = OnceLock::new();
    RUNTIME.get_or_init(|| {
        tokio::runtime::Builder::new_multi_thread()
            .enable_all()
            .thread_name("strata")
            .build()
            .expect("the Tokio runtime starts")
    })
}

/// `error` as a `strata.Error` carrying `code` and `name`.
fn python_error(py: Python<'_>, error: &StrataError) -> PyErr {
    let err = Error::new_err(error.to_string());
    let value = err.value(py);
    let _ = value.setattr("code", error.code.code);
    let _ = value.setattr("name", error.code.name);
    err
}

/// What a run of statements gives back: the output of those that return rows
/// (in the asked format, or Arrow IPC) and the last statement's counters.
struct Output {
    bytes: Vec<u8>,
    summary: Option<Summary>,
}

/// The counters of one statement, as `strata local --print-profile-events` shows them.
struct Summary {
    elapsed_seconds: f64,
    result_rows: u64,
    read_rows: u64,
    read_bytes: u64,
    peak_memory_usage: u64,
    spilled_bytes: u64,
    spill_disk_bytes_written: u64,
}

impl Summary {
    fn of(query: &QueryContext, result_rows: u64) -> Self {
        let spill = query.spill.figures();
        Summary {
            elapsed_seconds: query.started.elapsed().as_secs_f64(),
            result_rows,
            read_rows: query.rows_read(),
            read_bytes: query.bytes_read(),
            peak_memory_usage: query.memory.peak() as u64,
            spilled_bytes: spill.bytes_spilled,
            spill_disk_bytes_written: spill.disk_bytes_written,
        }
    }

    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let dict = PyDict::new(py);
        dict.set_item("elapsed", self.elapsed_seconds)?;
        dict.set_item("result_rows", self.result_rows)?;
        dict.set_item("read_rows", self.read_rows)?;
        dict.set_item("read_bytes", self.read_bytes)?;
        dict.set_item("peak_memory_usage", self.peak_memory_usage)?;
        dict.set_item("spilled_bytes", self.spilled_bytes)?;
        dict.set_item("spill_disk_bytes_written", self.spill_disk_bytes_written)?;
        Ok(dict)
    }
}

/// How the rows of a result are written out.
#[derive(Clone, Copy)]
enum Encoding {
    /// A ClickHouse output format; `FORMAT` in the statement wins.
    Format(OutputFormat),
    /// Arrow IPC stream of the engine's own record batches, unconverted, for
    /// `pyarrow.ipc.open_stream`.
    Arrow,
}

/// One engine and its session, as `strata local --path` has.
#[pyclass(frozen)]
struct Connection {
    engine: Arc<Engine>,
    session: Arc<tokio::sync::Mutex<Session>>,
}

#[pymethods]
impl Connection {
    /// Opens the data path `path` (a temporary directory removed at close
    /// when None) with `settings`: server settings (`max_server_memory_usage`)
    /// for the engine, the others for the session.
    #[new]
    #[pyo3(signature = (path=None, settings=Vec::new()))]
    fn new(
        py: Python<'_>,
        path: Option<PathBuf>,
        settings: Vec<(String, String)>,
    ) -> PyResult<Self> {
        let opened = py.detach(|| runtime().block_on(open(path, settings)));
        let (engine, session) = opened.map_err(|e| python_error(py, &e))?;
        Ok(Connection {
            engine,
            session: Arc::new(tokio::sync::Mutex::new(session)),
        })
    }

    /// Runs `sql` (statements separated by `;`) and returns the rows of those
    /// that return rows in `format`, and the last statement's counters.
    fn query<'py>(
        &self,
        py: Python<'py>,
        sql: String,
        format: &str,
    ) -> PyResult<(Bound<'py, PyBytes>, Option<Bound<'py, PyDict>>)> {
        let format = OutputFormat::from_name(format).map_err(|e| python_error(py, &e))?;
        self.run(py, sql, Encoding::Format(format))
    }

    /// Runs `sql` and returns its rows as one Arrow IPC stream.
    fn arrow<'py>(
        &self,
        py: Python<'py>,
        sql: String,
    ) -> PyResult<(Bound<'py, PyBytes>, Option<Bound<'py, PyDict>>)> {
        self.run(py, sql, Encoding::Arrow)
    }

    /// Makes the Arrow IPC stream `data` the session's temporary table `name`.
    fn register(&self, py: Python<'_>, name: String, data: Vec<u8>) -> PyResult<()> {
        let session = Arc::clone(&self.session);
        let work = async move { register(&mut *session.lock().await, &name, data).await };
        self.wait(py, runtime().spawn(work), None)
    }

    /// Removes the temporary table `name`, if the session has one.
    fn unregister(&self, py: Python<'_>, name: String) -> PyResult<()> {
        let session = Arc::clone(&self.session);
        let work = async move {
            session.lock().await.remove_temporary_table(&name);
            Ok(())
        };
        self.wait(py, runtime().spawn(work), None)
    }
}

impl Connection {
    fn run<'py>(
        &self,
        py: Python<'py>,
        sql: String,
        encoding: Encoding,
    ) -> PyResult<(Bound<'py, PyBytes>, Option<Bound<'py, PyDict>>)> {
        let session = Arc::clone(&self.session);
        let query_id = Arc::new(RunningQuery::default());
        let work = {
            let query_id = Arc::clone(&query_id);
            async move { run_statements(&mut *session.lock().await, &sql, encoding, &query_id).await }
        };
        let output = self.wait(py, runtime().spawn(work), Some(&query_id))?;
        let summary = output.summary.map(|s| s.to_dict(py)).transpose()?;
        Ok((PyBytes::new(py, &output.bytes), summary))
    }

    /// Waits for `task` with the GIL released, waking to check for Ctrl-C:
    /// on KeyboardInterrupt the statement running as `query_id` is cancelled
    /// and the interrupt raised once the task has stopped.
    fn wait<T: Send + 'static>(
        &self,
        py: Python<'_>,
        mut task: tokio::task::JoinHandle<Result<T>>,
        query_id: Option<&RunningQuery>,
    ) -> PyResult<T> {
        let mut interrupt = None;
        let joined = loop {
            let polled = py.detach(|| {
                runtime().block_on(async {
                    tokio::time::timeout(SIGNAL_CHECK_INTERVAL, &mut task).await
                })
            });
            if let Ok(joined) = polled {
                break joined;
            }
            if interrupt.is_none()
                && let Err(signal) = py.check_signals()
            {
                interrupt = Some(signal);
                self.cancel(query_id);
            }
        };
        if let Some(signal) = interrupt {
            return Err(signal);
        }
        match joined {
            Ok(outcome) => outcome.map_err(|e| python_error(py, &e)),
            Err(panic) => Err(Error::new_err(format!("The query panicked: {panic}"))),
        }
    }

    fn cancel(&self, query_id: Option<&RunningQuery>) {
        let Some(id) = query_id.and_then(RunningQuery::id) else {
            return;
        };
        for query in self.engine.instance().processes.running() {
            if query.query_id == id {
                query.cancel();
            }
        }
    }
}

/// The query id of the statement running now, for Ctrl-C to cancel it.
#[derive(Default)]
struct RunningQuery(std::sync::Mutex<Option<String>>);

impl RunningQuery {
    fn set(&self, id: String) {
        *self.0.lock().expect("running query lock") = Some(id);
    }

    fn id(&self) -> Option<String> {
        self.0.lock().expect("running query lock").clone()
    }
}

async fn open(
    path: Option<PathBuf>,
    settings: Vec<(String, String)>,
) -> Result<(Arc<Engine>, Session)> {
    let (server, query): (Vec<_>, Vec<_>) = settings
        .into_iter()
        .partition(|(name, _)| Scope::Server.find(name).is_some());
    let mut server_settings = Settings::server();
    for (name, value) in &server {
        server_settings.set(name, value)?;
    }
    let data_path = match path {
        Some(dir) => DataPath::open(&dir)?,
        None => DataPath::temporary()?,
    };
    let engine = Engine::open(server_settings, data_path)?;
    engine.load_tables().await?;
    let mut session = engine.new_session();
    for (name, value) in &query {
        session.settings.set(name, value)?;
    }
    Ok((engine, session))
}

async fn run_statements(
    session: &mut Session,
    sql: &str,
    encoding: Encoding,
    query_id: &RunningQuery,
) -> Result<Output> {
    let mut output = Output {
        bytes: Vec::new(),
        summary: None,
    };
    for statement in strata_sql::split_statements(sql)? {
        let id = uuid::Uuid::new_v4().to_string();
        query_id.set(id.clone());
        session.set_query_id(id);
        output.summary = Some(match session.execute(&statement).await? {
            StatementOutcome::Rows(result) => {
                let query = Arc::clone(&result.query);
                if matches!(encoding, Encoding::Arrow) {
                    // Only the last result set makes the table.
                    output.bytes.clear();
                }
                let rows = write_rows(result, encoding, &mut output.bytes).await?;
                Summary::of(&query, rows)
            }
            StatementOutcome::Done(query) => Summary::of(&query, 0),
        });
    }
    Ok(output)
}

/// Writes the rows of `result` to `out`; returns how many.
async fn write_rows(mut result: QueryResult, encoding: Encoding, out: &mut Vec<u8>) -> Result<u64> {
    let Encoding::Format(default) = encoding else {
        let query = Arc::clone(&result.query);
        let mut writer = StreamWriter::try_new(&mut *out, &result.schema)?;
        let mut rows = 0u64;
        while let Some(batch) = result.stream.next().await {
            let batch = batch?;
            query.check()?;
            rows += batch.num_rows() as u64;
            writer.write(&batch)?;
        }
        writer.finish()?;
        return Ok(rows);
    };
    result.write_to(default, out).await
}

/// Creates the temporary table `name` with the columns of the Arrow IPC
/// stream `data` and loads its rows, as the HTTP interface loads external data.
async fn register(session: &mut Session, name: &str, data: Vec<u8>) -> Result<()> {
    let reader = StreamReader::try_new(Cursor::new(data.as_slice()), None)?;
    let columns: Vec<String> = reader
        .schema()
        .fields()
        .iter()
        .map(|field| format!("{} {}", backquoted(field.name()), field_type_name(field)))
        .collect();
    if columns.is_empty() {
        return Err(StrataError::new(
            ErrorCode::BAD_ARGUMENTS,
            format!("Cannot query the Python object {name}: it has no columns"),
        ));
    }
    let table = backquoted(name);
    session
        .execute(&format!(
            "CREATE TEMPORARY TABLE {table} ({}) ENGINE = Memory",
            columns.join(", ")
        ))
        .await?;
    session.set_input(Box::new(Cursor::new(data)));
    session
        .execute(&format!("INSERT INTO {table} FORMAT ArrowStream"))
        .await?;
    Ok(())
}

#[pymodule]
fn _strata(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Connection>()?;
    m.add("Error", m.py().get_type::<Error>())?;
    m.add("VERSION", strata_engine::engine::VERSION)?;
    m.add(
        "CLICKHOUSE_VERSION",
        strata_engine::engine::CLICKHOUSE_VERSION,
    )?;
    Ok(())
}
