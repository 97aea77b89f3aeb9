//! Webhook deliveries, leased to one worker at a time, and their attempts.

use super::{in_scope_of, State};
use crate::ports::{DeliveryAttempt, DeliveryBacklog, DeliveryRepository, PassOver, StoreError};
use crate::scope::Scope;
use payments_domain::ids::{DeliveryId, EventId};
use payments_domain::time::Timestamp;
use payments_domain::webhook::{DeliveryMove, DeliveryStatus, Webhook};
use payments_domain::webhook_delivery::Delivery;

/// A delivery in the fake store, with the lease a worker holds on it.
#[derive(Debug, Clone)]
pub(super) struct LeasedDelivery {
    delivery: Delivery,
    owner: Option<String>,
    lease_until: Timestamp,
}

impl LeasedDelivery {
    pub(super) fn delivery(&self) -> &Delivery {
        &self.delivery
    }
}

impl State {
    /// Moves each delivery to `webhook` (in its account and mode) with `step`; returns how many moved.
    fn move_each_of(&mut self, webhook: &Webhook, mut step: impl FnMut(&mut Delivery) -> bool) -> u64 {
        let of_webhook = |d: &&mut LeasedDelivery| {
            d.delivery.webhook_id() == webhook.id()
                && d.delivery.account_id() == webhook.account_id()
                && d.delivery.livemode() == webhook.livemode()
        };
        self.deliveries.iter_mut().filter(of_webhook).map(|leased| u64::from(step(&mut leased.delivery))).sum()
    }

    /// Moves each delivery to the webhook `webhook_id` that no sender holds at `now` with `step`;
    /// returns how many moved.
    fn move_each_unleased(
        &mut self,
        webhook: &Webhook,
        now: Timestamp,
        mut step: impl FnMut(&mut Delivery) -> bool,
    ) -> u64 {
        let unleased = |d: &&mut LeasedDelivery| {
            d.delivery.webhook_id() == webhook.id()
                && d.delivery.account_id() == webhook.account_id()
                && d.delivery.livemode() == webhook.livemode()
                && d.lease_until <= now
        };
        self.deliveries.iter_mut().filter(unleased).map(|leased| u64::from(step(&mut leased.delivery))).sum()
    }

    /// How many deliveries of event `id` are still to be made.
    pub(super) fn outstanding_deliveries_of(&self, id: &EventId) -> usize {
        self.deliveries.iter().filter(|d| d.delivery.event_id() == id && d.delivery.status().is_outstanding()).count()
    }
}

impl DeliveryRepository for State {
    fn insert(&mut self, deliveries: &[Delivery]) -> Result<(), StoreError> {
        let lease_until = Timestamp::from_unix_millis(0);
        self.deliveries.extend(deliveries.iter().map(|delivery| LeasedDelivery {
            delivery: delivery.clone(),
            owner: None,
            lease_until,
        }));
        Ok(())
    }

    fn due(&mut self, now: Timestamp, limit: u32, pass_over: &PassOver) -> Result<Vec<Delivery>, StoreError> {
        let mut due: Vec<&LeasedDelivery> = self
            .deliveries
            .iter()
            .filter(|d| {
                d.delivery.status() == DeliveryStatus::Pending
                    && d.delivery.next_attempt_at() <= now
                    && d.lease_until <= now
                    && !pass_over.webhooks.contains(d.delivery.webhook_id())
                    && !pass_over.accounts.contains(d.delivery.account_id())
            })
            .collect();
        due.sort_by_key(|d| d.delivery.next_attempt_at());
        Ok(due.into_iter().take(limit as usize).map(|d| d.delivery.clone()).collect())
    }

    fn claim(
        &mut self,
        ids: &[DeliveryId],
        owner: &str,
        now: Timestamp,
        lease_until: Timestamp,
    ) -> Result<Vec<DeliveryId>, StoreError> {
        let mut claimed = Vec::new();
        for leased in self.deliveries.iter_mut() {
            let claimable = leased.delivery.status() == DeliveryStatus::Pending && leased.lease_until <= now;
            if claimable && ids.contains(leased.delivery.id()) {
                leased.owner = Some(owner.to_owned());
                leased.lease_until = lease_until;
                claimed.push(leased.delivery.id().clone());
            }
        }
        Ok(claimed)
    }

