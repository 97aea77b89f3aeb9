//! Webhooks and how their endpoints answer.

use super::{filtered_page_of, in_scope_of, replace_versioned, State, Stored};
use crate::pagination::{Page, PageRequest};
use crate::ports::{StoreError, WebhookFilter, WebhookRepository};
use crate::scope::Scope;
use payments_domain::description::Description;
use payments_domain::ids::WebhookId;
use payments_domain::webhook::{Webhook, WebhookStatus};
use payments_domain::webhook_delivery::EndpointHealth;

impl WebhookRepository for State {
    fn insert(&mut self, webhook: &Webhook) -> Result<(), StoreError> {
        self.webhooks.push(webhook.clone());
        Ok(())
    }

    fn find(&mut self, scope: &Scope, id: &WebhookId) -> Result<Option<Webhook>, StoreError> {
        Ok(self.webhooks.iter().find(|w| w.id() == id && in_scope_of(w.account_id(), w.livemode(), scope)).cloned())
    }

    fn update(&mut self, webhook: &Webhook, expected_version: i64) -> Result<(), StoreError> {
        replace_versioned(&mut self.webhooks, webhook, expected_version)
    }

    fn delete(&mut self, webhook: &Webhook) -> Result<(), StoreError> {
        let before = self.webhooks.len();
        self.webhooks.retain(|w| w.key() != webhook.key());
        if self.webhooks.len() < before {
            self.endpoint_health.remove(webhook.id());
        }
        Ok(())
    }

    fn list(&mut self, scope: &Scope, filter: &WebhookFilter, page: &PageRequest) -> Result<Page<Webhook>, StoreError> {
        let in_scope: Vec<&Webhook> =
            self.webhooks.iter().filter(|w| in_scope_of(w.account_id(), w.livemode(), scope)).collect();
        let matches = |w: &Webhook| {
            filter.url.as_deref().is_none_or(|url| w.url().as_str() == url)
                && filter.description.as_deref().is_none_or(|d| w.description().map(Description::as_str) == Some(d))
                && filter.status.is_none_or(|status| w.status() == status)
        };
        filtered_page_of(&in_scope, |w| w.id().as_str(), matches, page)
    }

    fn enabled(&mut self, scope: &Scope) -> Result<Vec<(Webhook, EndpointHealth)>, StoreError> {
        Ok(self
            .webhooks
            .iter()
            .filter(|w| in_scope_of(w.account_id(), w.livemode(), scope) && w.status() == WebhookStatus::Enabled)
            .map(|w| (w.clone(), self.endpoint_health.get(w.id()).copied().unwrap_or(EndpointHealth::ANSWERING)))
            .collect())
    }

    fn endpoints(&mut self, ids: &[WebhookId]) -> Result<Vec<(Webhook, EndpointHealth)>, StoreError> {
        Ok(self
            .webhooks
            .iter()
            .filter(|w| ids.contains(w.id()))
            .map(|w| (w.clone(), self.endpoint_health.get(w.id()).copied().unwrap_or(EndpointHealth::ANSWERING)))
            .collect())
    }

    fn set_health(&mut self, webhook: &Webhook, health: &EndpointHealth) -> Result<(), StoreError> {
        let ours = |w: &&Webhook| w.id() == webhook.id() && w.account_id() == webhook.account_id();
        if self.webhooks.iter().any(|w| ours(&w) && w.livemode() == webhook.livemode()) {
            self.endpoint_health.insert(webhook.id().clone(), *health);
        }
        Ok(())
    }
}
