//! Writes held back on PostgreSQL ([`super::session`]) and sent as one statement.
//!
//! A transaction waits for the answer to each of its statements, and to `BEGIN` and `COMMIT`: the
//! attach of a charge was six round trips for three writes. Held back, its writes go out together as
//! data-modifying `WITH` queries of one statement, which PostgreSQL runs atomically on its own:
//!
//! ```sql
//! WITH w0 AS (INSERT INTO payments …), w1 AS (UPDATE payment_intents … RETURNING 1),
//!      w2 AS (INSERT INTO events …)
//! SELECT expect_one_row((SELECT count(*) FROM w1))
//! ```
//!
//! A versioned update that finds another version changes no row; `expect_one_row` (a migration's
//! function) then fails the statement with a serialization failure, so nothing of the batch is
//! written and the caller gets [`StoreError::Conflict`], as from the update run alone.
//!
//! A batch that ends a unit of work which appended events also notifies the event streams
//! ([`WriteBatch::notify`]): `pg_notify` in the same statement, or last in the same transaction, so
//! the notification goes out when the writes commit and never for writes rolled back. It is the
//! statement's own, not a trigger's: on Citus the events' rows live on other nodes, where no
//! listener hears (docs/operations.md#sharding-by-account-on-citus).

use super::appended::APPENDED_CHANNEL;
use super::error::{store_error, versioned};
use super::prepared::Rendered;
use diesel::pg::Pg;
use diesel::query_builder::{AstPass, QueryFragment, QueryId};
use diesel::sql_types::Text;
use diesel::{PgConnection, QueryResult, RunQueryDsl};
use payments_application::ports::StoreError;

/// What a write statement must change.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Expect {
    /// Whatever it changes (an insert, whose failures are errors of their own).
    AnyRows,
    /// Exactly one row: a versioned update, which changes none when another change won.
    OneRow,
}

impl Expect {
    /// Checks what a statement run alone changed.
    pub(crate) fn check(self, changed: usize) -> Result<(), StoreError> {
        match self {
            Self::AnyRows => Ok(()),
            Self::OneRow => versioned(changed),
        }
    }
}

/// A write statement held back.
type Statement = Box<dyn QueryFragment<Pg> + Send>;

/// The write statements held back, in their order.
#[derive(Default)]
pub(crate) struct WriteBatch {
    statements: Vec<(Statement, Expect)>,
    /// The tables written, each once.
    tables: Vec<String>,
    /// Whether two statements write the same table.
    table_written_twice: bool,
    /// What to notify the event streams of when the batch commits ([`super::appended::APPENDED_CHANNEL`]).
    notifications: Vec<String>,
}

impl WriteBatch {
    pub(crate) fn is_empty(&self) -> bool {
        self.statements.is_empty()
    }

    /// Has the batch notify the event streams of `payload` when it commits: in its statement, or
    /// after its statements in their transaction (which, when the batch holds no statement, the
    /// caller has opened).
    pub(crate) fn notify(&mut self, payload: String) {
        self.notifications.push(payload);
    }

    pub(crate) fn push<Q>(&mut self, statement: Q, expect: Expect) -> Result<(), StoreError>
    where
        Q: QueryFragment<Pg> + Send + 'static,
    {
        let table = written_table(&statement).map_err(store_error)?;
        if self.tables.contains(&table) {
            self.table_written_twice = true;
        } else {
            self.tables.push(table);
        }
        self.statements.push((Box::new(statement), expect));
        Ok(())
    }

    /// Whether the batch may go out as one statement. The queries of a `WITH` run on one snapshot
    /// and in no set order, so two writes of one table could not see each other (an update of a
    /// row inserted beside it, an insert of a key deleted beside it) and their rows' order would be
    /// lost; such a batch goes out statement by statement, in a transaction.
    pub(crate) fn goes_as_one(&self) -> bool {
        !self.table_written_twice
    }

