//! Customer sessions.

use super::{in_scope_of, State};
use crate::ports::{CustomerSessionRepository, StoreError};
use crate::scope::Scope;
use payments_domain::customer_session::CustomerSession;
use payments_domain::ids::{CustomerId, CustomerSessionId};

impl CustomerSessionRepository for State {
    fn insert(&mut self, session: &CustomerSession) -> Result<(), StoreError> {
        self.customer_sessions.push(session.clone());
        Ok(())
    }

    fn find(&mut self, scope: &Scope, id: &CustomerSessionId) -> Result<Option<CustomerSession>, StoreError> {
        Ok(self
            .customer_sessions
            .iter()
            .find(|s| &s.id == id && in_scope_of(&s.account_id, s.livemode, scope))
            .cloned())
    }

    fn of_customer(
        &mut self,
        scope: &Scope,
        customer_id: &CustomerId,
        limit: u32,
    ) -> Result<Vec<CustomerSession>, StoreError> {
        Ok(self
            .customer_sessions
            .iter()
            .rev()
            .filter(|s| &s.customer_id == customer_id && in_scope_of(&s.account_id, s.livemode, scope))
            .take(limit as usize)
            .cloned()
            .collect())
    }
}
