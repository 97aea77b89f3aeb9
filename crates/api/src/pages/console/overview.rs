//! The console's first page: what needs a look now (failed requests) and what happened last.

use super::json::href;
use super::{date_time, load, page, Chrome, Signed, ROOT};
use crate::state::Services;
use actix_web::http::Method;
use actix_web::{web, HttpResponse};
use askama::Template;
use payments_application::pagination::PageRequest;
use payments_application::ports::{EventFilter, RequestLogFilter};
use payments_domain::request_log::StatusRange;

/// Rows of each list of the overview.
const SHOWN: i64 = 10;

pub(super) fn configure(config: &mut web::ServiceConfig) {
    config.service(
        web::resource(ROOT)
            .route(crate::routes::get_or_head().to(overview))
            .default_service(crate::pages::hosted::not_allowed(&[Method::GET], "Open the page.", false)),
    );
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
    failed_requests: Vec<FailedRequest>,
    events: Vec<RecentEvent>,
}

async fn overview(signed: Signed, services: web::Data<Services>) -> HttpResponse {
    let scope = signed.scope();
    let read = load(move || {
        let page =
            PageRequest::new(Some(SHOWN), None, None).map_err(payments_application::ApplicationError::Validation)?;
        let failed =
            RequestLogFilter { status: Some(StatusRange { min: 400, max: 599 }), ..RequestLogFilter::default() };
        let requests = services.request_logs.list(&scope, &failed, &page)?;
        let events = services.events.list(&scope, &EventFilter::default(), &page)?;
        Ok((requests, events))
    })
    .await;
    let (requests, events) = match read {
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
    page(Overview { chrome: Chrome::new(&signed, "Overview"), failed_requests, events }.render())
}
