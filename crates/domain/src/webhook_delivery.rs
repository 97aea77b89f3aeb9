//! Deliveries: one event on its way to one webhook, tried until the receiver answers 2xx or the
//! retry window closes; and the rules that keep one endpoint from holding up the others: how many
//! deliveries may be in flight at once, and when an endpoint that stopped answering is tried again.
//!
//! ```text
//! delivery:  pending ──2xx──► delivered
//!               │  └──failure──► pending (retry at a later time) ──…──► failed (retry window closed)
//!               ├──webhook disabled──► paused ──webhook enabled──► pending (due at once)
//!               └──webhook deleted──► canceled   (paused too)
//! ```
//!
//! Fields are private: a delivery changes only through these transitions.

use crate::event::Event;
use crate::ids::{AccountId, DeliveryId, EventId, WebhookId};
use crate::retry::RetrySchedule;
use crate::time::Timestamp;
use crate::webhook::{DeliveryMove, DeliveryStatus, Webhook, WebhookStatus};
use std::collections::HashMap;

/// What one attempt to send a delivery came to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AttemptOutcome {
    /// The receiver's HTTP status, if it answered.
    pub status_code: Option<u16>,
    /// Why there was no answer, or why the attempt was not made.
    pub error: Option<String>,
    pub duration_ms: i64,
    /// The start of the receiver's answer, at most [`RESPONSE_EXCERPT_BYTES`], for the merchant.
    pub response_excerpt: Option<String>,
}

/// How much of a receiver's answer an attempt keeps.
pub const RESPONSE_EXCERPT_BYTES: usize = 500;

/// Whether an attempt delivered its event: the receiver answered 2xx (`status_code`) within the
/// timeout, without an `error`. The one definition the worker, the console and `payments listen`
/// all use.
#[must_use]
pub fn is_delivered(status_code: Option<u16>, error: Option<&str>) -> bool {
    error.is_none() && status_code.is_some_and(|code| (200..300).contains(&code))
}

impl AttemptOutcome {
    /// A 2xx answer within the timeout.
    #[must_use]
    pub fn delivered(&self) -> bool {
        is_delivered(self.status_code, self.error.as_deref())
    }

    /// Whether the receiver answered at all, whatever the status.
    #[must_use]
    pub fn answered(&self) -> bool {
        self.status_code.is_some()
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
        let status = match webhook.status() {
            WebhookStatus::Enabled => DeliveryStatus::Pending,
            WebhookStatus::Disabled => DeliveryStatus::Paused,
        };
        Self {
            id,
            account_id: webhook.account_id().clone(),
            livemode: webhook.livemode(),
            webhook_id: webhook.id().clone(),
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
            DeliveryStep::Failed => {
                // A failed delivery keeps when it failed: `recover` finds it by that.
                self.status = DeliveryStatus::Failed;
                self.next_attempt_at = now;
            }
            DeliveryStep::RetryAt(at) => self.next_attempt_at = at,
        }
        step
    }

