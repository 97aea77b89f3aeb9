//! Idempotency keys.

use super::State;
use crate::ports::{IdempotencyRecord, IdempotencyRepository, IdempotencyState, StoreError};
use crate::scope::Caller;
use payments_domain::time::Timestamp;

impl IdempotencyRepository for State {
    fn find(&mut self, caller: &Caller, key: &str) -> Result<Option<IdempotencyRecord>, StoreError> {
        Ok(self.idempotency.iter().find(|r| &r.caller == caller && r.key == key).cloned())
    }

    fn insert(&mut self, record: &IdempotencyRecord) -> Result<(), StoreError> {
        if self.idempotency.iter().any(|r| r.caller == record.caller && r.key == record.key) {
            return Err(StoreError::UniqueViolation("idempotency_keys".into()));
        }
        self.idempotency.push(record.clone());
        Ok(())
    }

    fn complete(&mut self, caller: &Caller, key: &str, status: u16, body: &[u8]) -> Result<(), StoreError> {
        if let Some(record) = self.idempotency.iter_mut().find(|r| &r.caller == caller && r.key == key) {
            record.state = IdempotencyState::Completed { status, body: body.to_vec() };
        }
        Ok(())
    }

    fn delete(&mut self, caller: &Caller, key: &str) -> Result<(), StoreError> {
        self.idempotency.retain(|r| !(&r.caller == caller && r.key == key));
        Ok(())
    }

    fn delete_created_before(&mut self, cutoff: Timestamp) -> Result<usize, StoreError> {
        let before = self.idempotency.len();
        self.idempotency.retain(|r| r.created_at >= cutoff);
        Ok(before - self.idempotency.len())
    }
}
