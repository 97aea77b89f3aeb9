//! A webhook, and one of its delivery attempts, as the API shows them.

use payments_application::ports::DeliveryAttempt;
use payments_domain::description::Description;
use payments_domain::webhook::Webhook;
use payments_domain::webhook::WebhookStatus;
use serde::Serialize;
use utoipa::ToSchema;

pub(crate) const RESOURCE: &str = "webhook";

/// A webhook as the API shows it.
#[derive(Serialize, ToSchema)]
#[schema(as = Webhook)]
pub(crate) struct WebhookResource<'a> {
    id: &'a str,
    resource: &'static str,
    secret_key: &'a str,
    #[schema(schema_with = status_schema)]
    status: &'static str,
    description: Option<&'a str>,
    livemode: bool,
    url: &'a str,
    events: Vec<&'static str>,
    created_at: i64,
    updated_at: i64,
}

impl<'a> WebhookResource<'a> {
    pub(crate) fn new(webhook: &'a Webhook) -> Self {
        Self {
            id: webhook.id().as_str(),
            resource: RESOURCE,
            secret_key: webhook.secret_key().reveal(),
            status: webhook.status().as_str(),
            description: webhook.description().map(Description::as_str),
            livemode: webhook.livemode(),
            url: webhook.url().as_str(),
            events: webhook.events().iter().map(|event_type| event_type.as_str()).collect(),
            created_at: webhook.created_at().unix_seconds(),
            updated_at: webhook.updated_at().unix_seconds(),
        }
    }
}

/// One delivery attempt as the merchant sees it.
#[derive(Serialize, ToSchema)]
#[schema(as = Attempt)]
pub(crate) struct AttemptResource<'a> {
    resource: &'static str,
    delivery_id: &'a str,
    event_id: &'a str,
    attempted_at: i64,
    status_code: Option<u16>,
    error: Option<&'a str>,
    duration_ms: i64,
}

impl<'a> AttemptResource<'a> {
    pub(crate) fn new(attempt: &'a DeliveryAttempt) -> Self {
        Self {
            resource: "webhook_attempt",
            delivery_id: attempt.delivery_id.as_str(),
            event_id: attempt.event_id.as_str(),
            attempted_at: attempt.attempted_at.unix_seconds(),
            status_code: attempt.status_code,
            error: attempt.error.as_deref(),
            duration_ms: attempt.duration_ms,
        }
    }
}

/// Its statuses, as the OpenAPI document lists them.
fn status_schema() -> utoipa::openapi::schema::Schema {
    super::one_of(crate::decode::names(&WebhookStatus::ALL, WebhookStatus::as_str))
}

/// What recovering a webhook's failed deliveries did.
#[derive(Serialize, ToSchema)]
#[schema(as = WebhookRecovery)]
pub(crate) struct WebhookRecoveryResource<'a> {
    #[schema(example = "webhook_recovery")]
    resource: &'static str,
    webhook_id: &'a str,
    livemode: bool,
    /// Deliveries that failed at or after this time (Unix seconds) were requeued.
    since: i64,
    /// How many were requeued, due at once.
    requeued: u64,
}

impl<'a> WebhookRecoveryResource<'a> {
    pub(crate) fn new(webhook: &'a Webhook, since: i64, requeued: u64) -> Self {
        Self {
            resource: "webhook_recovery",
            webhook_id: webhook.id().as_str(),
            livemode: webhook.livemode(),
            since,
            requeued,
        }
    }
}
