//! The server under load and bad input: many clients at once, bodies that
//! lie or never end, clients that stop reading or go away, and queries past
//! their memory limit. Each case ends with the server still answering and
//! its tracked memory back where it was.

mod common;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

use common::{TestServer, running, send, start_with, wait_until};

const CONFIG: &str = "<clickhouse>
  <max_concurrent_queries>0</max_concurrent_queries>
  <profiles>
    <default></default>
    <small><max_memory_usage>20000000</max_memory_usage></small>
  </profiles>
  <users>
    <default><password></password></default>
    <alice><profile>small</profile></alice>
    <bob><profile>small</profile></bob>
  </users>
</clickhouse>";

fn tracked_memory(server: &TestServer) -> usize {
    server.engine.instance().memory.query_reserved()
}

fn still_serving(server: &TestServer) {
    assert_eq!(server.get("SELECT 'alive'").text(), "alive\n");
    wait_until("tracked memory back to idle", || {
        tracked_memory(server) == 0
    });
}

#[test]
fn two_hundred_clients_at_once() {
    let server = start_with(CONFIG);
    server.ok("CREATE TABLE hits (client UInt32, n UInt64) ENGINE = MergeTree ORDER BY client");
    let clients: Vec<_> = (0..200u32)
        .map(|client| {
            let port = server.port;
            std::thread::spawn(move || {
                let insert = format!("INSERT INTO hits SELECT {client}, number FROM numbers(100)");
                let read = "SELECT count(), sum(number) FROM numbers(100000)";
                let own = format!("SELECT count() FROM hits WHERE client = {client}");
                let replies = [
                    send(port, "POST", "/", &[], insert.as_bytes()),
                    send(port, "POST", "/", &[], read.as_bytes()),
                    send(port, "POST", "/", &[], own.as_bytes()),
                ];
                for reply in &replies {
                    assert_eq!(reply.status, 200, "{}", reply.text());
                }
                assert_eq!(replies[1].text(), "100000\t4999950000\n");
                assert_eq!(replies[2].text(), "100\n");
            })
        })
        .collect();
    for client in clients {
        client.join().unwrap();
    }
    assert_eq!(
        server.ok("SELECT count(), uniqExact(client) FROM hits"),
        "20000\t200\n"
    );
    still_serving(&server);
}

#[test]
fn lying_and_endless_bodies_are_refused() {
    let server = start_with(CONFIG);
    server.ok("CREATE TABLE t (a UInt64, s String) ENGINE = MergeTree ORDER BY a");
    server.ok("INSERT INTO t VALUES (1, 'one')");
    let bad_url = server.send("GET", "/?query=SELECT%ZZ1", &[], b"");
    assert_eq!(bad_url.status, 400);
    assert!(
        bad_url.text().starts_with("Code: 36."),
        "{}",
        bad_url.text()
    );
    // Native: one column, one row, a String whose length claims 2^60 bytes.
    let mut native = b"INSERT INTO t (s) FORMAT Native\n".to_vec();
    native.extend([1, 1, 1, b's', 6]);
    native.extend(b"String");
    native.extend([0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x10]);
    native.extend(b"short");
    let lying = server.send("POST", "/", &[], &native);
    assert_ne!(lying.status, 200);
    assert!(lying.text().starts_with("Code: "), "{}", lying.text());
    assert_eq!(server.ok("SELECT count() FROM t"), "1\n");
    // A statement of 1 GiB under max_query_size = 1 MiB: refused once the
    // limit is passed, without holding the body.
    let mut stream = TcpStream::connect(("127.0.0.1", server.port)).unwrap();
    let gib: u64 = 1 << 30;
    let head = format!(
        "POST /?max_query_size=1048576 HTTP/1.1\r\nHost: x\r\nContent-Length: {gib}\r\n\r\nSELECT '"
    );
    stream.write_all(head.as_bytes()).unwrap();
    let chunk = vec![b'x'; 1 << 20];
    for _ in 0..64 {
        if stream.write_all(&chunk).is_err() {
            break;
        }
    }
    let mut reply = Vec::new();
    let _ = stream.read_to_end(&mut reply);
    let reply = String::from_utf8_lossy(&reply);
    assert!(
        reply.is_empty() || reply.contains("Max query size exceeded"),
        "{reply}"
    );
    still_serving(&server);
}

#[test]
fn a_client_that_stops_reading_holds_only_its_own_query() {
    let server = start_with(CONFIG);
    let mut stream = TcpStream::connect(("127.0.0.1", server.port)).unwrap();
    let query = "SELECT number, toString(number) FROM numbers(1000000000)";
    let request = format!(
        "POST /?query_id=stalled HTTP/1.1\r\nHost: x\r\nContent-Length: {}\r\n\r\n{query}",
        query.len()
    );
    stream.write_all(request.as_bytes()).unwrap();
    let mut first = [0u8; 4096];
    stream.read_exact(&mut first).unwrap();
    // The client reads no more: the query waits, others are served.
    wait_until("the stalled query", || running(&server, "stalled"));
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(server.get("SELECT 1").text(), "1\n");
    assert!(running(&server, "stalled"));
    drop(stream);
    wait_until("the cancellation", || !running(&server, "stalled"));
    still_serving(&server);
}

#[test]
fn queries_over_their_memory_limit_fail_alone() {
    let server = start_with(CONFIG);
    let heavy = |user: &'static str| {
        let port = server.port;
        std::thread::spawn(move || {
            let query = "SELECT length(groupArray(toString(number))) FROM numbers(10000000)";
            send(
                port,
                "POST",
                &format!("/?user={user}"),
                &[],
                query.as_bytes(),
            )
        })
    };
    let (alice, bob) = (heavy("alice"), heavy("bob"));
    let light = server.query("SELECT sum(number) FROM numbers(1000000)");
    assert_eq!(light.text(), "499999500000\n");
    for reply in [alice.join().unwrap(), bob.join().unwrap()] {
        assert_eq!(
            reply.header("x-clickhouse-exception-code"),
            "241",
            "{}",
            reply.text()
        );
    }
    still_serving(&server);
}

#[test]
fn sleeping_queries_leave_the_workers_to_others() {
    let server = start_with(CONFIG);
    // More sleepers than this machine may have cores.
    let sleepers: Vec<_> = (0..4)
        .map(|i| {
            let port = server.port;
            std::thread::spawn(move || {
                let target = format!("/?query_id=sleeper-{i}");
                send(port, "POST", &target, &[], b"SELECT sleep(3)")
            })
        })
        .collect();
    for i in 0..4 {
        wait_until("the sleepers", || running(&server, &format!("sleeper-{i}")));
    }
    assert_eq!(server.get("SELECT 42").text(), "42\n");
    // Answered while every sleeper still sleeps.
    assert!((0..4).all(|i| running(&server, &format!("sleeper-{i}"))));
    for sleeper in sleepers {
        assert_eq!(sleeper.join().unwrap().text(), "0\n");
    }
}
