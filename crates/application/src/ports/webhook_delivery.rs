//! Storage of webhook deliveries and their attempts, and the sending of a signed delivery.

use crate::error::StoreError;
use crate::scope::Scope;
use payments_domain::ids::{AccountId, DeliveryId, EventId, WebhookId};
use payments_domain::time::Timestamp;
use payments_domain::webhook::{DeliveryMove, Webhook};
use payments_domain::webhook_delivery::{AttemptOutcome, Delivery};
use std::future::Future;
use std::pin::Pin;

/// Deliveries a look for due ones passes over: those to endpoints, and of accounts, that take no
/// more now.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PassOver {
    pub webhooks: Vec<WebhookId>,
    pub accounts: Vec<AccountId>,
}

/// One attempt to deliver, as recorded for the merchant.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeliveryAttempt {
    pub account_id: AccountId,
    pub livemode: bool,
    pub delivery_id: DeliveryId,
    pub webhook_id: WebhookId,
    pub event_id: EventId,
    pub attempted_at: Timestamp,
    pub status_code: Option<u16>,
    pub error: Option<String>,
    pub duration_ms: i64,
    /// The start of the receiver's answer.
    pub response_excerpt: Option<String>,
}

impl DeliveryAttempt {
    /// Whether this attempt delivered its event ([`payments_domain::webhook_delivery::is_delivered`]).
    #[must_use]
    pub fn delivered(&self) -> bool {
        payments_domain::webhook_delivery::is_delivered(self.status_code, self.error.as_deref())
    }

    /// The attempt to send `delivery` at `attempted_at`, with what came of it.
    #[must_use]
    pub fn of(delivery: &Delivery, attempted_at: Timestamp, outcome: &AttemptOutcome) -> Self {
        Self {
            account_id: delivery.account_id().clone(),
            livemode: delivery.livemode(),
            delivery_id: delivery.id().clone(),
            webhook_id: delivery.webhook_id().clone(),
            event_id: delivery.event_id().clone(),
            attempted_at,
            status_code: outcome.status_code,
            error: outcome.error.clone(),
            duration_ms: outcome.duration_ms,
            response_excerpt: outcome.response_excerpt.clone(),
        }
    }
}

/// Deliveries and their attempts. Deliveries are found across scopes by the delivery worker.
pub trait DeliveryRepository {
    /// Stores `deliveries`.
    ///
    /// # Errors
    /// Storage failures.
    fn insert(&mut self, deliveries: &[Delivery]) -> Result<(), StoreError>;

    /// Pending deliveries due at `now` whose lease, if any, has run out, the longest waiting first,
    /// but those `pass_over` names.
    ///
    /// # Errors
    /// Storage failures.
    fn due(&mut self, now: Timestamp, limit: u32, pass_over: &PassOver) -> Result<Vec<Delivery>, StoreError>;

    /// Takes the leases of the deliveries of `ids` that are still due (pending, their lease run out)
    /// for `owner` until `lease_until`, atomically (of two owners claiming one delivery at once, one
    /// gets it); returns the ids it took. Another owner's lease and a delivery no longer pending are
    /// left alone.
    ///
    /// # Errors
    /// Storage failures.
    fn claim(
        &mut self,
        ids: &[DeliveryId],
        owner: &str,
        now: Timestamp,
        lease_until: Timestamp,
    ) -> Result<Vec<DeliveryId>, StoreError>;

    /// Gives back `owner`'s leases on the deliveries of `ids`, which were not attempted: they are
    /// due again at once, for any instance. Returns how many were given back.
    ///
    /// # Errors
    /// Storage failures.
    fn release(&mut self, ids: &[DeliveryId], owner: &str) -> Result<u64, StoreError>;

    /// Writes the outcome of an attempt and releases the lease, if `owner` still holds it and the
    /// delivery is still pending (one paused or canceled meanwhile stays so).
    ///
    /// # Errors
    /// Storage failures.
    fn settle(&mut self, delivery: &Delivery, owner: &str) -> Result<bool, StoreError>;

    /// Applies `change` (see [`Delivery::apply`]) to every delivery of the webhook, however many
    /// there are; returns how many moved.
    ///
    /// # Errors
    /// Storage failures.
    fn move_all(&mut self, webhook: &Webhook, change: &DeliveryMove) -> Result<u64, StoreError>;

    /// Makes the webhook's pending deliveries that would fall due before `until` wait until then,
    /// but those leased at `now` (their sender records them); returns how many moved.
    ///
    /// # Errors
    /// Storage failures.
    fn postpone(&mut self, webhook: &Webhook, until: Timestamp, now: Timestamp) -> Result<u64, StoreError>;

    /// Makes the webhook's pending deliveries that would fall due after `now` but before `until`
    /// due at `now` (see [`Delivery::bring_forward`]), but those leased at `now`; returns how many
    /// moved.
    ///
    /// # Errors
    /// Storage failures.
    fn bring_forward(&mut self, webhook: &Webhook, until: Timestamp, now: Timestamp) -> Result<u64, StoreError>;

    /// Requeues the webhook's deliveries that failed at or after `since` as `recovery` says (see
    /// [`Delivery::recover`]), with a new retry window. Returns how many.
    ///
    /// # Errors
    /// Storage failures.
    fn recover(&mut self, webhook: &Webhook, since: Timestamp, recovery: &DeliveryMove) -> Result<u64, StoreError>;

    /// Stores the attempts.
    ///
    /// # Errors
    /// Storage failures.
    fn record_attempts(&mut self, attempts: &[DeliveryAttempt]) -> Result<(), StoreError>;

    /// The webhook's latest attempts, newest first.
    ///
    /// # Errors
    /// Storage failures.
    fn attempts(&mut self, webhook: &Webhook, limit: u32) -> Result<Vec<DeliveryAttempt>, StoreError>;

    /// The scope's latest `limit` attempts, to any of its webhooks, that did not deliver their event
    /// ([`DeliveryAttempt::delivered`]), newest first.
    ///
    /// # Errors
    /// Storage failures.
    fn failed_attempts(&mut self, scope: &Scope, limit: u32) -> Result<Vec<DeliveryAttempt>, StoreError>;

    /// The attempts to deliver the scope's event `event_id`, to any webhook, oldest first.
    ///
    /// # Errors
    /// Storage failures.
    fn attempts_of_event(&mut self, scope: &Scope, event_id: &EventId) -> Result<Vec<DeliveryAttempt>, StoreError>;

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

/// One signed delivery to send.
#[derive(Debug, Clone, Copy)]
pub struct OutgoingWebhook<'a> {
    pub url: &'a str,
    /// The event's id: the message id of the Standard Webhooks headers, the same on every attempt.
    pub event_id: &'a str,
    /// The event envelope, sent byte for byte.
    pub body: &'a str,
    /// The secrets it is signed with, the current one first.
    pub secret_keys: &'a [String],
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
