//! Storage of webhooks, with their endpoints' health, and the check of webhook URLs.

use crate::error::StoreError;
use crate::pagination::{Page, PageRequest};
use crate::scope::Scope;
use payments_domain::ids::WebhookId;
use payments_domain::webhook::{Webhook, WebhookStatus};
use payments_domain::webhook_delivery::EndpointHealth;

/// Exact-match filters of the webhook list; every given one must match.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct WebhookFilter {
    pub url: Option<String>,
    pub description: Option<String>,
    pub status: Option<WebhookStatus>,
}

/// Webhooks, confined to a scope.
pub trait WebhookRepository {
    /// # Errors
    /// Storage failures.
    fn insert(&mut self, webhook: &Webhook) -> Result<(), StoreError>;

    /// # Errors
    /// Storage failures.
    fn find(&mut self, scope: &Scope, id: &WebhookId) -> Result<Option<Webhook>, StoreError>;

    /// # Errors
    /// [`StoreError::Conflict`] when the version moved on; storage failures.
    fn update(&mut self, webhook: &Webhook, expected_version: i64) -> Result<(), StoreError>;

    /// # Errors
    /// Storage failures.
    fn delete(&mut self, webhook: &Webhook) -> Result<(), StoreError>;

    /// # Errors
    /// [`StoreError::UnknownCursor`]; storage failures.
    fn list(&mut self, scope: &Scope, filter: &WebhookFilter, page: &PageRequest) -> Result<Page<Webhook>, StoreError>;

    /// The enabled webhooks of the scope, with their endpoints' health.
    ///
    /// # Errors
    /// Storage failures.
    fn enabled(&mut self, scope: &Scope) -> Result<Vec<(Webhook, EndpointHealth)>, StoreError>;

    /// The webhooks of `ids` that exist, of any account (for the delivery worker alone, which checks
    /// each against its delivery's account), with their endpoints' health.
    ///
    /// # Errors
    /// Storage failures.
    fn endpoints(&mut self, ids: &[WebhookId]) -> Result<Vec<(Webhook, EndpointHealth)>, StoreError>;

    /// Stores how the webhook's endpoint has been answering; no change to the webhook itself (its
    /// version stays).
    ///
    /// # Errors
    /// Storage failures.
    fn set_health(&mut self, webhook: &Webhook, health: &EndpointHealth) -> Result<(), StoreError>;
}

/// Checks that a webhook URL may be used in a mode.
pub trait UrlGuard: Send + Sync {
    /// # Errors
    /// Why the URL is refused, as a sentence for the merchant.
    fn check(&self, url: &str, livemode: bool) -> Result<(), String>;
}
