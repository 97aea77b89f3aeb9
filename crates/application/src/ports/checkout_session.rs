//! Storage of checkout sessions.

use crate::error::StoreError;
use crate::pagination::{Page, PageRequest};
use crate::scope::Scope;
use payments_domain::checkout_session::{CheckoutSession, CheckoutSessionStatus};
use payments_domain::ids::{CheckoutSessionId, PaymentIntentId};
use payments_domain::time::Timestamp;

/// The list filters of `GET /checkout_sessions`; every given one must match.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CheckoutSessionFilter {
    pub status: Option<CheckoutSessionStatus>,
    pub customer_reference_id: Option<String>,
}

/// Checkout sessions, confined to a scope except where the hosted page or a job finds them.
pub trait CheckoutSessionRepository {
    /// # Errors
    /// Storage failures.
    fn insert(&mut self, session: &CheckoutSession) -> Result<(), StoreError>;

    /// # Errors
    /// Storage failures.
    fn find(&mut self, scope: &Scope, id: &CheckoutSessionId) -> Result<Option<CheckoutSession>, StoreError>;

    /// The session `id` in any scope: the hosted page knows only the client secret, which names the
    /// session (the caller compares the secret).
    ///
    /// # Errors
    /// Storage failures.
    fn find_for_page(&mut self, id: &CheckoutSessionId) -> Result<Option<CheckoutSession>, StoreError>;

    /// The session paid through `payment_intent_id`, if the intent belongs to one.
    ///
    /// # Errors
    /// Storage failures.
    fn find_by_payment_intent(
        &mut self,
        scope: &Scope,
        payment_intent_id: &PaymentIntentId,
    ) -> Result<Option<CheckoutSession>, StoreError>;

    /// Writes `session` if its stored version is still `expected_version`.
    ///
    /// # Errors
    /// [`StoreError::Conflict`] when the version moved on; storage failures.
    fn update(&mut self, session: &CheckoutSession, expected_version: i64) -> Result<(), StoreError>;

    /// A page of the scope's sessions that match `filter`, newest first.
    ///
    /// # Errors
    /// [`StoreError::UnknownCursor`] when the cursor names no session of the scope; storage failures.
    fn list(
        &mut self,
        scope: &Scope,
        filter: &CheckoutSessionFilter,
        page: &PageRequest,
    ) -> Result<Page<CheckoutSession>, StoreError>;

    /// Up to `limit` active sessions whose `expires_at` has passed at `now`, in `within` or in any
    /// scope, the longest expired first.
    ///
    /// # Errors
    /// Storage failures.
    fn expired(
        &mut self,
        within: Option<&Scope>,
        now: Timestamp,
        limit: u32,
    ) -> Result<Vec<CheckoutSession>, StoreError>;
}
