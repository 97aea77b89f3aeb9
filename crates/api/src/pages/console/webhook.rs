//! Webhooks in the console: the list with a form that registers one; one webhook with its secret
//! (revealed on demand), its latest delivery attempts, and forms that edit, enable, disable or delete
//! it, or send it the latest event it listens to again. Each form is read by the API's reader and
//! runs the service the API's route runs.

use super::badge::Badge;
use super::json::to_html;
use super::{
    after_action, after_success, date_time, load, page, refused, Action, AttemptRow, Chrome, ListQuery, Pager, Signed,
};
use crate::pages::hosted::not_allowed;
use crate::representation::webhook::WebhookResource;
use crate::routes::webhook::{list_request, new_webhook, webhook_changes};
use crate::state::{blocking, Services};
use actix_web::http::Method;
use actix_web::{web, HttpRequest, HttpResponse};
use askama::Template;
use payments_application::pagination::PageRequest;
use payments_application::services::WebhookPage;
use payments_domain::event::EventType;
use payments_domain::webhook::Webhook;

const LIST: &str = "/dashboard/webhooks";
/// Attempts shown on a webhook's page.
const ATTEMPTS_SHOWN: u32 = 20;

pub(super) fn configure(config: &mut web::ServiceConfig) {
    let get_or_post = || not_allowed(&[Method::GET, Method::POST], "Open the page.", false);
    config
        .service(
            web::resource(LIST)
                .route(crate::routes::get_or_head().to(list))
                .route(web::post().to(create))
                .default_service(get_or_post()),
        )
        .service(
            web::resource(format!("{LIST}/{{id}}"))
                .route(crate::routes::get_or_head().to(detail))
                .route(web::post().to(update))
                .default_service(get_or_post()),
        );
    for segment in ["enable", "disable", "delete", "resend", "rotate_secret"] {
        super::form(config, format!("{LIST}/{{id}}/{segment}"), act);
    }
}

struct Row {
    id: String,
    url: String,
    description: String,
    status: &'static str,
    tone: &'static str,
    events: Vec<&'static str>,
    created: String,
}

impl Row {
    fn of(webhook: &Webhook) -> Self {
        Self {
            id: webhook.id().to_string(),
            url: webhook.url().as_str().to_owned(),
            description: webhook.description().map(|text| text.as_str().to_owned()).unwrap_or_default(),
            status: webhook.status().as_str(),
            tone: webhook.status().tone().class(),
            events: webhook.events().iter().map(|event_type| event_type.as_str()).collect(),
            created: date_time(webhook.created_at()),
        }
    }
}

#[derive(Template)]
#[template(path = "console/webhooks.html")]
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
        move |scope, filter, page| services.webhooks.list(scope, filter, page),
        |webhook| webhook.id().as_str(),
    );
    let (query, webhooks, pager) = match found.await {
        Ok(listed) => listed,
        Err(page) => return page,
    };
    let rows: Vec<Row> = webhooks.iter().map(Row::of).collect();
    let types = EventType::ALL.iter().map(|event_type| event_type.as_str()).collect();
    page(ListPage { chrome: Chrome::new(&signed, "Webhooks"), rows, query: &query, types, pager }.render())
}

async fn create(action: Action, services: web::Data<Services>) -> HttpResponse {
    let Action { signed, params } = action;
    let new = match super::read_form(params, new_webhook, LIST) {
        Ok(new) => new,
        Err(page) => return *page,
    };
    let scope = signed.scope();
    match blocking(move || services.webhooks.create(&scope, new)).await {
        Ok(webhook) => after_success(&format!("{LIST}/{}?done=created", webhook.id()), json_of(&webhook)),
        Err(error) => refused(&error, LIST),
    }
}

