//! Write statements kept in the connection's prepared-statement cache.
//!
//! diesel prepares every `UPDATE`, every insert with an optional column and every multi-row insert
//! afresh on each execution: their SQL can change from one call to the next (a `None` becomes
//! `DEFAULT`, a batch has another row count), and diesel's cache may be keyed by the query's Rust
//! type. PostgreSQL then parses, analyses and plans them each time (a fifth of its CPU on the charge
//! path) and SQLite compiles them inside the one writer's transaction.
//!
//! [`Prepare::prepared`] renders such a statement's SQL first and hands diesel that text with the
//! statement's binds, as diesel's own multi-backend connection does: the cache then keys it by the
//! text and bind types, so each distinct statement is prepared once per connection and the key
//! always matches the statement it names. The pieces used for that are diesel's API for backend
//! authors (`to_sql` and `collect_binds`, public under its
//! `i-implement-a-third-party-backend-and-opt-into-breaking-changes` feature, which the workspace turns
//! on) and the `AstPassHelper` its `MultiConnection` derive uses; `Cargo.lock` pins the version.
//!
//! The row types bind `None` as `NULL` (`treat_none_as_default_value = false`; no nullable column has
//! a default), so an insert has one SQL text whichever fields are empty and the cache stays one
//! statement per table and batch size.

use super::AnyConnection;
use diesel::backend::Backend;
use diesel::internal::derives::multiconnection::AstPassHelper;
use diesel::pg::Pg;
use diesel::query_builder::{AstPass, QueryBuilder, QueryFragment, QueryId};
use diesel::query_dsl::RunQueryDsl;
use diesel::sqlite::Sqlite;
use diesel::QueryResult;

/// An insert or update to run through the statement cache: `insert_into(…).values(row).prepared()`.
pub(crate) struct Prepared<Q>(Q);

/// Marks a statement for [`Prepared::execute`].
pub(crate) trait Prepare: Sized {
    fn prepared(self) -> Prepared<Self> {
        Prepared(self)
    }
}

impl<Q: QueryId> Prepare for Q {}

impl<Q> Prepared<Q>
where
    Q: QueryFragment<Pg> + QueryFragment<Sqlite>,
{
    /// Runs the statement, prepared once per connection and distinct SQL text.
    pub(crate) fn execute(self, connection: &mut AnyConnection) -> QueryResult<usize> {
        match connection {
            AnyConnection::Postgresql(connection) => Rendered::new(self.0, Pg)?.execute(connection),
            AnyConnection::Sqlite(connection) => Rendered::new(self.0, Sqlite)?.execute(connection),
        }
    }
}

/// The SQL text of `statement` for `backend`.
pub(crate) fn sql_of<Q, DB>(statement: &Q, backend: &DB) -> QueryResult<String>
where
    DB: Backend,
    DB::QueryBuilder: Default,
    Q: QueryFragment<DB> + ?Sized,
{
    let mut builder = DB::QueryBuilder::default();
    statement.to_sql(&mut builder, backend)?;
    Ok(builder.finish())
}

/// A statement with its SQL rendered for `DB`.
pub(crate) struct Rendered<Q, DB> {
    statement: Q,
    sql: String,
    backend: DB,
}

impl<Q, DB> Rendered<Q, DB>
where
    DB: Backend,
    DB::QueryBuilder: Default,
    Q: QueryFragment<DB>,
{
    pub(crate) fn new(statement: Q, backend: DB) -> QueryResult<Self> {
        let sql = sql_of(&statement, &backend)?;
        Ok(Self { statement, sql, backend })
    }
}

impl<Q, DB> QueryId for Rendered<Q, DB> {
    type QueryId = ();
    /// No static id: the cache keys the statement by its SQL text and bind types.
    const HAS_STATIC_QUERY_ID: bool = false;
}

/// The rendered text, and the statement's own binds; the statement is not walked otherwise, so
/// its "unsafe to cache" mark (set for SQL that can vary) does not reach the cache.
impl<Q, DB> QueryFragment<DB> for Rendered<Q, DB>
where
    DB: Backend,
    Q: QueryFragment<DB>,
{
    fn walk_ast<'b>(&'b self, mut pass: AstPass<'_, 'b, DB>) -> QueryResult<()> {
        pass.push_sql(&self.sql);
        if let Some((binds, metadata)) = pass.bind_collector() {
            self.statement.collect_binds(binds, metadata, &self.backend)?;
        }
        if let Some((binds, _)) = pass.debug_binds() {
            self.statement.walk_ast(AstPass::collect_debug_binds_pass(binds, &self.backend))?;
        }
        Ok(())
    }
}

