//! The HTTP interface end to end: a server on a loopback port, spoken to
//! over raw TCP so malformed requests can be sent as well as good ones.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

mod common;

use common::{Reply, TestServer, encode, running, send, start_with, wait_until};

const CONFIG: &str = "<clickhouse>
  <max_concurrent_queries>50</max_concurrent_queries>
  <profiles>
    <default><max_threads>2</max_threads></default>
    <ro><readonly>1</readonly></ro>
  </profiles>
  <users>
    <default><password></password><access_management>1</access_management></default>
    <alice><password>wonderland</password></alice>
    <reader><password_sha256_hex>2bb80d537b1da3e38bd30361aa855686bde0eacd7162fef6a25fe97bf527a25b</password_sha256_hex><profile>ro</profile></reader>
    <remote><networks><ip>10.0.0.0/8</ip></networks></remote>
  </users>
</clickhouse>";

fn start() -> TestServer {
    start_with(CONFIG)
}

#[test]
fn health_endpoints_and_unknown_paths() {
    let server = start();
    for path in ["/", "/ping", "/replicas_status"] {
        let reply = server.send("GET", path, &[], b"");
        assert_eq!(
            (reply.status, reply.text().as_str()),
            (200, "Ok.\n"),
            "{path}"
        );
    }
    let reply = server.send("GET", "/nowhere", &[], b"");
    assert_eq!(reply.status, 404);
    assert!(reply.text().contains("/nowhere"));
}

#[test]
fn queries_in_the_url_the_body_or_both() {
    let server = start();
    let reply = server.get("SELECT 1 + 1");
    assert_eq!((reply.status, reply.text().as_str()), (200, "2\n"));
    assert_eq!(reply.header("x-clickhouse-format"), "TabSeparated");
    assert!(
        reply
            .header("content-type")
            .starts_with("text/tab-separated-values")
    );
    assert_eq!(reply.header("x-clickhouse-query-id").len(), 36);
    let summary: serde_json::Value =
        serde_json::from_str(reply.header("x-clickhouse-summary")).unwrap();
    assert_eq!(summary["result_rows"], "1");
    assert_eq!(server.post("", "SELECT 'body'").text(), "body\n");
    assert_eq!(server.post("query=SELECT", " 40 + 2").text(), "42\n");
    let json = server.post(
        "default_format=JSONEachRow",
        "SELECT number FROM numbers(2)",
    );
    assert_eq!(json.text(), "{\"number\":0}\n{\"number\":1}\n");
    assert_eq!(json.header("x-clickhouse-format"), "JSONEachRow");
    let id = server.post("query_id=my-query", "SELECT 1");
    assert_eq!(id.header("x-clickhouse-query-id"), "my-query");
    let counted = server.ok(
        "SELECT count() FROM system.query_log WHERE query_id = 'my-query' AND type = 'QueryFinish'",
    );
    assert_eq!(counted, "1\n");
}

#[test]
fn query_log_keeps_each_querys_events_and_settings() {
    let server = start();
    server.ok("CREATE TABLE events_t (k UInt64) ENGINE = MergeTree ORDER BY k SETTINGS index_granularity = 100");
    server.ok("INSERT INTO events_t SELECT number FROM numbers(1000)");
    let lookup = server.post(
        "query_id=lookup&max_threads=1",
        "SELECT k FROM events_t WHERE k = 555",
    );
    assert_eq!(lookup.text(), "555\n");
    let logged = server.ok(
        "SELECT ProfileEvents['SelectQuery'], ProfileEvents['SelectedMarks'], \
         ProfileEvents['SelectedRows'], Settings['max_threads'] \
         FROM system.query_log WHERE query_id = 'lookup' AND type = 'QueryFinish'",
    );
    assert_eq!(logged, "1\t1\t100\t1\n");
    let inserted = server.ok("SELECT ProfileEvents['InsertedRows'], written_rows, \
         ProfileEvents['WriteBufferFromFileDescriptorWriteBytes'] > 0 \
         FROM system.query_log WHERE query LIKE 'INSERT INTO events_t%' AND type = 'QueryFinish'");
    assert_eq!(inserted, "1000\t1000\t1\n");
}

