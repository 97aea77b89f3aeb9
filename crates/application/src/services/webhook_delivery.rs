//! Delivering events to webhooks: claim due deliveries under a lease, and record each attempt's
//! outcome (the domain decides delivered, retry or failed). Sending itself is the caller's async
//! work through the [`crate::ports::WebhookSender`] port, outside any transaction.

use crate::error::ApplicationError;
use crate::ports::{in_transaction, reading, Clock, DeliveryAttempt, DeliveryBacklog, IdGenerator, UnitOfWork};
use crate::scope::Scope;
use payments_domain::account::Mode;
use payments_domain::ids::WebhookId;
use payments_domain::webhook::{AttemptOutcome, Delivery, RetrySchedule, Webhook};
use std::collections::HashMap;
use std::sync::Arc;

/// A claimed delivery, with everything needed to send it and to record the attempt.
#[derive(Debug, Clone)]
pub struct DeliveryJob {
    pub delivery: Delivery,
    pub url: String,
    pub secret_key: String,
    /// The event envelope as stored when the event was appended, sent byte for byte and signed.
    pub body: String,
}

/// Delivery use cases.
pub struct WebhookDeliveryService {
    unit_of_work: Arc<dyn UnitOfWork>,
    clock: Arc<dyn Clock>,
    ids: Arc<dyn IdGenerator>,
    schedule: RetrySchedule,
}

impl WebhookDeliveryService {
    #[must_use]
    pub fn new(
        unit_of_work: Arc<dyn UnitOfWork>,
        clock: Arc<dyn Clock>,
        ids: Arc<dyn IdGenerator>,
        schedule: RetrySchedule,
    ) -> Self {
        Self { unit_of_work, clock, ids, schedule }
    }

    /// The pending deliveries of every account, for operators' metrics.
    ///
    /// # Errors
    /// Storage failures.
    pub fn backlog(&self) -> Result<DeliveryBacklog, ApplicationError> {
        reading(self.unit_of_work.as_ref(), |repositories| Ok(repositories.deliveries().backlog()?))
    }

    /// Claims up to `limit` due deliveries for `owner` for `lease_ms`. A delivery claimed here is
    /// sent by no other instance until the lease runs out (a crashed owner's work is picked up then).
    ///
    /// # Errors
    /// Storage failures.
    pub fn claim_due(&self, owner: &str, limit: u32, lease_ms: i64) -> Result<Vec<DeliveryJob>, ApplicationError> {
        let now = self.clock.now();
        let due = reading(self.unit_of_work.as_ref(), |repositories| Ok(repositories.deliveries().due(now, limit)?))?;
        if due.is_empty() {
            return Ok(Vec::new());
        }
        // One transaction for the batch; each claim is still a conditional update of its own row.
        in_transaction(self.unit_of_work.as_ref(), |repositories| {
            let mut webhooks: HashMap<WebhookId, Option<Webhook>> = HashMap::new();
            let mut jobs = Vec::with_capacity(due.len());
            for delivery in &due {
                if !repositories.deliveries().claim(delivery.id(), owner, now, now.plus_millis(lease_ms))? {
                    continue;
                }
                let scope =
                    Scope { account_id: delivery.account_id().clone(), mode: Mode::from_livemode(delivery.livemode()) };
                let webhook = match webhooks.get(delivery.webhook_id()) {
                    Some(known) => known.clone(),
                    None => {
                        let found = repositories.webhooks().find(&scope, delivery.webhook_id())?;
                        webhooks.insert(delivery.webhook_id().clone(), found.clone());
                        found
                    }
                };
                let event = repositories.events().find(&scope, delivery.event_id())?;
                if let (Some(webhook), Some(event)) = (webhook, event) {
                    jobs.push(DeliveryJob {
                        delivery: delivery.clone(),
                        url: webhook.url().as_str().to_owned(),
                        secret_key: webhook.secret_key().reveal().to_owned(),
                        body: event.body,
                    });
                }
            }
            Ok(jobs)
        })
    }

    /// Records the attempts of a batch in one transaction. An attempt whose lease `owner` lost
    /// meanwhile is ignored.
    ///
    /// # Errors
    /// Storage failures.
    pub fn record(&self, owner: &str, attempts: &[(DeliveryJob, AttemptOutcome)]) -> Result<(), ApplicationError> {
        let now = self.clock.now();
        in_transaction(self.unit_of_work.as_ref(), |repositories| {
            for (job, outcome) in attempts {
                let mut delivery = job.delivery.clone();
                let step = delivery.record(outcome, &self.schedule, now, self.ids.fraction());
                // Settling checks that `owner` still holds the lease; an attempt of a lost lease is
                // not recorded.
                if !repositories.deliveries().settle(&delivery, owner)? {
                    continue;
                }
                repositories.deliveries().record_attempt(&DeliveryAttempt {
                    delivery_id: delivery.id().clone(),
                    webhook_id: delivery.webhook_id().clone(),
                    event_id: delivery.event_id().clone(),
                    attempted_at: now,
                    status_code: outcome.status_code,
                    error: outcome.error.clone(),
                    duration_ms: outcome.duration_ms,
                })?;
                if step.settles() {
                    repositories.events().add_pending_webhooks(delivery.event_id(), -1)?;
                }
            }
            Ok(())
        })
    }
}