#[derive(Template)]
#[template(path = "console/webhook.html")]
struct DetailPage {
    chrome: Chrome,
    row: Row,
    notice: Option<&'static str>,
    secret: String,
    types: Vec<(&'static str, bool)>,
    latest_event: Option<String>,
    attempts: Vec<AttemptRow>,
    /// The attempts' table names the event of each (on an event's page, the webhook).
    attempts_of_event: bool,
    json: String,
}

fn json_of(webhook: &Webhook) -> serde_json::Value {
    serde_json::to_value(WebhookResource::new(webhook)).unwrap_or_default()
}

async fn detail(
    signed: Signed,
    id: web::Path<String>,
    request: HttpRequest,
    services: web::Data<Services>,
) -> HttpResponse {
    let scope = signed.scope();
    let read = match load(move || services.webhooks.page(&scope, &id, ATTEMPTS_SHOWN, PageRequest::MAX_LIMIT)).await {
        Ok(read) => read,
        Err(response) => return response,
    };
    let WebhookPage { webhook, attempts, latest_event } = read;
    let latest_event = latest_event.map(|id| id.to_string());
    let notice = super::notice(
        &request,
        &[
            ("created", "Created. Its secret signs every delivery: keep it in your receiver's settings."),
            ("updated", "Saved."),
            ("enable", "Enabled: held deliveries go out now."),
            ("disable", "Disabled: its deliveries are held until it is enabled again."),
            ("resend", "Sent again."),
            (
                "rotate_secret",
                "A new secret: deliveries are signed with it, and with the old one until the overlap ends.",
            ),
        ],
    );
    let attempts = attempts.iter().map(AttemptRow::of).collect();
    let types = EventType::ALL.iter().map(|event_type| (event_type.as_str(), webhook.receives(*event_type))).collect();
    page(
        DetailPage {
            chrome: Chrome::new(&signed, "Webhooks"),
            row: Row::of(&webhook),
            notice,
            secret: webhook.secret_key().reveal().to_owned(),
            types,
            latest_event,
            attempts,
            attempts_of_event: false,
            json: to_html(&json_of(&webhook)),
        }
        .render(),
    )
}

async fn update(action: Action, id: web::Path<String>, services: web::Data<Services>) -> HttpResponse {
    let Action { signed, params } = action;
    let back = format!("{LIST}/{id}");
    let changes = match super::read_form(params, webhook_changes, &back) {
        Ok(changes) => changes,
        Err(page) => return *page,
    };
    let scope = signed.scope();
    super::act(&back, "updated", move || Ok(json_of(&services.webhooks.update(&scope, &id, changes)?))).await
}

/// Enable, disable, delete, resend or rotate the secret: the last segment of the path says which.
async fn act(
    action: Action,
    id: web::Path<String>,
    request: HttpRequest,
    services: web::Data<Services>,
) -> HttpResponse {
    let Action { signed, mut params } = action;
    let id = id.into_inner();
    let which = request.path().rsplit('/').next().unwrap_or_default().to_owned();
    let back = format!("{LIST}/{id}");
    let event_id =
        (which == "resend").then(|| params.required_string("event_id", payments_domain::limits::IDENTIFIER_LENGTH));
    let event_id = match params.finish(Some(event_id.flatten())) {
        Ok(event_id) => event_id,
        Err(error) => return refused(&error, &back),
    };
    let scope = signed.scope();
    let (run_which, webhook_id) = (which.clone(), id.clone());
    let done = blocking(move || match run_which.as_str() {
        "enable" => services.webhooks.enable(&scope, &webhook_id),
        "disable" => services.webhooks.disable(&scope, &webhook_id),
        "delete" => services.webhooks.delete(&scope, &webhook_id),
        "rotate_secret" => services.webhooks.rotate_secret(&scope, &webhook_id),
        _ => services.webhooks.resend(&scope, &webhook_id, event_id.as_deref().unwrap_or_default()),
    })
    .await;
    match (done, which.as_str()) {
        (Ok(webhook), "delete") => {
            let mut response = after_action(LIST);
            response.extensions_mut().insert(crate::request_log::LoggedBody(json_of(&webhook).to_string()));
            response
        }
        (Ok(webhook), _) => after_success(&format!("{back}?done={which}"), json_of(&webhook)),
        (Err(error), _) => refused(&error, &back),
    }
}
