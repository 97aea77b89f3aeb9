//! SQLite's one writer connection, shared by the write transactions that queue for it.
//!
//! SQLite lets one transaction write at a time, and its commit writes every page the transaction
//! changed to the log. Transactions that queue up behind a running one join it instead of waiting
//! for its commit: each runs in a savepoint of one SQLite transaction (its failure undoes its own
//! changes only) and the last of them, or the [`MAX_BATCH`]th, commits for all. Pages that several
//! change (a table's last leaf, an index's) go to the log once. None of them returns before the
//! commit that holds its changes, and a transaction that finds no one running commits alone.

use super::connection::{AnyConnection, ConnectionManager, Pool};
use super::error::{pool_error, store_error};
use super::session::{begin, Access, DbSession, Queued};
use diesel::connection::TransactionManager;
use diesel::Connection;
use parking_lot::{Condvar, Mutex, MutexGuard};
use payments_application::ports::unit_of_work::Work;
use payments_application::ports::{IdGenerator, StoreError};
use payments_application::ApplicationError;
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// Transactions committed together at most: the first of a batch waits for the others' work.
const MAX_BATCH: usize = 32;

/// How long a finished transaction waits for its batch's commit before committing the batch itself
/// (only needed when the transaction it was left open for gave up waiting for the connection).
const COMMIT_WAIT: Duration = Duration::from_millis(50);

type Transactions = <AnyConnection as Connection>::TransactionManager;

/// The writer connection and the batch of transactions open on it.
pub(crate) struct GroupCommit {
    /// A pool of one connection: it opens (and reopens) the writer connection.
    pool: Pool,
    batch: Mutex<Option<Batch>>,
    /// Transactions waiting for `batch`'s lock: while there are some, a finished one leaves the
    /// batch open for them.
    waiting: AtomicUsize,
    /// Commits so far.
    commits: AtomicU64,
}

/// Transactions done and not committed yet, in one open SQLite transaction.
struct Batch {
    connection: r2d2::PooledConnection<ConnectionManager>,
    /// Transactions whose changes the batch holds.
    members: usize,
    commit: Arc<Commit>,
}

/// The commit a batch's transactions wait for: `Err` holds why it failed.
#[derive(Default)]
struct Commit {
    outcome: Mutex<Option<Result<(), String>>>,
    done: Condvar,
}

/// What became of one transaction's work.
enum Member {
    /// Done; its changes wait for the batch's commit.
    Done(Queued),
    /// Failed and undone; the batch goes on without it.
    Undone(ApplicationError),
    /// Failed, and the batch's SQLite transaction cannot go on.
    Broken(ApplicationError),
}

impl GroupCommit {
    /// Writes through `pool`'s one connection.
    pub(crate) fn new(pool: Pool) -> Self {
        Self { pool, batch: Mutex::new(None), waiting: AtomicUsize::new(0), commits: AtomicU64::new(0) }
    }

    /// Runs `work` as one write transaction; returns once its changes are committed.
    pub(crate) fn run(&self, work: &mut Work<'_>, ids: &dyn IdGenerator) -> Result<Queued, ApplicationError> {
        let mut batch = self.lock()?;
        let joining = batch.is_some();
        let open = match batch.as_mut() {
            Some(open) => open,
            None => batch.insert(self.open()?),
        };
        let member = catch_unwind(AssertUnwindSafe(|| run_member(&mut open.connection.connection, work, ids, joining)));
        match member {
            Ok(Member::Done(queued)) => {
                open.members += 1;
                self.finish(batch, Ok(queued))
            }
            Ok(Member::Undone(error)) if joining => self.finish(batch, Err(error)),
            // The first of a batch rolled the whole transaction back: there is no batch left.
            Ok(Member::Undone(error)) => {
                *batch = None;
                Err(error)
            }
            Ok(Member::Broken(error)) => {
                abandon(&mut batch, &error.to_string());
                Err(error)
            }
            // Its half-done changes cannot be told apart from the others': none is committed.
            Err(panic) => {
                abandon(&mut batch, "a write transaction of the batch panicked");
                drop(batch);
                resume_unwind(panic)
            }
        }
    }

    /// Runs `task` on the writer connection with no transaction open and every writer waiting.
    pub(crate) fn exclusive<T>(
        &self,
        task: impl FnOnce(&mut r2d2::PooledConnection<ConnectionManager>) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        let mut batch = self.lock()?;
        if batch.is_some() {
            // Its transactions are done and waiting: commit them first.
            let _committed = self.commit(&mut batch);
        }
        let mut connection = self.pool.get().map_err(pool_error)?;
        let outcome = task(&mut connection);
        drop(connection);
        drop(batch);
        outcome
    }

    /// Commits so far (each holding one or more transactions).
    pub(crate) fn commits(&self) -> u64 {
        self.commits.load(Ordering::Relaxed)
    }

