//! Storage through diesel on PostgreSQL or embedded SQLite, chosen by the database URL.

/// The tenant boundary as a filter on `$table`: `account_id = ? AND livemode = ?`, from a
/// [`Scope`](payments_application::Scope) or from an account id and a livemode.
///
/// Every query a request makes names its tenant this way, a lookup by id or by another unique key
/// too, so a PostgreSQL sharded by `account_id` (Citus) sends it to one shard. A lookup is served by
/// its key's index and by no other: the listing indexes, which lead with the tenant, are partial on
/// a condition only lists state ([`listed!`]). Otherwise a plan cached before the table had
/// statistics could take the listing index and walk every row of the account on each lookup as the
/// table grew (docs/benchmarks.md). The storage tests in `tenant_keys.rs` check the plans on both
/// backends.
///
/// Lookups load with `get_result`, never `first`: diesel's `first` adds `LIMIT ?`, and SQLite
/// peeks at a bound `LIMIT` when it compiles a statement, so it compiles the statement again each
/// time the parameter is bound, and the statement cache does nothing for it (a tenth of the
/// service's CPU under the charge benchmark, docs/benchmarks.md).
macro_rules! in_scope {
    ($table:ident, $scope:expr) => {
        in_scope!($table, $scope.account_id, $scope.livemode())
    };
    ($table:ident, $account_id:expr, $livemode:expr) => {
        $table::account_id.eq(AsRef::<str>::as_ref(&$account_id).to_owned()).and($table::livemode.eq($livemode))
    };
}

/// The condition of a list of `$table`'s rows in a scope: [`in_scope!`] and `seq > 0` (a
/// [`Positive`]), true of every row. On PostgreSQL the listing indexes are partial on
/// `seq > 0`, so only a query that states it, a list, can take them; a lookup by key never does, so
/// it cannot tie with them in a plan made before the table has statistics
/// (docs/architecture.md#scaling-out).
macro_rules! listed {
    ($table:ident, $scope:expr) => {
        in_scope!($table, $scope).and($crate::db::Positive($table::seq))
    };
}

/// A page of `$table`'s rows of `$scope` that the boxed query `$query` keeps, newest first (by
/// `seq`), after or before the page's cursor (an id of the scope), read as `$row` and made domain
/// objects by `$row::into_domain`.
macro_rules! newest_first {
    ($session:expr, $table:ident, $row:ty, $scope:expr, $query:expr, $page:expr) => {{
        use diesel::prelude::*;
        use payments_application::pagination::{Cursor, Page};
        use $crate::db::error::store_error;
        let (session, scope, page) = ($session, $scope, $page);
        let mut seq_of = |id: &str| {
            let found = $table::table
                .filter(in_scope!($table, scope))
                .filter($table::id.eq(id.to_owned()))
                .select($table::seq)
                .get_result(session.reading()?)
                .optional();
            $crate::db::cursor_seq(found)
        };
        let query =
            $query.filter(listed!($table, scope)).select(<$row>::as_select()).limit(i64::from(page.limit()) + 1);
        let query = match page.cursor() {
            None => query.order($table::seq.desc()),
            Some(Cursor::After(id)) => query.filter($table::seq.lt(seq_of(id)?)).order($table::seq.desc()),
            Some(Cursor::Before(id)) => query.filter($table::seq.gt(seq_of(id)?)).order($table::seq.asc()),
        };
        let rows = query.load::<$row>(session.reading()?).map_err(store_error)?;
        let found = rows.into_iter().map(<$row>::into_domain).collect::<Result<Vec<_>, _>>()?;
        Ok(Page::from_overfetched(found, page))
    }};
}

/// `<column> > 0` with the `0` written into the SQL rather than bound, so that PostgreSQL can match
/// it to a partial index's predicate in a plan it caches ([`listed!`]). Unlike diesel's `sql`
/// literal it leaves the statement in the connection's cache: its SQL follows from its type alone.
#[derive(Debug, Clone, Copy, diesel::query_builder::QueryId, diesel::expression::ValidGrouping)]
pub(crate) struct Positive<C>(pub(crate) C);

