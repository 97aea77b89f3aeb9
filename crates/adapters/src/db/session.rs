//! One unit of work's repositories over one connection, and the one way their statements reach the
//! database. Every repository reads and writes through these methods and nothing else:
//!
//! - [`DbSession::reading`]: the connection for a read;
//! - [`DbSession::write`]: a write whose answer the use case does not need (an insert, an update),
//!   checked as [`Expect`] says (`OneRow` for a versioned update, whose lost race is a conflict);
//! - [`DbSession::insert`]: rows of one table, in one statement;
//! - [`DbSession::write_each_way`]: a write that each backend is told differently;
//! - [`DbSession::write_now`]: a write whose answer the use case needs at once: the rows it changed
//!   or returned, or a unique violation the use case turns into an error of its own.
//!
//! How they run is this module's business, not the use cases':
//!
//! - On PostgreSQL a unit of work begins without a transaction. Its reads before its first write run
//!   alone; its writes are held back and, when the use case returns, sent as one statement
//!   ([`WriteBatch`]), which PostgreSQL runs atomically on its own: a create is one round trip. A
//!   read after a write, or a write whose answer is needed, opens a transaction there (the writes
//!   held back go first, so the read sees them); the rest of the unit of work joins it.
//! - On SQLite every writing unit of work is a transaction on the one writer connection (whose
//!   commits [`super::group_commit`] groups), and each statement runs when it is made.
//! - On PostgreSQL with a synchronous standby, a unit of work that wrote nothing ends with
//!   [`confirm_replicated`] (its caller's business), so that nothing is answered that only one
//!   node holds.
//! - Work that must see a unit of work's other writes but need not run before they are made (the
//!   deliveries of appended events, [`MakeDeliveries`]) is deferred until the writes go out, so it
//!   reads in the same round trip as the rest of the unit of work's reads would have.

use super::connection::AnyConnection;
use super::error::store_error;
use super::prepared::{Prepare, Rendered};
use super::write_batch::{Expect, WriteBatch};
use diesel::connection::{AnsiTransactionManager, TransactionManager};
use diesel::pg::Pg;
use diesel::query_builder::{InsertStatement, QueryFragment, QueryId};
use diesel::sqlite::Sqlite;
use diesel::{Connection, RunQueryDsl};
use payments_application::ports::{IdGenerator, StoreError};
use payments_application::Scope;
use payments_domain::event::Event;
use payments_domain::time::Timestamp;

/// Makes the deliveries of appended events, on a session whose held writes have not gone out yet:
/// it reads through [`DbSession::unsent_reading`] and writes like any repository.
pub(crate) type MakeDeliveries = fn(&mut DbSession<'_>, Vec<Event>, Timestamp) -> Result<(), StoreError>;

/// What a committed unit of work queued for the background workers and the event streams.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Queued {
    /// Webhook deliveries that are due now.
    pub deliveries: bool,
    /// Mail to send.
    pub mail: bool,
    /// The scopes it appended events to, each once.
    pub events_in: Vec<Scope>,
}

impl Queued {
    pub(crate) fn anything(&self) -> bool {
        self.deliveries || self.mail || !self.events_in.is_empty()
    }
}

/// What a session may do, and where its transaction stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Access {
    /// Reads only: a write is refused before it runs.
    Read,
    /// Reads and writes, with no transaction open yet (PostgreSQL): writes are held back.
    WriteHeld,
    /// Reads and writes in an open transaction: writes held back go out before the next read.
    WriteInTransaction,
}

/// The repositories of one connection, for one unit of work.
pub(crate) struct DbSession<'a> {
    connection: &'a mut AnyConnection,
    access: Access,
    /// Writes held back (PostgreSQL), in their order.
    held: WriteBatch,
    /// Events appended whose deliveries are not made yet (PostgreSQL: made when the writes go out),
    /// and what makes them.
    undelivered: Vec<Event>,
    /// When their deliveries fall due.
    deliveries_due: Timestamp,
    make_deliveries: Option<MakeDeliveries>,
    /// Whether the unit of work wrote webhooks: their deliveries must see those writes.
    wrote_webhooks: bool,
    /// Whether this session opened its transaction (and so commits or rolls it back); otherwise
    /// its caller did.
    owns_transaction: bool,
    ids: &'a dyn IdGenerator,
    /// What the unit of work queued for the background workers, announced after it commits.
    pub(crate) queued: Queued,
}

