//! The console's first page: in live mode the account's processor and whether it answered its last
//! call (never a secret); the last 24 hours' payment intents by status and what they received, what
//! needs a look (failed requests, failed webhook deliveries) and the latest events.

use super::badge::{Badge, Tone};
use super::json::href;
use super::{date_time, load, page, AttemptRow, Chrome, Signed, ROOT};
use crate::formatting::pesos;
use crate::state::Services;
use actix_web::http::Method;
use actix_web::{web, HttpResponse};
use askama::Template;
use payments_application::services::Overview as Read;

/// Rows of each list of the overview.
const SHOWN: u32 = 10;
/// The latest payment intents the overview counts, at most: it answers at once whatever the account
/// holds, and says when it stopped there.
const COUNTED: u32 = 10_000;

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
    /// In live mode: the account's processor, or `None` set.
    processor: Option<Option<Processor>>,
}

/// The account's live processor as the overview tells it: never a secret.
struct Processor {
    kind: &'static str,
    address: String,
    last_call: String,
    tone: &'static str,
}

async fn overview(signed: Signed, services: web::Data<Services>) -> HttpResponse {
    let scope = signed.scope();
    let read = load(move || services.overview.overview(&scope, SHOWN, COUNTED)).await;
    let livemode = signed.scope().livemode();
    let Read { counts, failed_requests: requests, failed_deliveries: failed_attempts, events, connector } = match read {
        Ok(read) => read,
        Err(response) => return response,
    };
    let failed_requests = requests
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
        .iter()
        .map(|event| RecentEvent {
            id: event.id.to_string(),
            time: date_time(event.created_at),
            event_type: event.event_type.as_str(),
            object: (event.object_id.clone(), href(&event.object_id)),
        })
        .collect();
    let failed_deliveries = failed_attempts.iter().map(AttemptRow::of).collect();
    let processor = livemode.then(|| {
        connector.map(|connector| {
            let (last_call, tone) = match connector.last_call {
                None => ("No call yet.".to_owned(), Tone::Wait),
                Some(call) if call.answered => {
                    (format!("Answered its last call, at {}.", date_time(call.at)), Tone::Good)
                }
                Some(call) => (format!("Did not answer its last call, at {}.", date_time(call.at)), Tone::Bad),
            };
            let tone = tone.class();
            Processor { kind: connector.kind.as_str(), address: connector.api_base_url, last_call, tone }
        })
    });
    let received = pesos(counts.counts.iter().map(|count| count.amount_received).sum());
    let complete = counts.complete;
    let counts =
        counts.counts.iter().map(|count| (count.status.as_str(), count.count, count.status.tone().class())).collect();
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
            processor,
        }
        .render(),
    )
}
