//! Webhooks: register endpoints, change them, enable and disable them (pausing and resuming their
//! pending deliveries), delete them (canceling those), and show and resend deliveries.

use super::event::new_delivery;
use crate::error::ApplicationError;
use crate::pagination::{Page, PageRequest};
use crate::ports::{
    in_transaction, reading, Clock, DeliveryAttempt, IdGenerator, Repositories, UnitOfWork, UrlGuard, WebhookFilter,
};
use crate::scope::Scope;
use payments_domain::ids::{EventId, WebhookId, RANDOM_PART_LENGTH};
use payments_domain::validation::FieldError;
use payments_domain::webhook::{DeliveryStatus, Webhook, WebhookSecret, WebhookStatus};
use std::sync::Arc;

const RESOURCE: &str = "webhook";
/// Attempts shown by [`WebhookService::attempts`] at most.
pub const MAX_ATTEMPTS_SHOWN: u32 = 100;

/// What a merchant supplies to register a webhook.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewWebhook {
    pub url: String,
    pub events: Vec<String>,
    pub description: Option<String>,
}

/// Fields an update may change; `None` leaves a field as it is.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct WebhookChanges {
    pub url: Option<String>,
    pub events: Option<Vec<String>>,
    pub description: Option<String>,
}

/// Webhook use cases.
pub struct WebhookService {
    unit_of_work: Arc<dyn UnitOfWork>,
    clock: Arc<dyn Clock>,
    ids: Arc<dyn IdGenerator>,
    url_guard: Arc<dyn UrlGuard>,
}

impl WebhookService {
    #[must_use]
    pub fn new(
        unit_of_work: Arc<dyn UnitOfWork>,
        clock: Arc<dyn Clock>,
        ids: Arc<dyn IdGenerator>,
        url_guard: Arc<dyn UrlGuard>,
    ) -> Self {
        Self { unit_of_work, clock, ids, url_guard }
    }

    /// Registers a webhook, enabled, with a new secret key.
    ///
    /// # Errors
    /// `parameter_invalid` on `url` for a URL the mode does not allow; storage failures.
    pub fn create(&self, scope: &Scope, new: NewWebhook) -> Result<Webhook, ApplicationError> {
        self.check_url(&new.url, scope.livemode())?;
        let now = self.clock.now();
        let webhook = Webhook {
            id: WebhookId::from_random(&self.ids.alphanumeric(RANDOM_PART_LENGTH)),
            account_id: scope.account_id.clone(),
            livemode: scope.livemode(),
            url: new.url,
            events: new.events,
            description: new.description,
            secret_key: WebhookSecret::new(&self.ids.alphanumeric(RANDOM_PART_LENGTH)),
            status: WebhookStatus::Enabled,
            created_at: now,
            updated_at: now,
            version: 1,
        };
        in_transaction(self.unit_of_work.as_ref(), |repositories| {
            repositories.webhooks().insert(&webhook)?;
            Ok(webhook)
        })
    }

    /// # Errors
    /// `resource_not_found`; storage failures.
    pub fn retrieve(&self, scope: &Scope, id: &str) -> Result<Webhook, ApplicationError> {
        reading(self.unit_of_work.as_ref(), |repositories| load(repositories, scope, id))
    }

    /// # Errors
    /// `parameter_invalid` on `url`; `resource_not_found`; `resource_conflict`; storage failures.
    pub fn update(&self, scope: &Scope, id: &str, changes: WebhookChanges) -> Result<Webhook, ApplicationError> {
        if let Some(url) = &changes.url {
            self.check_url(url, scope.livemode())?;
        }
        let now = self.clock.now();
        in_transaction(self.unit_of_work.as_ref(), |repositories| {
            let mut webhook = load(repositories, scope, id)?;
            let expected_version = webhook.version;
            if let Some(url) = &changes.url {
                webhook.url.clone_from(url);
            }
            if let Some(events) = &changes.events {
                webhook.events.clone_from(events);
            }
            if changes.description.is_some() {
                webhook.description.clone_from(&changes.description);
            }
            webhook.touch(now);
            repositories.webhooks().update(&webhook, expected_version)?;
            Ok(webhook)
        })
    }

    /// Deletes a webhook and cancels its pending deliveries.
    ///
    /// # Errors
    /// `resource_not_found`; storage failures.
    pub fn delete(&self, scope: &Scope, id: &str) -> Result<Webhook, ApplicationError> {
        in_transaction(self.unit_of_work.as_ref(), |repositories| {
            let webhook = load(repositories, scope, id)?;
            for from in [DeliveryStatus::Pending, DeliveryStatus::Paused] {
                settle_all(repositories, &webhook.id, from, DeliveryStatus::Canceled)?;
            }
            repositories.webhooks().delete(&webhook)?;
            Ok(webhook)
        })
    }

