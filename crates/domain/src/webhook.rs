//! Webhooks: endpoints that receive signed events, and how a webhook's changes move its outstanding
//! deliveries (the deliveries themselves are [`crate::webhook_delivery`]'s).
//!
//! ```text
//! webhook:   enabled ──disable──► disabled ──enable──► enabled          (deleted: gone)
//! its deliveries: pending ──disabled──► paused ──enabled──► pending (due at once)
//!                 pending, paused ──deleted──► canceled
//! ```
//!
//! Fields are private: a webhook changes only through these transitions.

use crate::absolute_url;
use crate::description::Description;
use crate::event::EventType;
use crate::ids::{AccountId, WebhookId};
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
    /// What every webhook secret starts with.
    pub const PREFIX: &'static str = "whsk_";

    #[must_use]
    pub fn new(random: &str) -> Self {
        Self(format!("{}{random}", Self::PREFIX))
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
/// characters, in a form every reader takes the same way ([`crate::absolute_url`]): what is stored
/// is what is called. Which addresses a mode may reach is the URL guard's business, not this type's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WebhookUrl(String);

impl WebhookUrl {
    /// # Errors
    /// `parameter_invalid` for anything but an absolute http(s) URL with a host, or over 2,048
    /// characters.
    pub fn new(text: String) -> Result<Self, Invalid> {
        absolute_url::parse(&text, "https:// or http://")?;
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
    previous_secret: Option<PreviousSecret>,
    status: WebhookStatus,
    created_at: Timestamp,
    updated_at: Timestamp,
    version: i64,
}

/// The secret a rotation replaced, which deliveries are also signed with until it expires (real
/// time), so a receiver can switch over without missing one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PreviousSecret {
    pub secret_key: WebhookSecret,
    pub expires_at: Timestamp,
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
    pub previous_secret: Option<PreviousSecret>,
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
    /// The same move with its deliveries due at `real_now` where they come due: deliveries keep real
    /// time when the webhook's test mode runs on a moved clock.
    #[must_use]
    pub fn due_from(self, real_now: Timestamp) -> Self {
        Self { due_at: self.due_at.map(|_| real_now), ..self }
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
            previous_secret: None,
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
            previous_secret,
            status,
            created_at,
            updated_at,
            version,
        } = stored;
        Self {
            id,
            account_id,
            livemode,
            url,
            events,
            description,
            secret_key,
            previous_secret,
            status,
            created_at,
            updated_at,
            version,
        }
    }

    /// Replaces the secret with `new`; the one it replaces still signs deliveries until
    /// `previous_until` (real time), so receivers can switch over (none when that has passed).
    pub fn rotate_secret(
        &mut self,
        new: WebhookSecret,
        now: Timestamp,
        previous_until: Timestamp,
        real_now: Timestamp,
    ) {
        let old = std::mem::replace(&mut self.secret_key, new);
        self.previous_secret =
            (previous_until > real_now).then_some(PreviousSecret { secret_key: old, expires_at: previous_until });
        self.touch(now);
    }

    /// The secrets a delivery sent at `real_now` is signed with: the current one first, then the
    /// one it replaced while that has not expired.
    #[must_use]
    pub fn signing_secrets(&self, real_now: Timestamp) -> Vec<&WebhookSecret> {
        let previous = self.previous_secret.as_ref().filter(|previous| real_now < previous.expires_at);
        std::iter::once(&self.secret_key).chain(previous.map(|previous| &previous.secret_key)).collect()
    }

    /// Applies a merchant's changes. A new URL is another receiver: its pending deliveries become
    /// due at once (the move returned), whatever the old one's failures had delayed them to.
    pub fn update(&mut self, changes: WebhookChanges, now: Timestamp) -> Option<DeliveryMove> {
        let WebhookChanges { url, events, description } = changes;
        let mut moved = None;
        if let Some(url) = url.filter(|url| *url != self.url) {
            self.url = url;
            moved =
                Some(DeliveryMove { from: DeliveryStatus::Pending, to: DeliveryStatus::Pending, due_at: Some(now) });
        }
        if let Some(events) = events {
            self.events = events;
        }
        if description.is_some() {
            self.description = description;
        }
        self.touch(now);
        moved
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

    /// Where the failed deliveries a merchant recovers go, with a new retry window from `now`: due
    /// at once while the webhook is enabled, held with its paused ones while it is disabled (they go
    /// out once it is enabled).
    #[must_use]
    pub fn recovery(&self, now: Timestamp) -> DeliveryMove {
        let to = match self.status {
            WebhookStatus::Enabled => DeliveryStatus::Pending,
            WebhookStatus::Disabled => DeliveryStatus::Paused,
        };
        DeliveryMove { from: DeliveryStatus::Failed, to, due_at: Some(now) }
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
    pub fn previous_secret(&self) -> Option<&PreviousSecret> {
        self.previous_secret.as_ref()
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
        Self::ALL.into_iter().find(|status| status.as_str() == value)
    }

    /// Every status.
    pub const ALL: [Self; 5] = [Self::Pending, Self::Paused, Self::Delivered, Self::Failed, Self::Canceled];

    /// Whether a delivery in this status still counts in its event's `pending_webhooks`.
    #[must_use]
    pub fn is_outstanding(self) -> bool {
        match self {
            Self::Pending | Self::Paused => true,
            Self::Delivered | Self::Failed | Self::Canceled => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::validation::ErrorCode;

    pub(crate) fn webhook() -> Webhook {
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

    #[test]
    fn a_rotated_secret_still_signs_until_its_overlap_ends() {
        let mut webhook = webhook();
        let (now, until) = (Timestamp::from_unix_seconds(200), Timestamp::from_unix_seconds(300));
        let first = webhook.secret_key().clone();
        webhook.rotate_secret(WebhookSecret::new("t"), now, until, now);
        assert_eq!(webhook.version(), 2);
        let signing = |webhook: &Webhook, at: i64| {
            webhook.signing_secrets(Timestamp::from_unix_seconds(at)).into_iter().cloned().collect::<Vec<_>>()
        };
        assert_eq!(signing(&webhook, 299), vec![WebhookSecret::new("t"), first.clone()], "the new one first");
        assert_eq!(signing(&webhook, 300), vec![WebhookSecret::new("t")], "the old one expired");
        webhook.rotate_secret(WebhookSecret::new("u"), now, now, now);
        assert_eq!(webhook.previous_secret(), None, "no overlap asked for");
        assert_eq!(signing(&webhook, 201), vec![WebhookSecret::new("u")]);
    }

    #[test]
    fn enabling_disabling_and_deleting_move_outstanding_deliveries() {
        let mut webhook = webhook();
        let later = Timestamp::from_unix_seconds(200);
        let paused = webhook.disable(later);
        assert_eq!((webhook.status(), webhook.version()), (WebhookStatus::Disabled, 2));
        assert!(!webhook.receives(EventType::PaymentPaid));
        assert_eq!((paused.from, paused.to), (DeliveryStatus::Pending, DeliveryStatus::Paused));
        let resumed = webhook.enable(later);
        assert_eq!((resumed.to, resumed.due_at), (DeliveryStatus::Pending, Some(later)));
        assert!(webhook.receives(EventType::PaymentPaid) && !webhook.receives(EventType::RefundCreated));
        assert!(webhook
            .deletion()
            .iter()
            .all(|change| change.to == DeliveryStatus::Canceled && change.from.is_outstanding()));
    }

    #[test]
    fn only_absolute_http_urls_are_webhook_urls() {
        assert!(WebhookUrl::new("http://127.0.0.1:9000/hooks".into()).is_ok());
        for refused in ["ftp://x.example/", "/hooks", "https://", "not a url", "http://127.0.0.1:1/a\r\nX-Injected: 1"]
        {
            assert_eq!(WebhookUrl::new(refused.into()).unwrap_err().code, ErrorCode::ParameterInvalid, "{refused}");
        }
        assert_eq!(
            WebhookUrl::new(format!("https://x.example/{}", "a".repeat(2_048))).unwrap_err().detail,
            "The URL must be at most 2048 characters long."
        );
    }
}