    fn release(&mut self, ids: &[DeliveryId], owner: &str) -> Result<u64, StoreError> {
        let mut released = 0;
        for leased in self.deliveries.iter_mut() {
            if ids.contains(leased.delivery.id()) && leased.owner.as_deref() == Some(owner) {
                leased.owner = None;
                leased.lease_until = Timestamp::from_unix_millis(0);
                released += 1;
            }
        }
        Ok(released)
    }

    fn settle(&mut self, delivery: &Delivery, owner: &str) -> Result<bool, StoreError> {
        let held = |d: &&mut LeasedDelivery| {
            d.delivery.id() == delivery.id()
                && d.owner.as_deref() == Some(owner)
                && d.delivery.status() == DeliveryStatus::Pending
        };
        match self.deliveries.iter_mut().find(held) {
            Some(leased) => {
                *leased = LeasedDelivery {
                    delivery: delivery.clone(),
                    owner: None,
                    lease_until: Timestamp::from_unix_millis(0),
                };
                Ok(true)
            }
            None => Ok(false),
        }
    }

    fn move_all(&mut self, webhook: &Webhook, change: &DeliveryMove) -> Result<u64, StoreError> {
        Ok(self.move_each_of(webhook, |delivery| delivery.apply(change)))
    }

    fn postpone(&mut self, webhook: &Webhook, until: Timestamp, now: Timestamp) -> Result<u64, StoreError> {
        Ok(self.move_each_unleased(webhook, now, |delivery| delivery.postpone(until)))
    }

    fn bring_forward(&mut self, webhook: &Webhook, until: Timestamp, now: Timestamp) -> Result<u64, StoreError> {
        Ok(self.move_each_unleased(webhook, now, |delivery| delivery.bring_forward(until, now)))
    }

    fn recover(&mut self, webhook: &Webhook, since: Timestamp, recovery: &DeliveryMove) -> Result<u64, StoreError> {
        Ok(self.move_each_of(webhook, |delivery| delivery.recover(since, recovery)))
    }

    fn record_attempts(&mut self, attempts: &[DeliveryAttempt]) -> Result<(), StoreError> {
        self.attempts.extend_from_slice(attempts);
        Ok(())
    }

    fn attempts(&mut self, webhook: &Webhook, limit: u32) -> Result<Vec<DeliveryAttempt>, StoreError> {
        let of_webhook = |a: &&DeliveryAttempt| {
            &a.webhook_id == webhook.id() && &a.account_id == webhook.account_id() && a.livemode == webhook.livemode()
        };
        Ok(self.attempts.iter().rev().filter(of_webhook).take(limit as usize).cloned().collect())
    }

    fn failed_attempts(&mut self, scope: &Scope, limit: u32) -> Result<Vec<DeliveryAttempt>, StoreError> {
        let failed = |a: &&DeliveryAttempt| !a.delivered() && in_scope_of(&a.account_id, a.livemode, scope);
        Ok(self.attempts.iter().rev().filter(failed).take(limit as usize).cloned().collect())
    }

    fn attempts_of_event(&mut self, scope: &Scope, event_id: &EventId) -> Result<Vec<DeliveryAttempt>, StoreError> {
        let of_event = |a: &&DeliveryAttempt| &a.event_id == event_id && in_scope_of(&a.account_id, a.livemode, scope);
        Ok(self.attempts.iter().filter(of_event).cloned().collect())
    }

    fn backlog(&mut self) -> Result<DeliveryBacklog, StoreError> {
        let pending = self.deliveries.iter().filter(|d| d.delivery.status() == DeliveryStatus::Pending);
        Ok(pending.fold(DeliveryBacklog::default(), |backlog, d| DeliveryBacklog {
            pending: backlog.pending + 1,
            oldest_created_at: Some(
                backlog.oldest_created_at.map_or(d.delivery.created_at(), |oldest| oldest.min(d.delivery.created_at())),
            ),
        }))
    }
}