    /// Requeues a delivery that failed at or after `since` as its webhook's `recovery` says (see
    /// [`crate::webhook::Webhook::recovery`]): due when it says, with a new retry window from then;
    /// tells whether it moved.
    pub fn recover(&mut self, since: Timestamp, recovery: &DeliveryMove) -> bool {
        if self.next_attempt_at < since || !self.apply(recovery) {
            return false;
        }
        self.created_at = self.next_attempt_at;
        true
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

    /// Makes a pending delivery that would fall due after `now` but before `until` due at `now`
    /// (its account's test clock jumped over its retry); tells whether it moved.
    pub fn bring_forward(&mut self, until: Timestamp, now: Timestamp) -> bool {
        if self.status != DeliveryStatus::Pending || self.next_attempt_at <= now || self.next_attempt_at >= until {
            return false;
        }
        self.next_attempt_at = now;
        true
    }

    /// Makes a pending delivery that would fall due before `until` wait until then (its endpoint is
    /// backed off); tells whether it moved.
    pub fn postpone(&mut self, until: Timestamp) -> bool {
        if self.status != DeliveryStatus::Pending || self.next_attempt_at >= until {
            return false;
        }
        self.next_attempt_at = until;
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

/// The deliveries of newly appended `events`: one to each webhook of `webhooks` of the event's
/// account and mode that receives its type ([`Webhook::receives`]), due at `due_at` (real time,
/// which a test clock does not move). `next_id` draws each delivery's id.
pub fn fan_out(
    events: &[Event],
    webhooks: &[Webhook],
    due_at: Timestamp,
    mut next_id: impl FnMut() -> DeliveryId,
) -> Vec<Delivery> {
    let mut deliveries = Vec::new();
    for event in events {
        let receivers = webhooks.iter().filter(|webhook| {
            webhook.account_id() == &event.account_id
                && webhook.livemode() == event.livemode
                && webhook.receives(event.event_type)
        });
        for webhook in receivers {
            deliveries.push(Delivery::new(next_id(), webhook, event.id.clone(), due_at));
        }
    }
    deliveries
}

/// Unanswered attempts in a row after which an endpoint is backed off as a whole.
pub const UNANSWERED_BEFORE_BACK_OFF: i64 = 3;

/// How a webhook's endpoint has been answering. An attempt that got no answer at all (a timeout, a
/// refused connection) makes it suspect: one delivery at a time until it answers again. After
/// [`UNANSWERED_BEFORE_BACK_OFF`] of them in a row it is backed off as a whole: none of its
/// deliveries is sent before `retry_at`, which moves further away, as the retry schedule's delays
/// do, each time the next try gets no answer either. Any answer, whatever its status, clears it:
/// the endpoint is up, and each delivery's own retries deal with error statuses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EndpointHealth {
    /// Attempts in a row that got no answer, not counting those that ended while backed off (they
    /// were sent before the back-off began).
    pub unanswered: i64,
    /// No delivery to the endpoint is sent before this time.
    pub retry_at: Timestamp,
}

impl EndpointHealth {
    /// An endpoint that answers (or was never tried).
    pub const ANSWERING: Self = Self { unanswered: 0, retry_at: Timestamp::from_unix_millis(0) };

    /// The endpoint's health after an attempt that ended at `now`.
    #[must_use]
    pub fn after(self, outcome: &AttemptOutcome, schedule: &RetrySchedule, now: Timestamp) -> Self {
        if outcome.answered() {
            return Self::ANSWERING;
        }
        if self.is_backed_off(now) {
            return self;
        }
        let unanswered = self.unanswered.saturating_add(1);
        let retry_at = if unanswered >= UNANSWERED_BEFORE_BACK_OFF {
            // The schedule's delay without jitter: the whole endpoint waits, so no draw is needed to
            // spread its deliveries apart.
            now.plus_millis(schedule.delay_ms(unanswered - UNANSWERED_BEFORE_BACK_OFF + 1, 0.0))
        } else {
            self.retry_at
        };
        Self { unanswered, retry_at }
    }

    /// Whether the endpoint's deliveries wait at `now`.
    #[must_use]
    pub fn is_backed_off(self, now: Timestamp) -> bool {
        self.retry_at > now
    }

    /// Whether its last attempt was answered.
    #[must_use]
    pub fn is_answering(self) -> bool {
        self.unanswered == 0
    }
}

/// How many deliveries one sender may have in flight: in all, to one endpoint, for one account.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DeliveryLimits {
    pub total: usize,
    pub per_endpoint: usize,
    pub per_account: usize,
}

impl DeliveryLimits {
    /// Each limit `factor` times over (what a sender may hold claimed ahead of sending).
    #[must_use]
    pub fn times(self, factor: usize) -> Self {
        Self {
            total: self.total.saturating_mul(factor),
            per_endpoint: self.per_endpoint.saturating_mul(factor),
            per_account: self.per_account.saturating_mul(factor),
        }
    }
}

/// The deliveries a sender has in flight, held to its [`DeliveryLimits`]: an endpoint takes at most
/// `per_endpoint` of them (one while it is not answering), and an account at most `per_account`, so
/// a slow or silent receiver never takes the slots every other account's deliveries need.
#[derive(Debug, Clone)]
pub struct DeliveryLoad {
    limits: DeliveryLimits,
    total: usize,
    endpoints: HashMap<WebhookId, EndpointLoad>,
    accounts: HashMap<AccountId, usize>,
}

/// One endpoint's deliveries in flight, and how many it may have.
#[derive(Debug, Clone, Copy)]
struct EndpointLoad {
    in_flight: usize,
    limit: usize,
}

impl DeliveryLoad {
    /// Nothing in flight yet.
    #[must_use]
    pub fn new(limits: DeliveryLimits) -> Self {
        Self { limits, total: 0, endpoints: HashMap::new(), accounts: HashMap::new() }
    }

    /// Deliveries that may still start.
    #[must_use]
    pub fn free(&self) -> usize {
        self.limits.total.saturating_sub(self.total)
    }

