//! Throwaway databases for tests: a fresh SQLite file or a fresh PostgreSQL database per test,
//! removed when the test ends.
//!
//! PostgreSQL tests connect to `PAYMENTS_TEST_POSTGRES_URL` (default
//! `postgres://postgres@127.0.0.1:5432/postgres`) to create and drop their databases. When that
//! server cannot be reached the test fails: PostgreSQL tests are never skipped silently.

use super::connection::Backend;
pub use super::tables::{deleted_children_first, exported_parents_first, references, Placement, Role, TABLES};
use diesel::connection::{Instrumentation, InstrumentationEvent, SimpleConnection};
use diesel::{Connection, PgConnection, RunQueryDsl, SqliteConnection};
use rand::distr::{Alphanumeric, SampleString};
use std::cell::Cell;
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{LazyLock, Mutex, Once, PoisonError};

/// The variable naming the PostgreSQL server for tests.
pub const POSTGRES_URL_VARIABLE: &str = "PAYMENTS_TEST_POSTGRES_URL";
const DEFAULT_POSTGRES_URL: &str = "postgres://postgres@127.0.0.1:5432/postgres";

/// A database that exists for the life of this value.
#[derive(Debug)]
pub struct TestDatabase {
    backend: Backend,
    url: String,
    name: String,
    admin_url: String,
}

impl TestDatabase {
    /// A fresh database of `backend`.
    ///
    /// # Panics
    /// When the PostgreSQL server cannot be reached or refuses to create a database.
    #[must_use]
    pub fn new(backend: Backend) -> Self {
        match backend {
            Backend::Sqlite => Self::sqlite(),
            Backend::Postgres => Self::postgres(),
        }
    }

    /// A fresh SQLite file in the temporary directory.
    #[must_use]
    pub fn sqlite() -> Self {
        let name = format!("payments-test-{}.db", suffix());
        let path: PathBuf = std::env::temp_dir().join(&name);
        Self { backend: Backend::Sqlite, url: format!("sqlite://{}", path.display()), name, admin_url: String::new() }
    }

    /// A fresh PostgreSQL database with the schema in place: a copy of a template database migrated
    /// once (per set of migrations, kept on the server for the next runs), which is quicker than
    /// running every migration for every test.
    ///
    /// # Panics
    /// When the PostgreSQL server cannot be reached or refuses to create a database.
    #[must_use]
    pub fn postgres() -> Self {
        let admin_url = admin_url();
        let template = migrated_template(&admin_url);
        Self::postgres_created(&admin_url, &format!("TEMPLATE {template}"))
    }

    /// A fresh PostgreSQL database without any table: the service migrates it when it connects
    /// (for tests of migrating, and of several instances starting at once).
    ///
    /// # Panics
    /// When the PostgreSQL server cannot be reached or refuses to create a database.
    #[must_use]
    pub fn unmigrated_postgres() -> Self {
        Self::postgres_created(&admin_url(), "")
    }

    fn postgres_created(admin_url: &str, options: &str) -> Self {
        let admin_url = admin_url.to_owned();
        let name = format!("payments_test_{}", suffix().to_lowercase());
        for node in node_admin_urls(&admin_url) {
            let mut admin = admin_connection(&node);
            if let Some(template) = options.strip_prefix("TEMPLATE ") {
                // Citus keeps a connection to each database that has the extension: a template's
                // ends so that it can be copied (no one connects to it again).
                end_connections(&mut admin, template);
            }
            admin.batch_execute(&format!("CREATE DATABASE {name} {options}")).expect("create the test database");
        }
        let url = with_database(&admin_url, &name);
        Self { backend: Backend::Postgres, url, name, admin_url }
    }

    #[must_use]
    pub fn url(&self) -> &str {
        &self.url
    }

    #[must_use]
    pub fn backend(&self) -> Backend {
        self.backend
    }

