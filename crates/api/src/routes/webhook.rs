//! `/webhooks`: create, list, retrieve, update, delete, enable, disable; and for the merchant's
//! troubleshooting, `GET /webhooks/:id/attempts` and `POST /webhooks/:id/resend`.

use super::endpoint::Endpoint;
use super::support::{ok, page_request};
use crate::auth::SecretKey;
use crate::decode::{names, BodyParams, Params, QueryParams, WEB_URL};
use crate::error::ApiError;
use crate::representation::envelope::{Deleted, List};
use crate::representation::webhook::{AttemptResource, WebhookRecoveryResource, WebhookResource, RESOURCE};
use crate::state::{blocking, Services};
use actix_web::{web, HttpResponse};
use payments_application::pagination::PageRequest;
use payments_application::ports::WebhookFilter;
use payments_application::services::WebhookService;
use payments_application::{ApplicationError, Scope};
use payments_domain::billing_statement::LATEST_DUE_AT;
use payments_domain::description::Description;
use payments_domain::event::EventType;
use payments_domain::limits::{CHOICES, IDENTIFIER_LENGTH, URL_LENGTH};
use payments_domain::time::Timestamp;
use payments_domain::webhook::{NewWebhook, Webhook, WebhookChanges, WebhookStatus, WebhookUrl};

pub(super) fn endpoints() -> Vec<Endpoint> {
    vec![
        Endpoint::post("/webhooks", create)
            .named("create_webhook", "Create a webhook endpoint")
            .body(new_webhook)
            .answers::<WebhookResource>(),
        Endpoint::get("/webhooks", list)
            .named("list_webhooks", "List webhook endpoints, newest first")
            .query(list_request)
            .answers::<WebhookResource>()
            .list(),
        Endpoint::get("/webhooks/{id}", retrieve)
            .named("retrieve_webhook", "Retrieve a webhook endpoint")
            .answers::<WebhookResource>(),
        Endpoint::put("/webhooks/{id}", update)
            .named("update_webhook", "Update a webhook endpoint")
            .body(webhook_changes)
            .answers::<WebhookResource>(),
        Endpoint::delete("/webhooks/{id}", delete)
            .named("delete_webhook", "Delete a webhook endpoint")
            .answers::<Deleted>(),
        Endpoint::post("/webhooks/{id}/enable", enable)
            .named("enable_webhook", "Enable a webhook endpoint")
            .answers::<WebhookResource>(),
        Endpoint::post("/webhooks/{id}/disable", disable)
            .named("disable_webhook", "Disable a webhook endpoint")
            .answers::<WebhookResource>(),
        Endpoint::post("/webhooks/{id}/rotate_secret", rotate_secret)
            .named(
                "rotate_webhook_secret",
                "Give the endpoint a new secret; the old one still signs deliveries for the overlap",
            )
            .answers::<WebhookResource>(),
        Endpoint::get("/webhooks/{id}/attempts", attempts)
            .named("list_webhook_attempts", "List an endpoint's latest delivery attempts")
            .query(attempts_limit)
            .answers::<AttemptResource>()
            .list(),
        Endpoint::post("/webhooks/{id}/recover", recover)
            .named("recover_webhook_deliveries", "Requeue the endpoint's deliveries that failed since a time")
            .body(recover_since)
            .answers::<WebhookRecoveryResource>(),
        Endpoint::post("/webhooks/{id}/resend", resend)
            .named("resend_webhook_event", "Deliver an event to the endpoint again")
            .body(resend_event_id)
            .answers::<WebhookResource>(),
    ]
}

async fn create(
    SecretKey(scope): SecretKey,
    BodyParams(mut params): BodyParams,
    services: web::Data<Services>,
) -> Result<HttpResponse, ApiError> {
    let new = new_webhook(&mut params);
    let new = params.finish(new)?;
    let webhook = blocking(move || services.webhooks.create(&scope, new)).await?;
    Ok(ok(&WebhookResource::new(&webhook)))
}

async fn list(
    SecretKey(scope): SecretKey,
    QueryParams(mut params): QueryParams,
    services: web::Data<Services>,
) -> Result<HttpResponse, ApiError> {
    let request = list_request(&mut params);
    let (filter, page) = params.finish(request)?;
    let webhooks = blocking(move || services.webhooks.list(&scope, &filter, &page)).await?;
    Ok(ok(&List::of(&webhooks, WebhookResource::new)))
}

async fn retrieve(
    SecretKey(scope): SecretKey,
    id: web::Path<String>,
    QueryParams(params): QueryParams,
    services: web::Data<Services>,
) -> Result<HttpResponse, ApiError> {
    params.finish(Some(()))?;
    let webhook = blocking(move || services.webhooks.retrieve(&scope, &id)).await?;
    Ok(ok(&WebhookResource::new(&webhook)))
}

async fn update(
    SecretKey(scope): SecretKey,
    id: web::Path<String>,
    BodyParams(mut params): BodyParams,
    services: web::Data<Services>,
) -> Result<HttpResponse, ApiError> {
    let changes = webhook_changes(&mut params);
    let changes = params.finish(changes)?;
    let webhook = blocking(move || services.webhooks.update(&scope, &id, changes)).await?;
    Ok(ok(&WebhookResource::new(&webhook)))
}