    /// Sends the batch: a lone statement as it is, several as one statement when they may go so,
    /// else each in turn (the caller has opened a transaction).
    pub(crate) fn send(self, connection: &mut PgConnection) -> Result<(), StoreError> {
        let goes_as_one = self.goes_as_one();
        let Self { mut statements, notifications, .. } = self;
        match statements.len() {
            0 => notify(notifications, connection),
            1 if notifications.is_empty() => {
                let (statement, expect) = statements.remove(0);
                run(statement, expect, connection)
            }
            _ if goes_as_one => Rendered::new(Combined { statements, notifications }, Pg)
                .and_then(|rendered| rendered.execute(connection))
                .map(drop)
                .map_err(store_error),
            _ => {
                statements.into_iter().try_for_each(|(statement, expect)| run(statement, expect, connection))?;
                notify(notifications, connection)
            }
        }
    }
}

/// Notifies the event streams of each of `payloads`, in one statement, when the transaction commits.
fn notify(payloads: Vec<String>, connection: &mut PgConnection) -> Result<(), StoreError> {
    if payloads.is_empty() {
        return Ok(());
    }
    let statement = Combined { statements: Vec::new(), notifications: payloads };
    Rendered::new(statement, Pg).and_then(|rendered| rendered.execute(connection)).map(drop).map_err(store_error)
}

/// Runs one statement and checks it changed what it had to.
fn run(statement: Statement, expect: Expect, connection: &mut PgConnection) -> Result<(), StoreError> {
    let changed = Rendered::new(statement, Pg).and_then(|rendered| rendered.execute(connection));
    expect.check(changed.map_err(store_error)?)
}

/// The table an `INSERT INTO`, `UPDATE` or `DELETE FROM` statement writes, as diesel renders it.
fn written_table<Q: QueryFragment<Pg>>(statement: &Q) -> diesel::QueryResult<String> {
    let sql = super::prepared::sql_of(statement, &Pg)?;
    let rest =
        ["INSERT INTO ", "UPDATE ", "DELETE FROM "].iter().find_map(|verb| sql.strip_prefix(verb)).unwrap_or(&sql);
    Ok(rest.split_whitespace().next().unwrap_or_default().to_owned())
}

/// Write statements as the `WITH` queries of one statement, whose `SELECT` checks them and sends the
/// notifications.
struct Combined {
    statements: Vec<(Statement, Expect)>,
    notifications: Vec<String>,
}

impl QueryId for Combined {
    type QueryId = ();
    const HAS_STATIC_QUERY_ID: bool = false;
}