    /// PostgreSQL only: refuses new connections and ends the open ones, as an outage would, or lets
    /// connections in again.
    ///
    /// # Panics
    /// On SQLite, or when the server refuses the change.
    pub fn set_reachable(&self, reachable: bool) {
        assert_eq!(self.backend, Backend::Postgres, "only a PostgreSQL database can be made unreachable");
        let mut admin = PgConnection::establish(&self.admin_url).expect("connect to the PostgreSQL server");
        admin
            .batch_execute(&format!("ALTER DATABASE {} WITH ALLOW_CONNECTIONS {reachable}", self.name))
            .expect("change whether the database accepts connections");
        if !reachable {
            admin
                .batch_execute(&format!(
                    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '{}'",
                    self.name
                ))
                .expect("end the open connections");
        }
    }
}

impl TestDatabase {
    /// PostgreSQL only: runs `locking_sql` (a `SELECT … FOR UPDATE`) in a transaction of its own
    /// and holds its locks until the answer is dropped, so that a request that needs those rows
    /// waits in the middle of its transaction.
    ///
    /// # Panics
    /// On SQLite, or when the statement fails.
    #[must_use]
    pub fn lock_rows(&self, locking_sql: &str) -> RowLock {
        assert_eq!(self.backend, Backend::Postgres, "only PostgreSQL's rows are locked from outside");
        let mut connection = PgConnection::establish(&self.url).expect("connect to the test database");
        connection.batch_execute(&format!("BEGIN; {locking_sql}")).expect("lock the rows");
        RowLock { connection, database: self.name.clone() }
    }
}

/// Rows held locked by [`TestDatabase::lock_rows`] until this is dropped.
pub struct RowLock {
    connection: PgConnection,
    database: String,
}

impl RowLock {
    /// Ends the connections that wait for these locks, as the loss of the primary ends a request's
    /// connection in the middle of its transaction: waits up to 10 s for one to wait, and answers
    /// how many were ended.
    ///
    /// # Panics
    /// When the server cannot be asked.
    pub fn end_waiting_connections(&mut self) -> i64 {
        #[derive(diesel::QueryableByName)]
        struct Ended {
            #[diesel(sql_type = diesel::sql_types::BigInt)]
            ended: i64,
        }
        let sql = format!(
            "SELECT count(pg_terminate_backend(pid)) AS ended FROM pg_stat_activity \
             WHERE datname = '{}' AND wait_event_type = 'Lock' AND pid <> pg_backend_pid()",
            self.database
        );
        for _ in 0..200 {
            // Inside a transaction, the server's view of its backends is taken once: take it anew.
            self.connection.batch_execute("SELECT pg_stat_clear_snapshot()").expect("clear the snapshot");
            let ended = diesel::sql_query(&sql)
                .get_result::<Ended>(&mut self.connection)
                .expect("end the waiting connections")
                .ended;
            if ended > 0 {
                return ended;
            }
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
        0
    }
}

impl TestDatabase {
    /// PostgreSQL only: makes the database take no writes, as a standby does, and ends the open
    /// connections (a failover ends them too), or lets it take writes again.
    ///
    /// # Panics
    /// On SQLite, or when the server refuses the change.
    pub fn set_read_only(&self, read_only: bool) {
        assert_eq!(self.backend, Backend::Postgres, "only a PostgreSQL database can be made read-only");
        let mut admin = PgConnection::establish(&self.admin_url).expect("connect to the PostgreSQL server");
        let setting =
            if read_only { "SET default_transaction_read_only = on" } else { "RESET default_transaction_read_only" };
        admin.batch_execute(&format!("ALTER DATABASE {} {setting}", self.name)).expect("change the database");
        admin
            .batch_execute(&format!(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '{}'",
                self.name
            ))
            .expect("end the open connections");
    }

