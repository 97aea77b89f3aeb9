//! Delivering events to webhooks: claim due deliveries under a lease, and record each attempt's
//! outcome with its retry. Sending itself is the caller's (async) work, outside any transaction.

use crate::error::ApplicationError;
use crate::ports::{in_transaction, reading, Clock, DeliveryAttempt, IdGenerator, Presenter, UnitOfWork};
use crate::scope::Scope;
use payments_domain::account::Mode;
use payments_domain::ids::WebhookId;
use payments_domain::webhook::{Delivery, DeliveryStatus, RetrySchedule, Webhook};
use std::collections::HashMap;
use std::sync::Arc;

/// A claimed delivery, with everything needed to send it and to record the attempt.
#[derive(Debug, Clone)]
pub struct DeliveryJob {
    pub delivery: Delivery,
    pub url: String,
    pub secret_key: String,
    pub livemode: bool,
    /// The event JSON, sent byte for byte and signed.
    pub body: String,
}

/// What one attempt came to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AttemptOutcome {
    pub status_code: Option<u16>,
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

/// Delivery use cases.
pub struct WebhookDeliveryService {
    unit_of_work: Arc<dyn UnitOfWork>,
    clock: Arc<dyn Clock>,
    ids: Arc<dyn IdGenerator>,
    presenter: Arc<dyn Presenter>,
    schedule: RetrySchedule,
}

impl WebhookDeliveryService {
    #[must_use]
    pub fn new(
        unit_of_work: Arc<dyn UnitOfWork>,
        clock: Arc<dyn Clock>,
        ids: Arc<dyn IdGenerator>,
        presenter: Arc<dyn Presenter>,
        schedule: RetrySchedule,
    ) -> Self {
        Self { unit_of_work, clock, ids, presenter, schedule }
    }

    /// Claims up to `limit` due deliveries for `owner` for `lease_ms`. A delivery claimed here is
    /// sent by no other instance until the lease runs out (a crashed owner's work is picked up then).
    ///
    /// # Errors
    /// Storage failures.
    pub fn claim_due(&self, owner: &str, limit: u32, lease_ms: i64) -> Result<Vec<DeliveryJob>, ApplicationError> {
        let now_ms = self.clock.now_millis();
        let due =
            reading(self.unit_of_work.as_ref(), |repositories| Ok(repositories.deliveries().due(now_ms, limit)?))?;
        if due.is_empty() {
            return Ok(Vec::new());
        }
        // One transaction for the batch; each claim is still a conditional update of its own row.
        in_transaction(self.unit_of_work.as_ref(), |repositories| {
            let mut webhooks: HashMap<WebhookId, Option<Webhook>> = HashMap::new();
            let mut jobs = Vec::with_capacity(due.len());
            for delivery in &due {
                if !repositories.deliveries().claim(&delivery.id, owner, now_ms, now_ms + lease_ms)? {
                    continue;
                }
                let scope =
                    Scope { account_id: delivery.account_id.clone(), mode: Mode::from_livemode(delivery.livemode) };
                let webhook = match webhooks.get(&delivery.webhook_id) {
                    Some(known) => known.clone(),
                    None => {
                        let found = repositories.webhooks().find(&scope, &delivery.webhook_id)?;
                        webhooks.insert(delivery.webhook_id.clone(), found.clone());
                        found
                    }
                };
                let event = repositories.events().find(&scope, &delivery.event_id)?;
                if let (Some(webhook), Some(event)) = (webhook, event) {
                    jobs.push(DeliveryJob {
                        delivery: delivery.clone(),
                        url: webhook.url,
                        secret_key: webhook.secret_key.reveal().to_owned(),
                        livemode: delivery.livemode,
                        body: self.presenter.event(&event),
                    });
                }
            }
            Ok(jobs)
        })
    }

    /// Records the attempts of a batch in one transaction: each delivered on a 2xx, else retried
    /// with backoff until the retry window closes, then failed. An attempt whose lease `owner` lost
    /// meanwhile is ignored.
    ///
    /// # Errors
    /// Storage failures.
    pub fn record(&self, owner: &str, attempts: &[(DeliveryJob, AttemptOutcome)]) -> Result<(), ApplicationError> {
        let now_ms = self.clock.now_millis();
        in_transaction(self.unit_of_work.as_ref(), |repositories| {
            for (job, outcome) in attempts {
                let mut delivery = job.delivery.clone();
                delivery.attempts += 1;
                if outcome.delivered() {
                    delivery.status = DeliveryStatus::Delivered;
                } else if self.schedule.gives_up(delivery.created_at_ms, now_ms) {
                    delivery.status = DeliveryStatus::Failed;
                } else {
                    delivery.next_attempt_at_ms =
                        now_ms + self.schedule.delay_ms(delivery.attempts, self.ids.fraction());
                }
                // Settling checks that `owner` still holds the lease; an attempt of a lost lease is
                // not recorded.
                if !repositories.deliveries().settle(&delivery, owner)? {
                    continue;
                }
                repositories.deliveries().record_attempt(&DeliveryAttempt {
                    delivery_id: delivery.id.clone(),
                    webhook_id: delivery.webhook_id.clone(),
                    event_id: delivery.event_id.clone(),
                    attempted_at_ms: now_ms,
                    status_code: outcome.status_code,
                    error: outcome.error.clone(),
                    duration_ms: outcome.duration_ms,
                })?;
                if delivery.status != DeliveryStatus::Pending {
                    repositories.events().add_pending_webhooks(&delivery.event_id, -1)?;
                }
            }
            Ok(())
        })
    }
}
