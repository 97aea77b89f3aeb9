//! The diesel unit of work: a pooled connection, one transaction, the repositories over it.

use super::connection::{AnyConnection, Pool, PooledConnection};
use super::error::{pool_error, store_error};
use super::group_commit::GroupCommit;
use super::prepared::Prepare;
use super::write_batch::{Expect, WriteBatch};
use diesel::connection::{AnsiTransactionManager, SimpleConnection, TransactionManager};
use diesel::pg::Pg;
use diesel::query_builder::{QueryFragment, QueryId};
use diesel::sql_types::Integer;
use diesel::sqlite::Sqlite;
use diesel::{Connection, QueryableByName, RunQueryDsl};
use payments_application::ports::unit_of_work::Work;
use payments_application::ports::{StoreError, UnitOfWork};
use payments_application::ApplicationError;
use std::sync::Arc;

/// The repositories of one connection.
pub(crate) struct DbSession<'a> {
    /// The connection: reads take it from [`DbSession::reading`], writes from [`DbSession::writing`]
    /// or [`DbSession::batchable_writing`].
    connection: &'a mut AnyConnection,
    /// What the transaction queued for the background workers, announced after commit.
    pub(crate) queued: Queued,
    writes: Writes,
    /// Whether a write statement ran or was held back.
    wrote: bool,
    /// The writes held back, in a batched unit of work on PostgreSQL.
    batch: Option<WriteBatch>,
}

/// The write statements a session may still run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Writes {
    /// Any number: the session is a transaction.
    Any,
    /// One: the session is a [`UnitOfWork::single_write`].
    One,
    /// None: its one write ran.
    Spent,
    /// None: the session is a [`UnitOfWork::read`].
    ReadOnly,
    /// Any number of those that can be held back, after every read: the session is a
    /// [`UnitOfWork::batched_writes`].
    Batched,
}

/// Where a write statement goes: to the connection now, or into the session's batch.
pub(crate) enum WriteTo<'s> {
    Connection(&'s mut AnyConnection),
    Batch(&'s mut WriteBatch),
}

impl<'a> DbSession<'a> {
    pub(crate) fn new(connection: &'a mut AnyConnection, writes: Writes) -> Self {
        let batch =
            (writes == Writes::Batched && matches!(connection, AnyConnection::Postgresql(_))).then(WriteBatch::default);
        Self { connection, queued: Queued::default(), writes, wrote: false, batch }
    }

    /// The connection, for a read: refused after a write in a batched session, where the read
    /// would not see the writes held back.
    pub(crate) fn reading(&mut self) -> Result<&mut AnyConnection, StoreError> {
        if self.writes == Writes::Batched && self.wrote {
            return Err(StoreError::Other("a batched-writes unit of work read after a write".into()));
        }
        Ok(self.connection)
    }

    /// The connection, for a write statement that must run now: refused for a second one in a
    /// single write, for any in a read (it would run outside a transaction, and on SQLite beside
    /// the writer) and in a batched session.
    pub(crate) fn writing(&mut self) -> Result<&mut AnyConnection, StoreError> {
        match self.writes {
            Writes::Any => {}
            Writes::One => self.writes = Writes::Spent,
            Writes::Spent => {
                return Err(StoreError::Other("a single-write unit of work ran a second write statement".into()));
            }
            Writes::ReadOnly => {
                return Err(StoreError::Other("a read-only unit of work ran a write statement".into()));
            }
            Writes::Batched => {
                return Err(StoreError::Other("a batched-writes unit of work ran a write that cannot wait".into()));
            }
        }
        self.wrote = true;
        Ok(self.connection)
    }

    /// Where a write statement that may be held back goes: the batch of a batched session on
    /// PostgreSQL; otherwise the connection, as for [`DbSession::writing`] (a batched session on
    /// SQLite is a transaction on the writer connection, whose commits are grouped anyway).
    pub(crate) fn batchable_writing(&mut self) -> Result<WriteTo<'_>, StoreError> {
        if self.writes != Writes::Batched {
            return self.writing().map(WriteTo::Connection);
        }
        self.wrote = true;
        Ok(match (&mut self.batch, &mut *self.connection) {
            (Some(batch), _) => WriteTo::Batch(batch),
            (None, connection) => WriteTo::Connection(connection),
        })
    }

    /// Runs or holds back one write statement that must change `expect`.
    pub(crate) fn write<Q>(&mut self, statement: Q, expect: Expect) -> Result<(), StoreError>
    where
        Q: QueryFragment<Pg> + QueryFragment<Sqlite> + QueryId + Send + 'static,
    {
        match self.batchable_writing()? {
            WriteTo::Batch(batch) => {
                batch.push(statement, expect);
                Ok(())
            }
            WriteTo::Connection(connection) => {
                expect.check(statement.prepared().execute(connection).map_err(store_error)?)
            }
        }
    }
}

