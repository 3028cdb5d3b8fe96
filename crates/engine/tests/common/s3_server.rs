//! An S3-compatible server for tests: s3s-fs, which `scripts/setup.sh
//! --tests` installs into build/tools, on a free loopback port. Shared by
//! the engine's and the CLI's test binaries.

// Each test binary uses its own share of these.
#![allow(dead_code)]

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

pub const ACCESS_KEY: &str = "strata";
pub const SECRET_KEY: &str = "strata-secret";
pub const BUCKET: &str = "bucket";

/// An s3s-fs server on a free loopback port, stopped when dropped.
pub struct S3Server {
    child: Child,
    port: u16,
    root: tempfile::TempDir,
}

impl S3Server {
    fn binary() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../build/tools/bin/s3s-fs")
    }

    /// `None` (with the reason printed) where s3s-fs is not installed.
    pub fn start() -> Option<S3Server> {
        let binary = Self::binary();
        if !binary.exists() {
            eprintln!(
                "SKIPPED: {} is missing; `scripts/setup.sh --tests` installs it",
                binary.display()
            );
            return None;
        }
        let root = tempfile::tempdir().unwrap();
        std::fs::create_dir(root.path().join(BUCKET)).unwrap();
        let port = TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let child = Command::new(binary)
            .args(["--host", "127.0.0.1", "--port", &port.to_string()])
            .args(["--access-key", ACCESS_KEY, "--secret-key", SECRET_KEY])
            .arg(root.path())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let server = S3Server { child, port, root };
        // Bounded: 10 s for the server to listen.
        for _ in 0..200 {
            if std::net::TcpStream::connect(("127.0.0.1", port)).is_ok() {
                return Some(server);
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        panic!("s3s-fs did not start listening on port {port}");
    }

    pub fn port(&self) -> u16 {
        self.port
    }

    pub fn endpoint(&self) -> String {
        format!("http://127.0.0.1:{}/{BUCKET}/data/", self.port)
    }

    /// The URL of `key` in the bucket, for the `s3()` table function.
    pub fn url(&self, key: &str) -> String {
        format!("http://127.0.0.1:{}/{BUCKET}/{key}", self.port)
    }

    /// Object files the server holds under `data/`.
    pub fn objects(&self) -> Vec<PathBuf> {
        self.objects_under("data")
    }

    /// Object files the server holds under `directory` of the bucket.
    pub fn objects_under(&self, directory: &str) -> Vec<PathBuf> {
        let mut found = Vec::new();
        let mut pending = vec![self.root.path().join(BUCKET).join(directory)];
        while let Some(dir) = pending.pop() {
            let Ok(entries) = std::fs::read_dir(&dir) else {
                continue;
            };
            for entry in entries.flatten() {
                let path = entry.path();
                if path.is_dir() {
                    pending.push(path);
                } else {
                    found.push(path);
                }
            }
        }
        found
    }
}

impl Drop for S3Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
