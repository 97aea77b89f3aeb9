//! Webhooks: endpoints that receive signed events, and the deliveries that carry them there with
//! retries.
//!
//! ```text
//! webhook:   enabled ──disable──► disabled ──enable──► enabled          (deleted: gone)
//! delivery:  pending ──2xx──► delivered
//!               │  └──failure──► pending (retry at a later time) ──…──► failed (retry window closed)
//!               ├──webhook disabled──► paused ──webhook enabled──► pending (due at once)
//!               └──webhook deleted──► canceled   (paused too)
//! ```
//!
//! Fields are private: a webhook or a delivery changes only through these transitions.

use crate::description::Description;
use crate::event::EventType;
use crate::ids::{AccountId, DeliveryId, EventId, WebhookId};
use crate::limits::URL_LENGTH;
use crate::time::Timestamp;
use crate::validation::Invalid;
use std::fmt;

/// Whether a webhook receives events.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WebhookStatus {
    Enabled,
    Disabled,
}

impl WebhookStatus {
    pub const ALL: [Self; 2] = [Self::Enabled, Self::Disabled];

    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Enabled => "enabled",
            Self::Disabled => "disabled",
        }
    }

    #[must_use]
    pub fn parse(value: &str) -> Option<Self> {
        match value {
            "enabled" => Some(Self::Enabled),
            "disabled" => Some(Self::Disabled),
            _ => None,
        }
    }
}

/// The key a merchant verifies signatures with: `whsk_` and 32 random alphanumerics. `Debug` hides it.
#[derive(Clone, PartialEq, Eq)]
pub struct WebhookSecret(String);

impl WebhookSecret {
    #[must_use]
    pub fn new(random: &str) -> Self {
        Self(format!("whsk_{random}"))
    }

    #[must_use]
    pub fn from_stored(value: String) -> Self {
        Self(value)
    }

    #[must_use]
    pub fn reveal(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for WebhookSecret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("WebhookSecret([redacted])")
    }
}

/// Where a webhook sends events: an absolute `http` or `https` URL with a host, at most 2,048
/// characters. Which addresses a mode may reach is the URL guard's business, not this type's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WebhookUrl(String);

impl WebhookUrl {
    /// # Errors
    /// `parameter_invalid` for anything but an absolute http(s) URL with a host, or over 2,048
    /// characters.
    pub fn new(text: String) -> Result<Self, Invalid> {
        if text.chars().count() > URL_LENGTH {
            return Err(Invalid::value(format!("The URL must be at most {URL_LENGTH} characters long.")));
        }
        let valid =
            url::Url::parse(&text).is_ok_and(|url| matches!(url.scheme(), "http" | "https") && url.host().is_some());
        if !valid {
            return Err(Invalid::value("The URL must be an absolute http or https URL."));
        }
        Ok(Self(text))
    }

    #[must_use]
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// What a merchant supplies to register a webhook.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewWebhook {
    pub url: WebhookUrl,
    pub events: Vec<EventType>,
    pub description: Option<Description>,
}

/// Fields an update may change; `None` leaves a field as it is.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct WebhookChanges {
    pub url: Option<WebhookUrl>,
    pub events: Option<Vec<EventType>>,
    pub description: Option<Description>,
}

/// A webhook endpoint.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Webhook {
    id: WebhookId,
    account_id: AccountId,
    livemode: bool,
    url: WebhookUrl,
    events: Vec<EventType>,
    description: Option<Description>,
    secret_key: WebhookSecret,
    status: WebhookStatus,
    created_at: Timestamp,
    updated_at: Timestamp,
    version: i64,
}

/// A webhook as a repository stores it, to restore it with [`Webhook::restore`].
#[derive(Debug, Clone)]
pub struct StoredWebhook {
    pub id: WebhookId,
    pub account_id: AccountId,
    pub livemode: bool,
    pub url: WebhookUrl,
    pub events: Vec<EventType>,
    pub description: Option<Description>,
    pub secret_key: WebhookSecret,
    pub status: WebhookStatus,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
    pub version: i64,
}