    /// Runs `sql` (statements that both backends accept) on a connection of its own, for tests that
    /// seed more rows than requests could make in a test's time.
    ///
    /// # Panics
    /// When the database cannot be reached or refuses a statement.
    pub fn execute(&self, sql: &str) {
        match self.backend {
            Backend::Postgres => PgConnection::establish(&self.url)
                .expect("connect to the test database")
                .batch_execute(sql)
                .expect("run the statements"),
            Backend::Sqlite => {
                let mut connection = SqliteConnection::establish(self.url.trim_start_matches("sqlite://"))
                    .expect("open the test database");
                // The service under test writes beside it (its worker, its checkpoints): wait for them
                // as the service's own connections do.
                connection.batch_execute("PRAGMA busy_timeout = 10000;").expect("set the busy timeout");
                connection.batch_execute(sql).expect("run the statements");
            }
        }
    }
}

impl TestDatabase {
    /// The whole number that `sql` (a query of one row and one column, named `n`, that both
    /// backends accept) answers, on a connection of its own: for tests that check the stored rows.
    ///
    /// # Panics
    /// When the database cannot be reached or refuses the query.
    #[must_use]
    pub fn number(&self, sql: &str) -> i64 {
        #[derive(diesel::QueryableByName)]
        struct Number {
            #[diesel(sql_type = diesel::sql_types::BigInt)]
            n: i64,
        }
        let rows: Vec<Number> = self.rows(sql);
        rows.first().map(|row| row.n).expect("the query answers one row")
    }

    /// The texts that `sql` (a query of one column, named `t`, of text that may be null, that both
    /// backends accept) answers, on a connection of its own: for tests that read what is stored.
    ///
    /// # Panics
    /// When the database cannot be reached or refuses the query.
    #[must_use]
    pub fn texts(&self, sql: &str) -> Vec<String> {
        #[derive(diesel::QueryableByName)]
        struct Text {
            #[diesel(sql_type = diesel::sql_types::Nullable<diesel::sql_types::Text>)]
            t: Option<String>,
        }
        let rows: Vec<Text> = self.rows(sql);
        rows.into_iter().filter_map(|text| text.t).collect()
    }

