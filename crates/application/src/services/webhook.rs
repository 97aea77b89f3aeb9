//! Webhooks: register endpoints, change them, enable and disable them (pausing and resuming their
//! pending deliveries), delete them (canceling those), and show and resend deliveries. The rules of
//! each move are the domain's ([`Webhook`], [`Delivery`]); this service loads, applies and stores.

use crate::error::ApplicationError;
use crate::pagination::{Page, PageRequest};
use crate::ports::{
    in_transaction, reading, retry_on_conflict, Clock, DeliveryAttempt, EventFilter, IdGenerator, Repositories,
    UnitOfWork, UrlGuard, WebhookFilter,
};
use crate::scope::Scope;
use payments_domain::ids::{DeliveryId, EventId, WebhookId, RANDOM_PART_LENGTH};
use payments_domain::time::Timestamp;
use payments_domain::validation::FieldError;
use payments_domain::webhook::{
    DeliveryMove, DeliveryStatus, NewWebhook, Webhook, WebhookChanges, WebhookSecret, WebhookUrl,
};
use payments_domain::webhook_delivery::{Delivery, EndpointHealth};
use std::sync::Arc;

const RESOURCE: &str = "webhook";
/// Attempts shown by [`WebhookService::attempts`] at most.
pub const MAX_ATTEMPTS_SHOWN: u32 = 100;

/// What a webhook's page shows: the webhook, its latest delivery attempts, and the latest event it
/// receives (to send again).
#[derive(Debug, Clone)]
pub struct WebhookPage {
    pub webhook: Webhook,
    pub attempts: Vec<DeliveryAttempt>,
    pub latest_event: Option<EventId>,
}

/// Webhook use cases.
pub struct WebhookService {
    unit_of_work: Arc<dyn UnitOfWork>,
    clock: Arc<dyn Clock>,
    ids: Arc<dyn IdGenerator>,
    url_guard: Arc<dyn UrlGuard>,
    /// How long a rotated-out secret still signs deliveries, in seconds.
    secret_overlap_seconds: i64,
}

impl WebhookService {
    #[must_use]
    pub fn new(
        unit_of_work: Arc<dyn UnitOfWork>,
        clock: Arc<dyn Clock>,
        ids: Arc<dyn IdGenerator>,
        url_guard: Arc<dyn UrlGuard>,
        secret_overlap_seconds: i64,
    ) -> Self {
        Self { unit_of_work, clock, ids, url_guard, secret_overlap_seconds }
    }

    /// Gives the webhook a new secret. Deliveries are signed with both the new and the old one
    /// until the overlap (real time) ends, so a receiver switches over without missing one.
    ///
    /// # Errors
    /// `resource_not_found`; `resource_conflict`; storage failures.
    pub fn rotate_secret(&self, scope: &Scope, id: &str) -> Result<Webhook, ApplicationError> {
        retry_on_conflict(|| {
            let (now, real_now) = (self.clock.now_in(scope)?, self.clock.now());
            in_transaction(self.unit_of_work.as_ref(), |repositories| {
                let mut webhook = load(repositories, scope, id)?;
                let expected_version = webhook.version();
                let until = real_now.plus_seconds(self.secret_overlap_seconds);
                webhook.rotate_secret(WebhookSecret::new(&self.random()), now, until, real_now);
                repositories.webhooks().update(&webhook, expected_version)?;
                Ok(webhook)
            })
        })
    }

