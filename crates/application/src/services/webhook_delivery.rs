//! Delivering events to webhooks: claim due deliveries under a lease, within what the sender has in
//! flight ([`DeliveryLoad`]), and record each attempt's outcome (the domain decides delivered, retry
//! or failed, and how the endpoint's health moves). Sending itself is the caller's async work through
//! the [`crate::ports::WebhookSender`] port, outside any transaction.

use crate::error::ApplicationError;
use crate::ports::{
    in_transaction, reading, Clock, DeliveryAttempt, DeliveryBacklog, IdGenerator, PassOver, Presenter, Repositories,
    UnitOfWork,
};
use crate::scope::Scope;
use payments_domain::event::Event;
use payments_domain::ids::{DeliveryId, EventId, WebhookId};
use payments_domain::retry::RetrySchedule;
use payments_domain::time::Timestamp;
use payments_domain::webhook::Webhook;
use payments_domain::webhook_delivery::{AttemptOutcome, Delivery, DeliveryLoad, EndpointHealth};
use std::collections::{HashMap, HashSet};
use std::sync::Arc;

/// Due deliveries looked at per free slot: some may be passed over for their endpoint's or
/// account's limit, or taken meanwhile by another instance.
const LOOKED_AT_PER_FREE_SLOT: usize = 2;
/// Due deliveries looked at besides those, for the same reasons.
const LOOKED_AT_BESIDES: usize = 16;
/// The most due deliveries one look reads: a look that leaves some due says so (`more_due`), and
/// the sender looks again as slots free.
const LOOKED_AT_MOST: usize = 128;

/// A claimed delivery, with everything needed to send it and to record the attempt.
#[derive(Debug, Clone)]
pub struct DeliveryJob {
    pub delivery: Delivery,
    pub url: String,
    /// The secrets it is signed with: the webhook's current one first, then a rotated-out one
    /// still in its overlap.
    pub secret_keys: Vec<String>,
    /// The event's envelope as stored when it was appended, with `pending_webhooks` as claimed;
    /// sent byte for byte and signed.
    pub body: String,
    /// How the endpoint was answering when the delivery was claimed.
    pub health: EndpointHealth,
}

/// What a look for due deliveries found.
#[derive(Debug, Default)]
pub struct Claimed {
    pub jobs: Vec<DeliveryJob>,
    /// Whether due deliveries were left for later: the sender had no slot left, or their
    /// endpoint's or account's limit was reached. The sender looks again when a slot frees.
    pub more_due: bool,
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

    /// The pending deliveries of every account, for operators' metrics.
    ///
    /// # Errors
    /// Storage failures.
    pub fn backlog(&self) -> Result<DeliveryBacklog, ApplicationError> {
        reading(self.unit_of_work.as_ref(), |repositories| Ok(repositories.deliveries().backlog()?))
    }

    /// The scope's test clock jumped `by_millis` ahead: its pending deliveries whose retry would
    /// fall due within that much real time fall due now, and an endpoint backed off for less than
    /// that is tried again now. Deliveries keep real time otherwise. Returns how many moved.
    ///
    /// # Errors
    /// Storage failures.
    pub fn bring_forward(&self, scope: &Scope, by_millis: i64) -> Result<u64, ApplicationError> {
        let now = self.clock.now();
        let until = now.plus_millis(by_millis.saturating_add(1));
        in_transaction(self.unit_of_work.as_ref(), |repositories| {
            let mut moved = 0;
            for (webhook, health) in repositories.webhooks().enabled(scope)? {
                if health.is_backed_off(now) && health.retry_at < until {
                    repositories.webhooks().set_health(&webhook, &EndpointHealth { retry_at: now, ..health })?;
                }
                moved += repositories.deliveries().bring_forward(&webhook, until, now)?;
            }
            Ok(moved)
        })
    }

