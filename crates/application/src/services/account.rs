//! Accounts: creating merchants with their four keys, and authenticating API keys.

use crate::error::ApplicationError;
use crate::ports::{in_transaction, reading, Clock, IdGenerator, Repositories, UnitOfWork};
use crate::scope::{Caller, Scope};
use payments_domain::account::{Account, AccountKeys, ApiKey, KeyKind, Mode};
use payments_domain::ids::AccountId;
use payments_domain::validation::FieldError;
use std::collections::HashMap;
use std::sync::{Arc, PoisonError, RwLock};

/// Most resolved keys kept in memory; past this the memo starts over.
const MAX_REMEMBERED_KEYS: usize = 10_000;
/// Length of the random part of a new API key.
const KEY_RANDOM_LENGTH: usize = 40;
/// Longest accepted account name.
const MAX_NAME_LENGTH: usize = 255;

/// Account use cases.
pub struct AccountService {
    unit_of_work: Arc<dyn UnitOfWork>,
    clock: Arc<dyn Clock>,
    ids: Arc<dyn IdGenerator>,
    /// Keys already resolved, by digest. Keys are never revoked or rotated in this version, so a
    /// resolved key stays valid; only keys that exist are remembered.
    resolved: RwLock<HashMap<String, Caller>>,
}

impl AccountService {
    #[must_use]
    pub fn new(unit_of_work: Arc<dyn UnitOfWork>, clock: Arc<dyn Clock>, ids: Arc<dyn IdGenerator>) -> Self {
        Self { unit_of_work, clock, ids, resolved: RwLock::default() }
    }

    /// Creates an account and its four keys. The keys are returned once and stored only as digests.
    ///
    /// # Errors
    /// `parameter_invalid` on `name` for a blank or over-long name; storage failures.
    pub fn create(&self, name: &str) -> Result<(Account, AccountKeys), ApplicationError> {
        let name = name.trim();
        if name.is_empty() || name.chars().count() > MAX_NAME_LENGTH {
            return Err(ApplicationError::invalid(FieldError::invalid(
                "name",
                format!("The account name must be 1 to {MAX_NAME_LENGTH} characters long."),
            )));
        }
        let (account, keys) = self.new_account(name);
        in_transaction(self.unit_of_work.as_ref(), |repositories| {
            repositories.accounts().insert(&account, &digests(&keys))?;
            Ok(())
        })?;
        Ok((account, keys))
    }

    /// Creates a first account when none exists, so a new installation can be called at once. Several
    /// instances starting at once on an empty database create one between them.
    ///
    /// # Errors
    /// Storage failures.
    pub fn create_first(&self, name: &str) -> Result<Option<(Account, AccountKeys)>, ApplicationError> {
        let (account, keys) = self.new_account(name);
        in_transaction(self.unit_of_work.as_ref(), |repositories| {
            repositories.accounts().lock_first_account()?;
            if repositories.accounts().count()? > 0 {
                return Ok(None);
            }
            repositories.accounts().insert(&account, &digests(&keys))?;
            Ok(Some((account, keys)))
        })
    }

    /// Resolves a presented key to its account, mode and kind.
    ///
    /// # Errors
    /// [`ApplicationError::Unauthenticated`] for a malformed or unknown key; storage failures.
    pub fn authenticate(&self, presented: &str) -> Result<Caller, ApplicationError> {
        let key = ApiKey::parse(presented).ok_or(ApplicationError::Unauthenticated)?;
        let digest = key.digest();
        if let Some(caller) = self.resolved.read().unwrap_or_else(PoisonError::into_inner).get(&digest) {
            return Ok(caller.clone());
        }
        let record =
            reading(self.unit_of_work.as_ref(), |repositories| Ok(repositories.accounts().find_key(&digest)?))?
                .ok_or(ApplicationError::Unauthenticated)?;
        let caller =
            Caller { scope: Scope { account_id: record.account_id, mode: record.mode }, key_kind: record.kind };
        let mut resolved = self.resolved.write().unwrap_or_else(PoisonError::into_inner);
        if resolved.len() >= MAX_REMEMBERED_KEYS {
            resolved.clear();
        }
        resolved.insert(digest, caller.clone());
        Ok(caller)
    }

    fn new_account(&self, name: &str) -> (Account, AccountKeys) {
        let account = Account {
            id: AccountId::from_random(&self.ids.id_part()),
            name: name.to_owned(),
            created_at: self.clock.now(),
        };
        let key = |kind, mode| ApiKey::issue(kind, mode, &self.ids.alphanumeric(KEY_RANDOM_LENGTH));
        let keys = AccountKeys {
            secret_test: key(KeyKind::Secret, Mode::Test),
            public_test: key(KeyKind::Public, Mode::Test),
            secret_live: key(KeyKind::Secret, Mode::Live),
            public_live: key(KeyKind::Public, Mode::Live),
        };
        (account, keys)
    }
}

fn digests(keys: &AccountKeys) -> Vec<(String, KeyKind, Mode)> {
    keys.all().into_iter().map(|(key, kind, mode)| (key.digest(), kind, mode)).collect()
}

/// The account's name as customers see it on statements and pages (empty when the account is gone).
pub(crate) fn merchant_name(repositories: &mut dyn Repositories, scope: &Scope) -> Result<String, ApplicationError> {
    Ok(repositories.accounts().find(&scope.account_id)?.map(|account| account.name).unwrap_or_default())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::TestPorts;

    #[test]
    fn a_created_account_authenticates_with_each_of_its_keys() {
        let ports = TestPorts::new();
        let service = ports.account_service();
        let (account, keys) = service.create("Acme").unwrap();
        for (key, kind, mode) in keys.all() {
            let caller = service.authenticate(key.reveal()).unwrap();
            assert_eq!(caller.scope.account_id, account.id);
            assert_eq!(caller.scope.mode, mode);
            assert_eq!(caller.key_kind, kind);
        }
    }

    #[test]
    fn unknown_and_malformed_keys_are_refused() {
        let ports = TestPorts::new();
        let service = ports.account_service();
        service.create("Acme").unwrap();
        let unknown = format!("sk_test_{}", "x".repeat(40));
        assert!(matches!(service.authenticate(&unknown), Err(ApplicationError::Unauthenticated)));
        assert!(matches!(service.authenticate("garbage"), Err(ApplicationError::Unauthenticated)));
    }

    #[test]
    fn the_first_account_is_created_only_once() {
        let ports = TestPorts::new();
        let service = ports.account_service();
        assert!(service.create_first("Default").unwrap().is_some());
        assert!(service.create_first("Default").unwrap().is_none());
    }

    #[test]
    fn a_blank_account_name_is_refused() {
        let ports = TestPorts::new();
        assert!(matches!(ports.account_service().create("  "), Err(ApplicationError::Validation(_))));
    }
}