#[test]
fn errors_carry_clickhouse_codes_and_statuses() {
    let server = start();
    let cases = [
        ("SELEC 1", 400, 62),
        ("SELECT * FROM missing_table", 404, 60),
        ("SELECT 1; SELECT 2", 400, 62),
        ("SELECT 1 FORMAT NoSuchFormat", 404, 73),
    ];
    for (query, status, code) in cases {
        let reply = server.query(query);
        assert_eq!(reply.status, status, "{query}: {}", reply.text());
        assert_eq!(
            reply.header("x-clickhouse-exception-code"),
            code.to_string(),
            "{query}"
        );
        assert!(
            reply
                .text()
                .starts_with(&format!("Code: {code}. DB::Exception: ")),
            "{}",
            reply.text()
        );
    }
    let unknown = server.post("no_such_setting=1", "SELECT 1");
    assert_eq!(
        (
            unknown.status,
            unknown.header("x-clickhouse-exception-code")
        ),
        (404, "115")
    );
    // Settings ClickHouse clients send are accepted even where they change nothing here.
    let known = server.post(
        "send_logs_level=none&max_threads=1",
        "SELECT getSetting('max_threads')",
    );
    assert_eq!((known.status, known.text().as_str()), (200, "1\n"));
    let bad_escape = server.send("GET", "/?query=SELECT%2", &[], b"");
    assert_eq!(bad_escape.status, 400);
    assert_eq!(
        server.get("SELECT 'still serving'").text(),
        "still serving\n"
    );
}

#[test]
fn get_is_read_only_and_post_writes() {
    let server = start();
    let refused = server.get("CREATE TABLE t (a UInt8) ENGINE = Memory");
    assert_eq!(refused.header("x-clickhouse-exception-code"), "164");
    server.ok("CREATE TABLE t (a UInt64, s String) ENGINE = MergeTree ORDER BY a");
    let insert = server.post(
        &format!("query={}", encode("INSERT INTO t FORMAT CSV")),
        "1,one\n2,two\n",
    );
    assert_eq!(insert.status, 200, "{}", insert.text());
    let written: serde_json::Value =
        serde_json::from_str(insert.header("x-clickhouse-summary")).unwrap();
    assert_eq!(written["written_rows"], "2");
    let inline = server.post("", "INSERT INTO t FORMAT TSV\n3\tthree\n");
    assert_eq!(inline.status, 200, "{}", inline.text());
    assert_eq!(
        server.post("", "INSERT INTO t VALUES (4, 'four')").status,
        200
    );
    assert_eq!(
        server.get("SELECT a, s FROM t ORDER BY a").text(),
        "1\tone\n2\ttwo\n3\tthree\n4\tfour\n"
    );
    let bad = server.post(
        &format!("query={}", encode("INSERT INTO t FORMAT CSV")),
        "x,y\n",
    );
    assert_eq!(bad.status, 400, "{}", bad.text());
    assert_eq!(server.get("SELECT count() FROM t").text(), "4\n");
}

#[test]
fn query_parameters_are_typed_literals() {
    let server = start();
    let reply = server.post(
        &format!("param_x=41&param_s={}&param_t=numbers", encode("it's")),
        "SELECT {x:UInt8} + 1, {s:String}, toTypeName({x:UInt8})",
    );
    assert_eq!(reply.text(), "42\tit\\'s\tUInt8\n");
    let table = server.post(
        "param_t=databases",
        "SELECT count() > 0 FROM system.{t:Identifier}",
    );
    assert_eq!(table.text(), "1\n");
    let missing = server.post("", "SELECT {x:UInt8}");
    assert_eq!(missing.header("x-clickhouse-exception-code"), "456");
}