    /// Deliveries in flight.
    #[must_use]
    pub fn in_flight(&self) -> usize {
        self.total
    }

    /// Whether `delivery`, to an endpoint of `health`, may start now.
    #[must_use]
    pub fn admits(&self, delivery: &Delivery, health: EndpointHealth) -> bool {
        let to_endpoint = self.endpoints.get(delivery.webhook_id()).map_or(0, |endpoint| endpoint.in_flight);
        let for_account = self.accounts.get(delivery.account_id()).copied().unwrap_or(0);
        self.free() > 0 && to_endpoint < self.endpoint_limit(health) && for_account < self.limits.per_account
    }

    /// Counts `delivery` in flight.
    pub fn start(&mut self, delivery: &Delivery, health: EndpointHealth) {
        let limit = self.endpoint_limit(health);
        let endpoint =
            self.endpoints.entry(delivery.webhook_id().clone()).or_insert(EndpointLoad { in_flight: 0, limit });
        endpoint.in_flight += 1;
        endpoint.limit = limit;
        *self.accounts.entry(delivery.account_id().clone()).or_insert(0) += 1;
        self.total += 1;
    }

    /// Counts `delivery` out again.
    pub fn finish(&mut self, delivery: &Delivery) {
        if let Some(endpoint) = self.endpoints.get_mut(delivery.webhook_id()) {
            endpoint.in_flight = endpoint.in_flight.saturating_sub(1);
            if endpoint.in_flight == 0 {
                self.endpoints.remove(delivery.webhook_id());
            }
        }
        if let Some(account) = self.accounts.get_mut(delivery.account_id()) {
            *account = account.saturating_sub(1);
            if *account == 0 {
                self.accounts.remove(delivery.account_id());
            }
        }
        self.total = self.total.saturating_sub(1);
    }

    /// The endpoints that take no more deliveries now, for a look for due ones to pass over.
    #[must_use]
    pub fn full_endpoints(&self) -> Vec<WebhookId> {
        self.endpoints.iter().filter(|(_, load)| load.in_flight >= load.limit).map(|(id, _)| id.clone()).collect()
    }

    /// The accounts that take no more deliveries now.
    #[must_use]
    pub fn full_accounts(&self) -> Vec<AccountId> {
        let full = |(_, in_flight): &(&AccountId, &usize)| **in_flight >= self.limits.per_account;
        self.accounts.iter().filter(full).map(|(id, _)| id.clone()).collect()
    }

