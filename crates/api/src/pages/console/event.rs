//! Events in the console: the list by type and object, and one event with its body and every attempt
//! to deliver it to each webhook (time, status, latency, the start of the receiver's answer), with a
//! form that sends it again to a webhook, through the service `POST /webhooks/:id/resend` calls.

use super::json::{href, to_html};
use super::{date_time, load, page, refused, Action, AttemptRow, Chrome, ListQuery, Pager, Signed};
use crate::representation::event::live_envelope;
use crate::representation::webhook::WebhookResource;
use crate::routes::event::list_request;
use crate::state::Services;
use actix_web::{web, HttpRequest, HttpResponse};
use askama::Template;
use payments_application::pagination::PageRequest;
use payments_application::services::EventPage;
use payments_domain::event::{Event, EventType};
use payments_domain::limits::IDENTIFIER_LENGTH;

const LIST: &str = "/dashboard/events";

pub(super) fn configure(config: &mut web::ServiceConfig) {
    super::pages(config, LIST, list, detail);
    super::form(config, format!("{LIST}/{{id}}/resend"), resend);
}

struct Row {
    id: String,
    time: String,
    event_type: &'static str,
    object: (String, Option<String>),
    pending_webhooks: i64,
}

impl Row {
    fn of(event: &Event) -> Self {
        Self {
            id: event.id.to_string(),
            time: date_time(event.created_at),
            event_type: event.event_type.as_str(),
            object: (event.object_id.clone(), href(&event.object_id)),
            pending_webhooks: event.pending_webhooks,
        }
    }
}

#[derive(Template)]
#[template(path = "console/events.html")]
struct ListPage<'a> {
    chrome: Chrome,
    rows: Vec<Row>,
    query: &'a ListQuery,
    types: Vec<&'static str>,
    pager: Pager,
}

async fn list(signed: Signed, request: HttpRequest, services: web::Data<Services>) -> HttpResponse {
    let found = super::listed(
        &signed,
        &request,
        LIST,
        list_request,
        move |scope, filter, page| services.events.list(scope, filter, page),
        |event| event.id.as_str(),
    );
    let (query, events, pager) = match found.await {
        Ok(listed) => listed,
        Err(page) => return page,
    };
    let rows: Vec<Row> = events.iter().map(Row::of).collect();
    let types = EventType::ALL.iter().map(|event_type| event_type.as_str()).collect();
    page(ListPage { chrome: Chrome::new(&signed, "Events"), rows, query: &query, types, pager }.render())
}

#[derive(Template)]
#[template(path = "console/event.html")]
struct DetailPage {
    chrome: Chrome,
    row: Row,
    notice: bool,
    attempts: Vec<AttemptRow>,
    /// The attempts' table names the webhook of each (on a webhook's page, the event).
    attempts_of_event: bool,
    webhooks: Vec<(String, String)>,
    body: String,
}

async fn detail(
    signed: Signed,
    id: web::Path<String>,
    request: HttpRequest,
    services: web::Data<Services>,
) -> HttpResponse {
    let scope = signed.scope();
    let read = match load(move || services.events.page(&scope, &id, PageRequest::MAX_LIMIT)).await {
        Ok(read) => read,
        Err(response) => return response,
    };
    let EventPage { event, attempts, webhooks } = read;
    let body = live_envelope(&event)
        .ok()
        .and_then(|envelope| serde_json::from_str(envelope.get()).ok())
        .map(|value| to_html(&value))
        .unwrap_or_default();
    let attempts = attempts.iter().map(AttemptRow::of).collect();
    let webhooks = webhooks.iter().map(|hook| (hook.id().to_string(), hook.url().as_str().to_owned())).collect();
    page(
        DetailPage {
            chrome: Chrome::new(&signed, "Events"),
            row: Row::of(&event),
            notice: request.query_string() == "done=resent",
            attempts,
            attempts_of_event: true,
            webhooks,
            body,
        }
        .render(),
    )
}

async fn resend(action: Action, id: web::Path<String>, services: web::Data<Services>) -> HttpResponse {
    let Action { signed, mut params } = action;
    let back = format!("{LIST}/{id}");
    let webhook_id = params.required_string("webhook_id", IDENTIFIER_LENGTH);
    let webhook_id = match params.finish(webhook_id) {
        Ok(webhook_id) => webhook_id,
        Err(error) => return refused(&error, &back),
    };
    let scope = signed.scope();
    let event_id = id.clone();
    super::act(&back, "resent", move || {
        let webhook = services.webhooks.resend(&scope, &webhook_id, &event_id)?;
        Ok(serde_json::to_value(WebhookResource::new(&webhook)).unwrap_or_default())
    })
    .await
}