/// What a committed transaction queued for the background workers.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Queued {
    /// Webhook deliveries that are due now.
    pub deliveries: bool,
    /// Mail to send.
    pub mail: bool,
}

impl Queued {
    fn anything(self) -> bool {
        self.deliveries || self.mail
    }
}

/// Called after a transaction that queued work committed, with what it queued.
pub type WorkQueued = Arc<dyn Fn(Queued) + Send + Sync>;

/// Opens transactions on pooled connections.
#[derive(Clone)]
pub struct DieselUnitOfWork {
    pool: Pool,
    /// The one connection of every write transaction, on SQLite (see [`super::DatabaseUrl::writer_pool`]),
    /// where transactions that queue for it are committed together.
    writer: Option<Arc<GroupCommit>>,
    on_work_queued: Option<WorkQueued>,
}

impl DieselUnitOfWork {
    #[must_use]
    pub fn new(pool: Pool) -> Self {
        Self { pool, writer: None, on_work_queued: None }
    }

    /// Runs every transaction on `writer`'s connection, and only reads on the pool.
    #[must_use]
    pub fn writing_through(mut self, writer: Option<Pool>) -> Self {
        self.writer = writer.map(|pool| Arc::new(GroupCommit::new(pool)));
        self
    }

    /// Commits made on the writer connection so far, if there is one: fewer than the write
    /// transactions when some were committed together.
    #[must_use]
    pub fn writer_commits(&self) -> Option<u64> {
        self.writer.as_ref().map(|writer| writer.commits())
    }

    /// Calls `notify` after every commit that queued webhook deliveries or mail (the workers wake
    /// on it; a commit that queued nothing wakes no one).
    #[must_use]
    pub fn notifying(mut self, notify: WorkQueued) -> Self {
        self.on_work_queued = Some(notify);
        self
    }
}

impl UnitOfWork for DieselUnitOfWork {
    fn transaction(&self, work: &mut Work<'_>) -> Result<(), ApplicationError> {
        self.write(work, Writes::Any)
    }

    /// Without a transaction, except on a writer connection (SQLite's), whose transactions are
    /// committed together anyway.
    fn single_write(&self, work: &mut Work<'_>) -> Result<(), ApplicationError> {
        self.write(work, Writes::One)
    }

    /// On PostgreSQL the writes go out as one statement when `work` returns, without a
    /// transaction; on SQLite it is a transaction on the writer connection.
    fn batched_writes(&self, work: &mut Work<'_>) -> Result<(), ApplicationError> {
        self.write(work, Writes::Batched)
    }

    fn read(&self, work: &mut Work<'_>) -> Result<(), ApplicationError> {
        let mut pooled = self.pool.get().map_err(pool_error)?;
        let outcome = work(&mut DbSession::new(&mut pooled.connection, Writes::ReadOnly));
        mark_if_unavailable(&mut pooled, &outcome);
        outcome
    }

    /// On SQLite (the only backend with a writer connection): a passive checkpoint on a read
    /// connection copies what it can while the writer goes on appending to the log. Under steady
    /// writes the log never empties that way, so SQLite could never start it again from the top:
    /// once it is long, a restarting checkpoint on the writer connection copies the few frames left
    /// and starts it over, with writers waiting for that moment only.
    fn checkpoint(&self) -> Result<bool, StoreError> {
        let Some(writer) = &self.writer else {
            return Ok(false);
        };
        let mut reader = self.pool.get().map_err(pool_error)?;
        let mut log = checkpoint_log(&mut reader, "PASSIVE")?;
        if log.frames < RESTART_LOG_AFTER_FRAMES {
            return Ok(true);
        }
        // Copy what was appended meanwhile until little is left, so the writer waits only for that.
        for _ in 0..4 {
            if log.frames - log.checkpointed <= RESTART_WITH_FRAMES_LEFT {
                break;
            }
            log = checkpoint_log(&mut reader, "PASSIVE")?;
        }
        drop(reader);
        writer.exclusive(|connection| checkpoint_log(connection, "RESTART"))?;
        Ok(true)
    }

