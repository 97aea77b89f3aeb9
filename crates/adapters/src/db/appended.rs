//! The notification that events were appended, as PostgreSQL carries it: the channel a unit of work
//! that appended events notifies when it commits, and the payload naming the scope. Sent by the
//! write batch ([`super::write_batch::WriteBatch::notify`]), heard by [`crate::event_signal`].

use payments_application::Scope;
use payments_domain::account::Mode;
use payments_domain::ids::AccountId;

/// The channel, notified once per scope appended to, that every instance's event streams listen on.
pub(crate) const APPENDED_CHANNEL: &str = "payments_events";

/// The notification of events appended to `scope`: `acct_…:test` or `acct_…:live`.
pub(crate) fn appended_payload(scope: &Scope) -> String {
    let mode = match scope.mode {
        Mode::Live => "live",
        Mode::Test => "test",
    };
    format!("{}:{mode}", scope.account_id)
}

/// The scope a notification of [`appended_payload`] names.
pub(crate) fn appended_scope(payload: &str) -> Option<Scope> {
    let (account, mode) = payload.split_once(':')?;
    let mode = match mode {
        "live" => Mode::Live,
        "test" => Mode::Test,
        _ => return None,
    };
    Some(Scope { account_id: AccountId::parse(account)?, mode })
}
