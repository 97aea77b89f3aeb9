//! Storage of the payment methods saved to customers.

use crate::error::StoreError;
use crate::pagination::{Page, PageRequest};
use crate::scope::Scope;
use payments_domain::ids::{CustomerId, PaymentMethodId};
use payments_domain::payment_method::PaymentMethod;

/// Saved payment methods, confined to a scope.
pub trait PaymentMethodRepository {
    /// # Errors
    /// Storage failures.
    fn insert(&mut self, method: &PaymentMethod) -> Result<(), StoreError>;

    /// # Errors
    /// Storage failures.
    fn find(&mut self, scope: &Scope, id: &PaymentMethodId) -> Result<Option<PaymentMethod>, StoreError>;

    /// The customer's saved methods, newest first.
    ///
    /// # Errors
    /// [`StoreError::UnknownCursor`] for a cursor that names no method of the customer; storage
    /// failures.
    fn list(
        &mut self,
        scope: &Scope,
        customer_id: &CustomerId,
        page: &PageRequest,
    ) -> Result<Page<PaymentMethod>, StoreError>;

    /// Writes a changed method (its card's expiry, its `updated_at`) of the method's scope. Returns
    /// whether it was there to change (a method deleted meanwhile is not).
    ///
    /// # Errors
    /// Storage failures.
    fn update(&mut self, method: &PaymentMethod) -> Result<bool, StoreError>;

    /// Removes a saved method; a deleted method can no longer be charged or listed. Returns whether
    /// this call removed it (of concurrent deletes, one does).
    ///
    /// # Errors
    /// Storage failures.
    fn delete(&mut self, scope: &Scope, id: &PaymentMethodId) -> Result<bool, StoreError>;

    /// Removes every method saved to a customer (the customer is being deleted); returns how many.
    ///
    /// # Errors
    /// Storage failures.
    fn delete_for_customer(&mut self, scope: &Scope, customer_id: &CustomerId) -> Result<usize, StoreError>;
}