async fn delete(
    SecretKey(scope): SecretKey,
    id: web::Path<String>,
    BodyParams(params): BodyParams,
    services: web::Data<Services>,
) -> Result<HttpResponse, ApiError> {
    params.finish(Some(()))?;
    let webhook = blocking(move || services.webhooks.delete(&scope, &id)).await?;
    Ok(ok(&Deleted::new(webhook.id().as_str(), RESOURCE)))
}

async fn enable(
    SecretKey(scope): SecretKey,
    id: web::Path<String>,
    BodyParams(params): BodyParams,
    services: web::Data<Services>,
) -> Result<HttpResponse, ApiError> {
    switch(scope, id.into_inner(), params, services, WebhookService::enable).await
}

async fn disable(
    SecretKey(scope): SecretKey,
    id: web::Path<String>,
    BodyParams(params): BodyParams,
    services: web::Data<Services>,
) -> Result<HttpResponse, ApiError> {
    switch(scope, id.into_inner(), params, services, WebhookService::disable).await
}

async fn rotate_secret(
    SecretKey(scope): SecretKey,
    id: web::Path<String>,
    BodyParams(params): BodyParams,
    services: web::Data<Services>,
) -> Result<HttpResponse, ApiError> {
    switch(scope, id.into_inner(), params, services, WebhookService::rotate_secret).await
}

/// Enables, disables or rotates the secret of a webhook (`change` is the service method); such a
/// request takes no parameters.
async fn switch(
    scope: Scope,
    id: String,
    params: Params,
    services: web::Data<Services>,
    change: fn(&WebhookService, &Scope, &str) -> Result<Webhook, ApplicationError>,
) -> Result<HttpResponse, ApiError> {
    params.finish(Some(()))?;
    let webhook = blocking(move || change(&services.webhooks, &scope, &id)).await?;
    Ok(ok(&WebhookResource::new(&webhook)))
}

async fn attempts(
    SecretKey(scope): SecretKey,
    id: web::Path<String>,
    QueryParams(mut params): QueryParams,
    services: web::Data<Services>,
) -> Result<HttpResponse, ApiError> {
    let limit = attempts_limit(&mut params);
    let limit = params.finish(limit)?;
    let attempts = blocking(move || services.webhooks.attempts(&scope, &id, limit)).await?;
    let data: Vec<AttemptResource<'_>> = attempts.iter().map(AttemptResource::new).collect();
    Ok(ok(&List::from_items(data, false)))
}

async fn resend(
    SecretKey(scope): SecretKey,
    id: web::Path<String>,
    BodyParams(mut params): BodyParams,
    services: web::Data<Services>,
) -> Result<HttpResponse, ApiError> {
    let event_id = resend_event_id(&mut params);
    let event_id = params.finish(event_id)?;
    let webhook = blocking(move || services.webhooks.resend(&scope, &id, &event_id)).await?;
    Ok(ok(&WebhookResource::new(&webhook)))
}

async fn recover(
    SecretKey(scope): SecretKey,
    id: web::Path<String>,
    BodyParams(mut params): BodyParams,
    services: web::Data<Services>,
) -> Result<HttpResponse, ApiError> {
    let since = recover_since(&mut params);
    let since = params.finish(since)?;
    let (webhook, requeued) =
        blocking(move || services.webhooks.recover(&scope, &id, Timestamp::from_unix_seconds(since))).await?;
    Ok(ok(&WebhookRecoveryResource::new(&webhook, since, requeued)))
}

/// `since`: the Unix time from which failed deliveries are requeued.
fn recover_since(params: &mut Params) -> Option<i64> {
    let since = params.integer_between("since", Some(0), Some(LATEST_DUE_AT));
    params.require("since", since)
}

pub(crate) fn new_webhook(params: &mut Params) -> Option<NewWebhook> {
    let url = url(params);
    let url = params.require("url", url);
    let events = events(params);
    let events = params.require("events", events);
    let description = params.description("description");
    url.zip(events).map(|(url, events)| NewWebhook { url, events, description })
}

pub(crate) fn webhook_changes(params: &mut Params) -> Option<WebhookChanges> {
    let url = url(params);
    let events = events(params);
    let description = params.description("description");
    Some(WebhookChanges { url, events, description })
}

/// A list request: the page and the filters.
pub(crate) fn list_request(params: &mut Params) -> Option<(WebhookFilter, PageRequest)> {
    let page = page_request(params);
    let filter = WebhookFilter {
        url: params.string("url", URL_LENGTH),
        description: params.string("description", Description::MAX_LENGTH),
        status: params.one_of("status", &WebhookStatus::ALL, WebhookStatus::as_str),
    };
    Some((filter, page?))
}

/// How many of the latest attempts to show: 20 unless said, within 1..=100.
fn attempts_limit(params: &mut Params) -> Option<u32> {
    let limit = params.integer("limit");
    Some(u32::try_from(limit.unwrap_or(20).clamp(1, 100)).unwrap_or(20))
}

/// The event a resend delivers again.
fn resend_event_id(params: &mut Params) -> Option<String> {
    params.required_string("event_id", IDENTIFIER_LENGTH)
}

fn url(params: &mut Params) -> Option<WebhookUrl> {
    let text = params.string("url", URL_LENGTH);
    params.pattern("url", WEB_URL);
    params.check("url", WebhookUrl::new(text?))
}

fn events(params: &mut Params) -> Option<Vec<EventType>> {
    let given = params.choice_list("events", CHOICES, || names(EventType::ALL, EventType::as_str));
    params.non_empty("events");
    params.check("events", EventType::parse_list(&given?))
}
