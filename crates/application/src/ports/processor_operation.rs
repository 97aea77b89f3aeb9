//! Where operations sent to a live processor are written ahead of the call.

use crate::error::StoreError;
use crate::scope::Scope;
use payments_domain::ids::PaymentId;
use payments_domain::processor_operation::ProcessorOperation;
use payments_domain::time::Timestamp;

/// The operations written ahead of processor calls.
pub trait ProcessorOperationRepository {
    /// Writes a new operation.
    ///
    /// # Errors
    /// [`StoreError::Conflict`] when an operation with its idempotency key is already written;
    /// storage failures.
    fn insert(&mut self, operation: &ProcessorOperation) -> Result<(), StoreError>;

    /// The scope's operation sent with `idempotency_key`.
    ///
    /// # Errors
    /// Storage failures.
    fn find(&mut self, scope: &Scope, idempotency_key: &str) -> Result<Option<ProcessorOperation>, StoreError>;

    /// The scope's operations for `payment`, oldest first.
    ///
    /// # Errors
    /// Storage failures.
    fn of_payment(&mut self, scope: &Scope, payment: &PaymentId) -> Result<Vec<ProcessorOperation>, StoreError>;

    /// Writes `operation` if its stored version is still `expected_version`.
    ///
    /// # Errors
    /// [`StoreError::Conflict`] when the version moved on; storage failures.
    fn update(&mut self, operation: &ProcessorOperation, expected_version: i64) -> Result<(), StoreError>;

    /// Up to `limit` of the scope's operations the processor has not answered
    /// ([`OperationState::is_unanswered`](payments_domain::processor_operation::OperationState::is_unanswered)),
    /// the oldest first: what an operator watches, and settles by hand once it is unresolved.
    ///
    /// # Errors
    /// Storage failures.
    fn unanswered(&mut self, scope: &Scope, limit: u32) -> Result<Vec<ProcessorOperation>, StoreError>;

    /// Up to `limit` operations of `within` (or of every scope) whose check is due at `now`, the
    /// longest due first.
    ///
    /// # Errors
    /// Storage failures.
    fn due(
        &mut self,
        within: Option<&Scope>,
        now: Timestamp,
        limit: u32,
    ) -> Result<Vec<ProcessorOperation>, StoreError>;
}
