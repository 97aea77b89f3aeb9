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

/// One record of an account's test-mode objects as the store exports it: the collection it belongs
/// to and its fields, without the account and mode. The application passes records through unread:
/// they are the store's own backup format, not the API's objects.
#[derive(Debug, Clone, PartialEq)]
pub struct ArchivedRow {
    pub collection: String,
    pub fields: serde_json::Map<String, serde_json::Value>,
}

/// The records of an import, in order, read as often as the store needs: from a file, say, rather
/// than all held in memory.
pub trait ArchivedRows {
    /// The records from the first; an item that is no record says why.
    fn records(&self) -> Box<dyn Iterator<Item = Result<ArchivedRow, String>> + '_>;
}

impl ArchivedRows for Vec<ArchivedRow> {
    fn records(&self) -> Box<dyn Iterator<Item = Result<ArchivedRow, String>> + '_> {
        Box::new(self.iter().cloned().map(Ok))
    }
}

/// How many records of each collection deleting an account's data removed.
pub type DeletedCounts = Vec<(&'static str, u64)>;

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

    /// Up to `limit` accounts after `after` in id order.
    ///
    /// # Errors
    /// Storage failures.
    fn list(&mut self, after: Option<&AccountId>, limit: u32) -> Result<Vec<Account>, StoreError>;

    /// Deletes every object of account `id`'s test mode (its API keys and console sign-ins stay)
    /// and sets its test clock back to real time.
    ///
    /// # Errors
    /// Storage failures.
    fn delete_test_data(&mut self, id: &AccountId) -> Result<DeletedCounts, StoreError>;

    /// Deletes account `id` with its keys and every object of both modes; false when there was no
    /// such account.
    ///
    /// # Errors
    /// Storage failures.
    fn delete(&mut self, id: &AccountId) -> Result<bool, StoreError>;

    /// Whether account `id`'s test mode holds any object.
    ///
    /// # Errors
    /// Storage failures.
    fn has_test_data(&mut self, id: &AccountId) -> Result<bool, StoreError>;

    /// The records of account `id`'s test-mode objects (not its delivery history, outbox, request
    /// log or idempotency keys), as of one moment, in an order [`Self::import_test_data`] can store
    /// them in; at most `limit`.
    ///
    /// # Errors
    /// [`StoreError::TooMany`] past `limit`; storage failures.
    fn export_test_data(&mut self, id: &AccountId, limit: usize) -> Result<Vec<ArchivedRow>, StoreError>;

    /// The versions of the store's schema, oldest first: the migrations applied to it. An export
    /// names the newest; an import names the one it was exported at.
    ///
    /// # Errors
    /// Storage failures.
    fn schema_versions(&mut self) -> Result<Vec<String>, StoreError>;

    /// Stores exported records in account `id`'s test mode, in the order given, with their ids;
    /// answers how many. The records are read as they are stored, never all at once. Records
    /// exported `from_an_older_schema` may lack the fields later versions added where the store
    /// has a default for them (or none: a null).
    ///
    /// # Errors
    /// [`StoreError::RowRefused`] for the first record that is none, or cannot become one of this
    /// account's objects as the store reads them back (an unknown collection or field, a value of
    /// another type, a taken id, a reference to an object it does not hold or of another account or
    /// mode); storage failures.
    fn import_test_data(
        &mut self,
        id: &AccountId,
        rows: &dyn ArchivedRows,
        from_an_older_schema: bool,
    ) -> Result<usize, StoreError>;
}
