//! SQL access control over HTTP: users and roles made with SQL, a matrix
//! of users × statements × objects, partial revokes and column grants,
//! grant options, roles chosen per session, and the entities kept across
//! a restart.

mod common;

use common::{Reply, TestServer, start_with};

const CONFIG: &str = "<clickhouse>
  <users>
    <default><password></password><access_management>1</access_management></default>
    <carol><password>c</password></carol>
  </users>
</clickhouse>";

fn as_user(server: &TestServer, user: &str, password: &str, query: &str) -> Reply {
    server.send(
        "POST",
        &format!("/?user={user}&password={password}"),
        &[],
        query.as_bytes(),
    )
}

fn code(reply: &Reply) -> &str {
    reply.header("x-clickhouse-exception-code")
}

fn setup(server: &TestServer) {
    for statement in [
        "CREATE DATABASE db",
        "CREATE TABLE db.t (a UInt64, b String, c UInt64) ENGINE = MergeTree ORDER BY a",
        "INSERT INTO db.t VALUES (1, 'x', 10), (2, 'y', 20)",
        "CREATE TABLE db.u (a UInt64) ENGINE = Memory",
        "CREATE VIEW db.v AS SELECT a FROM db.t",
        "CREATE USER reader IDENTIFIED BY 'r'",
        "GRANT SELECT ON db.* TO reader",
        "REVOKE SELECT ON db.u FROM reader",
        "CREATE USER writer IDENTIFIED WITH sha256_password BY 'w'",
        "GRANT INSERT ON db.t TO writer",
        "CREATE USER columns IDENTIFIED WITH plaintext_password BY 'c'",
        "GRANT SELECT(a) ON db.t TO columns",
        "CREATE ROLE owner",
        "GRANT ALL ON db.* TO owner",
        "CREATE USER dba IDENTIFIED BY 'd' DEFAULT ROLE owner",
    ] {
        server.ok(statement);
    }
}

#[test]
fn grants_decide_what_each_user_may_do() {
    let server = start_with(CONFIG);
    setup(&server);
    // (user, password, statement, allowed)
    let matrix = [
        ("reader", "r", "SELECT * FROM db.t", true),
        ("reader", "r", "SELECT a FROM db.v", true),
        ("reader", "r", "SELECT * FROM db.u", false),
        ("reader", "r", "INSERT INTO db.t VALUES (3, 'z', 30)", false),
        ("reader", "r", "DROP TABLE db.t", false),
        (
            "reader",
            "r",
            "CREATE TABLE db.n (a UInt8) ENGINE = Memory",
            false,
        ),
        ("reader", "r", "SELECT * FROM system.processes", false),
        ("reader", "r", "SELECT count() FROM system.one", true),
        ("reader", "r", "DESCRIBE TABLE db.t", true),
        ("reader", "r", "DESCRIBE TABLE db.u", false),
        ("reader", "r", "CREATE VIEW db.w AS SELECT 1", false),
        ("reader", "r", "SELECT sum(number) FROM numbers(10)", true),
        ("writer", "w", "INSERT INTO db.t VALUES (3, 'z', 30)", true),
        ("writer", "w", "SELECT * FROM db.t", false),
        ("writer", "w", "ALTER TABLE db.t DELETE WHERE a = 3", false),
        ("columns", "c", "SELECT a FROM db.t", true),
        ("columns", "c", "SELECT count() FROM db.t", true),
        ("columns", "c", "SELECT b FROM db.t", false),
        ("columns", "c", "SELECT a FROM db.t WHERE c = 10", false),
        ("columns", "c", "SELECT * FROM db.t", false),
        ("dba", "d", "CREATE VIEW db.w AS SELECT 1", true),
        ("dba", "d", "TRUNCATE TABLE db.u", true),
        ("dba", "d", "OPTIMIZE TABLE db.t FINAL", true),
        ("dba", "d", "ALTER TABLE db.t DELETE WHERE a = 3", true),
        ("dba", "d", "ALTER TABLE db.t ADD COLUMN d UInt8", true),
        (
            "dba",
            "d",
            "CREATE TABLE db.n (a UInt8) ENGINE = Memory",
            true,
        ),
        ("dba", "d", "CREATE USER x", false),
        ("carol", "c", "SELECT count() FROM db.t", true),
        ("carol", "c", "CREATE USER x", false),
    ];
    for (user, password, statement, allowed) in matrix {
        let reply = as_user(&server, user, password, statement);
        if allowed {
            assert_eq!(reply.status, 200, "{user}: {statement}: {}", reply.text());
        } else {
            assert_eq!(code(&reply), "497", "{user}: {statement}: {}", reply.text());
            assert!(
                reply
                    .text()
                    .contains(&format!("{user}: Not enough privileges")),
                "{}",
                reply.text()
            );
        }
    }
    let denied = as_user(&server, "columns", "c", "SELECT b, c FROM db.t");
    assert!(
        denied
            .text()
            .contains("necessary to have the grant SELECT(b, c) ON db.t"),
        "{}",
        denied.text()
    );
    // `u` is revoked: the tables shown are those with some grant.
    assert_eq!(
        as_user(&server, "reader", "r", "SHOW TABLES FROM db").text(),
        "n\nt\nv\nw\n"
    );
    assert_eq!(
        as_user(&server, "reader", "r", "SHOW DATABASES").text(),
        "db\nsystem\n"
    );
    // A revoke applies to the next statement.
    server.ok("REVOKE SELECT ON db.* FROM reader");
    assert_eq!(
        code(&as_user(&server, "reader", "r", "SELECT a FROM db.t")),
        "497"
    );
}

