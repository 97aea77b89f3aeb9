//! Delivering events to webhooks: claim due deliveries under a lease, and record each attempt's
//! outcome (the domain decides delivered, retry or failed). Sending itself is the caller's async
//! work through the [`crate::ports::WebhookSender`] port, outside any transaction.

use crate::error::ApplicationError;
use crate::ports::{in_transaction, reading, Clock, DeliveryAttempt, DeliveryBacklog, IdGenerator, UnitOfWork};
use crate::scope::Scope;
use payments_domain::account::Mode;
use payments_domain::event::Event;
use payments_domain::ids::{EventId, WebhookId};
use payments_domain::webhook::{AttemptOutcome, Delivery, RetrySchedule, Webhook};
use std::collections::{BTreeMap, HashMap};
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
        // Webhooks are read once each, and the claimed deliveries' events in one query.
        in_transaction(self.unit_of_work.as_ref(), |repositories| {
            let mut webhooks: HashMap<WebhookId, Option<Webhook>> = HashMap::new();
            let mut claimed = Vec::with_capacity(due.len());
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
                if let Some(webhook) = webhook {
                    claimed.push((delivery, webhook));
                }
            }
            let event_ids: Vec<EventId> = claimed.iter().map(|(delivery, _)| delivery.event_id().clone()).collect();
            let mut events: HashMap<EventId, Event> = repositories
                .events()
                .find_many(&event_ids)?
                .into_iter()
                .map(|event| (event.id.clone(), event))
                .collect();
            let mut jobs = Vec::with_capacity(claimed.len());
            for (delivery, webhook) in claimed {
                // An event belongs to the account and mode of its deliveries; anything else is not sent.
                let event = events.remove(delivery.event_id()).filter(|event| {
                    &event.account_id == delivery.account_id() && event.livemode == delivery.livemode()
                });
                if let Some(event) = event {
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
            let mut recorded = Vec::with_capacity(attempts.len());
            let mut settled_events = Vec::new();
            for (job, outcome) in attempts {
                let mut delivery = job.delivery.clone();
                let step = delivery.record(outcome, &self.schedule, now, self.ids.fraction());
                // Settling checks that `owner` still holds the lease; an attempt of a lost lease is
                // not recorded.
                if !repositories.deliveries().settle(&delivery, owner)? {
                    continue;
                }
                recorded.push(DeliveryAttempt {
                    delivery_id: delivery.id().clone(),
                    webhook_id: delivery.webhook_id().clone(),
                    event_id: delivery.event_id().clone(),
                    attempted_at: now,
                    status_code: outcome.status_code,
                    error: outcome.error.clone(),
                    duration_ms: outcome.duration_ms,
                });
                if step.settles() {
                    settled_events.push(delivery.event_id().clone());
                }
            }
            // One insert for the batch's attempts, and one update of the events' pending counts per
            // number of their deliveries that settled (one, unless an event went to several webhooks).
            repositories.deliveries().record_attempts(&recorded)?;
            for (delta, events) in settled_counts(settled_events) {
                repositories.events().add_pending_webhooks(&events, -delta)?;
            }
            Ok(())
        })
    }
}

/// The settled events grouped by how many of their deliveries settled.
fn settled_counts(events: Vec<EventId>) -> BTreeMap<i64, Vec<EventId>> {
    let mut counts: HashMap<EventId, i64> = HashMap::new();
    for event in events {
        *counts.entry(event).or_default() += 1;
    }
    let mut by_count: BTreeMap<i64, Vec<EventId>> = BTreeMap::new();
    for (event, count) in counts {
        by_count.entry(count).or_default().push(event);
    }
    by_count
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settled_events_are_grouped_by_their_number_of_settled_deliveries() {
        let [a, b, c] = ["evt_a", "evt_b", "evt_c"].map(|id| EventId::parse(id).expect("an event id"));
        let grouped = settled_counts(vec![a.clone(), b.clone(), a.clone(), c.clone()]);
        let mut once = grouped[&1].clone();
        once.sort_by(|x, y| x.as_str().cmp(y.as_str()));
        assert_eq!((once, grouped[&2].clone(), grouped.len()), (vec![b, c], vec![a], 2));
    }
}