#[test]
fn users_passwords_and_profiles() {
    let server = start();
    let wrong = server.send(
        "GET",
        "/?query=SELECT%201",
        &[("X-ClickHouse-User", "alice"), ("X-ClickHouse-Key", "nope")],
        b"",
    );
    assert_eq!(
        (wrong.status, wrong.header("x-clickhouse-exception-code")),
        (403, "516")
    );
    let unknown = server.send("GET", "/?query=SELECT%201&user=mallory", &[], b"");
    assert_eq!(unknown.status, 403);
    // Same answer for an unknown user as for a wrong password.
    assert_eq!(unknown.text().replace("mallory", "alice"), wrong.text());
    let outside = server.send("GET", "/?query=SELECT%201&user=remote", &[], b"");
    assert_eq!(outside.status, 403);
    let basic = server.send(
        "GET",
        "/?query=SELECT%20currentUser()",
        &[("Authorization", "Basic YWxpY2U6d29uZGVybGFuZA==")],
        b"",
    );
    assert_eq!((basic.status, basic.text().as_str()), (200, "alice\n"));
    let reader = |query: &str, extra: &str| {
        server.send(
            "POST",
            &format!("/?user=reader&password=secret{extra}"),
            &[],
            query.as_bytes(),
        )
    };
    assert_eq!(reader("SELECT getSetting('readonly')", "").text(), "1\n");
    for (query, extra) in [
        ("CREATE TABLE r (a UInt8) ENGINE = Memory", ""),
        ("SET readonly = 0", ""),
        ("SELECT 1", "&readonly=0"),
        ("SELECT 1", "&max_threads=1"),
    ] {
        let refused = reader(query, extra);
        assert_eq!(
            refused.header("x-clickhouse-exception-code"),
            "164",
            "{query}{extra}: {}",
            refused.text()
        );
    }
    let log = server.ok(
        "SELECT user, interface, address FROM system.query_log WHERE query = 'SELECT currentUser()' AND type = 'QueryFinish'",
    );
    assert_eq!(log, "alice\t2\t127.0.0.1\n");
    // system.users lists the configured users, never their passwords.
    assert_eq!(
        server.ok("SELECT name, auth_type, host_ip, profile FROM system.users ORDER BY name"),
        "alice\t['plaintext_password']\t['::/0']\tdefault\n\
         default\t['no_password']\t['::/0']\tdefault\n\
         reader\t['sha256_password']\t['::/0']\tro\n\
         remote\t['no_password']\t['10.0.0.0/8']\tdefault\n"
    );
}

#[test]
fn sessions_keep_settings_until_they_expire() {
    let server = start();
    assert_eq!(
        server.post("session_id=s1", "SET max_threads = 3").status,
        200
    );
    assert_eq!(
        server
            .post("session_id=s1", "SELECT getSetting('max_threads')")
            .text(),
        "3\n"
    );
    // URL settings last one request; a statement's SET stays.
    assert_eq!(
        server
            .post(
                "session_id=s1&max_threads=1",
                "SELECT getSetting('max_threads')"
            )
            .text(),
        "1\n"
    );
    assert_eq!(
        server
            .post("session_id=s1", "SELECT getSetting('max_threads')")
            .text(),
        "3\n"
    );
    assert_eq!(
        server
            .post("session_id=s2", "SELECT getSetting('max_threads')")
            .text(),
        "2\n"
    );
    // Sessions belong to their user.
    let other = server.post(
        "session_id=s1&user=alice&password=wonderland&session_check=1",
        "SELECT 1",
    );
    assert_eq!(other.header("x-clickhouse-exception-code"), "372");
    let missing = server.post("session_id=nope&session_check=1", "SELECT 1");
    assert_eq!(missing.header("x-clickhouse-exception-code"), "372");
    let bad_timeout = server.post("session_id=s3&session_timeout=abc", "SELECT 1");
    assert_eq!(bad_timeout.header("x-clickhouse-exception-code"), "374");
    assert_eq!(
        server
            .post("session_id=s4&session_timeout=1", "SET max_threads = 5")
            .status,
        200
    );
    std::thread::sleep(Duration::from_millis(2_500));
    let expired = server.post("session_id=s4&session_check=1", "SELECT 1");
    assert_eq!(expired.header("x-clickhouse-exception-code"), "372");
}

/// Starts a query that runs until killed, on its own thread.
fn long_query(server: &TestServer, params: &str) -> std::thread::JoinHandle<Reply> {
    let port = server.port;
    let target = format!("/?{params}");
    std::thread::spawn(move || {
        let query = "SELECT count() FROM numbers_mt(1000000000000)";
        send(port, "POST", &target, &[], query.as_bytes())
    })
}