/// How a webhook's outstanding deliveries move when the webhook changes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DeliveryMove {
    pub from: DeliveryStatus,
    pub to: DeliveryStatus,
    /// When the moved deliveries are next due, if that changes.
    pub due_at: Option<Timestamp>,
}

impl DeliveryMove {
    /// Whether the moved deliveries leave their events' count of pending webhooks.
    #[must_use]
    pub fn settles(self) -> bool {
        self.from.is_outstanding() && !self.to.is_outstanding()
    }
}

impl Webhook {
    /// A new webhook, enabled.
    #[must_use]
    pub fn create(
        id: WebhookId,
        account_id: AccountId,
        livemode: bool,
        secret_key: WebhookSecret,
        new: NewWebhook,
        now: Timestamp,
    ) -> Self {
        Self {
            id,
            account_id,
            livemode,
            url: new.url,
            events: new.events,
            description: new.description,
            secret_key,
            status: WebhookStatus::Enabled,
            created_at: now,
            updated_at: now,
            version: 1,
        }
    }

    /// A webhook read back from storage.
    #[must_use]
    pub fn restore(stored: StoredWebhook) -> Self {
        let StoredWebhook {
            id,
            account_id,
            livemode,
            url,
            events,
            description,
            secret_key,
            status,
            created_at,
            updated_at,
            version,
        } = stored;
        Self { id, account_id, livemode, url, events, description, secret_key, status, created_at, updated_at, version }
    }

    /// Applies a merchant's changes.
    pub fn update(&mut self, changes: WebhookChanges, now: Timestamp) {
        let WebhookChanges { url, events, description } = changes;
        if let Some(url) = url {
            self.url = url;
        }
        if let Some(events) = events {
            self.events = events;
        }
        if description.is_some() {
            self.description = description;
        }
        self.touch(now);
    }

    /// Enables the webhook: its paused deliveries become due at once.
    #[must_use]
    pub fn enable(&mut self, now: Timestamp) -> DeliveryMove {
        self.status = WebhookStatus::Enabled;
        self.touch(now);
        DeliveryMove { from: DeliveryStatus::Paused, to: DeliveryStatus::Pending, due_at: Some(now) }
    }

    /// Disables the webhook: no new events, and its pending deliveries wait until it is enabled.
    #[must_use]
    pub fn disable(&mut self, now: Timestamp) -> DeliveryMove {
        self.status = WebhookStatus::Disabled;
        self.touch(now);
        DeliveryMove { from: DeliveryStatus::Pending, to: DeliveryStatus::Paused, due_at: None }
    }

    /// What deleting the webhook does to its outstanding deliveries: they are canceled.
    #[must_use]
    pub fn deletion(&self) -> [DeliveryMove; 2] {
        [DeliveryStatus::Pending, DeliveryStatus::Paused].map(|from| DeliveryMove {
            from,
            to: DeliveryStatus::Canceled,
            due_at: None,
        })
    }

    /// Whether this webhook is sent events of `event_type` now.
    #[must_use]
    pub fn receives(&self, event_type: EventType) -> bool {
        self.status == WebhookStatus::Enabled && self.events.contains(&event_type)
    }

    fn touch(&mut self, now: Timestamp) {
        self.updated_at = now;
        self.version += 1;
    }

    #[must_use]
    pub fn id(&self) -> &WebhookId {
        &self.id
    }

    #[must_use]
    pub fn account_id(&self) -> &AccountId {
        &self.account_id
    }

    #[must_use]
    pub fn livemode(&self) -> bool {
        self.livemode
    }

    #[must_use]
    pub fn url(&self) -> &WebhookUrl {
        &self.url
    }

    #[must_use]
    pub fn events(&self) -> &[EventType] {
        &self.events
    }

    #[must_use]
    pub fn description(&self) -> Option<&Description> {
        self.description.as_ref()
    }

    #[must_use]
    pub fn secret_key(&self) -> &WebhookSecret {
        &self.secret_key
    }

    #[must_use]
    pub fn status(&self) -> WebhookStatus {
        self.status
    }

    #[must_use]
    pub fn created_at(&self) -> Timestamp {
        self.created_at
    }

    #[must_use]
    pub fn updated_at(&self) -> Timestamp {
        self.updated_at
    }

    #[must_use]
    pub fn version(&self) -> i64 {
        self.version
    }
}

