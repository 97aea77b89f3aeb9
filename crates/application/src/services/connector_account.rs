//! Each account's live connector: the operator sets it (its secrets sealed before they are
//! stored), reads what may be shown of it, and removes it. Setting it again keeps its id, so the
//! address the processor sends webhooks to stays the same.

use crate::error::ApplicationError;
use crate::ports::{in_transaction, reading, Clock, IdGenerator, SecretSealer, UnitOfWork};
use crate::scope::Scope;
use payments_domain::connector_account::{CardTokenizer, ConnectorAccount, ConnectorSetup};
use payments_domain::ids::{AccountId, ConnectorAccountId};
use payments_domain::processor_operation::ProcessorOperation;
use std::sync::Arc;

/// How many unanswered operations the operator API lists at most.
const UNANSWERED_LISTED: u32 = 100;

/// Live connector use cases.
pub struct ConnectorAccountService {
    unit_of_work: Arc<dyn UnitOfWork>,
    clock: Arc<dyn Clock>,
    ids: Arc<dyn IdGenerator>,
    sealer: Arc<dyn SecretSealer>,
}

impl ConnectorAccountService {
    #[must_use]
    pub fn new(
        unit_of_work: Arc<dyn UnitOfWork>,
        clock: Arc<dyn Clock>,
        ids: Arc<dyn IdGenerator>,
        sealer: Arc<dyn SecretSealer>,
    ) -> Self {
        Self { unit_of_work, clock, ids, sealer }
    }

    /// Sets the account's live connector, replacing the one it had.
    ///
    /// # Errors
    /// `parameter_invalid` for a bad setup; `resource_not_found` for no such account;
    /// `service_unavailable` when no key to seal secrets is configured; storage failures.
    pub fn set(&self, account_id: &AccountId, setup: &ConnectorSetup) -> Result<ConnectorAccount, ApplicationError> {
        setup.validate().map_err(ApplicationError::Validation)?;
        let sealed = self
            .sealer
            .seal(&setup.secrets, account_id)
            .map_err(|error| ApplicationError::NotConfigured(error.to_string()))?;
        let now = self.clock.now();
        let new_id = ConnectorAccountId::from_random(&self.ids.id_part());
        in_transaction(self.unit_of_work.as_ref(), |repositories| {
            if repositories.accounts().find(account_id)?.is_none() {
                return Err(no_account(account_id));
            }
            let kept = repositories.connector_accounts().of_account(account_id)?;
            let mut connector = ConnectorAccount::new(new_id.clone(), account_id.clone(), setup, sealed.clone(), now);
            if let Some(kept) = kept {
                connector.id = kept.id;
                connector.created_at = kept.created_at;
                repositories.connector_accounts().delete(account_id)?;
            }
            repositories.connector_accounts().insert(&connector)?;
            Ok(connector)
        })
    }

    /// Where the payment element's frame tokenizes a card for `scope`'s account: its connector's
    /// tokenizer, in live mode only (test mode's cards go to the simulator, through the service).
    ///
    /// # Errors
    /// Storage failures.
    pub fn card_tokenizer(&self, scope: &Scope) -> Result<Option<CardTokenizer>, ApplicationError> {
        if !scope.livemode() {
            return Ok(None);
        }
        let connector = reading(self.unit_of_work.as_ref(), |repositories| {
            Ok(repositories.connector_accounts().of_account(&scope.account_id)?)
        })?;
        Ok(connector.as_ref().and_then(ConnectorAccount::card_tokenizer))
    }

    /// Up to 100 of the account's live operations its processor has not answered, the oldest first:
    /// being sent, being asked about, or left to the operator (`unresolved`) to settle with the
    /// processor by hand.
    ///
    /// # Errors
    /// `resource_not_found` for no such account; storage failures.
    pub fn unanswered_operations(&self, account_id: &AccountId) -> Result<Vec<ProcessorOperation>, ApplicationError> {
        reading(self.unit_of_work.as_ref(), |repositories| {
            if repositories.accounts().find(account_id)?.is_none() {
                return Err(no_account(account_id));
            }
            Ok(repositories.processor_operations().unanswered(&Scope::of(account_id, true), UNANSWERED_LISTED)?)
        })
    }

    /// The account's live connector (its secrets stay sealed).
    ///
    /// # Errors
    /// `resource_not_found` when the account has none; storage failures.
    pub fn retrieve(&self, account_id: &AccountId) -> Result<ConnectorAccount, ApplicationError> {
        reading(self.unit_of_work.as_ref(), |repositories| {
            repositories.connector_accounts().of_account(account_id)?.ok_or_else(|| none_set(account_id))
        })
    }

    /// Removes the account's live connector: its live payments cannot be made until one is set.
    ///
    /// # Errors
    /// `resource_not_found` when the account has none; storage failures.
    pub fn remove(&self, account_id: &AccountId) -> Result<(), ApplicationError> {
        in_transaction(self.unit_of_work.as_ref(), |repositories| {
            if repositories.connector_accounts().delete(account_id)? {
                Ok(())
            } else {
                Err(none_set(account_id))
            }
        })
    }
}

fn no_account(account_id: &AccountId) -> ApplicationError {
    ApplicationError::NotFound { resource: "account", id: account_id.to_string() }
}

fn none_set(account_id: &AccountId) -> ApplicationError {
    ApplicationError::NotFound { resource: "connector of account", id: account_id.to_string() }
}
