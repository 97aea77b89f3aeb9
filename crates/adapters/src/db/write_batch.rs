//! The writes of a [`UnitOfWork::batched_writes`] on PostgreSQL, held back and sent as one statement.
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
//! [`UnitOfWork::batched_writes`]: payments_application::ports::UnitOfWork::batched_writes

use super::error::{store_error, versioned};
use super::prepared::Rendered;
use diesel::pg::Pg;
use diesel::query_builder::{AstPass, QueryFragment, QueryId};
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

/// The write statements of a batched unit of work, in their order.
#[derive(Default)]
pub(crate) struct WriteBatch {
    statements: Vec<(Statement, Expect)>,
}

impl WriteBatch {
    pub(crate) fn push<Q>(&mut self, statement: Q, expect: Expect)
    where
        Q: QueryFragment<Pg> + Send + 'static,
    {
        self.statements.push((Box::new(statement), expect));
    }

    /// Sends the batch: a lone statement as it is, several as one statement.
    pub(crate) fn send(self, connection: &mut PgConnection) -> Result<(), StoreError> {
        let mut statements = self.statements;
        match statements.len() {
            0 => Ok(()),
            1 => {
                let (statement, expect) = statements.remove(0);
                let changed = Rendered::new(statement, Pg).and_then(|rendered| rendered.execute(connection));
                expect.check(changed.map_err(store_error)?)
            }
            _ => Rendered::new(Combined(statements), Pg)
                .and_then(|rendered| rendered.execute(connection))
                .map(drop)
                .map_err(store_error),
        }
    }
}

/// Several write statements as the `WITH` queries of one statement.
struct Combined(Vec<(Statement, Expect)>);

impl QueryId for Combined {
    type QueryId = ();
    const HAS_STATIC_QUERY_ID: bool = false;
}

impl QueryFragment<Pg> for Combined {
    fn walk_ast<'b>(&'b self, mut pass: AstPass<'_, 'b, Pg>) -> QueryResult<()> {
        let mut checked = Vec::new();
        for (index, (statement, expect)) in self.0.iter().enumerate() {
            pass.push_sql(if index == 0 { "WITH " } else { ", " });
            pass.push_sql(&format!("w{index} AS ("));
            statement.walk_ast(pass.reborrow())?;
            if *expect == Expect::OneRow {
                pass.push_sql(" RETURNING 1");
                checked.push(index);
            }
            pass.push_sql(")");
        }
        pass.push_sql(" SELECT ");
        if checked.is_empty() {
            pass.push_sql("1");
        }
        for (position, index) in checked.into_iter().enumerate() {
            let separator = if position == 0 { "" } else { ", " };
            pass.push_sql(&format!("{separator}expect_one_row((SELECT count(*) FROM w{index}))"));
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

    /// Two inserts and a versioned update of `probes`, the update from `version`.
    fn batch(ids: [&'static str; 2], version: i64) -> WriteBatch {
        let mut batch = WriteBatch::default();
        batch.push(
            diesel::insert_into(probes::table).values((probes::id.eq(ids[0]), probes::version.eq(1))),
            Expect::AnyRows,
        );
        let bump = diesel::update(probes::table.filter(probes::id.eq("kept")).filter(probes::version.eq(version)))
            .set(probes::version.eq(version + 1));
        batch.push(bump, Expect::OneRow);
        batch.push(
            diesel::insert_into(probes::table).values((probes::id.eq(ids[1]), probes::version.eq(1))),
            Expect::AnyRows,
        );
        batch
    }

    #[test]
    fn a_batch_is_one_statement_and_a_lost_version_race_undoes_all_of_it() {
        let database = TestDatabase::postgres();
        let url = DatabaseUrl::parse(database.url()).unwrap();
        // Connecting runs the migrations, which define `expect_one_row`.
        let pool = url.connect(PoolSettings { max_size: 1, connection_timeout: Duration::from_secs(5) }).unwrap();
        let mut pooled = pool.get().unwrap();
        let AnyConnection::Postgresql(connection) = &mut pooled.connection else { panic!("a PostgreSQL connection") };
        connection.batch_execute("CREATE TABLE probes (id TEXT PRIMARY KEY, version BIGINT NOT NULL)").unwrap();
        connection.batch_execute("INSERT INTO probes VALUES ('kept', 1)").unwrap();

        batch(["a", "b"], 1).send(connection).unwrap();
        let lost = batch(["c", "d"], 1).send(connection);
        assert!(matches!(lost, Err(StoreError::Conflict)), "{lost:?}");

        let rows: Vec<(String, i64)> = probes::table.order(probes::id).load(connection).unwrap();
        let expected = [("a", 1), ("b", 1), ("kept", 2)].map(|(id, version)| (id.to_owned(), version));
        assert_eq!(rows, expected, "the first batch whole, nothing of the second");
        let texts: Vec<String> = diesel::select(diesel::dsl::sql::<diesel::sql_types::Text>(
            "statement FROM pg_prepared_statements WHERE statement LIKE '%probes%' AND statement NOT LIKE 'SELECT%'",
        ))
        .load(connection)
        .unwrap();
        assert_eq!(texts.len(), 1, "one statement for the three writes: {texts:?}");
        assert!(texts[0].starts_with(r#"WITH w0 AS (INSERT INTO "probes""#), "{texts:?}");
        assert!(texts[0].ends_with("SELECT expect_one_row((SELECT count(*) FROM w1))"), "{texts:?}");
    }
}
