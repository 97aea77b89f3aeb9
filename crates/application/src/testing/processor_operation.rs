//! Operations written ahead of processor calls.

use super::{due_of, in_scope_of, replace_versioned, State};
use crate::ports::{ProcessorOperationRepository, StoreError};
use crate::scope::Scope;
use payments_domain::ids::PaymentId;
use payments_domain::processor_operation::ProcessorOperation;
use payments_domain::time::Timestamp;

impl ProcessorOperationRepository for State {
    fn insert(&mut self, operation: &ProcessorOperation) -> Result<(), StoreError> {
        if self.processor_operations.iter().any(|kept| kept.idempotency_key() == operation.idempotency_key()) {
            return Err(StoreError::Conflict);
        }
        self.processor_operations.push(operation.clone());
        Ok(())
    }

    fn find(&mut self, scope: &Scope, idempotency_key: &str) -> Result<Option<ProcessorOperation>, StoreError> {
        Ok(self
            .processor_operations
            .iter()
            .find(|kept| {
                kept.idempotency_key() == idempotency_key && in_scope_of(kept.account_id(), kept.livemode(), scope)
            })
            .cloned())
    }

    fn of_payment(&mut self, scope: &Scope, payment: &PaymentId) -> Result<Vec<ProcessorOperation>, StoreError> {
        Ok(self
            .processor_operations
            .iter()
            .filter(|kept| kept.payment() == payment && in_scope_of(kept.account_id(), kept.livemode(), scope))
            .cloned()
            .collect())
    }

    fn update(&mut self, operation: &ProcessorOperation, expected_version: i64) -> Result<(), StoreError> {
        replace_versioned(&mut self.processor_operations, operation, expected_version)
    }

    fn unanswered(&mut self, scope: &Scope, limit: u32) -> Result<Vec<ProcessorOperation>, StoreError> {
        Ok(self
            .processor_operations
            .iter()
            .filter(|kept| kept.state().is_unanswered() && in_scope_of(kept.account_id(), kept.livemode(), scope))
            .take(usize::try_from(limit).unwrap_or(usize::MAX))
            .cloned()
            .collect())
    }

    fn due(
        &mut self,
        within: Option<&Scope>,
        now: Timestamp,
        limit: u32,
    ) -> Result<Vec<ProcessorOperation>, StoreError> {
        Ok(due_of(&self.processor_operations, within, ProcessorOperation::next_check_at, now, limit))
    }
}