#[test]
fn kill_query_and_locked_sessions() {
    let server = start();
    let long = long_query(&server, "query_id=long-1&session_id=busy");
    wait_until("the long query", || running(&server, "long-1"));
    let locked = server.post("session_id=busy", "SELECT 1");
    assert_eq!(
        locked.header("x-clickhouse-exception-code"),
        "373",
        "{} {}; running: {:?}",
        locked.status,
        locked.text(),
        server
            .engine
            .instance()
            .processes
            .running()
            .iter()
            .map(|q| (&q.query_id, q.is_cancelled()))
            .collect::<Vec<_>>()
    );
    let same_id = server.post("query_id=long-1", "SELECT 1");
    assert_eq!(same_id.header("x-clickhouse-exception-code"), "216");
    let processes = server
        .ok("SELECT user, address, interface FROM system.processes WHERE query_id = 'long-1'");
    assert_eq!(processes, "default\t127.0.0.1\t2\n");
    let killed = server.ok("KILL QUERY WHERE query_id = 'long-1' SYNC");
    assert!(
        killed.starts_with("finished\tlong-1\tdefault\t"),
        "{killed}"
    );
    let reply = long.join().unwrap();
    assert_eq!(
        reply.header("x-clickhouse-exception-code"),
        "394",
        "{}",
        reply.text()
    );
    assert_eq!(server.post("session_id=busy", "SELECT 1").text(), "1\n");
}

#[test]
fn too_many_simultaneous_queries() {
    let server = start_with(&CONFIG.replace(
        "<max_concurrent_queries>50</max_concurrent_queries>",
        "<max_concurrent_queries>1</max_concurrent_queries>",
    ));
    let long = long_query(&server, "query_id=long-2");
    wait_until("the long query", || running(&server, "long-2"));
    let refused = server.query("SELECT 1");
    assert_eq!(refused.header("x-clickhouse-exception-code"), "202");
    server
        .engine
        .instance()
        .processes
        .running()
        .iter()
        .for_each(|q| q.cancel());
    long.join().unwrap();
    wait_until("the slot", || server.query("SELECT 1").status == 200);
}

#[test]
fn an_error_after_the_headers_ends_the_body_with_the_exception_block() {
    let server = start();
    let query = "SELECT number, throwIf(number = 300000) FROM numbers(400000) SETTINGS max_block_size = 1000";
    let reply = server.post("", query);
    assert_eq!(reply.status, 200);
    let tag = reply.header("x-clickhouse-exception-tag").to_string();
    assert_eq!(tag.len(), 16);
    let text = reply.text();
    let parts: Vec<&str> = text.split("__exception__\r\n").collect();
    assert_eq!(
        parts.len(),
        3,
        "{}",
        &text[text.len().saturating_sub(500)..]
    );
    assert!(
        parts[1].starts_with(&format!("{tag}\r\nCode: 395. DB::Exception: ")),
        "{}",
        parts[1]
    );
    assert!(parts[1].ends_with(&format!(" {tag}\r\n")));
    // Held in full, or past where it fails, the same error gets its status.
    for held in ["wait_end_of_query=1", "buffer_size=100000000"] {
        let waited = server.post(held, query);
        assert_eq!(
            (waited.status, waited.header("x-clickhouse-exception-code")),
            (500, "395")
        );
    }
}

#[test]
fn compressed_requests_and_responses() {
    use flate2::Compression;
    use flate2::write::GzEncoder;
    let server = start();
    let mut encoder = GzEncoder::new(Vec::new(), Compression::default());
    encoder.write_all(b"SELECT 'zipped'").unwrap();
    let body = encoder.finish().unwrap();
    let reply = server.send(
        "POST",
        "/",
        &[("Content-Encoding", "gzip"), ("Accept-Encoding", "gzip")],
        &body,
    );
    assert_eq!(reply.status, 200);
    assert_eq!(reply.header("content-encoding"), "gzip");
    let mut text = String::new();
    flate2::read::GzDecoder::new(&reply.body[..])
        .read_to_string(&mut text)
        .unwrap();
    assert_eq!(text, "zipped\n");
    let plain = server.send(
        "POST",
        "/?enable_http_compression=0",
        &[("Accept-Encoding", "gzip")],
        b"SELECT 1",
    );
    assert_eq!(
        (plain.header("content-encoding"), plain.text().as_str()),
        ("", "1\n")
    );
    let unknown = server.send("POST", "/", &[("Content-Encoding", "snappy")], b"SELECT 1");
    assert_eq!(unknown.header("x-clickhouse-exception-code"), "89");
}

