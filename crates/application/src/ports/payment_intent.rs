//! Storage of payment intents.

use crate::error::StoreError;
use crate::pagination::{Page, PageRequest};
use crate::scope::Scope;
use payments_domain::ids::{CustomerId, PaymentIntentId};
use payments_domain::payment_intent::{PaymentIntent, PaymentIntentStatus};
use payments_domain::time::Timestamp;

/// The filters of a list of payment intents; every given one must match.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PaymentIntentFilter {
    pub status: Option<PaymentIntentStatus>,
    /// Intents of any of these customers.
    pub customers: Option<Vec<CustomerId>>,
    /// The amount, from and to, in centavos.
    pub amount_from: Option<i64>,
    pub amount_to: Option<i64>,
    /// Created at or after, and at or before.
    pub created_from: Option<Timestamp>,
    pub created_to: Option<Timestamp>,
    /// Intents with a metadata value equal to this, under any key.
    pub metadata_value: Option<String>,
}

impl PaymentIntentFilter {
    /// Whether `intent` passes this filter.
    #[must_use]
    pub fn matches(&self, intent: &PaymentIntent) -> bool {
        let created = intent.created_at();
        self.status.is_none_or(|status| intent.status() == status)
            && self.customers.as_ref().is_none_or(|ids| intent.customer_id().is_some_and(|id| ids.contains(id)))
            && self.amount_from.is_none_or(|from| intent.amount().centavos() >= from)
            && self.amount_to.is_none_or(|to| intent.amount().centavos() <= to)
            && self.created_from.is_none_or(|from| created >= from)
            && self.created_to.is_none_or(|to| created <= to)
            && self.metadata_value.as_ref().is_none_or(|value| {
                intent.metadata().is_some_and(|metadata| metadata.pairs().values().any(|found| found == value))
            })
    }
}

/// Where an intent stands: what the console's overview counts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IntentOutcome {
    pub status: PaymentIntentStatus,
    pub amount_received: i64,
    pub created_at: Timestamp,
}

/// Payment intents, confined to a scope except where a secret token or a job finds them.
pub trait PaymentIntentRepository {
    /// # Errors
    /// Storage failures.
    fn insert(&mut self, intent: &PaymentIntent) -> Result<(), StoreError>;

    /// # Errors
    /// Storage failures.
    fn find(&mut self, scope: &Scope, id: &PaymentIntentId) -> Result<Option<PaymentIntent>, StoreError>;

    /// The intents of the scope among `ids`, in no set order; an id of none is left out.
    ///
    /// # Errors
    /// Storage failures.
    fn find_many(&mut self, scope: &Scope, ids: &[PaymentIntentId]) -> Result<Vec<PaymentIntent>, StoreError>;

    /// Writes `intent` if its stored version is still `expected_version`.
    ///
    /// # Errors
    /// [`StoreError::Conflict`] when the version moved on; storage failures.
    fn update(&mut self, intent: &PaymentIntent, expected_version: i64) -> Result<(), StoreError>;

    /// The intent `id`, of whichever scope: a hosted page's link (the intent's client secret,
    /// checked by the caller) names no account.
    ///
    /// # Errors
    /// Storage failures.
    fn find_for_page(&mut self, id: &PaymentIntentId) -> Result<Option<PaymentIntent>, StoreError>;

    /// The intent whose pending redirect has this secret token, in any scope.
    ///
    /// # Errors
    /// Storage failures.
    fn find_by_redirect_token(&mut self, token: &str) -> Result<Option<PaymentIntent>, StoreError>;

    /// Up to `limit` intents whose background action is due at `now`, in `within` or in any
    /// scope, the longest due first.
    ///
    /// # Errors
    /// Storage failures.
    fn due(&mut self, within: Option<&Scope>, now: Timestamp, limit: u32) -> Result<Vec<PaymentIntent>, StoreError>;

    /// A page of the scope's intents that match `filter`, newest first.
    ///
    /// # Errors
    /// [`StoreError::UnknownCursor`] when the cursor names no intent of the scope; storage failures.
    fn list(
        &mut self,
        scope: &Scope,
        filter: &PaymentIntentFilter,
        page: &PageRequest,
    ) -> Result<Page<PaymentIntent>, StoreError>;

    /// Where the scope's latest `limit` intents stand, newest first.
    ///
    /// # Errors
    /// Storage failures.
    fn latest_outcomes(&mut self, scope: &Scope, limit: u32) -> Result<Vec<IntentOutcome>, StoreError>;
}
