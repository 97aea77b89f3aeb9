//! The console's first page: the last 24 hours' payment intents by status and what they received,
//! what needs a look (failed requests, failed webhook deliveries) and the latest events.

use super::json::href;
use super::{date_time, load, page, tone, AttemptRow, Chrome, Signed, ROOT};
use crate::pages::hosted::pesos;
use crate::state::Services;
use actix_web::http::Method;
use actix_web::{web, HttpResponse};
use askama::Template;
use payments_application::pagination::PageRequest;
use payments_application::ports::{EventFilter, RequestLogFilter, WebhookFilter};
use payments_application::ApplicationError;
use payments_domain::request_log::StatusRange;

/// Rows of each list of the overview.
const SHOWN: i64 = 10;
/// The overview's counts and volume cover this long.
const DAY_SECONDS: i64 = 24 * 60 * 60;
/// The latest payment intents the overview counts, at most: it answers at once whatever the account
/// holds, and says when it stopped there.
const COUNTED: u32 = 10_000;
/// The latest attempts of each webhook looked at for failures.
const ATTEMPTS_LOOKED_AT: u32 = 20;

pub(super) fn configure(config: &mut web::ServiceConfig) {
    let get_only = || crate::pages::hosted::not_allowed(&[Method::GET], "Open the page.", false);
    config
        .service(web::resource(ROOT).route(crate::routes::get_or_head().to(overview)).default_service(get_only()))
        .service(
            web::resource(format!("{ROOT}/mailbox"))
                .route(crate::routes::get_or_head().to(mailbox))
                .default_service(get_only()),
        );
}

/// The test mailbox, for a session of test mode.
async fn mailbox(signed: Signed, services: web::Data<Services>) -> HttpResponse {
    let scope = Some(signed.scope()).filter(|scope| !scope.livemode());
    crate::pages::mailbox::show(&services, scope, Some(ROOT)).await
}

struct FailedRequest {
    id: String,
    time: String,
    method: String,
    path: String,
    status: u16,
}

struct RecentEvent {
    id: String,
    time: String,
    event_type: &'static str,
    object: (String, Option<String>),
}

#[derive(Template)]
#[template(path = "console/overview.html")]
struct Overview {
    chrome: Chrome,
    counts: Vec<(&'static str, i64, &'static str)>,
    /// Whether the counts cover every intent of the last 24 hours, or the latest `counted`.
    complete: bool,
    counted: u32,
    received: String,
    failed_requests: Vec<FailedRequest>,
    failed_deliveries: Vec<AttemptRow>,
    events: Vec<RecentEvent>,
}

async fn overview(signed: Signed, services: web::Data<Services>) -> HttpResponse {
    let scope = signed.scope();
    let read = load(move || {
        let since = services.clock.now_in(&scope)?.plus_seconds(-DAY_SECONDS);
        let page = PageRequest::new(Some(SHOWN), None, None).map_err(ApplicationError::Validation)?;
        let counts = services.payment_intents.count_by_status(&scope, since, COUNTED)?;
        let failed =
            RequestLogFilter { status: Some(StatusRange { min: 400, max: 599 }), ..RequestLogFilter::default() };
        let requests = services.request_logs.list(&scope, &failed, &page)?;
        let events = services.events.list(&scope, &EventFilter::default(), &page)?;
        let most = PageRequest::new(Some(i64::from(PageRequest::MAX_LIMIT)), None, None)
            .map_err(ApplicationError::Validation)?;
        let mut failed_attempts = Vec::new();
        for webhook in services.webhooks.list(&scope, &WebhookFilter::default(), &most)?.data {
            let attempts = services.webhooks.attempts(&scope, webhook.id().as_str(), ATTEMPTS_LOOKED_AT)?;
            failed_attempts.extend(attempts.into_iter().filter(super::failed));
        }
        failed_attempts.sort_by_key(|attempt| std::cmp::Reverse(attempt.attempted_at));
        failed_attempts.truncate(usize::try_from(SHOWN).unwrap_or(10));
        Ok((counts, requests, failed_attempts, events))
    })
    .await;
    let (counts, requests, failed_attempts, events) = match read {
        Ok(read) => read,
        Err(response) => return response,
    };
    let failed_requests = requests
        .data
        .iter()
        .map(|entry| FailedRequest {
            id: entry.id.to_string(),
            time: date_time(entry.created_at),
            method: entry.method.clone(),
            path: entry.path.clone(),
            status: entry.status,
        })
        .collect();
    let events = events
        .data
        .iter()
        .map(|event| RecentEvent {
            id: event.id.to_string(),
            time: date_time(event.created_at),
            event_type: event.event_type.as_str(),
            object: (event.object_id.clone(), href(&event.object_id)),
        })
        .collect();
    let failed_deliveries = failed_attempts.iter().map(AttemptRow::of).collect();
    let received = pesos(counts.counts.iter().map(|count| count.amount_received).sum());
    let complete = counts.complete;
    let counts =
        counts.counts.iter().map(|count| (count.status.as_str(), count.count, tone(count.status.as_str()))).collect();
    page(
        Overview {
            chrome: Chrome::new(&signed, "Overview"),
            counts,
            complete,
            counted: COUNTED,
            received,
            failed_requests,
            failed_deliveries,
            events,
        }
        .render(),
    )
}
