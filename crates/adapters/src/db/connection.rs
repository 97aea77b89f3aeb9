//! Connections: one enum over PostgreSQL and SQLite, and an r2d2 pool whose manager picks the
//! backend from the URL, so a failed connection reports the real cause rather than the last backend
//! tried.

use diesel::connection::SimpleConnection;
use diesel::r2d2::R2D2Connection;
use diesel::{Connection, ConnectionError, PgConnection, SqliteConnection};
use diesel_migrations::{embed_migrations, EmbeddedMigrations, MigrationHarness};
use payments_application::error::cause_chain;
use percent_encoding::{utf8_percent_encode, AsciiSet, NON_ALPHANUMERIC};
use std::path::{Path, PathBuf};
use std::time::Duration;

const POSTGRES_MIGRATIONS: EmbeddedMigrations = embed_migrations!("../../migrations/postgres");
const SQLITE_MIGRATIONS: EmbeddedMigrations = embed_migrations!("../../migrations/sqlite");

/// A connection to either backend.
#[derive(diesel::MultiConnection)]
pub enum AnyConnection {
    Postgresql(PgConnection),
    Sqlite(SqliteConnection),
}

/// The backend a database URL names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    Postgres,
    Sqlite,
}

/// A parsed database URL: `postgres://` or `postgresql://` for PostgreSQL; `sqlite://PATH` or a plain
/// path for SQLite.
#[derive(Clone, PartialEq, Eq)]
pub struct DatabaseUrl {
    backend: Backend,
    target: String,
}

impl DatabaseUrl {
    /// # Errors
    /// A message when the URL is empty or names another scheme.
    pub fn parse(url: &str) -> Result<Self, String> {
        let url = url.trim();
        if url.starts_with("postgres://") || url.starts_with("postgresql://") {
            return Ok(Self { backend: Backend::Postgres, target: url.to_owned() });
        }
        let path = url.strip_prefix("sqlite://").or_else(|| url.strip_prefix("sqlite:")).unwrap_or(url);
        if path.is_empty() {
            return Err("the database URL is empty".to_owned());
        }
        if path.contains("://") {
            return Err(format!("unsupported database URL scheme in {}", redact(url)));
        }
        if path == ":memory:" {
            return Err("an in-memory SQLite database cannot be shared by a pool; give a file path".to_owned());
        }
        Ok(Self { backend: Backend::Sqlite, target: path.to_owned() })
    }

    #[must_use]
    pub fn backend(&self) -> Backend {
        self.backend
    }

    /// Opens a PostgreSQL connection of its own, outside the pool (`None` for SQLite).
    pub(crate) fn open_postgres(&self) -> Option<Result<PgConnection, ConnectError>> {
        (self.backend == Backend::Postgres)
            .then(|| PgConnection::establish(&self.named_postgres_target()).map_err(ConnectError::from))
    }

    /// The PostgreSQL URL with `application_name=payments` when it names none, so that the server's
    /// views and logs tell the service's sessions from others (scripts/citus-check counts the
    /// multi-shard queries of the service's alone).
    fn named_postgres_target(&self) -> std::borrow::Cow<'_, str> {
        if self.target.contains("application_name=") {
            return self.target.as_str().into();
        }
        let separator = if self.target.contains('?') { '&' } else { '?' };
        format!("{}{separator}application_name={APPLICATION_NAME}", self.target).into()
    }
}

/// The `application_name` of the service's PostgreSQL sessions, unless the URL names another.
const APPLICATION_NAME: &str = "payments";

/// How the connection to PostgreSQL is protected: libpq's `sslmode`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TlsMode {
    /// Plain text only.
    Disable,
    /// TLS when the server offers it, plain text otherwise (libpq's default).
    Prefer,
    /// TLS always, without checking the server's certificate.
    Require,
    /// TLS with a certificate signed by the configured CA.
    VerifyCa,
    /// TLS with a certificate signed by the configured CA and naming the host connected to.
    VerifyFull,
}

impl TlsMode {
    pub const ALL: [Self; 5] = [Self::Disable, Self::Prefer, Self::Require, Self::VerifyCa, Self::VerifyFull];

    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Disable => "disable",
            Self::Prefer => "prefer",
            Self::Require => "require",
            Self::VerifyCa => "verify-ca",
            Self::VerifyFull => "verify-full",
        }
    }

    #[must_use]
    pub fn parse(value: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|mode| mode.as_str() == value)
    }

    /// Whether the server's certificate is checked against a CA.
    #[must_use]
    pub const fn verifies(self) -> bool {
        matches!(self, Self::VerifyCa | Self::VerifyFull)
    }
}

