//! Storage of webhooks, their deliveries and delivery attempts; the check of webhook URLs; and the
//! sending of a signed delivery.

use crate::error::StoreError;
use crate::pagination::{Page, PageRequest};
use crate::scope::Scope;
use payments_domain::ids::{DeliveryId, EventId, WebhookId};
use payments_domain::time::Timestamp;
use payments_domain::webhook::{AttemptOutcome, Delivery, DeliveryMove, Webhook};
use std::future::Future;
use std::pin::Pin;

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
    pub attempted_at: Timestamp,
    pub status_code: Option<u16>,
    pub error: Option<String>,
    pub duration_ms: i64,
}

/// Deliveries and their attempts. Deliveries are found across scopes by the delivery worker.
pub trait DeliveryRepository {
    /// Stores `deliveries`, in one statement.
    ///
    /// # Errors
    /// Storage failures.
    fn insert(&mut self, deliveries: &[Delivery]) -> Result<(), StoreError>;

    /// Pending deliveries due at `now` whose lease, if any, has run out, the longest waiting first.
    ///
    /// # Errors
    /// Storage failures.
    fn due(&mut self, now: Timestamp, limit: u32) -> Result<Vec<Delivery>, StoreError>;

    /// Takes the lease of a due delivery for `owner` until `lease_until`; false when another owner
    /// holds it or it is no longer pending.
    ///
    /// # Errors
    /// Storage failures.
    fn claim(
        &mut self,
        id: &DeliveryId,
        owner: &str,
        now: Timestamp,
        lease_until: Timestamp,
    ) -> Result<bool, StoreError>;

    /// Writes the outcome of an attempt and releases the lease, if `owner` still holds it.
    ///
    /// # Errors
    /// Storage failures.
    fn settle(&mut self, delivery: &Delivery, owner: &str) -> Result<bool, StoreError>;

    /// Applies `change` (see [`Delivery::apply`]) to every delivery of the webhook; returns the
    /// ones moved, as they are after the move.
    ///
    /// # Errors
    /// Storage failures.
    fn move_all(&mut self, webhook_id: &WebhookId, change: &DeliveryMove) -> Result<Vec<Delivery>, StoreError>;

    /// Stores the attempts, in one statement.
    ///
    /// # Errors
    /// Storage failures.
    fn record_attempts(&mut self, attempts: &[DeliveryAttempt]) -> Result<(), StoreError>;

    /// The webhook's latest attempts, newest first.
    ///
    /// # Errors
    /// Storage failures.
    fn attempts(&mut self, webhook_id: &WebhookId, limit: u32) -> Result<Vec<DeliveryAttempt>, StoreError>;

    /// How many deliveries of every account are pending, and since when the oldest is.
    ///
    /// # Errors
    /// Storage failures.
    fn backlog(&mut self) -> Result<DeliveryBacklog, StoreError>;
}

/// The deliveries not yet delivered or given up, across accounts (for operators' metrics).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct DeliveryBacklog {
    pub pending: i64,
    /// When the oldest pending delivery was created.
    pub oldest_created_at: Option<Timestamp>,
}

/// Checks that a webhook URL may be used in a mode.
pub trait UrlGuard: Send + Sync {
    /// # Errors
    /// Why the URL is refused, as a sentence for the merchant.
    fn check(&self, url: &str, livemode: bool) -> Result<(), String>;
}

/// One signed delivery to send.
#[derive(Debug, Clone, Copy)]
pub struct OutgoingWebhook<'a> {
    pub url: &'a str,
    /// The event envelope, sent byte for byte.
    pub body: &'a str,
    pub secret_key: &'a str,
    /// Which field of the signature header carries the signature (`li` live, `te` test).
    pub livemode: bool,
    /// The time the signature states; it comes from the `Clock`.
    pub signed_at: Timestamp,
}

/// What sending returns: a future that reports the attempt's outcome.
pub type Sending<'a> = Pin<Box<dyn Future<Output = AttemptOutcome> + Send + 'a>>;

/// Sends a signed body to a webhook's URL. The only asynchronous port: delivery runs in a background
/// worker, never inside a request.
pub trait WebhookSender: Send + Sync {
    /// Sends `webhook` once and reports how it went; a refused connection, a timeout or an address
    /// the mode may not reach is an outcome with an `error`, not a failure of this call.
    fn send<'a>(&'a self, webhook: OutgoingWebhook<'a>) -> Sending<'a>;
}