impl QueryFragment<Pg> for Combined {
    fn walk_ast<'b>(&'b self, mut pass: AstPass<'_, 'b, Pg>) -> QueryResult<()> {
        let mut checked = Vec::new();
        for (index, (statement, expect)) in self.statements.iter().enumerate() {
            pass.push_sql(if index == 0 { "WITH " } else { ", " });
            pass.push_sql(&format!("w{index} AS ("));
            statement.walk_ast(pass.reborrow())?;
            if *expect == Expect::OneRow {
                pass.push_sql(" RETURNING 1");
                checked.push(index);
            }
            pass.push_sql(")");
        }
        pass.push_sql(if self.statements.is_empty() { "SELECT " } else { " SELECT " });
        if checked.is_empty() && self.notifications.is_empty() {
            pass.push_sql("1");
        }
        let mut separator = "";
        for index in checked {
            pass.push_sql(&format!("{separator}expect_one_row((SELECT count(*) FROM w{index}))"));
            separator = ", ";
        }
        for payload in &self.notifications {
            pass.push_sql(&format!("{separator}pg_notify('{APPENDED_CHANNEL}', "));
            pass.push_bind_param::<Text, String>(payload)?;
            pass.push_sql(")");
            separator = ", ";
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::{Expect, WriteBatch};
    use crate::db::testing::TestDatabase;
    use crate::db::{AnyConnection, DatabaseUrl, PoolSettings};
    use diesel::connection::SimpleConnection;
    use diesel::prelude::*;
    use payments_application::ports::StoreError;
    use std::time::Duration;

    diesel::table! {
        probes (id) {
            id -> Text,
            version -> BigInt,
        }
    }

    diesel::table! {
        notes (seq) {
            seq -> BigInt,
            id -> Text,
        }
    }

    diesel::table! {
        marks (id) {
            id -> Text,
        }
    }

    diesel::allow_tables_to_appear_in_same_query!(probes, notes, marks);

    /// A PostgreSQL connection (its migrations define `expect_one_row`) with the three tables and a
    /// probe `kept` at version 1.
    fn with_tables(test: impl FnOnce(&mut diesel::PgConnection)) {
        let database = TestDatabase::postgres();
        let url = DatabaseUrl::parse(database.url()).unwrap();
        let pool = url.connect(PoolSettings { max_size: 1, connection_timeout: Duration::from_secs(5) }).unwrap();
        let mut pooled = pool.get().unwrap();
        let AnyConnection::Postgresql(connection) = &mut pooled.connection else { panic!("a PostgreSQL connection") };
        connection
            .batch_execute(
                "CREATE TABLE probes (id TEXT PRIMARY KEY, version BIGINT NOT NULL);
                 CREATE TABLE notes (seq BIGSERIAL PRIMARY KEY, id TEXT NOT NULL);
                 CREATE TABLE marks (id TEXT PRIMARY KEY);
                 INSERT INTO probes VALUES ('kept', 1);",
            )
            .unwrap();
        test(connection);
    }

    /// An insert of a note, the versioned update of `kept` from `version`, and an insert of a mark.
    fn batch(ids: [&'static str; 2], version: i64) -> WriteBatch {
        let mut batch = WriteBatch::default();
        batch.push(diesel::insert_into(notes::table).values(notes::id.eq(ids[0])), Expect::AnyRows).unwrap();
        let bump = diesel::update(probes::table.filter(probes::id.eq("kept")).filter(probes::version.eq(version)))
            .set(probes::version.eq(version + 1));
        batch.push(bump, Expect::OneRow).unwrap();
        batch.push(diesel::insert_into(marks::table).values(marks::id.eq(ids[1])), Expect::AnyRows).unwrap();
        batch
    }

    #[test]
    fn a_batch_is_one_statement_and_a_lost_version_race_undoes_all_of_it() {
        with_tables(|connection| {
            let first = batch(["a", "b"], 1);
            assert!(first.goes_as_one());
            first.send(connection).unwrap();
            let lost = batch(["c", "d"], 1).send(connection);
            assert!(matches!(lost, Err(StoreError::Conflict)), "{lost:?}");

            let notes: Vec<String> = notes::table.select(notes::id).load(connection).unwrap();
            let marks: Vec<String> = marks::table.select(marks::id).load(connection).unwrap();
            let version: i64 = probes::table.select(probes::version).get_result(connection).unwrap();
            assert_eq!(
                (notes, marks, version),
                (vec!["a".into()], vec!["b".into()], 2),
                "the first whole, none of the second"
            );
            let texts: Vec<String> = diesel::select(diesel::dsl::sql::<diesel::sql_types::Text>(
                "statement FROM pg_prepared_statements WHERE statement LIKE 'WITH%'",
            ))
            .load(connection)
            .unwrap();
            assert_eq!(texts.len(), 1, "one statement for the three writes: {texts:?}");
            assert!(texts[0].starts_with(r#"WITH w0 AS (INSERT INTO "notes""#), "{texts:?}");
            assert!(texts[0].ends_with("SELECT expect_one_row((SELECT count(*) FROM w1))"), "{texts:?}");
        });
    }

    /// Writes of one table cannot go out as one statement (they would not see each other, and their
    /// rows would come in any order): they go one by one, in their order.
    #[test]
    fn writes_of_one_table_go_out_one_by_one_in_their_order() {
        with_tables(|connection| {
            let mut batch = WriteBatch::default();
            for id in ["first", "second", "third"] {
                batch.push(diesel::insert_into(notes::table).values(notes::id.eq(id)), Expect::AnyRows).unwrap();
            }
            let delete = diesel::delete(notes::table.filter(notes::id.eq("second")));
            batch.push(delete, Expect::OneRow).unwrap();
            assert!(!batch.goes_as_one());
            batch.send(connection).unwrap();
            let notes: Vec<String> = notes::table.order(notes::seq).select(notes::id).load(connection).unwrap();
            assert_eq!(notes, ["first", "third"], "in order, the delete seeing the insert before it");
        });
    }
}