/// TLS to PostgreSQL as configured; each part left out keeps what the URL says.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PostgresTls {
    pub mode: Option<TlsMode>,
    /// The PEM file of the CA that signed the server's certificate (libpq's `sslrootcert`).
    pub ca_file: Option<PathBuf>,
}

/// What a query value may hold unescaped in a libpq URI (which does not read `+` as a space).
const URI_VALUE: &AsciiSet = &NON_ALPHANUMERIC.remove(b'/').remove(b'-').remove(b'_').remove(b'.');

impl DatabaseUrl {
    /// The URL with the TLS settings added as `sslmode` and `sslrootcert` parameters, which win over
    /// the same parameters in the URL (libpq keeps the last).
    ///
    /// # Errors
    /// A message when TLS is configured for SQLite, or a verifying mode has no CA anywhere.
    pub fn with_tls(mut self, tls: &PostgresTls) -> Result<Self, String> {
        if *tls == PostgresTls::default() {
            return Ok(self);
        }
        if self.backend != Backend::Postgres {
            return Err("TLS settings apply to PostgreSQL only; the database URL names SQLite".to_owned());
        }
        let mut parameters = Vec::new();
        if let Some(mode) = tls.mode {
            parameters.push(format!("sslmode={}", mode.as_str()));
        }
        if let Some(ca_file) = &tls.ca_file {
            parameters.push(format!("sslrootcert={}", utf8_percent_encode(&ca_file.to_string_lossy(), URI_VALUE)));
        }
        let ca_in_url = self.target.contains("sslrootcert=");
        if tls.mode.is_some_and(TlsMode::verifies) && tls.ca_file.is_none() && !ca_in_url {
            return Err(format!(
                "sslmode {} checks the server's certificate: set the CA certificate file (tls_ca_file)",
                tls.mode.map_or("", TlsMode::as_str)
            ));
        }
        let separator = if self.target.contains('?') { '&' } else { '?' };
        self.target = format!("{}{separator}{}", self.target, parameters.join("&"));
        Ok(self)
    }
}

impl std::fmt::Debug for DatabaseUrl {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "DatabaseUrl({:?}, {})", self.backend, redact(&self.target))
    }
}

/// The URL with any password replaced, for logs and messages.
fn redact(url: &str) -> String {
    match (url.find("://"), url.find('@')) {
        (Some(scheme_end), Some(at)) if at > scheme_end => {
            let credentials = &url[scheme_end + 3..at];
            match credentials.split_once(':') {
                Some((user, _)) => format!("{}://{user}:***{}", &url[..scheme_end], &url[at..]),
                None => url.to_owned(),
            }
        }
        _ => url.to_owned(),
    }
}

