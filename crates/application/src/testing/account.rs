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

    fn test_clock_offset(&mut self, id: &AccountId) -> Result<i64, StoreError> {
        Ok(self.test_clock_offsets.get(id).copied().unwrap_or(0))
    }

    fn move_test_clock(&mut self, id: &AccountId, from: i64, to: i64) -> Result<bool, StoreError> {
        if !self.accounts.iter().any(|account| &account.id == id) || self.test_clock_offset(id)? != from {
            return Ok(false);
        }
        self.test_clock_offsets.insert(id.clone(), to);
        Ok(true)
    }

    fn with_moved_test_clock(&mut self, after: Option<&AccountId>, limit: u32) -> Result<Vec<AccountId>, StoreError> {
        let mut moved: Vec<AccountId> = self
            .test_clock_offsets
            .iter()
            .filter(|(id, offset)| **offset > 0 && after.is_none_or(|after| id.as_str() > after.as_str()))
            .map(|(id, _)| id.clone())
            .collect();
        moved.sort_by(|a, b| a.as_str().cmp(b.as_str()));
        moved.truncate(limit as usize);
        Ok(moved)
    }
}