impl<'a> DbSession<'a> {
    /// A session over `connection`: `access` says what it may do and whether a transaction is open
    /// (on SQLite a writing session is always given an open one).
    pub(crate) fn new(connection: &'a mut AnyConnection, access: Access, ids: &'a dyn IdGenerator) -> Self {
        Self {
            connection,
            access,
            held: WriteBatch::default(),
            undelivered: Vec::new(),
            deliveries_due: Timestamp::from_unix_millis(0),
            make_deliveries: None,
            wrote_webhooks: false,
            owns_transaction: false,
            ids,
            queued: Queued::default(),
        }
    }

    /// The connection, for a read; writes held back go out first, in a transaction, so the read
    /// sees them.
    pub(crate) fn reading(&mut self) -> Result<&mut AnyConnection, StoreError> {
        if !self.held.is_empty() || !self.undelivered.is_empty() {
            self.begin()?;
            self.send_held()?;
        }
        Ok(self.connection)
    }

    /// A write whose answer the use case does not need: held back on PostgreSQL, run now on
    /// SQLite; either way checked for `expect`.
    pub(crate) fn write<Q>(&mut self, statement: Q, expect: Expect) -> Result<(), StoreError>
    where
        Q: QueryFragment<Pg> + QueryFragment<Sqlite> + QueryId + Send + 'static,
    {
        self.ensure_writing()?;
        match &mut *self.connection {
            AnyConnection::Postgresql(_) => self.held.push(statement, expect),
            AnyConnection::Sqlite(_) => {
                expect.check(statement.prepared().execute(self.connection).map_err(store_error)?)
            }
        }
    }

    /// A write said one way for each backend, where they differ (an upsert of several rows, which
    /// SQLite takes one row at a time): held back on PostgreSQL like [`DbSession::write`]; run now,
    /// statement by statement, on SQLite.
    pub(crate) fn write_each_way<P, S>(&mut self, postgres: P, sqlite: Vec<S>) -> Result<(), StoreError>
    where
        P: QueryFragment<Pg> + QueryId + Send + 'static,
        S: QueryFragment<Sqlite> + QueryId,
    {
        self.ensure_writing()?;
        match &mut *self.connection {
            AnyConnection::Postgresql(_) => self.held.push(postgres, Expect::AnyRows),
            AnyConnection::Sqlite(connection) => sqlite.into_iter().try_for_each(|statement| {
                Rendered::new(statement, Sqlite)
                    .and_then(|statement| statement.execute(connection))
                    .map(drop)
                    .map_err(store_error)
            }),
        }
    }

    /// Rows of one table, in one statement (one prepared insert a row on SQLite, where statements
    /// cost no round trip); held back on PostgreSQL like [`DbSession::write`].
    pub(crate) fn insert<T, R>(&mut self, table: T, rows: Vec<R>) -> Result<(), StoreError>
    where
        T: diesel::Table + Copy + Send + 'static,
        R: diesel::Insertable<T>,
        Vec<R>: diesel::Insertable<T>,
        InsertStatement<T, <Vec<R> as diesel::Insertable<T>>::Values>: QueryFragment<Pg> + Send + 'static,
        InsertStatement<T, <R as diesel::Insertable<T>>::Values>: QueryFragment<Sqlite>,
    {
        if rows.is_empty() {
            return Ok(());
        }
        self.ensure_writing()?;
        match &mut *self.connection {
            AnyConnection::Postgresql(_) => self.held.push(diesel::insert_into(table).values(rows), Expect::AnyRows),
            AnyConnection::Sqlite(connection) => rows.into_iter().try_for_each(|row| {
                Rendered::new(diesel::insert_into(table).values(row), Sqlite)
                    .and_then(|statement| statement.execute(connection))
                    .map(drop)
                    .map_err(store_error)
            }),
        }
    }

    /// The connection, for a write whose answer the use case needs now: in a transaction on
    /// PostgreSQL, after the writes held back.
    pub(crate) fn write_now(&mut self) -> Result<&mut AnyConnection, StoreError> {
        self.ensure_writing()?;
        self.begin()?;
        self.send_held()?;
        Ok(self.connection)
    }

    /// The connection for a read that must not send the writes held back (they are about to go
    /// out with what it makes): only for [`MakeDeliveries`].
    pub(crate) fn unsent_reading(&mut self) -> &mut AnyConnection {
        self.connection
    }