    /// Claims due deliveries for `owner` for `lease_ms`, as many as `load` (what the sender has in
    /// flight) admits: none to an endpoint or of an account at its limit, and none to an endpoint
    /// that is backed off (its due deliveries are made to wait with it). A delivery claimed here is
    /// sent by no other instance until the lease runs out (a crashed owner's work is picked up then).
    ///
    /// # Errors
    /// Storage failures.
    pub fn claim_due(&self, owner: &str, lease_ms: i64, load: &DeliveryLoad) -> Result<Claimed, ApplicationError> {
        let free = load.free();
        if free == 0 {
            return Ok(Claimed { jobs: Vec::new(), more_due: true });
        }
        let now = self.clock.now();
        let pass_over = PassOver { webhooks: load.full_endpoints(), accounts: load.full_accounts() };
        let looked_at = (free * LOOKED_AT_PER_FREE_SLOT + LOOKED_AT_BESIDES).min(LOOKED_AT_MOST);
        let looked_at = u32::try_from(looked_at).unwrap_or(u32::MAX);
        let due = reading(self.unit_of_work.as_ref(), |repositories| {
            Ok(repositories.deliveries().due(now, looked_at, &pass_over)?)
        })?;
        // Deliveries of the endpoints and accounts passed over may be due too: the sender looks
        // again when their slots free.
        let passed_over = !pass_over.webhooks.is_empty() || !pass_over.accounts.is_empty();
        if due.is_empty() {
            return Ok(Claimed { jobs: Vec::new(), more_due: passed_over });
        }
        let mut more_due = passed_over || due.len() >= looked_at as usize;
        in_transaction(self.unit_of_work.as_ref(), |repositories| {
            let webhook_ids: Vec<WebhookId> = distinct(due.iter().map(Delivery::webhook_id));
            let endpoints: HashMap<WebhookId, (Webhook, EndpointHealth)> = repositories
                .webhooks()
                .endpoints(&webhook_ids)?
                .into_iter()
                .map(|(webhook, health)| (webhook.id().clone(), (webhook, health)))
                .collect();
            let mut load = load.clone();
            let mut chosen = Vec::new();
            let mut backed_off: HashMap<&WebhookId, (&Webhook, EndpointHealth)> = HashMap::new();
            for delivery in &due {
                // A delivery goes only to a webhook of its own account and mode.
                let Some((webhook, health)) = endpoints.get(delivery.webhook_id()).filter(|(webhook, _)| {
                    webhook.account_id() == delivery.account_id() && webhook.livemode() == delivery.livemode()
                }) else {
                    continue;
                };
                if health.is_backed_off(now) {
                    backed_off.insert(delivery.webhook_id(), (webhook, *health));
                    continue;
                }
                if !load.admits(delivery, *health) {
                    more_due = true;
                    continue;
                }
                load.start(delivery, *health);
                chosen.push((delivery, webhook, *health));
            }
            // Those another instance took meanwhile are left out.
            let ids: Vec<_> = chosen.iter().map(|(delivery, _, _)| delivery.id().clone()).collect();
            let taken: HashSet<_> =
                repositories.deliveries().claim(&ids, owner, now, now.plus_millis(lease_ms))?.into_iter().collect();
            let claimed: Vec<_> = chosen.into_iter().filter(|(delivery, _, _)| taken.contains(delivery.id())).collect();
            // Deliveries that fell due while their endpoint is backed off wait with it, so later
            // looks do not find them again.
            for (webhook, health) in backed_off.into_values() {
                repositories.deliveries().postpone(webhook, health.retry_at, now)?;
            }
            let event_ids: Vec<EventId> = distinct(claimed.iter().map(|(delivery, _, _)| delivery.event_id()));
            let events: HashMap<EventId, Event> = repositories
                .events()
                .find_many(&event_ids)?
                .into_iter()
                .map(|event| (event.id.clone(), event))
                .collect();
            let mut jobs = Vec::with_capacity(claimed.len());
            for (delivery, webhook, health) in claimed {
                // An event goes to each of its webhooks; it belongs to the account and mode of its
                // deliveries, and anything else is not sent.
                let event = events.get(delivery.event_id()).filter(|event| {
                    &event.account_id == delivery.account_id() && event.livemode == delivery.livemode()
                });
                if let Some(event) = event {
                    jobs.push(DeliveryJob {
                        delivery: delivery.clone(),
                        url: webhook.url().as_str().to_owned(),
                        secret_keys: webhook
                            .signing_secrets(now)
                            .into_iter()
                            .map(|secret| secret.reveal().to_owned())
                            .collect(),
                        body: self.presenter.stored_event(event),
                        health,
                    });
                }
            }
            Ok(Claimed { jobs, more_due })
        })
    }