    /// Takes the batch's lock, counted as waiting meanwhile; gives up after the pool's timeout.
    fn lock(&self) -> Result<MutexGuard<'_, Option<Batch>>, StoreError> {
        self.waiting.fetch_add(1, Ordering::SeqCst);
        let batch = self.batch.try_lock_for(self.pool.connection_timeout());
        self.waiting.fetch_sub(1, Ordering::SeqCst);
        batch.ok_or_else(|| StoreError::Unavailable("timed out waiting for the writer connection".into()))
    }

    /// Takes the connection and begins a batch's SQLite transaction.
    fn open(&self) -> Result<Batch, ApplicationError> {
        let mut connection = self.pool.get().map_err(pool_error)?;
        if let Err(error) = begin(&mut connection.connection) {
            let error = store_error(error);
            connection.broken = matches!(error, StoreError::Unavailable(_));
            return Err(error.into());
        }
        Ok(Batch { connection, members: 0, commit: Arc::default() })
    }

    /// After a joined transaction: commits the batch when no one else is waiting to join it (or it
    /// is full); otherwise leaves it open and waits for its commit.
    fn finish(
        &self,
        mut batch: MutexGuard<'_, Option<Batch>>,
        own: Result<Queued, ApplicationError>,
    ) -> Result<Queued, ApplicationError> {
        let Some(open) = batch.as_ref() else {
            return own;
        };
        if self.waiting.load(Ordering::SeqCst) == 0 || open.members >= MAX_BATCH {
            let committed = self.commit(&mut batch);
            drop(batch);
            return committed.and(own);
        }
        let commit = Arc::clone(&open.commit);
        drop(batch);
        // A failed transaction waits too: it may have failed on the batch's changes (a unique key
        // taken, a version moved on), which its caller may read as soon as it returns.
        self.wait(&commit)?;
        own
    }

    /// Commits the open batch and tells its transactions.
    fn commit(&self, batch: &mut Option<Batch>) -> Result<(), ApplicationError> {
        let Some(mut open) = batch.take() else {
            return Ok(());
        };
        let outcome = Transactions::commit_transaction(&mut open.connection.connection).map_err(store_error);
        self.commits.fetch_add(1, Ordering::Relaxed);
        if outcome.is_err() {
            // Whatever state SQLite left it in, the connection is not used again.
            open.connection.broken = true;
        }
        open.commit.settle(outcome.as_ref().map(drop).map_err(ToString::to_string));
        outcome.map_err(Into::into)
    }

    /// Waits for `commit`; commits the batch itself if it is still open after [`COMMIT_WAIT`].
    fn wait(&self, commit: &Arc<Commit>) -> Result<(), ApplicationError> {
        loop {
            let mut outcome = commit.outcome.lock();
            if outcome.is_none() && commit.done.wait_for(&mut outcome, COMMIT_WAIT).timed_out() && outcome.is_none() {
                drop(outcome);
                let mut batch = self.batch.lock();
                if batch.as_ref().is_some_and(|open| Arc::ptr_eq(&open.commit, commit)) {
                    let _committed = self.commit(&mut batch);
                }
                continue;
            }
            if let Some(result) = outcome.as_ref() {
                return result.clone().map_err(|reason| StoreError::Unavailable(reason.into()).into());
            }
        }
    }
}

impl Commit {
    fn settle(&self, outcome: Result<(), String>) {
        *self.outcome.lock() = Some(outcome);
        self.done.notify_all();
    }
}

/// Runs `work` in the batch's transaction: in a savepoint when joining a batch that holds others'
/// changes; the first of a batch needs none (on failure the whole transaction is rolled back).
fn run_member(connection: &mut AnyConnection, work: &mut Work<'_>, ids: &dyn IdGenerator, joining: bool) -> Member {
    if joining {
        if let Err(error) = Transactions::begin_transaction(connection) {
            return Member::Broken(store_error(error).into());
        }
    }
    let mut session = DbSession::new(&mut *connection, Access::WriteInTransaction, ids);
    let outcome = match work(&mut session) {
        Ok(()) => session.finish().map_err(ApplicationError::from),
        Err(error) => {
            session.abandon();
            Err(error)
        }
    };
    match outcome {
        Ok(queued) if joining => match Transactions::commit_transaction(connection) {
            Ok(()) => Member::Done(queued),
            Err(error) => Member::Broken(store_error(error).into()),
        },
        Ok(queued) => Member::Done(queued),
        // Whatever the error (a processor missing for the mode is `Unavailable` too), the batch
        // goes on if the transaction's own changes can be undone; a dead connection cannot.
        Err(error) => match Transactions::rollback_transaction(connection) {
            Ok(()) => Member::Undone(error),
            Err(rollback) => {
                tracing::warn!(error = %rollback, "rollback failed");
                Member::Broken(error)
            }
        },
    }
}

/// Gives up the open batch: its connection is closed (which rolls its transaction back) and its
/// transactions are told why.
fn abandon(batch: &mut Option<Batch>, reason: &str) {
    if let Some(mut open) = batch.take() {
        open.connection.broken = true;
        open.commit.settle(Err(format!("the write transaction's batch was rolled back: {reason}")));
    }
}