#[test]
fn malformed_requests_leave_the_server_serving() {
    let server = start();
    let garbage = [
        b"NOT HTTP AT ALL\r\n\r\n".to_vec(),
        b"POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nSELEC".to_vec(),
        b"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\nSELECT 1".to_vec(),
    ];
    for request in garbage {
        let mut stream = TcpStream::connect(("127.0.0.1", server.port)).unwrap();
        stream
            .set_read_timeout(Some(Duration::from_secs(5)))
            .unwrap();
        stream.write_all(&request).unwrap();
        stream.shutdown(std::net::Shutdown::Write).unwrap();
        let mut sink = Vec::new();
        let _ = stream.read_to_end(&mut sink);
    }
    // A client that goes away mid-result cancels its query.
    let mut stream = TcpStream::connect(("127.0.0.1", server.port)).unwrap();
    let query = "SELECT number FROM numbers_mt(1000000000000)";
    let request = format!(
        "POST /?query_id=abandoned&buffer_size=100 HTTP/1.1\r\nHost: x\r\nContent-Length: {}\r\n\r\n{query}",
        query.len()
    );
    stream.write_all(request.as_bytes()).unwrap();
    let mut first = [0u8; 1024];
    let _ = stream.read(&mut first).unwrap();
    wait_until("the abandoned query", || running(&server, "abandoned"));
    drop(stream);
    wait_until("the cancellation", || !running(&server, "abandoned"));
    assert_eq!(server.get("SELECT 'alive'").text(), "alive\n");
}

#[test]
fn shutdown_cancels_running_queries() {
    let mut server = start();
    let long = long_query(&server, "query_id=long-3");
    wait_until("the long query", || running(&server, "long-3"));
    server.stop.take().unwrap().send(()).unwrap();
    let reply = long.join().unwrap();
    assert_eq!(
        reply.header("x-clickhouse-exception-code"),
        "394",
        "{}",
        reply.text()
    );
    server.thread.take().unwrap().join().unwrap();
}

/// `data` in ClickHouse's compressed blocks, as a client sends it.
fn native_blocks(data: &[u8]) -> Vec<u8> {
    use strata_server::encoding::ChunkWriter;
    let mut writer = Box::new(strata_server::native_compression::BlockWriter::new(
        Box::new(Vec::new()),
    ));
    writer.write_all(data).unwrap();
    writer.finish().unwrap()
}

fn read_native_blocks(bytes: &[u8]) -> String {
    let mut text = String::new();
    strata_server::native_compression::BlockReader::new(bytes, true)
        .read_to_string(&mut text)
        .unwrap();
    text
}

#[test]
fn clickhouse_compressed_blocks_both_ways() {
    let server = start();
    let one = server.post("compress=1", "SELECT 1");
    // One LZ4 block of "1\n" with its CityHash128 checksum, as ClickHouse sends it.
    let hex: String = one.body.iter().map(|b| format!("{b:02x}")).collect();
    assert_eq!(
        hex,
        "de79cf087fb635049db816df195b016b820c0000000200000020310a"
    );
    let error = server.post("compress=1&query_id=misspelt", "SELEC 1");
    assert_eq!(error.status, 400);
    assert!(read_native_blocks(&error.body).starts_with("Code: 62."));
    server.ok("CREATE TABLE packed (a UInt64, s String) ENGINE = MergeTree ORDER BY a");
    let rows: String = (0..50_000).map(|i| format!("{i},row {i}\n")).collect();
    let mut body = native_blocks(b"INSERT INTO packed FORMAT CSV\n");
    body.extend(native_blocks(rows.as_bytes()));
    let insert = server.send("POST", "/?decompress=1", &[], &body);
    assert_eq!(insert.status, 200, "{}", insert.text());
    let count = "SELECT count(), sum(a) FROM packed";
    assert_eq!(server.ok(count), "50000\t1249975000\n");
    // A damaged block is refused whole: nothing of it is inserted.
    let mut damaged = body.clone();
    let last = damaged.len() - 2;
    damaged[last] ^= 0x10;
    let refused = server.send("POST", "/?decompress=1", &[], &damaged);
    assert_eq!(refused.header("x-clickhouse-exception-code"), "40");
    let truncated = server.send("POST", "/?decompress=1", &[], &body[..body.len() - 7]);
    assert_eq!(truncated.header("x-clickhouse-exception-code"), "33");
    assert_eq!(server.ok(count), "50000\t1249975000\n");
    let out = server.post("compress=1", "SELECT sum(a) FROM packed FORMAT CSV");
    assert_eq!(read_native_blocks(&out.body), "1249975000\n");
}