#[test]
fn grant_options_roles_and_sessions() {
    let server = start_with(CONFIG);
    setup(&server);
    // The role gives dba everything on db, but not the right to pass it on.
    let pass_on = as_user(&server, "dba", "d", "GRANT SELECT ON db.t TO reader");
    assert_eq!(code(&pass_on), "497");
    assert!(
        pass_on.text().contains("WITH GRANT OPTION"),
        "{}",
        pass_on.text()
    );
    server.ok("GRANT SELECT ON db.* TO writer WITH GRANT OPTION");
    assert_eq!(
        as_user(&server, "writer", "w", "GRANT SELECT ON db.t TO columns").status,
        200
    );
    assert_eq!(
        as_user(&server, "columns", "c", "SELECT b FROM db.t ORDER BY a").text(),
        "x\ny\n"
    );
    // Roles chosen with SET ROLE last for the session.
    let session = |query: &str| {
        server.send(
            "POST",
            "/?user=dba&password=d&session_id=s1",
            &[],
            query.as_bytes(),
        )
    };
    assert_eq!(session("SHOW CURRENT ROLES").text(), "owner\t0\t1\n");
    assert_eq!(session("SET ROLE NONE").status, 200);
    assert_eq!(code(&session("TRUNCATE TABLE db.u")), "497");
    assert_eq!(session("SET ROLE DEFAULT").status, 200);
    assert_eq!(session("TRUNCATE TABLE db.u").status, 200);
    assert_eq!(
        code(&as_user(&server, "reader", "r", "SET ROLE owner")),
        "512"
    );
    assert_eq!(
        server.ok("SHOW GRANTS FOR dba, owner"),
        "GRANT owner TO dba\nGRANT ALL ON db.* TO owner\n"
    );
    assert_eq!(
        server.ok(
            "SELECT user_name, role_name, access_type, database, table, is_partial_revoke \
             FROM system.grants WHERE user_name = 'reader' OR role_name = 'owner' \
             ORDER BY user_name, role_name, is_partial_revoke"
        ),
        "reader\t\\N\tSELECT\tdb\t\\N\t0\nreader\t\\N\tSELECT\tdb\tu\t1\n\\N\towner\tALL\tdb\t\\N\t0\n"
    );
    assert_eq!(
        server.ok(
            "SELECT user_name, granted_role_name, granted_role_is_default FROM system.role_grants"
        ),
        "dba\towner\t1\n"
    );
    // Dropping a role takes it from those it was granted to.
    server.ok("DROP ROLE owner");
    assert_eq!(
        code(&as_user(&server, "dba", "d", "TRUNCATE TABLE db.u")),
        "497"
    );
}