    /// The rows `sql` answers, on a connection of its own.
    fn rows<T>(&self, sql: &str) -> Vec<T>
    where
        T: diesel::QueryableByName<diesel::pg::Pg> + diesel::QueryableByName<diesel::sqlite::Sqlite> + 'static,
    {
        let query = diesel::sql_query(sql);
        match self.backend {
            Backend::Postgres => {
                query.load(&mut PgConnection::establish(&self.url).expect("connect to the test database"))
            }
            Backend::Sqlite => query.load(
                &mut SqliteConnection::establish(self.url.trim_start_matches("sqlite://"))
                    .expect("open the test database"),
            ),
        }
        .expect("run the query")
    }
}

fn admin_url() -> String {
    std::env::var(POSTGRES_URL_VARIABLE).unwrap_or_else(|_| DEFAULT_POSTGRES_URL.to_owned())
}

fn admin_connection(admin_url: &str) -> PgConnection {
    PgConnection::establish(admin_url).unwrap_or_else(|error| {
        panic!("PostgreSQL tests need a server at {POSTGRES_URL_VARIABLE} ({admin_url}): {error}")
    })
}

/// The migrated template database of this build's migrations, made once: by the first test of any
/// process to need it (under an advisory lock), and kept for later runs.
fn migrated_template(admin_url: &str) -> String {
    static TEMPLATE: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    TEMPLATE
        .get_or_init(|| {
            let name = format!("payments_template_{}", env!("PAYMENTS_POSTGRES_MIGRATIONS_DIGEST"));
            let mut admin = admin_connection(admin_url);
            admin.batch_execute(&format!("SELECT pg_advisory_lock({TEMPLATE_LOCK})")).expect("lock the template");
            let exists: bool = diesel::select(diesel::dsl::sql::<diesel::sql_types::Bool>(&format!(
                "EXISTS (SELECT 1 FROM pg_database WHERE datname = '{name}')"
            )))
            .get_result(&mut admin)
            .expect("look for the template");
            if !exists {
                // Migrated under another name and renamed when whole: a half-made template is
                // never cloned.
                let building = format!("{name}_building");
                let nodes = node_admin_urls(admin_url);
                for node in &nodes {
                    let mut admin = admin_connection(node);
                    let drop_half_made = format!("DROP DATABASE IF EXISTS {building} WITH (FORCE)");
                    admin.batch_execute(&drop_half_made).expect("drop a half-made template");
                    admin.batch_execute(&format!("CREATE DATABASE {building}")).expect("create the template");
                }
                let mut connection =
                    PgConnection::establish(&with_database(admin_url, &building)).expect("connect to the template");
                if nodes.len() > 1 {
                    join_cluster(&mut connection, &nodes, &building);
                }
                let mut connection = super::AnyConnection::Postgresql(connection);
                super::connection::migrate(&mut connection).expect("migrate the template");
                drop(connection);
                for node in &nodes {
                    let mut admin = admin_connection(node);
                    end_connections(&mut admin, &building);
                    admin
                        .batch_execute(&format!("ALTER DATABASE {building} RENAME TO {name}"))
                        .expect("name the template");
                }
            }
            admin.batch_execute(&format!("SELECT pg_advisory_unlock({TEMPLATE_LOCK})")).expect("unlock the template");
            name
        })
        .clone()
}

/// Names the Citus workers (`host:port,…`) of the coordinator that `PAYMENTS_TEST_POSTGRES_URL`
/// names: each test database is then made on every node, with the extension and its tables placed
/// (`scripts/citus-check`).
pub const CITUS_WORKERS_VARIABLE: &str = "PAYMENTS_TEST_CITUS_WORKERS";

/// The administrative URL of each node the test databases are made on: the server's, then its
/// Citus workers'.
fn node_admin_urls(admin_url: &str) -> Vec<String> {
    let workers = std::env::var(CITUS_WORKERS_VARIABLE).unwrap_or_default();
    let workers = workers.split(',').map(str::trim).filter(|worker| !worker.is_empty());
    std::iter::once(admin_url.to_owned()).chain(workers.map(|worker| with_host(admin_url, worker))).collect()
}

/// `url` with its `host:port` replaced by `host_port`.
fn with_host(url: &str, host_port: &str) -> String {
    let (start, end) = host_range(url);
    format!("{}{host_port}{}", &url[..start], &url[end..])
}

/// The host and port `url` names.
fn host_and_port(url: &str) -> (String, u16) {
    let (start, end) = host_range(url);
    let (host, port) = url[start..end].rsplit_once(':').unwrap_or((&url[start..end], "5432"));
    (host.to_owned(), port.parse().expect("a port number"))
}

/// Where `url`'s `host:port` starts and ends.
fn host_range(url: &str) -> (usize, usize) {
    let authority_start = url.find("://").map_or(0, |i| i + 3);
    let end = url[authority_start..].find(['/', '?']).map_or(url.len(), |i| authority_start + i);
    let start = url[authority_start..end].rfind('@').map_or(authority_start, |i| authority_start + i + 1);
    (start, end)
}

/// Makes the database `connection` is on (and has on every node of `nodes`, the coordinator's URL
/// first) a Citus cluster: the extension on each node, the workers added.
fn join_cluster(connection: &mut PgConnection, nodes: &[String], database: &str) {
    for node in &nodes[1..] {
        let mut worker = PgConnection::establish(&with_database(node, database)).expect("connect to a worker");
        worker.batch_execute("CREATE EXTENSION citus").expect("load Citus on a worker");
    }
    let (host, port) = host_and_port(&nodes[0]);
    let mut statements = format!("CREATE EXTENSION citus; SELECT citus_set_coordinator_host('{host}', {port});");
    for node in &nodes[1..] {
        let (host, port) = host_and_port(node);
        statements.push_str(&format!(" SELECT citus_add_node('{host}', {port});"));
    }
    connection.batch_execute(&statements).expect("make the Citus cluster");
}

/// Ends the connections to `database` (Citus' own among them) on `admin`'s server.
fn end_connections(admin: &mut PgConnection, database: &str) {
    admin
        .batch_execute(&format!(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '{database}' AND pid <> pg_backend_pid()"
        ))
        .expect("end the connections to the template");
}

/// The advisory lock under which the template is made.
const TEMPLATE_LOCK: i64 = 0x7465_6d70_6c61_7465;

/// A transaction that keeps writers waiting until it is dropped: on PostgreSQL the writers of one
/// table, on SQLite every writer of the database.
pub struct WriteHold {
    _connection: HeldConnection,
}

enum HeldConnection {
    Postgres(PgConnection),
    Sqlite(SqliteConnection),
}

impl Drop for HeldConnection {
    fn drop(&mut self) {
        let _ = match self {
            Self::Postgres(connection) => connection.batch_execute("ROLLBACK"),
            Self::Sqlite(connection) => connection.batch_execute("ROLLBACK"),
        };
    }
}

impl TestDatabase {
    /// Holds back every write to `table` (on SQLite, to the whole database) until the hold is
    /// dropped, so a test can catch a request in the middle of its work.
    ///
    /// # Panics
    /// When the database cannot be reached or locked.
    #[must_use]
    pub fn hold_writes(&self, table: &str) -> WriteHold {
        let connection = match self.backend {
            Backend::Postgres => {
                let mut connection = PgConnection::establish(&self.url).expect("connect to the test database");
                connection
                    .batch_execute(&format!("BEGIN; LOCK TABLE {table} IN EXCLUSIVE MODE"))
                    .expect("lock the table");
                HeldConnection::Postgres(connection)
            }
            Backend::Sqlite => {
                let path = self.url.trim_start_matches("sqlite://");
                let mut connection = SqliteConnection::establish(path).expect("open the test database");
                // Waits for a write under way (the request log's, say) rather than failing at once.
                connection.batch_execute("PRAGMA busy_timeout = 5000; BEGIN IMMEDIATE").expect("take the write lock");
                HeldConnection::Sqlite(connection)
            }
        };
        WriteHold { _connection: connection }
    }
}

impl Drop for TestDatabase {
    fn drop(&mut self) {
        match self.backend {
            Backend::Sqlite => {
                let path = std::env::temp_dir().join(&self.name);
                for extension in ["", "-wal", "-shm"] {
                    let _ = std::fs::remove_file(format!("{}{extension}", path.display()));
                }
            }
            Backend::Postgres => {
                // A Citus worker's database may be busy a moment longer (the coordinator's
                // connections to it end as the coordinator's database goes): tried again. One left
                // behind would have its maintenance daemon call on the coordinator forever.
                for node in node_admin_urls(&self.admin_url) {
                    for _ in 0..10 {
                        let dropped = PgConnection::establish(&node).ok().is_some_and(|mut admin| {
                            admin.batch_execute(&format!("DROP DATABASE IF EXISTS {} WITH (FORCE)", self.name)).is_ok()
                        });
                        if dropped {
                            break;
                        }
                        std::thread::sleep(std::time::Duration::from_millis(200));
                    }
                }
            }
        }
    }
}

fn suffix() -> String {
    Alphanumeric.sample_string(&mut rand::rng(), 16)
}

/// `url` with its database name replaced by `database`.
fn with_database(url: &str, database: &str) -> String {
    let authority_start = url.find("://").map_or(0, |i| i + 3);
    let (base, query) = url.split_once('?').map_or((url, None), |(b, q)| (b, Some(q)));
    let path_start = base[authority_start..].find('/').map_or(base.len(), |i| authority_start + i);
    let query = query.map(|q| format!("?{q}")).unwrap_or_default();
    format!("{}/{database}{query}", &base[..path_start])
}

#[cfg(test)]
mod tests {
    use super::{host_and_port, with_database, with_host};