#[test]
fn progress_and_summary_headers_count_rows_to_read() {
    let server = start();
    let reply = server.post(
        "send_progress_in_http_headers=1",
        "SELECT count() FROM numbers(1000000)",
    );
    let progress = reply.header("x-clickhouse-progress");
    assert!(
        progress.contains(r#""total_rows_to_read":"1000000""#),
        "{progress}"
    );
    let summary = reply.header("x-clickhouse-summary");
    assert!(summary.contains(r#""read_rows":"1000000""#), "{summary}");
    assert!(
        summary.contains(r#""total_rows_to_read":"1000000""#),
        "{summary}"
    );
    // After the sparse index: one granule of the MergeTree table.
    server.ok(
        "CREATE TABLE keyed (k UInt64) ENGINE = MergeTree ORDER BY k SETTINGS index_granularity = 8192",
    );
    server.ok("INSERT INTO keyed SELECT number FROM numbers(100000)");
    let point = server.query("SELECT k FROM keyed WHERE k = 50000");
    let summary = point.header("x-clickhouse-summary");
    assert!(
        summary.contains(r#""total_rows_to_read":"8192""#),
        "{summary}"
    );
}

/// A multipart/form-data body with `files` (field name, contents) and `fields`.
fn multipart(files: &[(&str, &str)], fields: &[(&str, &str)]) -> Vec<u8> {
    let mut body = String::new();
    for (name, data) in files {
        body.push_str(&format!(
            "--XyZ\r\nContent-Disposition: form-data; name=\"{name}\"; filename=\"{name}.tsv\"\r\n\
             Content-Type: application/octet-stream\r\n\r\n{data}\r\n"
        ));
    }
    for (name, value) in fields {
        body.push_str(&format!(
            "--XyZ\r\nContent-Disposition: form-data; name=\"{name}\"\r\n\r\n{value}\r\n"
        ));
    }
    body.push_str("--XyZ--\r\n");
    body.into_bytes()
}

#[test]
fn external_data_becomes_temporary_tables_of_the_query() {
    let server = start();
    let form = [("Content-Type", "multipart/form-data; boundary=XyZ")];
    let people = ("people", "1\tann\n2\tbob\n3\tcyd\n");
    let scores = ("scores", "1,10\n3,30\n");
    let target = format!(
        "/?query={}&people_structure={}&scores_types=UInt64,UInt32&scores_format=CSV",
        encode("SELECT name, _2 FROM people JOIN scores ON id = _1 ORDER BY id"),
        encode("id UInt64, name String"),
    );
    let reply = server.send("POST", &target, &form, &multipart(&[people, scores], &[]));
    assert_eq!(reply.text(), "ann\t10\ncyd\t30\n");
    // The query and settings may come as form fields; the tables end with
    // the request, also in a named session.
    let fields = [
        ("query", "SELECT count() FROM people"),
        ("people_types", "UInt8,String"),
    ];
    let reply = server.send(
        "POST",
        "/?session_id=ext",
        &form,
        &multipart(&[people], &fields),
    );
    assert_eq!(reply.text(), "3\n");
    let after = server.post("session_id=ext", "SELECT count() FROM people");
    assert_eq!(after.header("x-clickhouse-exception-code"), "60");
    let untyped = server.send(
        "POST",
        "/?query=SELECT%201%20FROM%20people",
        &form,
        &multipart(&[people], &[]),
    );
    assert_eq!(untyped.header("x-clickhouse-exception-code"), "36");
    // A form without its closing boundary is refused, saying how much came.
    let mut unclosed = multipart(&[people], &[("people_types", "UInt8,String")]);
    unclosed.truncate(unclosed.len() - "--XyZ--\r\n".len());
    let length = unclosed.len();
    let reply = server.send("POST", "/?query=SELECT%201", &form, &unclosed);
    assert_eq!(reply.header("x-clickhouse-exception-code"), "33");
    assert!(
        reply
            .text()
            .contains(&format!("after {length} of {length} bytes")),
        "{}",
        reply.text()
    );
    assert_eq!(server.post("", "SELECT 1").text(), "1\n");
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn unhex(text: &str) -> Vec<u8> {
    (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&text[i..i + 2], 16).unwrap())
        .collect()
}

#[test]
fn query_parameter_names_may_hold_dollars() {
    let server = start();
    let reply = server.post("param_id%24x=5", "SELECT {id$x:Int32}");
    assert_eq!(reply.text(), "5\n");
    let reply = server.post(
        "param_%24x%24=ab&param_a%24%24b=7",
        "SELECT {$x$:String}, {a$$b:UInt8}",
    );
    assert_eq!(reply.text(), "ab\t7\n");
}

#[test]
fn container_and_nullable_query_parameters() {
    let server = start();
    let cases = [
        (
            "param_a=%5B1,3%5D",
            "SELECT {a:Array(UInt8)} AS x, toTypeName(x)",
            "[1,3]\tArray(UInt8)\n",
        ),
        (
            "param_a=%5B1,3%5D",
            "SELECT number FROM numbers(5) WHERE number IN {a:Array(UInt8)}",
            "1\n3\n",
        ),
        ("param_n=%5CN", "SELECT {n:Nullable(String)} IS NULL", "1\n"),
        (
            "param_n=x",
            "SELECT {n:Nullable(String)} AS x, toTypeName(x)",
            "x\tNullable(String)\n",
        ),
        (
            "param_t=(1,'x')",
            "SELECT {t:Tuple(UInt8, String)} AS x, toTypeName(x)",
            "(1,'x')\tTuple(UInt8, String)\n",
        ),
        (
            "param_m=%7B'a':%5B1%5D%7D",
            "SELECT {m:Map(String, Array(UInt8))} AS x, toTypeName(x)",
            "{'a':[1]}\tMap(String, Array(UInt8))\n",
        ),
        (
            "param_a=%5B'x',NULL%5D",
            "SELECT {a:Array(Nullable(String))} AS x, toTypeName(x)",
            "['x',NULL]\tArray(Nullable(String))\n",
        ),
    ];
    for (params, sql, expected) in cases {
        assert_eq!(server.post(params, sql).text(), expected, "{sql}");
    }
    // A value is data, never SQL.
    let injected = server.post("param_a=%5B1%5D)%20OR%20(1", "SELECT {a:Array(UInt8)}");
    assert_eq!(injected.header("x-clickhouse-exception-code"), "457");
}

#[test]
fn empty_results_in_binary_formats() {
    let server = start();
    // As chdb writes them: Native has no block for no rows, while
    // RowBinaryWithNamesAndTypes keeps its header.
    assert!(server.ok("SELECT 1 AS x WHERE 0 FORMAT Native").is_empty());
    let reply = server.post(
        "",
        "SELECT 1 AS x WHERE 0 FORMAT RowBinaryWithNamesAndTypes",
    );
    assert_eq!(hex(&reply.body), "0101780555496e7438");
}

#[test]
fn native_output_follows_client_protocol_version() {
    let server = start();
    let query = "SELECT toDateTime(1676369730, 'Asia/Shanghai') AS dt FORMAT Native";
    // No revision: no BlockInfo, and DateTime without its zone.
    let plain = server.post("", query);
    assert_eq!(hex(&plain.body), "0101026474084461746554696d65425feb63");
    let reply = server.post("client_protocol_version=54337", query);
    assert_eq!(&reply.body[..8], &[1, 0, 2, 0xff, 0xff, 0xff, 0xff, 0]);
    assert_eq!(&reply.body[14..39], b"DateTime('Asia/Shanghai')");
    // clickhouse-connect's probe.
    let probe = server.post(
        "client_protocol_version=54405",
        "SELECT 1 AS check FORMAT Native",
    );
    assert_eq!(&probe.body[8..16], b"\x01\x01\x05check");
}

#[test]
fn native_low_cardinality_as_chdb_writes_and_reads_it() {
    let server = start();
    server.ok(
        "CREATE TABLE lc (x LowCardinality(String), n LowCardinality(Nullable(String)), \
         u LowCardinality(UInt32), i UInt8) ENGINE = MergeTree ORDER BY i",
    );
    server.ok("INSERT INTO lc VALUES ('b','b',5,1),('','',0,2),('a',NULL,7,3),('b','a',5,4)");
    // chdb's bytes for the same values.
    let chdb = "03040178164c6f7743617264696e616c69747928537472696e672901000000000000000006\
        00000000000003000000000000000001620161040000000000000001000201016e204c6f7743617264\
        696e616c697479284e756c6c61626c6528537472696e672929010000000000000000060000000000000\
        4000000000000000000016201610400000000000000020100030175164c6f7743617264696e616c6974\
        792855496e74333229010000000000000000060000000000000300000000000000000000000500000007\
        000000040000000000000001000201";
    let reply = server.post("", "SELECT x, n, u FROM lc ORDER BY i FORMAT Native");
    assert_eq!(hex(&reply.body), chdb);
    server.ok("CREATE TABLE lc2 (x String, n Nullable(String), u UInt32) ENGINE = Memory");
    let insert = server.send(
        "POST",
        &format!("/?query={}", encode("INSERT INTO lc2 FORMAT Native")),
        &[],
        &unhex(chdb),
    );
    assert_eq!(insert.status, 200, "{}", insert.text());
    assert_eq!(
        server.ok("SELECT * FROM lc2"),
        "b\tb\t5\n\t\t0\na\t\\N\t7\nb\ta\t5\n"
    );
}

#[test]
fn text_input_skips_rows_within_allowed_errors() {
    let server = start();
    server.ok("CREATE TABLE ae (s String, y UInt16) ENGINE = Memory");
    let insert = |settings: &str, format: &str, data: &str| {
        let query = encode(&format!("INSERT INTO ae FORMAT {format}"));
        server.post(&format!("{settings}&query={query}"), data)
    };
    let csv = "A,1994\nbroken,row,1954\nB,1995\nC,x\n";
    assert_eq!(
        insert("input_format_allow_errors_num=5", "CSV", csv).status,
        200
    );
    let tsv = "D\t1\nE\tx\n";
    assert_eq!(
        insert("input_format_allow_errors_ratio=0.5", "TSV", tsv).status,
        200
    );
    let json = "{\"s\":\"F\",\"y\":1}\n[1]\n{\"s\":\"G\",\"y\":\"zz\"}\n";
    assert_eq!(
        insert("input_format_allow_errors_num=2", "JSONEachRow", json).status,
        200
    );
    assert_eq!(server.ok("SELECT s FROM ae ORDER BY s"), "A\nB\nD\nF\n");
    // Over both limits, as without them, the insert fails whole.
    let over = insert("input_format_allow_errors_num=1", "CSV", "H,1\nI,x\nJ,y\n");
    assert_eq!(over.header("x-clickhouse-exception-code"), "27");
    let none = insert("", "CSV", "H,1\nI,x\n");
    assert_eq!(none.header("x-clickhouse-exception-code"), "27");
    assert_eq!(server.ok("SELECT count() FROM ae"), "4\n");
}

#[test]
fn insert_format_values_with_inline_data() {
    let server = start();
    server.ok("CREATE TABLE fv (s String) ENGINE = Memory");
    server.ok("INSERT INTO fv FORMAT Values ('v')");
    let query = encode("INSERT INTO fv FORMAT Values");
    assert_eq!(
        server
            .post(&format!("query={query}"), "('w'), ('x')")
            .status,
        200
    );
    assert_eq!(server.ok("SELECT s FROM fv ORDER BY s"), "v\nw\nx\n");
}

#[test]
fn file_reads_only_user_files_and_into_outfile_is_the_clients() {
    let server = start();
    let user_files = server.engine.instance().server_settings.user_files_path();
    std::fs::create_dir_all(&user_files).unwrap();
    std::fs::write(
        std::path::Path::new(&user_files).join("d.csv"),
        "a,b\n1,x\n",
    )
    .unwrap();
    assert_eq!(server.ok("SELECT b FROM file('d.csv')"), "x\n");
    for escape in ["../config.xml", "/etc/hostname"] {
        let reply = server.query(&format!("SELECT * FROM file('{escape}', LineAsString)"));
        assert_eq!(
            reply.header("x-clickhouse-exception-code"),
            "291",
            "{}",
            reply.text()
        );
    }
    let outfile = server.query("SELECT 1 INTO OUTFILE 'x.csv'");
    assert_eq!(
        outfile.header("x-clickhouse-exception-code"),
        "358",
        "{}",
        outfile.text()
    );
}