    fn endpoint_limit(&self, health: EndpointHealth) -> usize {
        if health.is_answering() {
            self.limits.per_endpoint
        } else {
            1
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event::EventType;
    use crate::webhook::{NewWebhook, WebhookSecret, WebhookUrl};

    const SCHEDULE: RetrySchedule =
        RetrySchedule { base_ms: 1_000, cap_ms: 10_000, jitter: 0.0, give_up_after_ms: 60_000 };

    fn webhook(name: &str, account: &str) -> Webhook {
        let new = NewWebhook {
            url: WebhookUrl::new("https://shop.example/hooks".into()).expect("a URL"),
            events: vec![EventType::PaymentPaid],
            description: None,
        };
        Webhook::create(
            WebhookId::from_random(name),
            AccountId::from_random(account),
            false,
            WebhookSecret::new("s"),
            new,
            Timestamp::from_unix_seconds(100),
        )
    }

    fn delivery_to(webhook: &Webhook, n: u32) -> Delivery {
        let start = Timestamp::from_unix_seconds(100);
        Delivery::new(DeliveryId::from_random(&format!("d{n}")), webhook, EventId::from_random("e"), start)
    }

    fn failure() -> AttemptOutcome {
        AttemptOutcome { status_code: Some(503), error: None, duration_ms: 3, response_excerpt: None }
    }

    fn no_answer() -> AttemptOutcome {
        AttemptOutcome {
            status_code: None,
            error: Some("timed out".into()),
            duration_ms: 10_000,
            response_excerpt: None,
        }
    }

    #[test]
    fn a_delivery_is_delivered_retried_or_failed_by_its_attempts() {
        let webhook = webhook("w", "a");
        let start = Timestamp::from_unix_seconds(100);
        let mut delivery = delivery_to(&webhook, 1);
        assert_eq!((delivery.status(), delivery.next_attempt_at()), (DeliveryStatus::Pending, start));
        let step = delivery.record(&failure(), &SCHEDULE, start, 0.5);
        assert_eq!(step, DeliveryStep::RetryAt(start.plus_millis(1_000)));
        assert_eq!((delivery.status(), delivery.attempts()), (DeliveryStatus::Pending, 1));
        let late = start.plus_millis(60_000);
        assert_eq!(delivery.record(&failure(), &SCHEDULE, late, 0.5), DeliveryStep::Failed);
        assert_eq!(delivery.status(), DeliveryStatus::Failed);

        let mut next = delivery_to(&webhook, 2);
        let ok = AttemptOutcome { status_code: Some(204), error: None, duration_ms: 1, response_excerpt: None };
        assert_eq!(next.record(&ok, &SCHEDULE, start, 0.5), DeliveryStep::Delivered);
        assert_eq!(next.status(), DeliveryStatus::Delivered);
        let timed_out = AttemptOutcome {
            status_code: Some(200),
            error: Some("timed out".into()),
            duration_ms: 1,
            response_excerpt: None,
        };
        assert!(!timed_out.delivered());
    }

    #[test]
    fn a_disabled_webhooks_new_delivery_waits_paused() {
        let mut webhook = webhook("w", "a");
        let _paused = webhook.disable(Timestamp::from_unix_seconds(200));
        assert_eq!(delivery_to(&webhook, 1).status(), DeliveryStatus::Paused);
    }

    #[test]
    fn an_endpoint_that_stops_answering_is_backed_off_as_a_whole_and_cleared_by_any_answer() {
        let now = Timestamp::from_unix_seconds(1_000);
        let suspect = EndpointHealth::ANSWERING.after(&no_answer(), &SCHEDULE, now);
        assert_eq!(suspect, EndpointHealth { unanswered: 1, retry_at: Timestamp::from_unix_millis(0) });
        assert!(!suspect.is_answering() && !suspect.is_backed_off(now));
        let backed_off = suspect.after(&no_answer(), &SCHEDULE, now).after(&no_answer(), &SCHEDULE, now);
        assert_eq!(backed_off, EndpointHealth { unanswered: 3, retry_at: now.plus_millis(1_000) });
        assert!(backed_off.is_backed_off(now));
        // The rest of the attempts sent before the back-off end while it lasts: not counted.
        assert_eq!(backed_off.after(&no_answer(), &SCHEDULE, now.plus_millis(500)), backed_off);
        // The next try after it, unanswered too, backs off for the schedule's next delay.
        let later = now.plus_millis(1_000);
        let again = backed_off.after(&no_answer(), &SCHEDULE, later);
        assert_eq!(again, EndpointHealth { unanswered: 4, retry_at: later.plus_millis(2_000) });
        assert_eq!(
            again.after(&failure(), &SCHEDULE, later),
            EndpointHealth::ANSWERING,
            "an error status is an answer"
        );
    }

    #[test]
    fn one_endpoint_or_account_never_takes_every_slot() {
        let limits = DeliveryLimits { total: 4, per_endpoint: 2, per_account: 3 };
        let mut load = DeliveryLoad::new(limits);
        let (slow, other_of_slow, elsewhere) = (webhook("slow", "a"), webhook("other", "a"), webhook("x", "b"));
        let healthy = EndpointHealth::ANSWERING;
        for n in 0..2 {
            assert!(load.admits(&delivery_to(&slow, n), healthy));
            load.start(&delivery_to(&slow, n), healthy);
        }
        assert!(!load.admits(&delivery_to(&slow, 3), healthy), "the endpoint is full");
        assert_eq!(load.full_endpoints(), vec![slow.id().clone()]);
        load.start(&delivery_to(&other_of_slow, 4), healthy);
        assert!(!load.admits(&delivery_to(&other_of_slow, 5), healthy), "the account is full");
        assert_eq!(load.full_accounts(), vec![slow.account_id().clone()]);
        assert!(load.admits(&delivery_to(&elsewhere, 6), healthy), "another account's delivery still goes");
        load.start(&delivery_to(&elsewhere, 6), healthy);
        assert_eq!((load.free(), load.in_flight()), (0, 4));
        load.finish(&delivery_to(&slow, 0));
        assert!(load.admits(&delivery_to(&slow, 7), healthy));
        assert!(load.full_endpoints().is_empty());

        let suspect = EndpointHealth { unanswered: 1, retry_at: Timestamp::from_unix_millis(0) };
        let mut fresh = DeliveryLoad::new(limits);
        fresh.start(&delivery_to(&elsewhere, 8), suspect);
        assert!(!fresh.admits(&delivery_to(&elsewhere, 9), suspect), "one at a time while it does not answer");
    }
}
