//! The diesel unit of work: a pooled connection, one transaction, the repositories over it.

use super::connection::{AnyConnection, Pool, PooledConnection};
use super::error::{pool_error, store_error};
use diesel::connection::{AnsiTransactionManager, SimpleConnection, TransactionManager};
use diesel::Connection;
use payments_application::ports::unit_of_work::Work;
use payments_application::ports::{StoreError, UnitOfWork};
use payments_application::ApplicationError;
use std::sync::Arc;

/// The repositories of one connection.
pub(crate) struct DbSession<'a> {
    pub(crate) connection: &'a mut AnyConnection,
    /// Whether the transaction appended events, so their deliveries are announced after commit.
    pub(crate) events_appended: bool,
}

/// Called after a transaction that appended events committed.
pub type EventsCommitted = Arc<dyn Fn() + Send + Sync>;

/// Opens transactions on pooled connections.
#[derive(Clone)]
pub struct DieselUnitOfWork {
    pool: Pool,
    /// The one connection of every write transaction, on SQLite (see [`super::DatabaseUrl::writer_pool`]).
    writer: Option<Pool>,
    on_events_committed: Option<EventsCommitted>,
}

impl DieselUnitOfWork {
    #[must_use]
    pub fn new(pool: Pool) -> Self {
        Self { pool, writer: None, on_events_committed: None }
    }

    /// Runs every transaction on `writer`'s connection, and only reads on the pool.
    #[must_use]
    pub fn writing_through(mut self, writer: Option<Pool>) -> Self {
        self.writer = writer;
        self
    }

    /// Calls `notify` after every commit that appended events (the delivery worker wakes on it).
    #[must_use]
    pub fn notifying(mut self, notify: EventsCommitted) -> Self {
        self.on_events_committed = Some(notify);
        self
    }
}

impl UnitOfWork for DieselUnitOfWork {
    fn transaction(&self, work: &mut Work<'_>) -> Result<(), ApplicationError> {
        let mut pooled = self.writer.as_ref().unwrap_or(&self.pool).get().map_err(pool_error)?;
        let outcome = run_transaction(&mut pooled.connection, work);
        mark_if_unavailable(&mut pooled, &outcome);
        if let (Ok((_, true)), Some(notify)) = (&outcome, &self.on_events_committed) {
            notify();
        }
        outcome.map(|(result, _)| result)
    }

    fn read(&self, work: &mut Work<'_>) -> Result<(), ApplicationError> {
        let mut pooled = self.pool.get().map_err(pool_error)?;
        let outcome = work(&mut DbSession { connection: &mut pooled.connection, events_appended: false });
        mark_if_unavailable(&mut pooled, &outcome);
        outcome
    }

    fn ping(&self) -> Result<(), StoreError> {
        let mut pooled = self.pool.get().map_err(pool_error)?;
        let outcome = pooled.connection.batch_execute("SELECT 1").map_err(store_error);
        if matches!(outcome, Err(StoreError::Unavailable(_))) {
            pooled.broken = true;
        }
        outcome
    }
}

/// A connection on which the database was unavailable is not handed out again.
fn mark_if_unavailable<T>(pooled: &mut PooledConnection, outcome: &Result<T, ApplicationError>) {
    if matches!(outcome, Err(ApplicationError::Unavailable(_))) {
        pooled.broken = true;
    }
}

/// Runs `work` in a transaction; also tells whether it appended events.
fn run_transaction(connection: &mut AnyConnection, work: &mut Work<'_>) -> Result<((), bool), ApplicationError> {
    begin(connection).map_err(store_error)?;
    let mut session = DbSession { connection: &mut *connection, events_appended: false };
    let outcome = work(&mut session);
    let events_appended = session.events_appended;
    match outcome {
        Ok(()) => {
            <AnyConnection as Connection>::TransactionManager::commit_transaction(connection).map_err(store_error)?;
            Ok(((), events_appended))
        }
        Err(error) => {
            if let Err(rollback) = <AnyConnection as Connection>::TransactionManager::rollback_transaction(connection) {
                tracing::warn!(error = %rollback, "rollback failed");
            }
            Err(error)
        }
    }
}

/// Starts a transaction. On SQLite it takes the write lock at once (`BEGIN IMMEDIATE`): a deferred
/// transaction that reads and then writes can fail with "database is locked" without waiting for
/// the busy timeout when another writer got there first.
fn begin(connection: &mut AnyConnection) -> diesel::QueryResult<()> {
    match connection {
        AnyConnection::Postgresql(inner) => AnsiTransactionManager::begin_transaction(inner),
        AnyConnection::Sqlite(inner) => AnsiTransactionManager::begin_transaction_sql(inner, "BEGIN IMMEDIATE"),
    }
}
