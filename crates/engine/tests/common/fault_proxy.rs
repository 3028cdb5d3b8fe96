//! A TCP proxy in front of a test S3 server that injects faults: answers
//! of 503 SlowDown, connections cut partway through an answer, delays past
//! the client's timeout, and a server that is down. Each fault applies to
//! the next connections the client opens; setting one cuts every open
//! connection, so pooled connections meet it too.

use std::io::{Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// What the proxy does to the connections it accepts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fault {
    /// Every connection passes.
    None,
    /// The next `connections` get one answer, 503 SlowDown, and close.
    SlowDown { connections: u32 },
    /// The next `connections` pass until `after_bytes` of the server's
    /// answer went through, then are cut both ways.
    CutAnswer {
        connections: u32,
        after_bytes: usize,
    },
    /// The next `connections` wait `by` before anything passes.
    Delay { connections: u32, by: Duration },
    /// Connections pass until `request_bytes` more bytes of requests went
    /// through; then every connection is cut and the proxy is `Down`, as a
    /// server stopped in the middle of an upload.
    DownAfter { request_bytes: usize },
    /// Every connection is closed as soon as it is accepted.
    Down,
}

impl Fault {
    /// The fault for one new connection, counting it off.
    fn take_one(&mut self) -> Fault {
        let taken = *self;
        let left = match self {
            Fault::SlowDown { connections }
            | Fault::CutAnswer { connections, .. }
            | Fault::Delay { connections, .. } => connections,
            Fault::None | Fault::Down | Fault::DownAfter { .. } => return taken,
        };
        *left -= 1;
        if *left == 0 {
            *self = Fault::None;
        }
        taken
    }
}

struct Shared {
    upstream_port: u16,
    fault: Mutex<Fault>,
    /// Both sides of every connection passed through, to cut them.
    open: Mutex<Vec<TcpStream>>,
    stopped: AtomicBool,
    /// Connections that met a fault.
    faulted: AtomicU64,
}

/// A proxy on a free loopback port, stopped when dropped.
pub struct FaultProxy {
    port: u16,
    shared: Arc<Shared>,
}

impl FaultProxy {
    pub fn start(upstream_port: u16) -> FaultProxy {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let shared = Arc::new(Shared {
            upstream_port,
            fault: Mutex::new(Fault::None),
            open: Mutex::new(Vec::new()),
            stopped: AtomicBool::new(false),
            faulted: AtomicU64::new(0),
        });
        let accepting = Arc::clone(&shared);
        std::thread::spawn(move || {
            for client in listener.incoming() {
                if accepting.stopped.load(Ordering::SeqCst) {
                    break;
                }
                let Ok(client) = client else { continue };
                let shared = Arc::clone(&accepting);
                std::thread::spawn(move || shared.serve(client));
            }
        });
        FaultProxy { port, shared }
    }

    pub fn port(&self) -> u16 {
        self.port
    }

    /// Applies `fault` to the connections opened from now on, cutting the
    /// open ones.
    pub fn set(&self, fault: Fault) {
        *self.shared.fault.lock().unwrap() = fault;
        self.shared.cut_open();
    }

    /// Connections that met a fault so far.
    pub fn faulted(&self) -> u64 {
        self.shared.faulted.load(Ordering::SeqCst)
    }
}

impl Drop for FaultProxy {
    fn drop(&mut self) {
        self.shared.stopped.store(true, Ordering::SeqCst);
        // Wakes the accepting thread so it sees the flag.
        let _ = TcpStream::connect(("127.0.0.1", self.port));
        self.shared.cut_open();
    }
}

impl Shared {
    fn cut_open(&self) {
        for stream in self.open.lock().unwrap().drain(..) {
            let _ = stream.shutdown(Shutdown::Both);
        }
    }

