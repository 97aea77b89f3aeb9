//! Where each account's live connector is kept, and what seals its secrets.

use crate::error::StoreError;
use payments_domain::connector_account::{ConnectorAccount, ConnectorSecrets, LastCall, SealedSecrets};
use payments_domain::ids::{AccountId, ConnectorAccountId};

/// The accounts' live connectors: one per account at most.
pub trait ConnectorAccountRepository {
    /// The account's connector.
    ///
    /// # Errors
    /// Storage failures.
    fn of_account(&mut self, account: &AccountId) -> Result<Option<ConnectorAccount>, StoreError>;

    /// The connector `id`, whichever account's: a processor's webhook names it.
    ///
    /// # Errors
    /// Storage failures.
    fn find(&mut self, id: &ConnectorAccountId) -> Result<Option<ConnectorAccount>, StoreError>;

    /// Writes a new connector for its account (which has none).
    ///
    /// # Errors
    /// [`StoreError::UniqueViolation`] when the account has one; storage failures.
    fn insert(&mut self, connector: &ConnectorAccount) -> Result<(), StoreError>;

    /// Removes the account's connector; whether there was one.
    ///
    /// # Errors
    /// Storage failures.
    fn delete(&mut self, account: &AccountId) -> Result<bool, StoreError>;

    /// Records how the processor answered the account's connector's last call.
    ///
    /// # Errors
    /// Storage failures.
    fn record_call(&mut self, account: &AccountId, call: LastCall) -> Result<(), StoreError>;
}

/// Why secrets could not be sealed or opened.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SealError {
    /// No key is configured: secrets cannot be kept.
    #[error("no key to seal the processor's secrets is configured (live_processor.credentials_key)")]
    NoKey,
    /// The sealed bytes are not the configured key's (another key, or damaged).
    #[error("the processor's secrets cannot be opened with the configured key")]
    Unreadable,
}

/// Seals a connector's secrets for storage, bound to the account they belong to, and opens them
/// again: secrets copied onto another account's row do not open there.
pub trait SecretSealer: Send + Sync {
    /// # Errors
    /// [`SealError::NoKey`] without a key.
    fn seal(&self, secrets: &ConnectorSecrets, account_id: &AccountId) -> Result<SealedSecrets, SealError>;

    /// # Errors
    /// [`SealError::NoKey`] without a key; [`SealError::Unreadable`] for bytes it did not seal for
    /// `account_id`.
    fn open(&self, sealed: &SealedSecrets, account_id: &AccountId) -> Result<ConnectorSecrets, SealError>;
}