    /// Ids for the rows a [`MakeDeliveries`] writes.
    pub(crate) fn ids(&self) -> &'a dyn IdGenerator {
        self.ids
    }

    /// Notes that the unit of work wrote webhooks (their deliveries must see the writes).
    pub(crate) fn wrote_webhooks(&mut self) {
        self.wrote_webhooks = true;
    }

    /// Has `make` make the deliveries of appended `events`, due at `due`: when the writes go out on
    /// PostgreSQL, at once on SQLite.
    pub(crate) fn deliver(&mut self, events: &[Event], due: Timestamp, make: MakeDeliveries) -> Result<(), StoreError> {
        self.undelivered.extend_from_slice(events);
        for event in events {
            let scope = Scope::of(&event.account_id, event.livemode);
            if !self.queued.events_in.contains(&scope) {
                self.queued.events_in.push(scope);
            }
        }
        self.deliveries_due = due;
        self.make_deliveries = Some(make);
        if matches!(self.connection, AnyConnection::Sqlite(_)) {
            self.make_deliveries()?;
        }
        Ok(())
    }

    /// Ends a writing unit of work that succeeded: sends what is held back, with the notification of
    /// the events it appended (PostgreSQL), and commits the transaction the session opened, if any.
    pub(crate) fn finish(mut self) -> Result<Queued, StoreError> {
        if matches!(self.connection, AnyConnection::Postgresql(_)) {
            for scope in &self.queued.events_in {
                self.held.notify(super::appended::appended_payload(scope));
            }
        }
        let sent = self.send_held();
        if !self.owns_transaction {
            return sent.map(|()| self.queued);
        }
        let committed = sent.and_then(|()| {
            <AnyConnection as Connection>::TransactionManager::commit_transaction(self.connection).map_err(store_error)
        });
        match committed {
            Ok(()) => Ok(self.queued),
            Err(error) => {
                self.abandon();
                Err(error)
            }
        }
    }

    /// Whether the unit of work has written nothing so far on PostgreSQL: no statement sent or held
    /// back (SQLite's statements run as they are made, in the caller's transaction).
    pub(crate) fn wrote_nothing(&self) -> bool {
        !self.owns_transaction && self.held.is_empty() && self.undelivered.is_empty()
    }

    /// Ends a writing unit of work that failed: nothing held back is sent, and the transaction the
    /// session opened, if any, is rolled back.
    pub(crate) fn abandon(self) {
        if self.owns_transaction {
            if let Err(error) = <AnyConnection as Connection>::TransactionManager::rollback_transaction(self.connection)
            {
                tracing::warn!(%error, "rollback failed");
            }
        }
    }

    fn ensure_writing(&self) -> Result<(), StoreError> {
        match self.access {
            Access::Read => Err(StoreError::Other("a read-only unit of work ran a write statement".into())),
            Access::WriteHeld | Access::WriteInTransaction => Ok(()),
        }
    }

    /// Opens the unit of work's transaction on PostgreSQL if none is open yet.
    fn begin(&mut self) -> Result<(), StoreError> {
        if self.access == Access::WriteHeld {
            begin(self.connection).map_err(store_error)?;
            self.access = Access::WriteInTransaction;
            self.owns_transaction = true;
        }
        Ok(())
    }

    /// Sends the writes held back, with the deliveries of the events among them, as one statement.
    fn send_held(&mut self) -> Result<(), StoreError> {
        self.make_deliveries()?;
        if !self.held.goes_as_one() {
            self.begin()?;
        }
        let held = std::mem::take(&mut self.held);
        match &mut *self.connection {
            AnyConnection::Postgresql(connection) => held.send(connection),
            AnyConnection::Sqlite(_) => Ok(()),
        }
    }

    /// Makes the deliveries of the events appended so far (held back with the rest on PostgreSQL).
    fn make_deliveries(&mut self) -> Result<(), StoreError> {
        if self.undelivered.is_empty() {
            return Ok(());
        }
        if self.wrote_webhooks && !self.held.is_empty() {
            // The webhooks written here must be read back: they go out first, in a transaction.
            self.begin()?;
            let held = std::mem::take(&mut self.held);
            if let AnyConnection::Postgresql(connection) = &mut *self.connection {
                held.send(connection)?;
            }
        }
        let events = std::mem::take(&mut self.undelivered);
        match self.make_deliveries {
            Some(make) => {
                let due = self.deliveries_due;
                make(self, events, due)
            }
            None => Ok(()),
        }
    }
}