#[test]
fn users_and_roles_survive_a_restart() {
    let server = start_with(CONFIG);
    for statement in [
        "CREATE TABLE t (a UInt8) ENGINE = Memory",
        "CREATE USER alice IDENTIFIED BY 'pw' HOST LOCAL DEFAULT DATABASE db SETTINGS max_threads = 3",
        "CREATE DATABASE db",
        "CREATE ROLE r",
        "GRANT SELECT ON default.* TO r",
        "GRANT r TO alice",
        "GRANT SHOW DATABASES ON db.* TO alice",
        "CREATE USER mallory",
    ] {
        server.ok(statement);
    }
    let server = server.restart(CONFIG);
    assert_eq!(
        as_user(
            &server,
            "alice",
            "pw",
            "SELECT currentDatabase(), getSetting('max_threads')"
        )
        .text(),
        "db\t3\n"
    );
    assert_eq!(
        as_user(&server, "alice", "pw", "SELECT count() FROM default.t").text(),
        "0\n"
    );
    assert_eq!(code(&as_user(&server, "alice", "nope", "SELECT 1")), "516");
    assert_eq!(
        server.ok("SHOW GRANTS FOR alice"),
        "GRANT SHOW DATABASES ON db.* TO alice\nGRANT r TO alice\n"
    );
    let create = server.ok("SHOW CREATE USER alice FORMAT TSVRaw");
    assert!(
        create
            .starts_with("CREATE USER alice IDENTIFIED WITH sha256_password HOST IP '127.0.0.0/8'")
            && create.contains("DEFAULT DATABASE db SETTINGS max_threads = 3"),
        "{create}"
    );
    server.ok("DROP USER mallory");
    let server = server.restart(CONFIG);
    assert_eq!(code(&as_user(&server, "mallory", "", "SELECT 1")), "516");
    assert_eq!(server.ok("SHOW USERS"), "alice\ncarol\ndefault\n");
}

#[test]
fn users_of_the_file_are_read_only() {
    let server = start_with(CONFIG);
    assert_eq!(code(&server.query("DROP USER carol")), "495");
    assert_eq!(code(&server.query("GRANT SELECT ON *.* TO carol")), "495");
    assert_eq!(code(&server.query("CREATE USER carol")), "493");
    assert_eq!(code(&server.query("GRANT SELECT ON *.* TO nobody")), "511");
    assert_eq!(code(&server.query("GRANT NOTHING ON *.* TO carol")), "62");
    assert_eq!(
        code(&server.query("GRANT CREATE USER ON db.* TO carol")),
        "509"
    );
    assert_eq!(code(&as_user(&server, "carol", "c", "SHOW USERS")), "497");
    assert_eq!(
        server.ok("SELECT name, storage FROM system.users ORDER BY name"),
        "carol\tusers_xml\ndefault\tusers_xml\n"
    );
}

#[test]
fn quotas_limit_queries_and_rows_per_interval() {
    let server = start_with(CONFIG);
    for statement in [
        "CREATE USER q1 IDENTIFIED BY 'p'",
        "CREATE USER q2 IDENTIFIED BY 'p'",
        "CREATE USER q3 IDENTIFIED BY 'p'",
        "CREATE ROLE limited",
        "GRANT limited TO q2",
        "CREATE QUOTA few KEYED BY user_name FOR INTERVAL 1 hour MAX queries = 3 TO q1",
        "CREATE QUOTA small_reads FOR INTERVAL 1 day MAX read_rows = 1000, \
         FOR INTERVAL 1 minute TRACKING ONLY TO limited",
    ] {
        server.ok(statement);
    }
    for _ in 0..2 {
        assert_eq!(as_user(&server, "q1", "p", "SELECT 1").text(), "1\n");
    }
    let usage = as_user(&server, "q1", "p", "SHOW QUOTA").text();
    assert!(usage.starts_with("few\tq1\t"), "{usage}");
    let refused = as_user(&server, "q1", "p", "SELECT 1");
    assert_eq!(code(&refused), "201", "{}", refused.text());
    let text = refused.text();
    assert!(
        text.contains("Quota for user `q1` for 3600s has been exceeded: queries = 4/3.")
            && text.contains("Name of quota template: `few`")
            && text.contains("(QUOTA_EXCEEDED)"),
        "{text}"
    );
    // Rows read are counted when a query ends: the one that passes the
    // maximum finishes, the next is refused.
    let read = "SELECT count() FROM numbers(600)";
    assert_eq!(as_user(&server, "q2", "p", read).text(), "600\n");
    assert_eq!(as_user(&server, "q2", "p", read).text(), "600\n");
    assert_eq!(code(&as_user(&server, "q2", "p", read)), "201");
    // Other users are not limited.
    assert_eq!(server.ok("SELECT 2"), "2\n");
    assert_eq!(
        server.ok("SELECT name, keys, durations, apply_to_list FROM system.quotas ORDER BY name"),
        "few\t['user_name']\t[3600]\t['q1']\nsmall_reads\t[]\t[60,86400]\t['limited']\n"
    );
    assert_eq!(
        server.ok(
            "SELECT quota_name, duration, max_queries, max_read_rows FROM system.quota_limits \
             ORDER BY quota_name, duration"
        ),
        "few\t3600\t3\t\\N\nsmall_reads\t60\t\\N\t\\N\nsmall_reads\t86400\t\\N\t1000\n"
    );
    assert_eq!(
        server.ok(
            "SELECT quota_name, quota_key, duration, queries, errors, read_rows, max_read_rows \
             FROM system.quotas_usage WHERE duration = 86400"
        ),
        "small_reads\t\t86400\t3\t0\t1200\t1000\n"
    );
    assert_eq!(
        code(&as_user(&server, "q3", "p", "SELECT * FROM system.quotas")),
        "497"
    );
    assert_eq!(
        server.ok("SHOW CREATE QUOTA few FORMAT TSVRaw"),
        "CREATE QUOTA few KEYED BY user_name FOR INTERVAL 1 hour MAX queries = 3 TO q1\n"
    );
    // Quotas are kept with the users; usage starts again after a restart.
    let server = server.restart(CONFIG);
    assert_eq!(server.ok("SHOW QUOTAS"), "few\nsmall_reads\n");
    assert_eq!(as_user(&server, "q1", "p", "SELECT 1").text(), "1\n");
    server.ok("ALTER QUOTA few FOR INTERVAL 1 hour NO LIMITS");
    server.ok("DROP QUOTA small_reads");
    assert_eq!(as_user(&server, "q2", "p", read).text(), "600\n");
    assert_eq!(code(&server.query("DROP QUOTA small_reads")), "199");
}