    fn ping(&self) -> Result<(), StoreError> {
        let mut pooled = self.pool.get().map_err(pool_error)?;
        let outcome = pooled.connection.batch_execute("SELECT 1").map_err(store_error);
        mark_if_store_unavailable(&mut pooled, &outcome);
        outcome
    }
}

impl DieselUnitOfWork {
    /// Runs `work` allowed `writes`: in a transaction, unless it is one statement on PostgreSQL.
    fn write(&self, work: &mut Work<'_>, writes: Writes) -> Result<(), ApplicationError> {
        let outcome = match &self.writer {
            Some(writer) => writer.run(work, writes),
            None => {
                let mut pooled = self.pool.get().map_err(pool_error)?;
                let outcome = match (writes, &pooled.connection) {
                    (Writes::One, _) | (Writes::Batched, AnyConnection::Postgresql(_)) => {
                        run_alone(&mut pooled.connection, work, writes)
                    }
                    _ => run_transaction(&mut pooled.connection, work, writes),
                };
                mark_if_unavailable(&mut pooled, &outcome);
                outcome
            }
        };
        let queued = outcome?;
        if let Some(notify) = self.on_work_queued.as_ref().filter(|_| queued.anything()) {
            notify(queued);
        }
        Ok(())
    }
}

/// Frames (pages) in SQLite's write-ahead log after which it is started over: 64 MiB of 4-KiB pages.
const RESTART_LOG_AFTER_FRAMES: i32 = 16_384;
/// Frames left to copy at which the writer is stopped to start the log over.
const RESTART_WITH_FRAMES_LEFT: i32 = 512;

/// What `PRAGMA wal_checkpoint` answers.
#[derive(QueryableByName)]
struct LogFrames {
    /// Frames in the log.
    #[diesel(sql_type = Integer, column_name = log)]
    frames: i32,
    /// Frames copied into the database file.
    #[diesel(sql_type = Integer)]
    checkpointed: i32,
}

/// Runs a checkpoint of `mode` on a SQLite connection.
fn checkpoint_log(pooled: &mut PooledConnection, mode: &str) -> Result<LogFrames, StoreError> {
    let AnyConnection::Sqlite(connection) = &mut pooled.connection else {
        return Ok(LogFrames { frames: 0, checkpointed: 0 });
    };
    let outcome = diesel::sql_query(format!("PRAGMA wal_checkpoint({mode})"))
        .get_result::<LogFrames>(connection)
        .map_err(store_error);
    mark_if_store_unavailable(pooled, &outcome);
    outcome
}

/// A connection on which the database was unavailable is not handed out again.
fn mark_if_unavailable<T>(pooled: &mut PooledConnection, outcome: &Result<T, ApplicationError>) {
    if matches!(outcome, Err(ApplicationError::Unavailable(_))) {
        pooled.broken = true;
    }
}

/// [`mark_if_unavailable`] for the storage's own errors.
fn mark_if_store_unavailable<T>(pooled: &mut PooledConnection, outcome: &Result<T, StoreError>) {
    if matches!(outcome, Err(StoreError::Unavailable(_))) {
        pooled.broken = true;
    }
}

/// Runs `work` outside a transaction, allowed one write statement or a batch of them sent as one
/// statement at the end; tells what it queued.
fn run_alone(connection: &mut AnyConnection, work: &mut Work<'_>, writes: Writes) -> Result<Queued, ApplicationError> {
    let mut session = DbSession::new(&mut *connection, writes);
    work(&mut session)?;
    let (queued, batch) = (session.queued, session.batch.take());
    if let (Some(batch), AnyConnection::Postgresql(connection)) = (batch, connection) {
        batch.send(connection)?;
    }
    Ok(queued)
}

/// Runs `work` in a transaction, allowed `writes`; tells what it queued.
fn run_transaction(
    connection: &mut AnyConnection,
    work: &mut Work<'_>,
    writes: Writes,
) -> Result<Queued, ApplicationError> {
    begin(connection).map_err(store_error)?;
    let mut session = DbSession::new(&mut *connection, writes);
    let outcome = work(&mut session);
    let queued = session.queued;
    match outcome {
        Ok(()) => {
            <AnyConnection as Connection>::TransactionManager::commit_transaction(connection).map_err(store_error)?;
            Ok(queued)
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
pub(crate) fn begin(connection: &mut AnyConnection) -> diesel::QueryResult<()> {
    match connection {
        AnyConnection::Postgresql(inner) => AnsiTransactionManager::begin_transaction(inner),
        AnyConnection::Sqlite(inner) => AnsiTransactionManager::begin_transaction_sql(inner, "BEGIN IMMEDIATE"),
    }
}
