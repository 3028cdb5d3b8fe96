//! A `strata server` on a loopback port for the integration tests, on its
//! own runtime and thread until dropped, and a raw HTTP client for it.

// Each test binary uses a part of this module.
#![allow(dead_code)]

use std::collections::HashMap;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::sync::Arc;
use std::time::{Duration, Instant};

use strata_engine::Engine;
use strata_engine::data_path::DataPath;
use strata_server::{Server, ServerConfig};

/// A server running on its own runtime until dropped.
pub struct TestServer {
    pub port: u16,
    pub stop: Option<tokio::sync::oneshot::Sender<()>>,
    pub thread: Option<std::thread::JoinHandle<()>>,
    pub engine: Arc<Engine>,
    dir: Option<tempfile::TempDir>,
}

impl Drop for TestServer {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// A server with the configuration file `config_text`.
pub fn start_with(config_text: &str) -> TestServer {
    start_in(tempfile::tempdir().unwrap(), config_text)
}

/// A server on the data of `dir`, as one started again on the same path.
fn start_in(dir: tempfile::TempDir, config_text: &str) -> TestServer {
    let file = dir.path().join("config.xml");
    std::fs::write(&file, config_text).unwrap();
    let mut config = ServerConfig::load(&file).unwrap();
    config.http_port = 0;
    config.path = dir.path().join("data");
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let (port_tx, port_rx) = std::sync::mpsc::channel();
    let (stop_tx, stop_rx) = tokio::sync::oneshot::channel::<()>();
    let path = config.path.clone();
    let thread = std::thread::spawn(move || {
        runtime.block_on(async move {
            let engine = Engine::open(
                config.engine_settings().unwrap(),
                DataPath::open(&path).unwrap(),
            )
            .unwrap();
            engine.load_tables().await.unwrap();
            let listeners = strata_server::bind(&config).await.unwrap();
            let port = listeners[0].local_addr().unwrap().port();
            port_tx.send((port, Arc::clone(&engine))).unwrap();
            let server = Server::new(engine, &config);
            strata_server::serve(server, listeners, async {
                let _ = stop_rx.await;
            })
            .await;
        });
    });
    let (port, engine) = port_rx.recv().unwrap();
    TestServer {
        port,
        stop: Some(stop_tx),
        thread: Some(thread),
        engine,
        dir: Some(dir),
    }
}

pub struct Reply {
    pub status: u16,
    pub headers: HashMap<String, String>,
    pub body: Vec<u8>,
}

impl Reply {
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }

    pub fn header(&self, name: &str) -> &str {
        self.headers.get(name).map_or("", String::as_str)
    }
}

pub fn encode(text: &str) -> String {
    percent_encoding::utf8_percent_encode(text, percent_encoding::NON_ALPHANUMERIC).to_string()
}

/// Sends one request to the server on `port` and reads the whole reply.
pub fn send(port: u16, method: &str, target: &str, headers: &[(&str, &str)], body: &[u8]) -> Reply {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(60)))
        .unwrap();
    let mut head =
        format!("{method} {target} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n");
    for (name, value) in headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    if method == "POST" {
        head.push_str(&format!("Content-Length: {}\r\n", body.len()));
    }
    head.push_str("\r\n");
    stream.write_all(head.as_bytes()).unwrap();
    stream.write_all(body).unwrap();
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw).unwrap();
    parse_reply(&raw)
}

impl TestServer {
    /// Stops the server and starts another on the same data path.
    pub fn restart(mut self, config_text: &str) -> TestServer {
        let dir = self.dir.take().expect("a running server has its directory");
        let engine = Arc::clone(&self.engine);
        drop(self);
        // The queries' runtime shuts down in the background: its tasks let
        // go of the engine (and the data path's lock) soon after.
        wait_until("the engine to be released", || {
            Arc::strong_count(&engine) == 1
        });
        drop(engine);
        start_in(dir, config_text)
    }

    pub fn send(&self, method: &str, target: &str, headers: &[(&str, &str)], body: &[u8]) -> Reply {
        send(self.port, method, target, headers, body)
    }

    pub fn get(&self, query: &str) -> Reply {
        self.send("GET", &format!("/?query={}", encode(query)), &[], b"")
    }

    pub fn post(&self, url_params: &str, body: &str) -> Reply {
        self.send("POST", &format!("/?{url_params}"), &[], body.as_bytes())
    }

    pub fn query(&self, query: &str) -> Reply {
        self.post(&format!("query={}", encode(query)), "")
    }

    /// The text of a query that must succeed.
    pub fn ok(&self, query: &str) -> String {
        let reply = self.query(query);
        assert_eq!(reply.status, 200, "{query}: {}", reply.text());
        reply.text()
    }
}

fn parse_reply(raw: &[u8]) -> Reply {
    let split = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .expect("a complete head");
    let head = String::from_utf8_lossy(&raw[..split]).into_owned();
    let mut lines = head.split("\r\n");
    let status: u16 = lines
        .next()
        .unwrap()
        .split(' ')
        .nth(1)
        .unwrap()
        .parse()
        .unwrap();
    let headers: HashMap<String, String> = lines
        .filter_map(|l| l.split_once(": "))
        .map(|(k, v)| (k.to_ascii_lowercase(), v.to_string()))
        .collect();
    let mut body = raw[split + 4..].to_vec();
    if headers.get("transfer-encoding").map(String::as_str) == Some("chunked") {
        body = dechunk(&body);
    }
    Reply {
        status,
        headers,
        body,
    }
}

fn dechunk(mut data: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    loop {
        let line_end = data.windows(2).position(|w| w == b"\r\n").unwrap();
        let size =
            usize::from_str_radix(std::str::from_utf8(&data[..line_end]).unwrap(), 16).unwrap();
        data = &data[line_end + 2..];
        if size == 0 {
            return out;
        }
        out.extend_from_slice(&data[..size]);
        data = &data[size + 2..];
    }
}

pub fn wait_until(what: &str, mut condition: impl FnMut() -> bool) {
    let started = Instant::now();
    while !condition() {
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "timed out waiting for {what}"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Whether the query `id` is running.
pub fn running(server: &TestServer, id: &str) -> bool {
    server
        .engine
        .instance()
        .processes
        .running()
        .iter()
        .any(|q| q.query_id == id)
}
