//! Who is calling: the account and mode every query is confined to, and the kind of key used.

use payments_domain::account::{KeyKind, Mode};
use payments_domain::ids::AccountId;

/// The tenant boundary: an account in one mode. Every repository query is confined to a scope, so
/// another account's or mode's object is indistinguishable from a missing one.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Scope {
    pub account_id: AccountId,
    pub mode: Mode,
}

impl Scope {
    /// The scope of an object of `account_id` in live mode or not.
    #[must_use]
    pub fn of(account_id: &AccountId, livemode: bool) -> Self {
        Self { account_id: account_id.clone(), mode: Mode::from_livemode(livemode) }
    }

    #[must_use]
    pub fn livemode(&self) -> bool {
        self.mode.is_live()
    }
}

/// An authenticated caller.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Caller {
    pub scope: Scope,
    pub key_kind: KeyKind,
}