    #[test]
    fn the_database_name_is_replaced_and_the_query_kept() {
        assert_eq!(with_database("postgres://u@h:5432/postgres", "x"), "postgres://u@h:5432/x");
        assert_eq!(with_database("postgres://u@h", "x"), "postgres://u@h/x");
        assert_eq!(with_database("postgres://u@h/db?sslmode=disable", "x"), "postgres://u@h/x?sslmode=disable");
    }

    #[test]
    fn the_host_is_replaced_and_read() {
        assert_eq!(with_host("postgres://u@h:6200/postgres", "w:6201"), "postgres://u@w:6201/postgres");
        assert_eq!(with_host("postgres://h/db?x=1", "w:6201"), "postgres://w:6201/db?x=1");
        assert_eq!(host_and_port("postgres://u@127.0.0.1:6200/postgres"), ("127.0.0.1".to_owned(), 6200));
        assert_eq!(host_and_port("postgres://u@h/postgres"), ("h".to_owned(), 5432));
    }
}

thread_local! {
    /// The statements this thread sent since [`count_statements`] began counting, if it is.
    static STATEMENTS: Cell<Option<usize>> = const { Cell::new(None) };
}

/// Statements sent through each database, by its URL, by any thread, since its first connection.
static STATEMENTS_BY_DATABASE: LazyLock<Mutex<HashMap<String, usize>>> = LazyLock::new(Mutex::default);

/// Counts each statement a connection starts, for the thread that sends it and for the database it
/// was established to.
#[derive(Default)]
struct StatementCounter {
    database: Option<String>,
}

impl Instrumentation for StatementCounter {
    fn on_connection_event(&mut self, event: InstrumentationEvent<'_>) {
        match event {
            InstrumentationEvent::StartEstablishConnection { url, .. } => {
                self.database = Some(url.to_owned());
            }
            InstrumentationEvent::StartQuery { .. } => {
                STATEMENTS.with(|count| count.set(count.get().map(|sent| sent + 1)));
                if let Some(database) = &self.database {
                    let mut counts = STATEMENTS_BY_DATABASE.lock().unwrap_or_else(PoisonError::into_inner);
                    *counts.entry(database.clone()).or_default() += 1;
                }
            }
            _ => {}
        }
    }
}

/// The statements sent to the database at `url` (as its connections were established to it) by
/// every thread so far, through connections set up by [`count_every_connections_statements`]: for
/// a test that counts what a request sends while nothing else sends to its database.
#[must_use]
pub fn statements_sent_to(url: &str) -> usize {
    let counts = STATEMENTS_BY_DATABASE.lock().unwrap_or_else(PoisonError::into_inner);
    counts
        .iter()
        .filter(|(database, _)| database.contains(url) || url.contains(database.as_str()))
        .map(|(_, sent)| sent)
        .sum()
}

/// Makes every connection established from now on count its statements for [`count_statements`];
/// call it before the pool to be measured opens. Connections of other tests count too, into
/// their own threads' counters, which nobody reads.
pub fn count_every_connections_statements() {
    static INSTALL: Once = Once::new();
    INSTALL.call_once(|| {
        diesel::connection::set_default_instrumentation(|| Some(Box::new(StatementCounter::default())))
            .expect("set the default instrumentation");
    });
}

/// Runs `run` on this thread and returns what it returns with the number of statements (each
/// query, `BEGIN` and `COMMIT`) it sent through connections set up by
/// [`count_every_connections_statements`].
pub fn count_statements<T>(run: impl FnOnce() -> T) -> (T, usize) {
    STATEMENTS.with(|count| count.set(Some(0)));
    let result = run();
    let sent = STATEMENTS.with(|count| count.replace(None)).unwrap_or_default();
    (result, sent)
}
