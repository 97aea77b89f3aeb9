//! Storage of accounts and their API key digests.

use crate::error::StoreError;
use payments_domain::account::{Account, KeyKind, Mode};
use payments_domain::ids::AccountId;

/// What a stored key digest resolves to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyRecord {
    pub account_id: AccountId,
    pub kind: KeyKind,
    pub mode: Mode,
}

/// Accounts and the digests of their keys.
pub trait AccountRepository {
    /// Stores a new account with the digests of its keys.
    ///
    /// # Errors
    /// [`StoreError::UniqueViolation`] if the id or a digest exists; storage failures.
    fn insert(&mut self, account: &Account, keys: &[(String, KeyKind, Mode)]) -> Result<(), StoreError>;

    /// The key stored under `digest`, if any.
    ///
    /// # Errors
    /// Storage failures.
    fn find_key(&mut self, digest: &str) -> Result<Option<KeyRecord>, StoreError>;

    /// The account `id`.
    ///
    /// # Errors
    /// Storage failures.
    fn find(&mut self, id: &AccountId) -> Result<Option<Account>, StoreError>;

    /// How many accounts exist.
    ///
    /// # Errors
    /// Storage failures.
    fn count(&mut self) -> Result<i64, StoreError>;

    /// Makes other transactions that call this wait until this one ends, so that instances starting
    /// at once on an empty database create one first account between them.
    ///
    /// # Errors
    /// Storage failures.
    fn lock_first_account(&mut self) -> Result<(), StoreError>;

    /// How far the test clock of account `id` stands ahead of real time, in milliseconds: 0 for a
    /// clock never moved (and for an unknown account).
    ///
    /// # Errors
    /// Storage failures.
    fn test_clock_offset(&mut self, id: &AccountId) -> Result<i64, StoreError>;

    /// Sets the test clock offset of account `id` to `to` if it still is `from`; returns whether
    /// it did (false for an unknown account too).
    ///
    /// # Errors
    /// Storage failures.
    fn move_test_clock(&mut self, id: &AccountId, from: i64, to: i64) -> Result<bool, StoreError>;

    /// Up to `limit` accounts whose test clock stands ahead of real time, after `after` in id
    /// order.
    ///
    /// # Errors
    /// Storage failures.
    fn with_moved_test_clock(&mut self, after: Option<&AccountId>, limit: u32) -> Result<Vec<AccountId>, StoreError>;
}