/// Where a delivery stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DeliveryStatus {
    /// Waiting for its next attempt.
    Pending,
    /// Held while its webhook is disabled.
    Paused,
    Delivered,
    /// Gave up after the retry window.
    Failed,
    /// Its webhook was deleted.
    Canceled,
}

impl DeliveryStatus {
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Pending => "pending",
            Self::Paused => "paused",
            Self::Delivered => "delivered",
            Self::Failed => "failed",
            Self::Canceled => "canceled",
        }
    }

    #[must_use]
    pub fn parse(value: &str) -> Option<Self> {
        [Self::Pending, Self::Paused, Self::Delivered, Self::Failed, Self::Canceled]
            .into_iter()
            .find(|status| status.as_str() == value)
    }

    /// Whether a delivery in this status still counts in its event's `pending_webhooks`.
    #[must_use]
    pub fn is_outstanding(self) -> bool {
        match self {
            Self::Pending | Self::Paused => true,
            Self::Delivered | Self::Failed | Self::Canceled => false,
        }
    }
}

/// What one attempt to send a delivery came to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AttemptOutcome {
    /// The receiver's HTTP status, if it answered.
    pub status_code: Option<u16>,
    /// Why there was no answer, or why the attempt was not made.
    pub error: Option<String>,
    pub duration_ms: i64,
}

impl AttemptOutcome {
    /// A 2xx answer within the timeout.
    #[must_use]
    pub fn delivered(&self) -> bool {
        self.error.is_none() && self.status_code.is_some_and(|code| (200..300).contains(&code))
    }
}

/// What recording an attempt did to a delivery.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DeliveryStep {
    Delivered,
    /// Failed this time; tried again at this time.
    RetryAt(Timestamp),
    /// Failed, and the retry window is closed.
    Failed,
}

impl DeliveryStep {
    /// Whether the delivery left its event's count of pending webhooks.
    #[must_use]
    pub fn settles(self) -> bool {
        match self {
            Self::Delivered | Self::Failed => true,
            Self::RetryAt(_) => false,
        }
    }
}

/// One event on its way to one webhook.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Delivery {
    id: DeliveryId,
    account_id: AccountId,
    livemode: bool,
    webhook_id: WebhookId,
    event_id: EventId,
    status: DeliveryStatus,
    attempts: i64,
    next_attempt_at: Timestamp,
    created_at: Timestamp,
}

/// A delivery as a repository stores it, to restore it with [`Delivery::restore`].
#[derive(Debug, Clone)]
pub struct StoredDelivery {
    pub id: DeliveryId,
    pub account_id: AccountId,
    pub livemode: bool,
    pub webhook_id: WebhookId,
    pub event_id: EventId,
    pub status: DeliveryStatus,
    pub attempts: i64,
    pub next_attempt_at: Timestamp,
    pub created_at: Timestamp,
}

impl Delivery {
    /// A delivery of `event_id` to `webhook`: due at once, or paused while the webhook is disabled.
    #[must_use]
    pub fn new(id: DeliveryId, webhook: &Webhook, event_id: EventId, now: Timestamp) -> Self {
        let status = match webhook.status {
            WebhookStatus::Enabled => DeliveryStatus::Pending,
            WebhookStatus::Disabled => DeliveryStatus::Paused,
        };
        Self {
            id,
            account_id: webhook.account_id.clone(),
            livemode: webhook.livemode,
            webhook_id: webhook.id.clone(),
            event_id,
            status,
            attempts: 0,
            next_attempt_at: now,
            created_at: now,
        }
    }

    /// A delivery read back from storage.
    #[must_use]
    pub fn restore(stored: StoredDelivery) -> Self {
        let StoredDelivery {
            id,
            account_id,
            livemode,
            webhook_id,
            event_id,
            status,
            attempts,
            next_attempt_at,
            created_at,
        } = stored;
        Self { id, account_id, livemode, webhook_id, event_id, status, attempts, next_attempt_at, created_at }
    }