impl<C> diesel::Expression for Positive<C> {
    type SqlType = diesel::sql_types::Bool;
}

impl<C: diesel::AppearsOnTable<QS>, QS> diesel::AppearsOnTable<QS> for Positive<C> {}

impl<C, DB> diesel::query_builder::QueryFragment<DB> for Positive<C>
where
    DB: diesel::backend::Backend,
    C: diesel::query_builder::QueryFragment<DB>,
{
    fn walk_ast<'b>(&'b self, mut out: diesel::query_builder::AstPass<'_, 'b, DB>) -> diesel::QueryResult<()> {
        self.0.walk_ast(out.reborrow())?;
        out.push_sql(" > 0");
        Ok(())
    }
}

/// The list position of a cursor's object, as looked up in the caller's scope.
///
/// # Errors
/// [`StoreError::UnknownCursor`](payments_application::ports::StoreError::UnknownCursor) when the
/// scope has no such object.
pub(crate) fn cursor_seq(
    found: diesel::QueryResult<Option<i64>>,
) -> Result<i64, payments_application::ports::StoreError> {
    found.map_err(error::store_error)?.ok_or(payments_application::ports::StoreError::UnknownCursor)
}

mod account;
mod account_data;
mod appended;
mod balance;
mod billing_statement;
mod checkout_session;
mod connection;
mod connector_account;
mod console_session;
mod customer;
mod customer_session;
mod distribution;
mod error;
mod event;
mod group_commit;
mod idempotency;
mod json;
mod mail_message;
mod page;
mod payment;
mod payment_intent;
mod payment_method;
mod payout;
mod prepared;
mod price;
mod processor_event;
mod processor_operation;
mod product;
mod refund;
mod request_log;
mod schema;
mod session;
mod setup_intent;
mod tables;
#[cfg(feature = "testing")]
pub mod testing;
#[cfg(feature = "testing")]
pub mod tls_cluster;
mod unit_of_work;
mod webhook;
mod webhook_delivery;
mod write_batch;

#[cfg(test)]
pub(crate) use appended::appended_payload;
pub(crate) use appended::{appended_scope, APPENDED_CHANNEL};
pub use connection::{
    AnyConnection, Backend, ConnectError, ConnectionManager, DatabaseError, DatabaseUrl, Pool, PoolSettings,
    PooledConnection, PostgresTls, TlsMode,
};
pub use session::Queued;
pub use unit_of_work::{DieselUnitOfWork, WorkQueued};

#[cfg(test)]
mod tests {
    use super::schema::webhooks;
    use diesel::pg::Pg;
    use diesel::prelude::*;
    use diesel::query_builder::QueryFragment;
    use diesel::sqlite::Sqlite;
    use payments_application::Scope;
    use payments_domain::account::Mode;
    use payments_domain::ids::AccountId;

    #[test]
    fn a_list_stays_in_the_statement_cache() {
        let scope = Scope { account_id: AccountId::from_random("acme"), mode: Mode::Test };
        let list = webhooks::table.filter(listed!(webhooks, scope)).select(webhooks::id);
        assert!(QueryFragment::<Pg>::is_safe_to_cache_prepared(&list, &Pg).unwrap());
        assert!(QueryFragment::<Sqlite>::is_safe_to_cache_prepared(&list, &Sqlite).unwrap());
        let sql = diesel::debug_query::<Pg, _>(&list).to_string();
        assert!(sql.contains(r#""webhooks"."seq" > 0"#), "the literal the partial indexes name: {sql}");
        // What `listed!` avoids: diesel's literal SQL keeps a statement out of the cache.
        let literal = webhooks::table.filter(diesel::dsl::sql::<diesel::sql_types::Bool>("seq > 0"));
        assert!(!QueryFragment::<Pg>::is_safe_to_cache_prepared(&literal, &Pg).unwrap());
    }
}
