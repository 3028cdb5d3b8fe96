//! A `strata server` on a loopback port for the integration tests, on its
//! own runtime and thread until dropped.

use std::sync::Arc;

use strata_engine::Engine;
use strata_engine::data_path::DataPath;
use strata_server::{Server, ServerConfig};

/// A server running on its own runtime until dropped.
pub struct TestServer {
    pub port: u16,
    pub stop: Option<tokio::sync::oneshot::Sender<()>>,
    pub thread: Option<std::thread::JoinHandle<()>>,
    /// Not every test binary that shares this module reads it.
    #[allow(dead_code)]
    pub engine: Arc<Engine>,
    _dir: tempfile::TempDir,
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
    let dir = tempfile::tempdir().unwrap();
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
                config.server_settings.clone(),
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
        _dir: dir,
    }
}

