//! The diesel unit of work: a pooled connection and a [`DbSession`] over it, for reads or for one
//! atomic change. How a change reaches the database (statements held back and sent as one, a
//! transaction, SQLite's grouped commits) is [`super::session`]'s and [`GroupCommit`]'s business.

use super::connection::{AnyConnection, Pool, PooledConnection};
use super::error::{pool_error, store_error};
use super::group_commit::GroupCommit;
use super::session::{begin, confirm_replicated, Access, DbSession, Queued};
use diesel::connection::{SimpleConnection, TransactionManager};
use diesel::sql_types::Integer;
use diesel::{Connection, QueryableByName, RunQueryDsl};
use payments_application::ports::unit_of_work::Work;
use payments_application::ports::{IdGenerator, StoreError, UnitOfWork};
use payments_application::ApplicationError;
use std::sync::Arc;

/// Called after a change that queued work committed, with what it queued.
pub type WorkQueued = Arc<dyn Fn(&Queued) + Send + Sync>;

/// Opens units of work on pooled connections.
#[derive(Clone)]
pub struct DieselUnitOfWork {
    pool: Pool,
    /// The one connection of every write transaction, on SQLite (see [`super::DatabaseUrl::writer_pool`]),
    /// where transactions that queue for it are committed together.
    writer: Option<Arc<GroupCommit>>,
    /// Draws the ids of the deliveries made when events are appended.
    ids: Arc<dyn IdGenerator>,
    on_work_queued: Option<WorkQueued>,
}

impl DieselUnitOfWork {
    /// Units of work on `pool`, drawing delivery ids from `ids`.
    #[must_use]
    pub fn new(pool: Pool, ids: Arc<dyn IdGenerator>) -> Self {
        Self { pool, writer: None, ids, on_work_queued: None }
    }

    /// Runs every write on `writer`'s connection, and only reads on the pool.
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

    /// Calls `notify` after every commit that queued webhook deliveries or mail, or appended events
    /// (the workers and the event streams wake on it; a commit that queued nothing wakes no one).
    #[must_use]
    pub fn notifying(mut self, notify: WorkQueued) -> Self {
        self.on_work_queued = Some(notify);
        self
    }
}

impl UnitOfWork for DieselUnitOfWork {
    fn transaction(&self, work: &mut Work<'_>) -> Result<(), ApplicationError> {
        let queued = match &self.writer {
            Some(writer) => writer.run(work, self.ids.as_ref())?,
            None => {
                let mut pooled = self.pool.get().map_err(pool_error)?;
                let wait_for_standby = pooled.reads_wait_for_standby;
                let outcome = change(&mut pooled.connection, work, self.ids.as_ref(), wait_for_standby);
                mark_if_unavailable(&mut pooled, &outcome);
                outcome?
            }
        };
        if let Some(notify) = self.on_work_queued.as_ref().filter(|_| queued.anything()) {
            notify(&queued);
        }
        Ok(())
    }

    fn read(&self, work: &mut Work<'_>) -> Result<(), ApplicationError> {
        let mut pooled = self.pool.get().map_err(pool_error)?;
        let outcome = work(&mut DbSession::new(&mut pooled.connection, Access::Read, self.ids.as_ref()))
            .and_then(|()| replicated_if(pooled.reads_wait_for_standby, &mut pooled.connection));
        mark_if_unavailable(&mut pooled, &outcome);
        outcome
    }

    fn ping(&self) -> Result<(), StoreError> {
        let mut pooled = self.pool.get().map_err(pool_error)?;
        let outcome = takes_writes(&mut pooled.connection);
        mark_if_store_unavailable(&mut pooled, &outcome);
        outcome
    }

    /// Copies committed writes from SQLite's write-ahead log into the database file, without making
    /// writers wait; the composition root calls it every few milliseconds. Returns `false` when the
    /// store keeps no such log (PostgreSQL checkpoints itself), and the job then stops.
    ///
    /// A passive checkpoint on a read connection copies what it can while the writer goes on
    /// appending to the log. Under steady writes the log never empties that way, so SQLite could
    /// never start it again from the top: once it is long, a restarting checkpoint on the writer
    /// connection copies the few frames left and starts it over, with writers waiting for that
    /// moment only.
    ///
    /// # Errors
    /// Storage failures.
    fn upkeep(&self) -> Result<bool, StoreError> {
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
}

/// Runs `work` as one change on a connection of its own: on PostgreSQL with its writes held back
/// (a transaction only if the session needs one), and, when it wrote nothing (a replayed idempotent
/// answer, a refusal) and `wait_for_standby`, with what it read confirmed on the standby; on SQLite
/// without a writer connection, in a transaction.
fn change(
    connection: &mut AnyConnection,
    work: &mut Work<'_>,
    ids: &dyn IdGenerator,
    wait_for_standby: bool,
) -> Result<Queued, ApplicationError> {
    let sqlite = matches!(connection, AnyConnection::Sqlite(_));
    if sqlite {
        begin(connection).map_err(store_error)?;
    }
    let access = if sqlite { Access::WriteInTransaction } else { Access::WriteHeld };
    let mut session = DbSession::new(&mut *connection, access, ids);
    let outcome = match work(&mut session) {
        Ok(()) => {
            let wrote_nothing = !sqlite && session.wrote_nothing();
            session
                .finish()
                .map_err(ApplicationError::from)
                .and_then(|queued| replicated_if(wait_for_standby && wrote_nothing, &mut *connection).map(|()| queued))
        }
        Err(error) => {
            session.abandon();
            Err(error)
        }
    };
    if !sqlite {
        return outcome;
    }
    type Transactions = <AnyConnection as Connection>::TransactionManager;
    match outcome {
        Ok(queued) => Transactions::commit_transaction(connection).map(|()| queued).map_err(|e| store_error(e).into()),
        Err(error) => {
            if let Err(rollback) = Transactions::rollback_transaction(connection) {
                tracing::warn!(error = %rollback, "rollback failed");
            }
            Err(error)
        }
    }
}

/// What a unit of work that wrote nothing read, confirmed on the standby when `wait_for_standby`.
fn replicated_if(wait_for_standby: bool, connection: &mut AnyConnection) -> Result<(), ApplicationError> {
    if wait_for_standby {
        confirm_replicated(connection)?;
    }
    Ok(())
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

/// Whether the database answers and takes writes. A PostgreSQL standby answers but is read-only:
/// while the cluster has no primary (during a failover) the service is not ready.
fn takes_writes(connection: &mut AnyConnection) -> Result<(), StoreError> {
    #[derive(diesel::QueryableByName)]
    struct ReadOnly {
        #[diesel(sql_type = diesel::sql_types::Text)]
        transaction_read_only: String,
    }
    match connection {
        AnyConnection::Postgresql(inner) => {
            let shown: ReadOnly =
                diesel::sql_query("SHOW transaction_read_only").get_result(inner).map_err(store_error)?;
            if shown.transaction_read_only == "on" {
                return Err(StoreError::Unavailable("the database takes no writes: it has no primary".into()));
            }
            Ok(())
        }
        AnyConnection::Sqlite(inner) => inner.batch_execute("SELECT 1").map_err(store_error),
    }
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