/// Why a connection could not be made or checked.
#[derive(Debug, thiserror::Error)]
pub enum ConnectError {
    #[error("cannot connect to the database")]
    Connect(#[from] ConnectionError),
    #[error("cannot prepare the connection")]
    Query(#[from] diesel::result::Error),
    #[error("cannot create the directory of the SQLite database")]
    Directory(#[from] std::io::Error),
}

/// Why the database could not be made ready at startup.
#[derive(Debug, thiserror::Error)]
pub enum DatabaseError {
    #[error("cannot open the database")]
    Connect(#[source] ConnectError),
    #[error("cannot migrate the database")]
    Migrate(#[source] Box<dyn std::error::Error + Send + Sync>),
    #[error("cannot open the connection pool")]
    Pool(#[source] r2d2::Error),
}

/// A pooled connection, and whether a failure showed it dead.
pub struct PooledConnection {
    pub(crate) connection: AnyConnection,
    /// Set when a query on it reported the database unavailable, so the pool drops it on return
    /// instead of handing it out again.
    pub(crate) broken: bool,
    /// Whether the server named a synchronous standby when this connection was made: then what a
    /// unit of work that wrote nothing read is confirmed on the standby before it is answered
    /// ([`super::session::confirm_replicated`]). A crash of the server ends its connections, so
    /// the new ones after its restart ask again.
    pub(crate) reads_wait_for_standby: bool,
}

/// The r2d2 manager that opens connections of the backend the URL names.
#[derive(Debug, Clone)]
pub struct ConnectionManager {
    url: DatabaseUrl,
}

impl ConnectionManager {
    #[must_use]
    pub fn new(url: DatabaseUrl) -> Self {
        Self { url }
    }
}

/// SQLite: write-ahead log so readers never wait for the writer, a busy timeout so writers queue
/// instead of failing, and enforced foreign keys. No automatic checkpoints: SQLite would run them in
/// the committing transaction, on the one writer connection, with every other writer waiting (a
/// charge's commit took 320 µs on average instead of about 100); a background job checkpoints from
/// a read connection instead ([`super::DieselUnitOfWork`]'s `checkpoint`), and the log file is cut
/// back to 64 MiB after each restart of the log. Savepoint journals stay in memory: the writer's
/// batched transactions each run in a savepoint (`super::group_commit`), and a journal file cost a
/// write system call for each page a savepoint changed first, inside the writer's turn.
///
/// The busy timeout comes first: setting the journal mode takes a lock, and a connection opened
/// while another one writes (a second pool, another instance starting) waits for it rather than
/// failing with "database is locked".
const SQLITE_PRAGMAS: &str = "PRAGMA busy_timeout = 5000; PRAGMA journal_mode = WAL; PRAGMA foreign_keys = ON; \
    PRAGMA synchronous = NORMAL; PRAGMA wal_autocheckpoint = 0; PRAGMA journal_size_limit = 67108864; \
    PRAGMA temp_store = MEMORY;";

impl r2d2::ManageConnection for ConnectionManager {
    type Connection = PooledConnection;
    type Error = ConnectError;

    fn connect(&self) -> Result<PooledConnection, ConnectError> {
        let mut connection = self.open()?;
        let reads_wait_for_standby = has_synchronous_standby(&mut connection)?;
        Ok(PooledConnection { connection, broken: false, reads_wait_for_standby })
    }

    fn is_valid(&self, pooled: &mut PooledConnection) -> Result<(), ConnectError> {
        pooled.connection.batch_execute("SELECT 1").map_err(ConnectError::Query)
    }

    fn has_broken(&self, pooled: &mut PooledConnection) -> bool {
        pooled.broken
            || match &mut pooled.connection {
                AnyConnection::Postgresql(inner) => inner.is_broken(),
                AnyConnection::Sqlite(inner) => inner.is_broken(),
            }
    }
}

impl ConnectionManager {
    /// Opens a connection of the URL's backend, prepared for use.
    fn open(&self) -> Result<AnyConnection, ConnectError> {
        match self.url.backend {
            Backend::Postgres => {
                // Statements keep PostgreSQL's default plan caching: a lookup's plan takes its key's
                // index and no other (the listing indexes are partial on `seq > 0`, which only lists
                // state: `super::Positive`), so a cached generic plan cannot go bad as the tables grow.
                Ok(AnyConnection::Postgresql(PgConnection::establish(&self.url.named_postgres_target())?))
            }
            Backend::Sqlite => {
                if let Some(directory) = Path::new(&self.url.target).parent().filter(|p| !p.as_os_str().is_empty()) {
                    std::fs::create_dir_all(directory)?;
                }
                let mut connection = SqliteConnection::establish(&self.url.target)?;
                connection.batch_execute(SQLITE_PRAGMAS)?;
                Ok(AnyConnection::Sqlite(connection))
            }
        }
    }
}

/// Whether a PostgreSQL server commits with a synchronous standby (`synchronous_standby_names`).
fn has_synchronous_standby(connection: &mut AnyConnection) -> Result<bool, ConnectError> {
    #[derive(diesel::QueryableByName)]
    struct Standbys {
        #[diesel(sql_type = diesel::sql_types::Text)]
        synchronous_standby_names: String,
    }
    match connection {
        AnyConnection::Postgresql(inner) => {
            diesel::RunQueryDsl::get_result::<Standbys>(diesel::sql_query("SHOW synchronous_standby_names"), inner)
                .map(|shown| !shown.synchronous_standby_names.is_empty())
                .map_err(ConnectError::Query)
        }
        AnyConnection::Sqlite(_) => Ok(false),
    }
}

/// The connection pool.
pub type Pool = r2d2::Pool<ConnectionManager>;

/// How the pool is sized and how long a request waits for a connection.
#[derive(Debug, Clone, Copy)]
pub struct PoolSettings {
    pub max_size: u32,
    pub connection_timeout: Duration,
}

/// Serializes concurrent migrations of several instances starting against one PostgreSQL.
const MIGRATION_LOCK: i64 = 0x7061_796d_656e_7473;

impl DatabaseUrl {
    /// Builds the pool, failing with the real cause when the database cannot be reached, and runs
    /// the embedded migrations of the backend.
    ///
    /// # Errors
    /// The connection, migration or pool failure, with its cause.
    pub fn connect(&self, settings: PoolSettings) -> Result<Pool, DatabaseError> {
        self.connect_with_events(settings, Box::new(r2d2::NopEventHandler))
    }

    /// As [`DatabaseUrl::connect`], with the pool's checkout events sent to `events` (metrics).
    ///
    /// # Errors
    /// The connection, migration or pool failure, with its cause.
    pub fn connect_with_events(
        &self,
        settings: PoolSettings,
        events: Box<dyn r2d2::HandleEvent>,
    ) -> Result<Pool, DatabaseError> {
        let manager = ConnectionManager::new(self.clone());
        // One direct connection first: r2d2 would report only a timeout, this reports why.
        let mut first = manager.open().map_err(DatabaseError::Connect)?;
        migrate(&mut first).map_err(DatabaseError::Migrate)?;
        drop(first);
        r2d2::Pool::builder()
            .max_size(settings.max_size)
            // Grow on demand from one connection: on a small machine a handful of busy connections
            // serve more than a full pool of mostly idle ones (measured in docs/benchmarks.md).
            .min_idle(Some(1))
            // No `SELECT 1` before every use: it doubles the round trips of short transactions. A
            // connection that a query found dead is marked broken and dropped when it is returned
            // (`has_broken`); the request that met it answers 503.
            .test_on_check_out(false)
            .connection_timeout(settings.connection_timeout)
            .error_handler(Box::new(LogErrors))
            .event_handler(events)
            .build(manager)
            .map_err(DatabaseError::Pool)
    }
}

impl DatabaseUrl {
    /// The pool that write transactions take their connection from, when the backend needs one of
    /// its own. SQLite lets one transaction write at a time, and writers waiting in its busy handler
    /// sleep and poll, so under load their wait grows to hundreds of milliseconds. One connection
    /// for every write transaction makes writers queue in this process instead, each taking over the
    /// moment the previous one commits, while reads go on in parallel on the other pool (WAL).
    /// PostgreSQL writes concurrently, so it has none.
    ///
    /// # Errors
    /// The pool failure, with its cause.
    pub fn writer_pool(
        &self,
        settings: PoolSettings,
        events: Box<dyn r2d2::HandleEvent>,
    ) -> Result<Option<Pool>, DatabaseError> {
        if self.backend != Backend::Sqlite {
            return Ok(None);
        }
        r2d2::Pool::builder()
            .max_size(1)
            .test_on_check_out(false)
            .connection_timeout(settings.connection_timeout)
            .error_handler(Box::new(LogErrors))
            .event_handler(events)
            .build(ConnectionManager::new(self.clone()))
            .map(Some)
            .map_err(DatabaseError::Pool)
    }
}

/// Runs the migrations not run yet, and on PostgreSQL with Citus places the tables not placed yet
/// ([`super::distribution`]), under a lock that keeps instances starting together in turn.
pub(crate) fn migrate(connection: &mut AnyConnection) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    match connection {
        AnyConnection::Postgresql(inner) => {
            inner.batch_execute(&format!("SELECT pg_advisory_lock({MIGRATION_LOCK})"))?;
            let outcome = inner
                .run_pending_migrations(POSTGRES_MIGRATIONS)
                .map(drop)
                .and_then(|()| super::distribution::distribute(inner).map_err(Into::into));
            inner.batch_execute(&format!("SELECT pg_advisory_unlock({MIGRATION_LOCK})"))?;
            outcome
        }
        AnyConnection::Sqlite(inner) => inner.run_pending_migrations(SQLITE_MIGRATIONS).map(drop),
    }
}

/// Sends the pool's connection failures to the log instead of standard error.
#[derive(Debug)]
struct LogErrors;

impl r2d2::HandleError<ConnectError> for LogErrors {
    fn handle_error(&self, error: ConnectError) {
        tracing::warn!(error = %cause_chain(&error), "database connection failed");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_service_names_its_postgres_sessions_unless_the_url_does() {
        let named = |url: &str| DatabaseUrl::parse(url).unwrap().named_postgres_target().into_owned();
        assert_eq!(named("postgres://u@h/db"), "postgres://u@h/db?application_name=payments");
        assert_eq!(
            named("postgres://u@h/db?sslmode=disable"),
            "postgres://u@h/db?sslmode=disable&application_name=payments"
        );
        assert_eq!(named("postgres://u@h/db?application_name=mine"), "postgres://u@h/db?application_name=mine");
    }

    #[test]
    fn the_scheme_picks_the_backend() {
        assert_eq!(DatabaseUrl::parse("postgres://u@h/db").unwrap().backend(), Backend::Postgres);
        assert_eq!(DatabaseUrl::parse("postgresql://u@h/db").unwrap().backend(), Backend::Postgres);
        let sqlite = DatabaseUrl::parse("sqlite://data/payments.db").unwrap();
        assert_eq!((sqlite.backend(), sqlite.target.as_str()), (Backend::Sqlite, "data/payments.db"));
        assert_eq!(DatabaseUrl::parse("/tmp/x.db").unwrap().target, "/tmp/x.db");
        assert_eq!(DatabaseUrl::parse("mysql://h/db").unwrap_err(), "unsupported database URL scheme in mysql://h/db");
        assert_eq!(DatabaseUrl::parse("").unwrap_err(), "the database URL is empty");
        assert_eq!(
            DatabaseUrl::parse("sqlite://:memory:").unwrap_err(),
            "an in-memory SQLite database cannot be shared by a pool; give a file path"
        );
    }

    #[test]
    fn tls_settings_become_libpq_parameters() {
        let url = DatabaseUrl::parse("postgres://u@db.example/payments").unwrap();
        let tls = PostgresTls { mode: Some(TlsMode::VerifyFull), ca_file: Some("/etc/ca dir/root+1.pem".into()) };
        assert_eq!(
            url.clone().with_tls(&tls).unwrap().target,
            "postgres://u@db.example/payments?sslmode=verify-full&sslrootcert=/etc/ca%20dir/root%2B1.pem"
        );
        let with_query = DatabaseUrl::parse("postgres://u@h/db?sslmode=disable").unwrap();
        let require = PostgresTls { mode: Some(TlsMode::Require), ca_file: None };
        assert_eq!(with_query.with_tls(&require).unwrap().target, "postgres://u@h/db?sslmode=disable&sslmode=require");
        assert_eq!(url.clone().with_tls(&PostgresTls::default()).unwrap(), url);
    }

    #[test]
    fn a_verifying_mode_needs_a_ca_and_sqlite_takes_no_tls() {
        let verify_ca = PostgresTls { mode: Some(TlsMode::VerifyCa), ca_file: None };
        let error = DatabaseUrl::parse("postgres://u@h/db").unwrap().with_tls(&verify_ca).unwrap_err();
        assert!(error.contains("sslmode verify-ca") && error.contains("tls_ca_file"), "{error}");
        let ca_in_url = DatabaseUrl::parse("postgres://u@h/db?sslrootcert=/ca.pem").unwrap();
        assert!(ca_in_url.with_tls(&verify_ca).is_ok());
        let sqlite = DatabaseUrl::parse("sqlite://data/x.db").unwrap();
        assert!(sqlite.with_tls(&verify_ca).unwrap_err().contains("PostgreSQL only"));
        assert_eq!(TlsMode::ALL.map(|mode| TlsMode::parse(mode.as_str())), TlsMode::ALL.map(Some));
        assert_eq!(TlsMode::parse("verify_full"), None);
    }

    #[derive(diesel::QueryableByName)]
    struct Setting {
        #[diesel(sql_type = diesel::sql_types::BigInt)]
        value: i64,
    }

    /// Savepoint journals in memory, read back from a new connection (a batch's transactions each
    /// run in a savepoint; on disk, each page a savepoint first changed was one more write system
    /// call inside the writer's turn).
    #[test]
    fn sqlite_connections_journal_savepoints_in_memory() {
        use diesel::RunQueryDsl;
        let path = std::env::temp_dir().join(format!("payments-journal-{}.db", std::process::id()));
        let manager = ConnectionManager::new(DatabaseUrl::parse(&format!("sqlite://{}", path.display())).unwrap());
        let mut pooled = r2d2::ManageConnection::connect(&manager).expect("connect");
        let temp_store = diesel::sql_query("SELECT temp_store AS value FROM pragma_temp_store()")
            .get_result::<Setting>(&mut pooled.connection)
            .expect("read temp_store")
            .value;
        drop(pooled);
        for suffix in ["", "-wal", "-shm"] {
            let _ = std::fs::remove_file(format!("{}{suffix}", path.display()));
        }
        assert_eq!(temp_store, 2, "2 is MEMORY");
    }

    #[test]
    fn passwords_never_reach_debug_output() {
        let url = DatabaseUrl::parse("postgres://user:hunter2@localhost/db").unwrap();
        let shown = format!("{url:?}");
        assert!(!shown.contains("hunter2"), "{shown}");
        assert!(shown.contains("user:***@localhost"), "{shown}");
    }
}
