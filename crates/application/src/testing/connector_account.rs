//! The accounts' live connectors, and a sealer that keeps secrets readable only to itself.

use super::State;
use crate::ports::{ConnectorAccountRepository, SealError, SecretSealer, StoreError};
use payments_domain::connector_account::{ConnectorAccount, ConnectorSecrets, LastCall, SealedSecrets};
use payments_domain::ids::{AccountId, ConnectorAccountId};

impl ConnectorAccountRepository for State {
    fn of_account(&mut self, account: &AccountId) -> Result<Option<ConnectorAccount>, StoreError> {
        Ok(self.connector_accounts.iter().find(|connector| &connector.account_id == account).cloned())
    }

    fn find(&mut self, id: &ConnectorAccountId) -> Result<Option<ConnectorAccount>, StoreError> {
        Ok(self.connector_accounts.iter().find(|connector| &connector.id == id).cloned())
    }

    fn insert(&mut self, connector: &ConnectorAccount) -> Result<(), StoreError> {
        if self.connector_accounts.iter().any(|kept| kept.account_id == connector.account_id || kept.id == connector.id)
        {
            return Err(StoreError::UniqueViolation("connector_accounts_account_id_key".into()));
        }
        self.connector_accounts.push(connector.clone());
        Ok(())
    }

    fn delete(&mut self, account: &AccountId) -> Result<bool, StoreError> {
        let before = self.connector_accounts.len();
        self.connector_accounts.retain(|connector| &connector.account_id != account);
        Ok(self.connector_accounts.len() < before)
    }

    fn record_call(&mut self, account: &AccountId, call: LastCall) -> Result<(), StoreError> {
        for connector in self.connector_accounts.iter_mut().filter(|connector| &connector.account_id == account) {
            connector.last_call = Some(call);
        }
        Ok(())
    }
}

/// A sealer for tests: the secrets, reversed and marked with their account, so what is stored is
/// not them.
#[derive(Debug, Default)]
pub struct ReversingSealer;

impl SecretSealer for ReversingSealer {
    fn seal(&self, secrets: &ConnectorSecrets, account_id: &AccountId) -> Result<SealedSecrets, SealError> {
        let text = format!("{}\n{}", secrets.secret_key, secrets.webhook_secret);
        Ok(SealedSecrets(format!("sealed {account_id}:{}", text.chars().rev().collect::<String>()).into_bytes()))
    }

    fn open(&self, sealed: &SealedSecrets, account_id: &AccountId) -> Result<ConnectorSecrets, SealError> {
        let text = String::from_utf8(sealed.0.clone()).map_err(|_| SealError::Unreadable)?;
        let prefix = format!("sealed {account_id}:");
        let reversed: String = text.strip_prefix(&prefix).ok_or(SealError::Unreadable)?.chars().rev().collect();
        let (secret_key, webhook_secret) = reversed.split_once('\n').ok_or(SealError::Unreadable)?;
        Ok(ConnectorSecrets { secret_key: secret_key.to_owned(), webhook_secret: webhook_secret.to_owned() })
    }
}
