//! The accounts and their API keys.

use super::State;
use crate::ports::{AccountRepository, ArchivedRow, ArchivedRows, DeletedCounts, KeyRecord, StoreError};
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

    fn list(&mut self, after: Option<&AccountId>, limit: u32) -> Result<Vec<Account>, StoreError> {
        let mut accounts: Vec<Account> = self
            .accounts
            .iter()
            .filter(|account| after.is_none_or(|after| account.id.as_str() > after.as_str()))
            .cloned()
            .collect();
        accounts.sort_by(|a, b| a.id.as_str().cmp(b.id.as_str()));
        accounts.truncate(limit as usize);
        Ok(accounts)
    }

    fn delete_test_data(&mut self, id: &AccountId) -> Result<DeletedCounts, StoreError> {
        self.test_clock_offsets.remove(id);
        Ok(self.remove_objects(id, Some(false)))
    }

    fn delete(&mut self, id: &AccountId) -> Result<bool, StoreError> {
        let Some(position) = self.accounts.iter().position(|account| &account.id == id) else {
            return Ok(false);
        };
        self.remove_objects(id, None);
        self.accounts.remove(position);
        self.keys.retain(|_, key| &key.account_id != id);
        self.test_clock_offsets.remove(id);
        self.console_sessions.retain(|session| &session.account_id != id);
        Ok(true)
    }

    fn has_test_data(&mut self, id: &AccountId) -> Result<bool, StoreError> {
        let test = |account: &AccountId, livemode: bool| account == id && !livemode;
        Ok(self.customers.iter().any(|c| test(&c.account_id, c.livemode))
            || self.payment_intents.iter().any(|i| test(i.account_id(), i.livemode()))
            || self.setup_intents.iter().any(|i| test(i.account_id(), i.livemode()))
            || self.webhooks.iter().any(|w| test(w.account_id(), w.livemode()))
            || self.events.iter().any(|e| test(&e.account_id, e.livemode)))
    }

    /// The in-memory store keeps domain objects, not rows: exports are the databases' (and tested
    /// against both of them).
    fn export_test_data(&mut self, _id: &AccountId, _limit: usize) -> Result<Vec<ArchivedRow>, StoreError> {
        Err(StoreError::Other("the in-memory store does not export rows".into()))
    }

    fn schema_versions(&mut self) -> Result<Vec<String>, StoreError> {
        Ok(vec!["in-memory".to_owned()])
    }

    fn import_test_data(
        &mut self,
        _id: &AccountId,
        _rows: &dyn ArchivedRows,
        _from_an_older_schema: bool,
    ) -> Result<usize, StoreError> {
        Err(StoreError::Other("the in-memory store does not import rows".into()))
    }
}

impl State {
    /// Removes the objects of account `id` in mode `livemode` (both when `None`); answers how
    /// many of each collection went.
    fn remove_objects(&mut self, id: &AccountId, livemode: Option<bool>) -> DeletedCounts {
        let hit = |account: &AccountId, mode: bool| account == id && livemode.is_none_or(|wanted| wanted == mode);
        fn count<T>(items: &mut Vec<T>, mut remove: impl FnMut(&T) -> bool) -> u64 {
            let before = items.len();
            items.retain(|item| !remove(item));
            (before - items.len()) as u64
        }
        let removed_webhooks: Vec<_> =
            self.webhooks.iter().filter(|w| hit(w.account_id(), w.livemode())).map(|w| w.id().clone()).collect();
        self.endpoint_health.retain(|webhook, _| !removed_webhooks.contains(webhook));
        vec![
            ("webhook_delivery_attempts", count(&mut self.attempts, |a| hit(&a.account_id, a.livemode))),
            (
                "webhook_deliveries",
                count(&mut self.deliveries, |d| hit(d.delivery().account_id(), d.delivery().livemode())),
            ),
            ("mail_messages", count(&mut self.mail_messages, |m| hit(m.account_id(), m.livemode()))),
            ("billing_statements", count(&mut self.billing_statements, |b| hit(b.account_id(), b.livemode()))),
            ("checkout_sessions", count(&mut self.checkout_sessions, |c| hit(c.account_id(), c.livemode()))),
            ("refunds", count(&mut self.refunds, |r| hit(r.account_id(), r.livemode()))),
            ("payments", count(&mut self.payments, |p| hit(p.account_id(), p.livemode()))),
            ("payment_intents", count(&mut self.payment_intents, |i| hit(i.account_id(), i.livemode()))),
            ("setup_intents", count(&mut self.setup_intents, |i| hit(i.account_id(), i.livemode()))),
            ("payment_methods", count(&mut self.payment_methods, |m| hit(&m.account_id, m.livemode))),
            ("customer_sessions", count(&mut self.customer_sessions, |c| hit(&c.account_id, c.livemode))),
            ("customers", count(&mut self.customers, |c| hit(&c.account_id, c.livemode))),
            ("events", count(&mut self.events, |e| hit(&e.account_id, e.livemode))),
            ("webhooks", count(&mut self.webhooks, |w| hit(w.account_id(), w.livemode()))),
            (
                "idempotency_keys",
                count(&mut self.idempotency, |r| hit(&r.caller.scope.account_id, r.caller.scope.mode.is_live())),
            ),
            ("request_logs", count(&mut self.request_logs, |l| hit(&l.account_id, l.livemode))),
        ]
    }
}