    /// Gives back the leases of claimed deliveries that `owner` will not send (it is stopping, or
    /// their endpoint stopped answering): any instance may claim them again at once.
    ///
    /// # Errors
    /// Storage failures.
    pub fn release(&self, owner: &str, jobs: &[DeliveryJob]) -> Result<(), ApplicationError> {
        let ids: Vec<DeliveryId> = jobs.iter().map(|job| job.delivery.id().clone()).collect();
        in_transaction(self.unit_of_work.as_ref(), |repositories| {
            repositories.deliveries().release(&ids, owner)?;
            Ok(())
        })
    }

    /// Records the attempts of a batch in one transaction, and what they tell of their endpoints'
    /// health: an endpoint that stops answering is backed off with all its pending deliveries. An
    /// attempt whose lease `owner` lost meanwhile is ignored.
    ///
    /// # Errors
    /// Storage failures.
    pub fn record(&self, owner: &str, attempts: &[(DeliveryJob, AttemptOutcome)]) -> Result<(), ApplicationError> {
        let now = self.clock.now();
        in_transaction(self.unit_of_work.as_ref(), |repositories| {
            let mut recorded = Vec::with_capacity(attempts.len());
            let mut outcomes: Vec<(&WebhookId, &AttemptOutcome)> = Vec::with_capacity(attempts.len());
            // Endpoints answering when claimed that answered again are unchanged: no need to read
            // their health (the common case).
            let health_moves = attempts.iter().any(|(job, outcome)| !job.health.is_answering() || !outcome.answered());
            for (job, outcome) in attempts {
                let mut delivery = job.delivery.clone();
                delivery.record(outcome, &self.schedule, now, self.ids.fraction());
                // Settling checks that `owner` still holds the lease; an attempt of a lost lease is
                // not recorded.
                if !repositories.deliveries().settle(&delivery, owner)? {
                    continue;
                }
                recorded.push(DeliveryAttempt::of(&delivery, now, outcome));
                outcomes.push((job.delivery.webhook_id(), outcome));
            }
            repositories.deliveries().record_attempts(&recorded)?;
            if health_moves {
                self.update_health(repositories, &outcomes, now)?;
            }
            Ok(())
        })
    }

    /// Moves the health of the endpoints of `outcomes` (in the order they ended) and makes a newly
    /// backed-off endpoint's pending deliveries wait with it.
    fn update_health(
        &self,
        repositories: &mut dyn Repositories,
        outcomes: &[(&WebhookId, &AttemptOutcome)],
        now: Timestamp,
    ) -> Result<(), ApplicationError> {
        let webhook_ids: Vec<WebhookId> = distinct(outcomes.iter().map(|(webhook_id, _)| *webhook_id));
        for (webhook, before) in repositories.webhooks().endpoints(&webhook_ids)? {
            let after = outcomes
                .iter()
                .filter(|(webhook_id, _)| *webhook_id == webhook.id())
                .fold(before, |health, (_, outcome)| health.after(outcome, &self.schedule, now));
            if after == before {
                continue;
            }
            repositories.webhooks().set_health(&webhook, &after)?;
            if after.is_backed_off(now) && after.retry_at != before.retry_at {
                repositories.deliveries().postpone(&webhook, after.retry_at, now)?;
            }
        }
        Ok(())
    }
}

/// The distinct values of `items`, in their first order.
fn distinct<'a, T: Clone + Eq + std::hash::Hash + 'a>(items: impl Iterator<Item = &'a T>) -> Vec<T> {
    let mut seen = HashSet::new();
    items.filter(|item| seen.insert(*item)).cloned().collect()
}
