//! Storage through diesel on PostgreSQL or embedded SQLite, chosen by the database URL.

/// Implements [`TenantRow`] for row types with `account_id` and `livemode` fields.
macro_rules! tenant_row {
    ($row:ty) => {
        impl $crate::db::TenantRow for $row {
            fn belongs_to(&self, scope: &payments_application::Scope) -> bool {
                self.account_id == scope.account_id.as_str() && self.livemode == scope.livemode()
            }
        }
    };
}

/// A row of a table shared by every account and mode.
///
/// Lookups by a unique key filter by that key alone and check the tenant here, in the row: a
/// statement's cached generic plan on PostgreSQL is then always the key's index. With the scope in
/// the `WHERE` clause, a plan cached while the table was nearly empty chose the account's listing
/// index and went on walking every row of the account as the table grew (docs/benchmarks.md).
///
/// Such lookups load with `get_result`, never `first`: diesel's `first` adds `LIMIT ?`, and SQLite
/// peeks at a bound `LIMIT` when it compiles a statement, so it compiles the statement again each
/// time the parameter is bound, and the statement cache does nothing for it (a tenth of the
/// service's CPU under the charge benchmark, docs/benchmarks.md).
pub(crate) trait TenantRow {
    fn belongs_to(&self, scope: &payments_application::Scope) -> bool;
}

/// A cursor's list position as looked up by id: `(seq, account_id, livemode)`.
impl TenantRow for (i64, String, bool) {
    fn belongs_to(&self, scope: &payments_application::Scope) -> bool {
        self.1 == scope.account_id.as_str() && self.2 == scope.livemode()
    }
}

/// The list position found for a cursor's id, if it is of `scope`.
///
/// # Errors
/// [`StoreError::UnknownCursor`] when there is none.
pub(crate) fn seq_in_scope(
    found: Option<(i64, String, bool)>,
    scope: &payments_application::Scope,
) -> Result<i64, payments_application::ports::StoreError> {
    found
        .filter(|found| found.belongs_to(scope))
        .map(|(seq, _, _)| seq)
        .ok_or(payments_application::ports::StoreError::UnknownCursor)
}

mod account;
mod billing_statement;
mod checkout_session;
mod connection;
mod customer;
mod customer_session;
mod error;
mod event;
mod group_commit;
mod idempotency;
mod json;
mod mail_message;
mod payment;
mod payment_intent;
mod payment_method;
mod prepared;
mod refund;
mod schema;
mod session;
mod setup_intent;
#[cfg(feature = "testing")]
pub mod testing;
#[cfg(feature = "testing")]
pub mod tls_cluster;
mod unit_of_work;
mod webhook;
mod webhook_delivery;
mod write_batch;

pub use connection::{
    AnyConnection, Backend, ConnectError, ConnectionManager, DatabaseError, DatabaseUrl, Pool, PoolSettings,
    PooledConnection, PostgresTls, TlsMode,
};
pub use session::Queued;
pub use unit_of_work::{DieselUnitOfWork, WorkQueued};
