//! The accounts and their API keys.

use super::State;
use crate::ports::{AccountRepository, KeyRecord, StoreError};
use payments_domain::account::{Account, KeyKind, Mode};
use payments_domain::ids::AccountId;

impl AccountRepository for State {
    fn insert(&mut self, account: &Account, keys: &[(String, KeyKind, Mode)]) -> Result<(), StoreError> {
        if self.accounts.iter().any(|a| a.id == account.id) || keys.iter().any(|(d, _, _)| self.keys.contains_key(d)) {
            return Err(StoreError::UniqueViolation("accounts".into()));
        }
        self.accounts.push(account.clone());
        for (digest, kind, mode) in keys {
            self.keys.insert(digest.clone(), KeyRecord { account_id: account.id.clone(), kind: *kind, mode: *mode });
        }
        Ok(())
    }

    fn find_key(&mut self, digest: &str) -> Result<Option<KeyRecord>, StoreError> {
        Ok(self.keys.get(digest).cloned())
    }

    fn find(&mut self, id: &AccountId) -> Result<Option<Account>, StoreError> {
        Ok(self.accounts.iter().find(|account| &account.id == id).cloned())
    }

    fn count(&mut self) -> Result<i64, StoreError> {
        i64::try_from(self.accounts.len()).map_err(|e| StoreError::Other(e.into()))
    }

    fn lock_first_account(&mut self) -> Result<(), StoreError> {
        // One fake store runs one transaction at a time.
        Ok(())
    }
}