    /// # Errors
    /// `parameter_invalid` on an unknown cursor; storage failures.
    pub fn list(
        &self,
        scope: &Scope,
        filter: &WebhookFilter,
        page: &PageRequest,
    ) -> Result<Page<Webhook>, ApplicationError> {
        reading(self.unit_of_work.as_ref(), |repositories| {
            repositories.webhooks().list(scope, filter, page).map_err(|error| page.explain(error))
        })
    }

    /// Enables a webhook and resumes its paused deliveries at once.
    ///
    /// # Errors
    /// `resource_not_found`; `resource_conflict`; storage failures.
    pub fn enable(&self, scope: &Scope, id: &str) -> Result<Webhook, ApplicationError> {
        self.set_status(scope, id, WebhookStatus::Enabled, DeliveryStatus::Paused, DeliveryStatus::Pending)
    }

    /// Disables a webhook: no new events, and its pending deliveries wait until it is enabled.
    ///
    /// # Errors
    /// `resource_not_found`; `resource_conflict`; storage failures.
    pub fn disable(&self, scope: &Scope, id: &str) -> Result<Webhook, ApplicationError> {
        self.set_status(scope, id, WebhookStatus::Disabled, DeliveryStatus::Pending, DeliveryStatus::Paused)
    }

    /// The webhook's latest delivery attempts, newest first.
    ///
    /// # Errors
    /// `resource_not_found`; storage failures.
    pub fn attempts(&self, scope: &Scope, id: &str, limit: u32) -> Result<Vec<DeliveryAttempt>, ApplicationError> {
        reading(self.unit_of_work.as_ref(), |repositories| {
            let webhook = load(repositories, scope, id)?;
            Ok(repositories.deliveries().attempts(&webhook.id, limit.min(MAX_ATTEMPTS_SHOWN))?)
        })
    }

    /// Sends an event of the scope to the webhook again, whatever became of earlier deliveries.
    ///
    /// # Errors
    /// `resource_not_found`; `parameter_invalid` on `event_id`; storage failures.
    pub fn resend(&self, scope: &Scope, id: &str, event_id: &str) -> Result<Webhook, ApplicationError> {
        let now_ms = self.clock.now_millis();
        in_transaction(self.unit_of_work.as_ref(), |repositories| {
            let webhook = load(repositories, scope, id)?;
            let unknown = || {
                ApplicationError::invalid(FieldError::invalid(
                    "event_id",
                    format!("No event with id {event_id} exists."),
                ))
            };
            let event_id = EventId::parse(event_id).ok_or_else(unknown)?;
            let event = repositories.events().find(scope, &event_id)?.ok_or_else(unknown)?;
            let mut delivery = new_delivery(self.ids.as_ref(), &webhook, &event.id, now_ms);
            if webhook.status == WebhookStatus::Disabled {
                delivery.status = DeliveryStatus::Paused;
            }
            repositories.deliveries().insert(&delivery)?;
            repositories.events().add_pending_webhooks(&event.id, 1)?;
            Ok(webhook)
        })
    }

    fn set_status(
        &self,
        scope: &Scope,
        id: &str,
        status: WebhookStatus,
        from: DeliveryStatus,
        to: DeliveryStatus,
    ) -> Result<Webhook, ApplicationError> {
        let now = self.clock.now();
        let due_at_ms = (to == DeliveryStatus::Pending).then(|| self.clock.now_millis());
        in_transaction(self.unit_of_work.as_ref(), |repositories| {
            let mut webhook = load(repositories, scope, id)?;
            let expected_version = webhook.version;
            webhook.set_status(status, now);
            repositories.webhooks().update(&webhook, expected_version)?;
            repositories.deliveries().move_all(&webhook.id, from, to, due_at_ms)?;
            Ok(webhook)
        })
    }

    fn check_url(&self, url: &str, livemode: bool) -> Result<(), ApplicationError> {
        self.url_guard
            .check(url, livemode)
            .map_err(|reason| ApplicationError::invalid(FieldError::invalid("url", reason)))
    }
}

/// Moves deliveries to a final status, taking them off their events' pending counts.
fn settle_all(
    repositories: &mut dyn Repositories,
    webhook_id: &WebhookId,
    from: DeliveryStatus,
    to: DeliveryStatus,
) -> Result<(), ApplicationError> {
    for delivery in repositories.deliveries().move_all(webhook_id, from, to, None)? {
        repositories.events().add_pending_webhooks(&delivery.event_id, -1)?;
    }
    Ok(())
}

fn load(repositories: &mut dyn Repositories, scope: &Scope, id: &str) -> Result<Webhook, ApplicationError> {
    let not_found = || ApplicationError::NotFound { resource: RESOURCE, id: id.to_owned() };
    let webhook_id = WebhookId::parse(id).ok_or_else(not_found)?;
    repositories.webhooks().find(scope, &webhook_id)?.ok_or_else(not_found)
}