    /// Records an attempt made at `now`: delivered on a 2xx, else retried after the schedule's delay
    /// (`random` in `[0, 1)` draws the jitter) until the retry window closes, then failed.
    pub fn record(
        &mut self,
        outcome: &AttemptOutcome,
        schedule: &RetrySchedule,
        now: Timestamp,
        random: f64,
    ) -> DeliveryStep {
        self.attempts += 1;
        let step = if outcome.delivered() {
            DeliveryStep::Delivered
        } else if schedule.gives_up(self.created_at, now) {
            DeliveryStep::Failed
        } else {
            DeliveryStep::RetryAt(now.plus_millis(schedule.delay_ms(self.attempts, random)))
        };
        match step {
            DeliveryStep::Delivered => self.status = DeliveryStatus::Delivered,
            DeliveryStep::Failed => self.status = DeliveryStatus::Failed,
            DeliveryStep::RetryAt(at) => self.next_attempt_at = at,
        }
        step
    }

    /// Moves this delivery as its webhook's change says, if it is in the status moved from; tells
    /// whether it moved.
    pub fn apply(&mut self, change: &DeliveryMove) -> bool {
        if self.status != change.from {
            return false;
        }
        self.status = change.to;
        if let Some(due_at) = change.due_at {
            self.next_attempt_at = due_at;
        }
        true
    }

    #[must_use]
    pub fn id(&self) -> &DeliveryId {
        &self.id
    }

    #[must_use]
    pub fn account_id(&self) -> &AccountId {
        &self.account_id
    }

    #[must_use]
    pub fn livemode(&self) -> bool {
        self.livemode
    }

    #[must_use]
    pub fn webhook_id(&self) -> &WebhookId {
        &self.webhook_id
    }

    #[must_use]
    pub fn event_id(&self) -> &EventId {
        &self.event_id
    }

    #[must_use]
    pub fn status(&self) -> DeliveryStatus {
        self.status
    }

    #[must_use]
    pub fn attempts(&self) -> i64 {
        self.attempts
    }

    #[must_use]
    pub fn next_attempt_at(&self) -> Timestamp {
        self.next_attempt_at
    }

    #[must_use]
    pub fn created_at(&self) -> Timestamp {
        self.created_at
    }
}

/// The retry schedule: exponential backoff from `base_ms`, capped at `cap_ms`, with a share
/// `jitter` (0 to 1) of each delay drawn at random ("full jitter" at 1), given up after
/// `give_up_after_ms` from the delivery's creation.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RetrySchedule {
    pub base_ms: i64,
    pub cap_ms: i64,
    pub jitter: f64,
    pub give_up_after_ms: i64,
}

impl RetrySchedule {
    /// The delay before attempt `attempts + 1`, after `attempts` failed ones; `random` is uniform in
    /// `[0, 1)`.
    #[must_use]
    pub fn delay_ms(&self, attempts: i64, random: f64) -> i64 {
        let exponent = u32::try_from(attempts.saturating_sub(1).clamp(0, 40)).unwrap_or(40);
        let ceiling = self.base_ms.saturating_mul(1_i64 << exponent.min(40)).min(self.cap_ms);
        #[allow(clippy::cast_precision_loss, clippy::cast_possible_truncation)]
        let jittered = (ceiling as f64 * (1.0 - self.jitter * random.clamp(0.0, 1.0))) as i64;
        jittered.max(1)
    }