    /// Registers a webhook, enabled, with a new secret key.
    ///
    /// # Errors
    /// `parameter_invalid` on `url` for a URL the mode does not allow; storage failures.
    pub fn create(&self, scope: &Scope, new: NewWebhook) -> Result<Webhook, ApplicationError> {
        self.check_url(&new.url, scope.livemode())?;
        let webhook = Webhook::create(
            WebhookId::from_random(&self.ids.id_part()),
            scope.account_id.clone(),
            scope.livemode(),
            WebhookSecret::new(&self.random()),
            new,
            self.clock.now_in(scope)?,
        );
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

    /// Changes a webhook; a new URL is tried at once with the pending deliveries.
    ///
    /// # Errors
    /// `parameter_invalid` on `url`; `resource_not_found`; `resource_conflict`; storage failures.
    pub fn update(&self, scope: &Scope, id: &str, changes: WebhookChanges) -> Result<Webhook, ApplicationError> {
        if let Some(url) = &changes.url {
            self.check_url(url, scope.livemode())?;
        }
        let now = self.clock.now_in(scope)?;
        in_transaction(self.unit_of_work.as_ref(), |repositories| {
            let mut webhook = load(repositories, scope, id)?;
            let expected_version = webhook.version();
            let new_receiver = webhook.update(changes.clone(), now);
            repositories.webhooks().update(&webhook, expected_version)?;
            if let Some(moves) = new_receiver.map(|moves| moves.due_from(self.clock.now())) {
                // Another receiver: what the old one did says nothing of it.
                repositories.deliveries().move_all(&webhook, &moves)?;
                repositories.webhooks().set_health(&webhook, &EndpointHealth::ANSWERING)?;
            }
            Ok(webhook)
        })
    }

    /// Deletes a webhook and cancels its outstanding deliveries, however many there are.
    ///
    /// # Errors
    /// `resource_not_found`; storage failures.
    pub fn delete(&self, scope: &Scope, id: &str) -> Result<Webhook, ApplicationError> {
        in_transaction(self.unit_of_work.as_ref(), |repositories| {
            let webhook = load(repositories, scope, id)?;
            for change in webhook.deletion() {
                repositories.deliveries().move_all(&webhook, &change)?;
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

    /// Enables a webhook and resumes its paused deliveries at once; its endpoint is tried afresh,
    /// whatever back-off it was in.
    ///
    /// # Errors
    /// `resource_not_found`; `resource_conflict`; storage failures.
    pub fn enable(&self, scope: &Scope, id: &str) -> Result<Webhook, ApplicationError> {
        self.switch(scope, id, Webhook::enable)
    }

    /// Disables a webhook: no new events, and its pending deliveries wait until it is enabled.
    ///
    /// # Errors
    /// `resource_not_found`; `resource_conflict`; storage failures.
    pub fn disable(&self, scope: &Scope, id: &str) -> Result<Webhook, ApplicationError> {
        self.switch(scope, id, Webhook::disable)
    }

    /// A webhook's page: the webhook, its latest `attempts` delivery attempts (newest first), and the
    /// latest of the scope's last `events` events that it receives, to send again. One read.
    ///
    /// # Errors
    /// `resource_not_found`; storage failures.
    pub fn page(&self, scope: &Scope, id: &str, attempts: u32, events: u32) -> Result<WebhookPage, ApplicationError> {
        let recent = PageRequest::new(Some(i64::from(events.min(PageRequest::MAX_LIMIT))), None, None)
            .map_err(ApplicationError::Validation)?;
        reading(self.unit_of_work.as_ref(), |repositories| {
            let webhook = load(repositories, scope, id)?;
            let attempts = repositories.deliveries().attempts(&webhook, attempts.min(MAX_ATTEMPTS_SHOWN))?;
            let events = repositories.events().list(scope, &EventFilter::default(), &recent)?.data;
            let latest_event =
                events.into_iter().find(|event| webhook.receives(event.event_type)).map(|event| event.id);
            Ok(WebhookPage { webhook, attempts, latest_event })
        })
    }

    /// The webhook's latest delivery attempts, newest first.
    ///
    /// # Errors
    /// `resource_not_found`; storage failures.
    pub fn attempts(&self, scope: &Scope, id: &str, limit: u32) -> Result<Vec<DeliveryAttempt>, ApplicationError> {
        reading(self.unit_of_work.as_ref(), |repositories| {
            let webhook = load(repositories, scope, id)?;
            Ok(repositories.deliveries().attempts(&webhook, limit.min(MAX_ATTEMPTS_SHOWN))?)
        })
    }

    /// Sends an event of the scope to the webhook again, whatever became of earlier deliveries.
    ///
    /// # Errors
    /// `resource_not_found`; `parameter_invalid` on `event_id`; storage failures.
    pub fn resend(&self, scope: &Scope, id: &str, event_id: &str) -> Result<Webhook, ApplicationError> {
        // Deliveries keep real time, whatever the scope's test clock says.
        let now = self.clock.now();
        in_transaction(self.unit_of_work.as_ref(), |repositories| {
            let webhook = load(repositories, scope, id)?;
            let unknown = || {
                ApplicationError::invalid(FieldError::missing(
                    "event_id",
                    format!("No event with id {event_id} exists."),
                ))
            };
            let event_id = EventId::parse(event_id).ok_or_else(unknown)?;
            let event = repositories.events().find(scope, &event_id)?.ok_or_else(unknown)?;
            let delivery = Delivery::new(DeliveryId::from_random(&self.ids.id_part()), &webhook, event.id.clone(), now);
            repositories.deliveries().insert(std::slice::from_ref(&delivery))?;
            Ok(webhook)
        })
    }

    /// Requeues the webhook's deliveries that failed at or after `since` (real time) with a new
    /// retry window, as the domain says: due at once, the endpoint tried afresh (a merchant fixed
    /// their receiver), or, while the webhook is disabled, held until it is enabled. Returns the
    /// webhook and how many were requeued.
    ///
    /// # Errors
    /// `resource_not_found`; storage failures.
    pub fn recover(&self, scope: &Scope, id: &str, since: Timestamp) -> Result<(Webhook, u64), ApplicationError> {
        let now = self.clock.now();
        in_transaction(self.unit_of_work.as_ref(), |repositories| {
            let webhook = load(repositories, scope, id)?;
            let recovery = webhook.recovery(now);
            let requeued = repositories.deliveries().recover(&webhook, since, &recovery)?;
            if requeued > 0 && recovery.to == DeliveryStatus::Pending {
                repositories.webhooks().set_health(&webhook, &EndpointHealth::ANSWERING)?;
            }
            Ok((webhook, requeued))
        })
    }

    /// Enables or disables a webhook and moves its outstanding deliveries as the domain says.
    fn switch(
        &self,
        scope: &Scope,
        id: &str,
        change: fn(&mut Webhook, Timestamp) -> DeliveryMove,
    ) -> Result<Webhook, ApplicationError> {
        let now = self.clock.now_in(scope)?;
        in_transaction(self.unit_of_work.as_ref(), |repositories| {
            let mut webhook = load(repositories, scope, id)?;
            let expected_version = webhook.version();
            let moves = change(&mut webhook, now).due_from(self.clock.now());
            repositories.webhooks().update(&webhook, expected_version)?;
            repositories.deliveries().move_all(&webhook, &moves)?;
            if moves.due_at.is_some() {
                // Enabled: its deliveries are due at once, and the endpoint is tried afresh (a
                // back-off from before would keep them waiting).
                repositories.webhooks().set_health(&webhook, &EndpointHealth::ANSWERING)?;
            }
            Ok(webhook)
        })
    }

    fn random(&self) -> String {
        self.ids.alphanumeric(RANDOM_PART_LENGTH)
    }

    fn check_url(&self, url: &WebhookUrl, livemode: bool) -> Result<(), ApplicationError> {
        self.url_guard
            .check(url.as_str(), livemode)
            .map_err(|reason| ApplicationError::invalid(FieldError::invalid("url", reason)))
    }
}

fn load(repositories: &mut dyn Repositories, scope: &Scope, id: &str) -> Result<Webhook, ApplicationError> {
    let not_found = || ApplicationError::NotFound { resource: RESOURCE, id: id.to_owned() };
    let webhook_id = WebhookId::parse(id).ok_or_else(not_found)?;
    repositories.webhooks().find(scope, &webhook_id)?.ok_or_else(not_found)
}
