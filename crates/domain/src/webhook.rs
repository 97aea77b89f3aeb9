//! Webhooks: endpoints that receive signed events, and the deliveries that carry them there with
//! retries.

use crate::event::EVENT_TYPES;
use crate::ids::{AccountId, DeliveryId, EventId, WebhookId};
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

/// A webhook endpoint.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Webhook {
    pub id: WebhookId,
    pub account_id: AccountId,
    pub livemode: bool,
    pub url: String,
    pub events: Vec<String>,
    pub description: Option<String>,
    pub secret_key: WebhookSecret,
    pub status: WebhookStatus,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
    pub version: i64,
}

impl Webhook {
    /// Whether this webhook is sent events of `event_type` now.
    #[must_use]
    pub fn receives(&self, event_type: &str) -> bool {
        self.status == WebhookStatus::Enabled && self.events.iter().any(|e| e == event_type)
    }

    /// Enables or disables the webhook.
    pub fn set_status(&mut self, status: WebhookStatus, now: Timestamp) {
        self.status = status;
        self.touch(now);
    }

    /// Records a change made by the merchant.
    pub fn touch(&mut self, now: Timestamp) {
        self.updated_at = now;
        self.version += 1;
    }
}

/// Checks a list of event types: every one must be a type the service knows; duplicates go.
///
/// # Errors
/// `parameter_invalid` naming the first unknown type, or for an empty list.
pub fn check_event_types(types: Vec<String>) -> Result<Vec<String>, Invalid> {
    if types.is_empty() {
        return Err(Invalid::value("List at least one event type."));
    }
    let mut checked = Vec::new();
    for event_type in types {
        if !EVENT_TYPES.contains(&event_type.as_str()) {
            return Err(Invalid::value(format!("{event_type} is not an event type.")));
        }
        if !checked.contains(&event_type) {
            checked.push(event_type);
        }
    }
    Ok(checked)
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
}

/// One event on its way to one webhook. Times are in milliseconds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Delivery {
    pub id: DeliveryId,
    pub account_id: AccountId,
    pub livemode: bool,
    pub webhook_id: WebhookId,
    pub event_id: EventId,
    pub status: DeliveryStatus,
    pub attempts: i64,
    pub next_attempt_at_ms: i64,
    pub created_at_ms: i64,
}

/// The retry schedule: exponential backoff from `base_ms`, capped at `cap_ms`, with a share
/// `jitter` (0 to 1) of each delay drawn at random ("full jitter" at 1), given up after
/// `give_up_after_ms` from the first attempt.
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

    /// Whether a delivery created at `created_at_ms` is past its retry window at `now_ms`.
    #[must_use]
    pub fn gives_up(&self, created_at_ms: i64, now_ms: i64) -> bool {
        now_ms.saturating_sub(created_at_ms) >= self.give_up_after_ms
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn event_types_must_be_known() {
        assert_eq!(
            check_event_types(vec!["payment.paid".into(), "payment.paid".into()]).unwrap(),
            vec!["payment.paid".to_owned()]
        );
        assert!(check_event_types(vec!["payment.exploded".into()]).unwrap_err().detail.contains("payment.exploded"));
        assert!(check_event_types(Vec::new()).is_err());
    }

    #[test]
    fn retries_back_off_exponentially_up_to_the_cap() {
        let schedule = RetrySchedule { base_ms: 1_000, cap_ms: 10_000, jitter: 0.0, give_up_after_ms: 60_000 };
        let delays: Vec<i64> = (1..=6).map(|attempts| schedule.delay_ms(attempts, 0.5)).collect();
        assert_eq!(delays, vec![1_000, 2_000, 4_000, 8_000, 10_000, 10_000]);
        let full_jitter = RetrySchedule { jitter: 1.0, ..schedule };
        assert_eq!(full_jitter.delay_ms(3, 0.5), 2_000);
        assert!(full_jitter.delay_ms(3, 0.99) >= 1);
        assert!(schedule.gives_up(0, 60_000) && !schedule.gives_up(0, 59_999));
    }
}
