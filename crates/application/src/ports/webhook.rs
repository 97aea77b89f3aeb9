//! Storage of webhooks, their deliveries and delivery attempts; and the check of webhook URLs.

use crate::error::StoreError;
use crate::pagination::{Page, PageRequest};
use crate::scope::Scope;
use payments_domain::ids::{DeliveryId, EventId, WebhookId};
use payments_domain::webhook::{Delivery, DeliveryStatus, Webhook};

/// Exact-match filters of the webhook list.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct WebhookFilter {
    pub url: Option<String>,
    pub description: Option<String>,
}

/// Webhooks, confined to a scope.
pub trait WebhookRepository {
    /// # Errors
    /// Storage failures.
    fn insert(&mut self, webhook: &Webhook) -> Result<(), StoreError>;

    /// # Errors
    /// Storage failures.
    fn find(&mut self, scope: &Scope, id: &WebhookId) -> Result<Option<Webhook>, StoreError>;

    /// # Errors
    /// [`StoreError::Conflict`] when the version moved on; storage failures.
    fn update(&mut self, webhook: &Webhook, expected_version: i64) -> Result<(), StoreError>;

    /// # Errors
    /// Storage failures.
    fn delete(&mut self, webhook: &Webhook) -> Result<(), StoreError>;

    /// # Errors
    /// [`StoreError::UnknownCursor`]; storage failures.
    fn list(&mut self, scope: &Scope, filter: &WebhookFilter, page: &PageRequest) -> Result<Page<Webhook>, StoreError>;

    /// The enabled webhooks of the scope.
    ///
    /// # Errors
    /// Storage failures.
    fn enabled(&mut self, scope: &Scope) -> Result<Vec<Webhook>, StoreError>;
}

/// One attempt to deliver, as recorded for the merchant.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeliveryAttempt {
    pub delivery_id: DeliveryId,
    pub webhook_id: WebhookId,
    pub event_id: EventId,
    pub attempted_at_ms: i64,
    pub status_code: Option<u16>,
    pub error: Option<String>,
    pub duration_ms: i64,
}

/// Deliveries and their attempts. Deliveries are found across scopes by the delivery worker.
pub trait DeliveryRepository {
    /// # Errors
    /// Storage failures.
    fn insert(&mut self, delivery: &Delivery) -> Result<(), StoreError>;

    /// Pending deliveries due at `now_ms` whose lease, if any, has run out.
    ///
    /// # Errors
    /// Storage failures.
    fn due(&mut self, now_ms: i64, limit: u32) -> Result<Vec<Delivery>, StoreError>;

    /// Takes the lease of a due delivery for `owner` until `lease_until_ms`; false when another
    /// owner holds it or it is no longer pending.
    ///
    /// # Errors
    /// Storage failures.
    fn claim(&mut self, id: &DeliveryId, owner: &str, now_ms: i64, lease_until_ms: i64) -> Result<bool, StoreError>;

    /// Writes the outcome of an attempt and releases the lease, if `owner` still holds it.
    ///
    /// # Errors
    /// Storage failures.
    fn settle(&mut self, delivery: &Delivery, owner: &str) -> Result<bool, StoreError>;

    /// Moves the webhook's deliveries in `from` to `to`, due at `due_at_ms` when given; returns the
    /// ones moved.
    ///
    /// # Errors
    /// Storage failures.
    fn move_all(
        &mut self,
        webhook_id: &WebhookId,
        from: DeliveryStatus,
        to: DeliveryStatus,
        due_at_ms: Option<i64>,
    ) -> Result<Vec<Delivery>, StoreError>;

    /// # Errors
    /// Storage failures.
    fn record_attempt(&mut self, attempt: &DeliveryAttempt) -> Result<(), StoreError>;

    /// The webhook's latest attempts, newest first.
    ///
    /// # Errors
    /// Storage failures.
    fn attempts(&mut self, webhook_id: &WebhookId, limit: u32) -> Result<Vec<DeliveryAttempt>, StoreError>;
}

/// Checks that a webhook URL may be used in a mode.
pub trait UrlGuard: Send + Sync {
    /// # Errors
    /// Why the URL is refused, as a sentence for the merchant.
    fn check(&self, url: &str, livemode: bool) -> Result<(), String>;
}
