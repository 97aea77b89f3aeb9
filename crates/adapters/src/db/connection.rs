//! Connections: one enum over PostgreSQL and SQLite, and an r2d2 pool whose manager picks the
//! backend from the URL, so a failed connection reports the real cause rather than the last backend
//! tried.

use diesel::connection::SimpleConnection;
use diesel::r2d2::R2D2Connection;
use diesel::{Connection, ConnectionError, PgConnection, SqliteConnection};
use diesel_migrations::{embed_migrations, EmbeddedMigrations, MigrationHarness};
use payments_application::error::cause_chain;
use std::path::Path;
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
/// instead of failing, and enforced foreign keys.
const SQLITE_PRAGMAS: &str =
    "PRAGMA journal_mode = WAL; PRAGMA busy_timeout = 5000; PRAGMA foreign_keys = ON; PRAGMA synchronous = NORMAL;";

impl r2d2::ManageConnection for ConnectionManager {
    type Connection = PooledConnection;
    type Error = ConnectError;

    fn connect(&self) -> Result<PooledConnection, ConnectError> {
        let connection = self.open()?;
        Ok(PooledConnection { connection, broken: false })
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
            Backend::Postgres => Ok(AnyConnection::Postgresql(PgConnection::establish(&self.url.target)?)),
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
            .build(manager)
            .map_err(DatabaseError::Pool)
    }
}

fn migrate(connection: &mut AnyConnection) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    match connection {
        AnyConnection::Postgresql(inner) => {
            inner.batch_execute(&format!("SELECT pg_advisory_lock({MIGRATION_LOCK})"))?;
            let outcome = inner.run_pending_migrations(POSTGRES_MIGRATIONS).map(drop);
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
    fn passwords_never_reach_debug_output() {
        let url = DatabaseUrl::parse("postgres://user:hunter2@localhost/db").unwrap();
        let shown = format!("{url:?}");
        assert!(!shown.contains("hunter2"), "{shown}");
        assert!(shown.contains("user:***@localhost"), "{shown}");
    }
}
