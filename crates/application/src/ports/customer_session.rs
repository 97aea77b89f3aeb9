//! Storage of customer sessions.

use crate::error::StoreError;
use crate::scope::Scope;
use payments_domain::customer_session::CustomerSession;
use payments_domain::ids::{CustomerId, CustomerSessionId};

/// Customer sessions, confined to a scope. They are written once and never change.
pub trait CustomerSessionRepository {
    /// # Errors
    /// Storage failures.
    fn insert(&mut self, session: &CustomerSession) -> Result<(), StoreError>;

    /// # Errors
    /// Storage failures.
    fn find(&mut self, scope: &Scope, id: &CustomerSessionId) -> Result<Option<CustomerSession>, StoreError>;

    /// The scope's latest `limit` sessions of the customer `customer_id`, newest first.
    ///
    /// # Errors
    /// Storage failures.
    fn of_customer(
        &mut self,
        scope: &Scope,
        customer_id: &CustomerId,
        limit: u32,
    ) -> Result<Vec<CustomerSession>, StoreError>;
}