/// Waits until what a unit of work that wrote nothing has read is on PostgreSQL's synchronous
/// standby, so that no answer shows what a failover could take back. Called on connections whose
/// server names a standby ([`super::connection::PooledConnection`]). A primary that crashed and was
/// restarted (pg_auto_failover's keeper restarts it before the monitor fails it over) shows
/// transactions it had committed but not replicated, and `pg_rewind` discards them once the standby
/// is promoted. A commit after the reads that writes WAL (a logical message, which no one decodes)
/// waits for the standby like any commit, and is cut off with the connection if the node is demoted
/// first.
pub(crate) fn confirm_replicated(connection: &mut AnyConnection) -> Result<(), StoreError> {
    match connection {
        AnyConnection::Postgresql(inner) => {
            diesel::sql_query("SELECT pg_logical_emit_message(true, 'payments', 'read')")
                .execute(inner)
                .map(drop)
                .map_err(store_error)
        }
        AnyConnection::Sqlite(_) => Ok(()),
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

#[cfg(test)]
mod tests {
    use crate::db::testing::TestDatabase;
    use crate::db::{AnyConnection, Backend, DatabaseUrl, DieselUnitOfWork, PoolSettings};
    use crate::id_generator::RandomIds;
    use diesel::prelude::*;
    use payments_application::ports::{in_transaction, reading};
    use payments_application::testing::contract::{account, event, new_intent, webhook};
    use payments_domain::event::EventType;
    use payments_domain::ids::PaymentId;
    use payments_domain::time::Timestamp;
    use std::sync::Arc;
    use std::time::Duration;

    /// A change that reads and then writes (a charge's attach: the intent's versioned update, its
    /// events and their deliveries) sends all its writes as one statement on PostgreSQL.
    #[test]
    fn a_changes_writes_after_its_reads_go_out_as_one_statement() {
        let database = TestDatabase::new(Backend::Postgres);
        let url = DatabaseUrl::parse(database.url()).unwrap();
        // One connection, so every statement is prepared on it.
        let pool = url.connect(PoolSettings { max_size: 1, connection_timeout: Duration::from_secs(5) }).unwrap();
        let unit_of_work = DieselUnitOfWork::new(pool.clone(), Arc::new(RandomIds));
        let scope = account(&unit_of_work, "acme");
        let hook = webhook(&scope, 1, vec![EventType::PaymentPaid]);
        in_transaction(&unit_of_work, |r| Ok(r.webhooks().insert(&hook)?)).unwrap();
        let mut intent = new_intent(&scope, 1);
        in_transaction(&unit_of_work, |r| Ok(r.payment_intents().insert(&intent)?)).unwrap();
        let version = intent.version();
        intent.link_payment(PaymentId::from_random("pay1"));
        in_transaction(&unit_of_work, |r| {
            r.payment_intents().find(&scope, intent.id())?;
            r.payment_intents().update(&intent, version)?;
            Ok(r.events().append(&[event(&scope, 1, 1), event(&scope, 2, 1)], Timestamp::from_unix_seconds(1))?)
        })
        .unwrap();
        let mut pooled = pool.get().unwrap();
        let AnyConnection::Postgresql(connection) = &mut pooled.connection else { panic!("a PostgreSQL connection") };
        let statements: Vec<String> = diesel::select(diesel::dsl::sql::<diesel::sql_types::Text>(
            "statement FROM pg_prepared_statements WHERE statement LIKE 'WITH w0 AS (UPDATE \"payment_intents\"%'",
        ))
        .load(connection)
        .unwrap();
        assert_eq!(statements.len(), 1, "{statements:?}");
        for written in [r#"INSERT INTO "events""#, r#"INSERT INTO "webhook_deliveries""#, "expect_one_row"] {
            assert!(statements[0].contains(written), "{written} in {}", statements[0]);
        }
        drop(pooled);
        let due = reading(&unit_of_work, |r| {
            Ok(r.deliveries().due(Timestamp::from_unix_seconds(i64::from(u32::MAX)), 10, &Default::default())?)
        });
        assert_eq!(due.unwrap().len(), 2, "each event was delivered to the webhook");
    }
}