impl<Q, DB, Conn> RunQueryDsl<Conn> for Rendered<Q, DB> {}

#[cfg(test)]
mod tests {
    use super::{AnyConnection, Prepare};
    use crate::db::testing::TestDatabase;
    use diesel::connection::SimpleConnection;
    use diesel::prelude::*;

    diesel::table! {
        probes (id) {
            id -> Text,
            note -> Nullable<Text>,
            version -> BigInt,
        }
    }

    /// An optional column: `None` is inserted as `DEFAULT`, another SQL text than `Some`.
    #[derive(Insertable)]
    #[diesel(table_name = probes)]
    struct Probe<'a> {
        id: &'a str,
        note: Option<&'a str>,
        version: i64,
    }

    fn connect(database: &TestDatabase) -> AnyConnection {
        let mut connection = AnyConnection::establish(database.url()).expect("connect");
        connection
            .batch_execute(
                "CREATE TABLE probes (id TEXT PRIMARY KEY, note TEXT DEFAULT 'default', version BIGINT NOT NULL)",
            )
            .expect("create the table");
        connection
    }

    fn insert(connection: &mut AnyConnection, id: &str, note: Option<&str>) {
        let inserted = diesel::insert_into(probes::table)
            .values(Probe { id, note, version: 1 })
            .prepared()
            .execute(connection)
            .expect("insert");
        assert_eq!(inserted, 1);
    }

    fn bump(connection: &mut AnyConnection, id: &str, from_version: i64) -> usize {
        diesel::update(probes::table.filter(probes::id.eq(id)).filter(probes::version.eq(from_version)))
            .set((probes::note.eq(format!("v{}", from_version + 1)), probes::version.eq(from_version + 1)))
            .prepared()
            .execute(connection)
            .expect("update")
    }

    /// Each statement runs with its own values, whichever SQL text came first.
    fn statements_keep_their_own_sql_and_values(connection: &mut AnyConnection) {
        insert(connection, "a", None);
        insert(connection, "b", Some("given"));
        insert(connection, "c", None);
        insert(connection, "d", Some("also given"));
        assert_eq!(bump(connection, "a", 1), 1);
        assert_eq!(bump(connection, "a", 1), 0, "a stale version updates nothing");
        assert_eq!(bump(connection, "b", 1), 1);
        let rows: Vec<(String, Option<String>, i64)> =
            probes::table.order(probes::id).load(connection).expect("read back");
        assert_eq!(
            rows,
            [
                ("a".to_owned(), Some("v2".to_owned()), 2),
                ("b".to_owned(), Some("v2".to_owned()), 2),
                ("c".to_owned(), Some("default".to_owned()), 1),
                ("d".to_owned(), Some("also given".to_owned()), 1),
            ]
        );
    }

    #[test]
    fn on_postgresql_each_distinct_statement_is_prepared_once_per_connection() {
        let database = TestDatabase::postgres();
        let mut connection = connect(&database);
        statements_keep_their_own_sql_and_values(&mut connection);
        let prepared: Vec<(String, i64)> = diesel::sql_query(
            "SELECT split_part(statement, ' ', 1) AS verb, count(*) AS count FROM pg_prepared_statements \
             WHERE statement LIKE 'INSERT INTO \"probes\"%' OR statement LIKE 'UPDATE \"probes\"%' \
             GROUP BY verb ORDER BY verb",
        )
        .load::<PreparedCount>(&mut connection)
        .expect("list prepared statements")
        .into_iter()
        .map(|row| (row.verb, row.count))
        .collect();
        // Two insert texts (`DEFAULT` or a bind for the note) and one update, for 4 inserts and 3 updates.
        assert_eq!(prepared, [("INSERT".to_owned(), 2), ("UPDATE".to_owned(), 1)]);
    }

    #[test]
    fn on_sqlite_statements_keep_their_own_sql_and_values() {
        let database = TestDatabase::sqlite();
        statements_keep_their_own_sql_and_values(&mut connect(&database));
    }

    #[derive(QueryableByName)]
    struct PreparedCount {
        #[diesel(sql_type = diesel::sql_types::Text)]
        verb: String,
        #[diesel(sql_type = diesel::sql_types::BigInt)]
        count: i64,
    }
}
