//! The clock port: the only source of "now" for the use cases, real time and each account's test
//! clock.

use crate::error::ApplicationError;
use crate::scope::Scope;
use payments_domain::ids::AccountId;
use payments_domain::test_clock::TestClock;
use payments_domain::time::Timestamp;

/// Tells the time: real time, and the time of each account's test mode.
pub trait Clock: Send + Sync {
    /// Real time, to the millisecond: for what belongs to no account's time (leases, delivery and
    /// mail retries, console sessions, idempotency keys, webhook signatures).
    fn now(&self) -> Timestamp;

    /// The time in `scope`: real time in live mode, the account's test clock in test mode.
    ///
    /// # Errors
    /// Storage failures reading the test clock.
    fn now_in(&self, scope: &Scope) -> Result<Timestamp, ApplicationError>;

    /// The test clock of `account` as it stands now, read afresh.
    ///
    /// # Errors
    /// Storage failures.
    fn test_clock(&self, account: &AccountId) -> Result<TestClock, ApplicationError>;

    /// Moves the test clock of `account` from the offset `from` (as read) to `to`. Returns false,
    /// moving nothing, when it no longer stands at `from`.
    ///
    /// # Errors
    /// Storage failures.
    fn move_test_clock(&self, account: &AccountId, from: i64, to: i64) -> Result<bool, ApplicationError>;

    /// Accounts whose test clock stands ahead of real time: up to `limit` after `after`, by id.
    ///
    /// # Errors
    /// Storage failures.
    fn moved_test_clocks(&self, after: Option<&AccountId>, limit: u32) -> Result<Vec<AccountId>, ApplicationError>;
}