    /// Whether a delivery created at `created_at` is past its retry window at `now`.
    #[must_use]
    pub fn gives_up(&self, created_at: Timestamp, now: Timestamp) -> bool {
        now.millis_since(created_at) >= self.give_up_after_ms
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::validation::ErrorCode;

    const SCHEDULE: RetrySchedule =
        RetrySchedule { base_ms: 1_000, cap_ms: 10_000, jitter: 0.0, give_up_after_ms: 60_000 };

    fn webhook() -> Webhook {
        let new = NewWebhook {
            url: WebhookUrl::new("https://shop.example/hooks".into()).expect("a URL"),
            events: vec![EventType::PaymentPaid],
            description: None,
        };
        Webhook::create(
            WebhookId::from_random("w"),
            AccountId::from_random("a"),
            false,
            WebhookSecret::new("s"),
            new,
            Timestamp::from_unix_seconds(100),
        )
    }

    fn failure() -> AttemptOutcome {
        AttemptOutcome { status_code: Some(503), error: None, duration_ms: 3 }
    }

    #[test]
    fn retries_back_off_exponentially_up_to_the_cap() {
        let delays: Vec<i64> = (1..=6).map(|attempts| SCHEDULE.delay_ms(attempts, 0.5)).collect();
        assert_eq!(delays, vec![1_000, 2_000, 4_000, 8_000, 10_000, 10_000]);
        let full_jitter = RetrySchedule { jitter: 1.0, ..SCHEDULE };
        assert_eq!(full_jitter.delay_ms(3, 0.5), 2_000);
        assert!(full_jitter.delay_ms(3, 0.99) >= 1);
        let start = Timestamp::from_unix_seconds(0);
        assert!(SCHEDULE.gives_up(start, start.plus_millis(60_000)));
        assert!(!SCHEDULE.gives_up(start, start.plus_millis(59_999)));
    }

    #[test]
    fn a_delivery_is_delivered_retried_or_failed_by_its_attempts() {
        let webhook = webhook();
        let start = Timestamp::from_unix_seconds(100);
        let mut delivery = Delivery::new(DeliveryId::from_random("d"), &webhook, EventId::from_random("e"), start);
        assert_eq!((delivery.status(), delivery.next_attempt_at()), (DeliveryStatus::Pending, start));
        let step = delivery.record(&failure(), &SCHEDULE, start, 0.5);
        assert_eq!(step, DeliveryStep::RetryAt(start.plus_millis(1_000)));
        assert!(!step.settles());
        assert_eq!((delivery.status(), delivery.attempts()), (DeliveryStatus::Pending, 1));
        let late = start.plus_millis(60_000);
        assert_eq!(delivery.record(&failure(), &SCHEDULE, late, 0.5), DeliveryStep::Failed);
        assert_eq!(delivery.status(), DeliveryStatus::Failed);

        let mut next = Delivery::new(DeliveryId::from_random("f"), &webhook, EventId::from_random("e"), start);
        let ok = AttemptOutcome { status_code: Some(204), error: None, duration_ms: 1 };
        assert!(next.record(&ok, &SCHEDULE, start, 0.5).settles());
        assert_eq!(next.status(), DeliveryStatus::Delivered);
        let timed_out = AttemptOutcome { status_code: Some(200), error: Some("timed out".into()), duration_ms: 1 };
        assert!(!timed_out.delivered());
    }

    #[test]
    fn enabling_disabling_and_deleting_move_outstanding_deliveries() {
        let mut webhook = webhook();
        let later = Timestamp::from_unix_seconds(200);
        let paused = webhook.disable(later);
        assert_eq!((webhook.status(), webhook.version()), (WebhookStatus::Disabled, 2));
        assert!(!webhook.receives(EventType::PaymentPaid));
        assert_eq!(
            (paused.from, paused.to, paused.settles()),
            (DeliveryStatus::Pending, DeliveryStatus::Paused, false)
        );
        let delivery = Delivery::new(DeliveryId::from_random("d"), &webhook, EventId::from_random("e"), later);
        assert_eq!(delivery.status(), DeliveryStatus::Paused, "a disabled webhook's delivery waits");
        let resumed = webhook.enable(later);
        assert_eq!((resumed.to, resumed.due_at), (DeliveryStatus::Pending, Some(later)));
        assert!(webhook.receives(EventType::PaymentPaid) && !webhook.receives(EventType::RefundCreated));
        assert!(webhook.deletion().iter().all(|change| change.to == DeliveryStatus::Canceled && change.settles()));
    }

    #[test]
    fn only_absolute_http_urls_are_webhook_urls() {
        assert!(WebhookUrl::new("http://127.0.0.1:9000/hooks".into()).is_ok());
        for refused in ["ftp://x.example/", "/hooks", "https://", "not a url"] {
            assert_eq!(WebhookUrl::new(refused.into()).unwrap_err().code, ErrorCode::ParameterInvalid, "{refused}");
        }
        assert_eq!(
            WebhookUrl::new(format!("https://x.example/{}", "a".repeat(2_048))).unwrap_err().detail,
            "The URL must be at most 2048 characters long."
        );
    }
}