    fn serve(self: Arc<Self>, client: TcpStream) {
        let fault = self.fault.lock().unwrap().take_one();
        if !matches!(fault, Fault::None | Fault::DownAfter { .. }) {
            self.faulted.fetch_add(1, Ordering::SeqCst);
        }
        match fault {
            Fault::Down => {}
            Fault::SlowDown { .. } => slow_down(client),
            Fault::Delay { by, .. } => {
                std::thread::sleep(by);
                self.pass(client, usize::MAX);
            }
            Fault::CutAnswer { after_bytes, .. } => self.pass(client, after_bytes),
            Fault::None | Fault::DownAfter { .. } => self.pass(client, usize::MAX),
        }
    }

    /// Copies both ways until either side closes or `answer_limit` bytes
    /// of the answer went through.
    fn pass(self: &Arc<Self>, client: TcpStream, answer_limit: usize) {
        let Ok(server) = TcpStream::connect(("127.0.0.1", self.upstream_port)) else {
            return;
        };
        let mut open = self.open.lock().unwrap();
        open.push(client.try_clone().unwrap());
        open.push(server.try_clone().unwrap());
        drop(open);
        let (client_in, server_out) = (client.try_clone().unwrap(), server.try_clone().unwrap());
        let shared = Arc::clone(self);
        let requests = std::thread::spawn(move || {
            copy(client_in, server_out, usize::MAX, |n| shared.requested(n))
        });
        copy(server, client, answer_limit, |_| true);
        let _ = requests.join();
    }

    /// Counts `bytes` of requests off a `DownAfter`; false once the proxy
    /// went down.
    fn requested(&self, bytes: usize) -> bool {
        let mut fault = self.fault.lock().unwrap();
        match *fault {
            Fault::DownAfter { request_bytes } if request_bytes > bytes => {
                *fault = Fault::DownAfter {
                    request_bytes: request_bytes - bytes,
                };
                true
            }
            Fault::DownAfter { .. } => {
                *fault = Fault::Down;
                self.faulted.fetch_add(1, Ordering::SeqCst);
                drop(fault);
                self.cut_open();
                false
            }
            _ => true,
        }
    }
}

/// Copies `from` to `to` until `from` ends, `limit` bytes went, or
/// `go_on` refuses a chunk read; then closes both.
fn copy(
    mut from: TcpStream,
    mut to: TcpStream,
    limit: usize,
    mut go_on: impl FnMut(usize) -> bool,
) {
    let mut buffer = vec![0u8; 64 * 1024];
    let mut left = limit;
    while left > 0 {
        let want = buffer.len().min(left);
        match from.read(&mut buffer[..want]) {
            Ok(0) | Err(_) => break,
            Ok(n) => {
                if !go_on(n) || to.write_all(&buffer[..n]).is_err() {
                    break;
                }
                left -= n;
            }
        }
    }
    let _ = from.shutdown(Shutdown::Both);
    let _ = to.shutdown(Shutdown::Both);
}

/// Reads one request (its head and a `Content-Length` body) and answers
/// 503 SlowDown, as a throttling S3 service does.
fn slow_down(mut client: TcpStream) {
    client
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    let mut received = Vec::new();
    let mut buffer = [0u8; 64 * 1024];
    let head_end = loop {
        if let Some(end) = find(&received, b"\r\n\r\n") {
            break end + 4;
        }
        match client.read(&mut buffer) {
            Ok(0) | Err(_) => return,
            Ok(n) => received.extend_from_slice(&buffer[..n]),
        }
    };
    let head = String::from_utf8_lossy(&received[..head_end]).to_ascii_lowercase();
    let length: usize = head
        .lines()
        .find_map(|line| line.strip_prefix("content-length:"))
        .and_then(|value| value.trim().parse().ok())
        .unwrap_or(0);
    let mut body_left = length.saturating_sub(received.len() - head_end);
    while body_left > 0 {
        match client.read(&mut buffer) {
            Ok(0) | Err(_) => return,
            Ok(n) => body_left = body_left.saturating_sub(n),
        }
    }
    let body = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Error><Code>SlowDown</Code>\
                <Message>Please reduce your request rate.</Message></Error>";
    let answer = format!(
        "HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/xml\r\n\
         Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    let _ = client.write_all(answer.as_bytes());
    let _ = client.shutdown(Shutdown::Both);
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack
        .windows(needle.len())
        .position(|window| window == needle)
}
