//! The request log in the console: the account's API requests, filtered as `GET /request_logs` is,
//! and one request with its bodies.

use super::json::{href, to_html};
use super::{date_time, load, page, Chrome, ListQuery, Pager, Signed};
use crate::routes::request_log::list_request;
use crate::state::Services;
use actix_web::{web, HttpRequest, HttpResponse};
use askama::Template;
use payments_domain::request_log::RequestLog;

const LIST: &str = "/dashboard/request_logs";

pub(super) fn configure(config: &mut web::ServiceConfig) {
    super::pages(config, LIST, list, detail);
}

/// One logged request as a row.
struct Row {
    id: String,
    time: String,
    method: String,
    path: String,
    status: u16,
    failed: bool,
    duration_ms: i64,
    source: &'static str,
    replayed: bool,
    object: Option<(String, Option<String>)>,
}

impl Row {
    fn of(entry: &RequestLog) -> Self {
        Self {
            id: entry.id.to_string(),
            time: date_time(entry.created_at),
            method: entry.method.clone(),
            path: entry.path.clone(),
            status: entry.status,
            failed: entry.status >= 400,
            duration_ms: entry.duration_ms,
            source: entry.source.as_str(),
            replayed: entry.replayed,
            object: entry.object_id.as_ref().map(|id| (id.clone(), href(id))),
        }
    }
}

#[derive(Template)]
#[template(path = "console/request_logs.html")]
struct ListPage<'a> {
    chrome: Chrome,
    rows: Vec<Row>,
    query: &'a ListQuery,
    pager: Pager,
}

async fn list(signed: Signed, request: HttpRequest, services: web::Data<Services>) -> HttpResponse {
    let found = super::listed(
        &signed,
        &request,
        LIST,
        list_request,
        move |scope, filter, page| services.request_logs.list(scope, filter, page),
        |entry| entry.id.as_str(),
    );
    let (query, entries, pager) = match found.await {
        Ok(listed) => listed,
        Err(page) => return page,
    };
    let rows: Vec<Row> = entries.iter().map(Row::of).collect();
    page(ListPage { chrome: Chrome::new(&signed, "Request log"), rows, query: &query, pager }.render())
}

#[derive(Template)]
#[template(path = "console/request_log.html")]
struct DetailPage {
    chrome: Chrome,
    row: Row,
    query: String,
    key_kind: &'static str,
    idempotency_key: Option<String>,
    request_body: Option<String>,
    response_body: Option<String>,
}

async fn detail(signed: Signed, id: web::Path<String>, services: web::Data<Services>) -> HttpResponse {
    let scope = signed.scope();
    let entry = match load(move || services.request_logs.retrieve(&scope, &id)).await {
        Ok(entry) => entry,
        Err(response) => return response,
    };
    let body = |text: &Option<String>| {
        text.as_deref().and_then(|text| serde_json::from_str(text).ok()).map(|value| to_html(&value))
    };
    page(
        DetailPage {
            chrome: Chrome::new(&signed, "Request log"),
            row: Row::of(&entry),
            query: entry.query.clone(),
            key_kind: entry.key_kind.as_str(),
            idempotency_key: entry.idempotency_key.clone(),
            request_body: body(&entry.request_body),
            response_body: body(&entry.response_body),
        }
        .render(),
    )
}