#[test]
fn settings_profiles_set_and_constrain_sessions() {
    let server = start_with(CONFIG_WITH_PROFILES);
    for statement in [
        "CREATE USER robin IDENTIFIED BY 'p'",
        "CREATE USER ann IDENTIFIED BY 'p' SETTINGS PROFILE 'base', max_threads = 2 CONST",
        "CREATE ROLE worker",
        "GRANT worker TO robin",
        "CREATE SETTINGS PROFILE base SETTINGS max_memory_usage = 100000001 MIN 90000000 MAX 110000000",
        "CREATE SETTINGS PROFILE ro SETTINGS PROFILE 'base', readonly = 1, \
         max_block_size CHANGEABLE_IN_READONLY MAX 1000 TO worker",
    ] {
        // `ann` names `base` before it exists: refused, made again below.
        let reply = server.query(statement);
        if statement.contains("ann") {
            assert_eq!(code(&reply), "180", "{}", reply.text());
            continue;
        }
        assert_eq!(reply.status, 200, "{statement}: {}", reply.text());
    }
    server.ok("CREATE USER ann IDENTIFIED BY 'p' SETTINGS PROFILE 'base', max_threads = 2 CONST");
    let setting =
        "SELECT value, min, max, readonly FROM system.settings WHERE name = 'max_memory_usage'";
    assert_eq!(
        as_user(&server, "ann", "p", setting).text(),
        "100000001\t90000000\t110000000\t0\n"
    );
    let set = |user: &str, query: &str| as_user(&server, user, "p", query);
    let low = set("ann", "SET max_memory_usage = 80000000");
    assert_eq!(code(&low), "452");
    assert!(
        low.text()
            .contains("Setting max_memory_usage shouldn't be less than 90000000. (SETTING_CONSTRAINT_VIOLATION)"),
        "{}",
        low.text()
    );
    let high = set("ann", "SELECT 1 SETTINGS max_memory_usage = 120000000");
    assert!(
        high.text().contains("shouldn't be greater than 110000000"),
        "{}",
        high.text()
    );
    assert_eq!(set("ann", "SET max_memory_usage = 100000000").status, 200);
    let fixed = set(
        "ann",
        "SELECT getSetting('max_threads') SETTINGS max_threads = 4",
    );
    assert!(
        fixed
            .text()
            .contains("Setting max_threads should not be changed"),
        "{}",
        fixed.text()
    );
    assert_eq!(set("ann", "SELECT getSetting('max_threads')").text(), "2\n");
    // URL settings are checked the same way.
    let url = server.send(
        "POST",
        "/?user=ann&password=p&max_memory_usage=1",
        &[],
        b"SELECT 1",
    );
    assert_eq!(code(&url), "452");
    // Through the role: readonly, but max_block_size may change up to 1000.
    assert_eq!(
        set(
            "robin",
            "SELECT getSetting('readonly'), getSetting('max_memory_usage')"
        )
        .text(),
        "1\t100000001\n"
    );
    assert_eq!(code(&set("robin", "SET max_threads = 1")), "164");
    assert_eq!(
        set(
            "robin",
            "SELECT getSetting('max_block_size') SETTINGS max_block_size = 500"
        )
        .text(),
        "500\n"
    );
    assert_eq!(code(&set("robin", "SET max_block_size = 5000")), "452");
    // The configuration's profiles, with their constraints, apply to its users.
    let carol = as_user(&server, "carol", "c", "SET max_threads = 9");
    assert_eq!(code(&carol), "452", "{}", carol.text());
    assert_eq!(
        as_user(&server, "carol", "c", "SELECT getSetting('max_threads')").text(),
        "3\n"
    );
    assert_eq!(
        server.ok("SELECT name, storage, num_elements, apply_to_list FROM system.settings_profiles ORDER BY name"),
        "base\tlocal_directory\t1\t[]\nlimited\tusers_xml\t2\t[]\nro\tlocal_directory\t3\t['worker']\n"
    );
    assert_eq!(
        server.ok(
            "SELECT profile_name, user_name, index, setting_name, value, min, max, writability, inherit_profile \
             FROM system.settings_profile_elements WHERE profile_name = 'ro' OR user_name = 'ann' \
             ORDER BY profile_name, user_name, index"
        ),
        "ro\t\\N\t0\t\\N\t\\N\t\\N\t\\N\t\\N\tbase\n\
         ro\t\\N\t1\treadonly\t1\t\\N\t\\N\t\\N\t\\N\n\
         ro\t\\N\t2\tmax_block_size\t\\N\t\\N\t1000\tCHANGEABLE_IN_READONLY\t\\N\n\
         \\N\tann\t0\t\\N\t\\N\t\\N\t\\N\t\\N\tbase\n\
         \\N\tann\t1\tmax_threads\t2\t\\N\t\\N\tCONST\t\\N\n"
    );
    assert_eq!(
        server.ok("SHOW CREATE SETTINGS PROFILE ro FORMAT TSVRaw"),
        "CREATE SETTINGS PROFILE ro SETTINGS PROFILE 'base', readonly = 1, \
         max_block_size MAX 1000 CHANGEABLE_IN_READONLY TO worker\n"
    );
    assert_eq!(
        code(&server.query("CREATE SETTINGS PROFILE bad SETTINGS no_such = 1")),
        "115"
    );
    assert_eq!(
        code(&server.query("ALTER SETTINGS PROFILE base SETTINGS PROFILE 'ro'")),
        "36"
    );
    assert_eq!(code(&server.query("DROP SETTINGS PROFILE limited")), "495");
    assert_eq!(
        code(&as_user(&server, "robin", "p", "SHOW PROFILES")),
        "497"
    );
    // Kept across a restart; dropping a profile frees whom it applied to.
    let server = server.restart(CONFIG_WITH_PROFILES);
    assert_eq!(server.ok("SHOW SETTINGS PROFILES"), "base\nlimited\nro\n");
    assert_eq!(
        as_user(&server, "robin", "p", "SELECT getSetting('readonly')").text(),
        "1\n"
    );
    server.ok("DROP SETTINGS PROFILE ro");
    assert_eq!(
        as_user(&server, "robin", "p", "SET max_threads = 1").status,
        200
    );
    server.ok("ALTER USER ann SETTINGS NONE");
    assert_eq!(
        as_user(&server, "ann", "p", "SET max_memory_usage = 1").status,
        200
    );
}

const CONFIG_WITH_PROFILES: &str = "<clickhouse>
  <profiles>
    <limited>
      <max_threads>3</max_threads>
      <constraints><max_threads><min>1</min><max>4</max></max_threads></constraints>
    </limited>
  </profiles>
  <users>
    <default><password></password><access_management>1</access_management></default>
    <carol><password>c</password><profile>limited</profile></carol>
  </users>
</clickhouse>";
