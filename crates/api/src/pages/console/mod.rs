//! The developer console at `/dashboard`: pages rendered on the server, without scripts, where a
//! developer signed in with an account's secret key sees and acts on everything the account's
//! integration does. A session is a random token in an `HttpOnly`, `SameSite=Strict` cookie scoped
//! to `/dashboard` (`Secure` behind https); every form sends back the session's form token. Every
//! action calls the application service the API's route calls, with the same parameter readers, and
//! is logged in the request log as the console's.

mod badge;
mod balance;
mod billing_statement;
mod checkout_session;
mod csv_file;
mod customer;
mod event;
mod json;
mod overview;
mod page;
mod payment;
mod payment_intent;
mod payout;
mod product;
mod refund;
mod request_log;
mod sign_in;
mod table;
mod webhook;

use super::hosted::{html, message, secured};
use crate::decode::{form, read_body, Params};
use crate::request_log::LoggedBody;
use crate::state::{blocking, Services};
use actix_web::body::BoxBody;
use actix_web::dev::Payload;
use actix_web::http::{header, StatusCode};
use actix_web::{web, FromRequest, HttpMessage, HttpRequest, HttpResponse, ResponseError};
use payments_application::services::caller_of;
use payments_application::{ApplicationError, Scope};
use payments_domain::console_session::ConsoleSession;
use payments_domain::ids::ClientSecret;
use payments_domain::time::Timestamp;
use std::future::Future;
use std::pin::Pin;

/// Where the console lives.
pub(crate) const ROOT: &str = "/dashboard";
/// The cookie holding a signed-in browser's session token.
const SESSION_COOKIE: &str = "console_session";
/// The form field carrying the session's form token.
const FORM_TOKEN_FIELD: &str = "form_token";

/// Registers the console's pages when it is on.
pub(super) fn configure(config: &mut web::ServiceConfig, enabled: bool) {
    if !enabled {
        return;
    }
    let css = || async {
        secured(HttpResponse::Ok())
            .content_type("text/css; charset=utf-8")
            .insert_header((header::CACHE_CONTROL, "public, max-age=86400"))
            .body(include_str!("../../../assets/console.css"))
    };
    config.service(
        web::resource("/assets/console.css")
            .route(crate::routes::get_or_head().to(css))
            .default_service(crate::routes::allow_only(&[actix_web::http::Method::GET])),
    );
    sign_in::configure(config);
    overview::configure(config);
    payment_intent::configure(config);
    payment::configure(config);
    refund::configure(config);
    balance::configure(config);
    payout::configure(config);
    customer::configure(config);
    checkout_session::configure(config);
    billing_statement::configure(config);
    product::configure(config);
    page::configure(config);
    event::configure(config);
    webhook::configure(config);
    request_log::configure(config);
}

/// Registers the list page at `path` and the object pages below it, both for GET and HEAD only.
fn pages<L, LArgs, D, DArgs>(config: &mut web::ServiceConfig, path: &str, list: L, detail: D)
where
    L: actix_web::Handler<LArgs>,
    LArgs: FromRequest + 'static,
    L::Output: actix_web::Responder + 'static,
    D: actix_web::Handler<DArgs>,
    DArgs: FromRequest + 'static,
    D::Output: actix_web::Responder + 'static,
{
    let get_only = || super::hosted::not_allowed(&[actix_web::http::Method::GET], "Open the page.", false);
    config
        .service(
            web::resource(path.to_owned()).route(crate::routes::get_or_head().to(list)).default_service(get_only()),
        )
        .service(
            web::resource(format!("{path}/{{id}}"))
                .route(crate::routes::get_or_head().to(detail))
                .default_service(get_only()),
        );
}

/// Registers the page at `path`, for GET and HEAD only.
fn one_page<H, Args>(config: &mut web::ServiceConfig, path: &str, handler: H)
where
    H: actix_web::Handler<Args>,
    Args: FromRequest + 'static,
    H::Output: actix_web::Responder + 'static,
{
    let get_only = super::hosted::not_allowed(&[actix_web::http::Method::GET], "Open the page.", false);
    config.service(
        web::resource(path.to_owned()).route(crate::routes::get_or_head().to(handler)).default_service(get_only),
    );
}

/// Registers the form at `path` (POST only; another method gets a page saying where the form is).
fn form<F, Args>(config: &mut web::ServiceConfig, path: String, handler: F)
where
    F: actix_web::Handler<Args>,
    Args: FromRequest + 'static,
    F::Output: actix_web::Responder + 'static,
{
    let elsewhere = super::hosted::not_allowed(&[actix_web::http::Method::POST], "Use the form on its page.", false);
    config.service(web::resource(path).route(web::post().to(handler)).default_service(elsewhere));
}

/// The sections of the console, in the order of its navigation.
const SECTIONS: [(&str, &str); 14] = [
    ("Overview", ""),
    ("Payment intents", "/payment_intents"),
    ("Payments", "/payments"),
    ("Refunds", "/refunds"),
    ("Balance", "/balance"),
    ("Payouts", "/payouts"),
    ("Customers", "/customers"),
    ("Checkout sessions", "/checkout_sessions"),
    ("Billing statements", "/billing_statements"),
    ("Products", "/products"),
    ("Pages", "/pages"),
    ("Events", "/events"),
    ("Webhooks", "/webhooks"),
    ("Request log", "/request_logs"),
];

/// What every page of a session shows around its content: the mode, the navigation, sign-out.
pub(super) struct Chrome {
    pub livemode: bool,
    pub account_id: String,
    /// The test clock's time, when it was moved ahead of real time.
    pub test_clock: Option<String>,
    pub form_token: String,
    /// The navigation: each section's name, address and whether it is this page's.
    pub sections: Vec<(&'static str, String, bool)>,
}

impl Chrome {
    pub(super) fn new(signed: &Signed, current: &str) -> Self {
        Self {
            livemode: signed.session.mode.is_live(),
            account_id: signed.session.account_id.to_string(),
            test_clock: signed.moved_clock.map(|now| format!("Test clock {}", date_time(now))),
            form_token: signed.session.form_token.clone(),
            sections: SECTIONS.iter().map(|(name, path)| (*name, format!("{ROOT}{path}"), *name == current)).collect(),
        }
    }
}

/// A request of a signed-in session.
pub(super) struct Signed {
    pub session: ConsoleSession,
    /// The time of the session's test mode, when its clock stands ahead of real time.
    pub moved_clock: Option<Timestamp>,
}

impl Signed {
    /// The account and mode the session sees.
    pub(super) fn scope(&self) -> Scope {
        caller_of(&self.session).scope
    }
}

/// Why a console request is not served.
#[derive(Debug)]
pub(super) enum Refusal {
    /// No session, or it ended: to the sign-in page.
    SignedOut,
    /// A form without its session's form token.
    StaleForm,
    /// A form whose body could not be read (too large, or not form encoding, a NUL byte): the
    /// API's own words, with nothing changed.
    Unreadable(crate::error::ApiError),
    /// The storage did not answer.
    Unavailable,
}

impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{self:?}")
    }
}

impl ResponseError for Refusal {
    fn status_code(&self) -> StatusCode {
        match self {
            Self::SignedOut => StatusCode::SEE_OTHER,
            Self::StaleForm => StatusCode::FORBIDDEN,
            Self::Unreadable(error) => error.status(),
            Self::Unavailable => StatusCode::SERVICE_UNAVAILABLE,
        }
    }

    fn error_response(&self) -> HttpResponse<BoxBody> {
        match self {
            Self::SignedOut => {
                secured(HttpResponse::SeeOther()).insert_header((header::LOCATION, format!("{ROOT}/sign_in"))).finish()
            }
            Self::StaleForm => message(
                StatusCode::FORBIDDEN,
                "This form has expired",
                "Nothing was changed. Go back, reload the page and try again.",
                Some((ROOT, "Back to the console")),
                false,
            ),
            Self::Unreadable(error) => refused(error, ROOT),
            Self::Unavailable => message(
                StatusCode::SERVICE_UNAVAILABLE,
                "Try again in a moment",
                "The console cannot reach its database right now.",
                None,
                false,
            ),
        }
    }
}

impl FromRequest for Signed {
    type Error = Refusal;
    type Future = Pin<Box<dyn Future<Output = Result<Self, Refusal>>>>;

    fn from_request(request: &HttpRequest, _: &mut Payload) -> Self::Future {
        let token = request.cookie(SESSION_COOKIE).map(|cookie| cookie.value().to_owned());
        let services = request.app_data::<web::Data<Services>>().cloned();
        Box::pin(async move {
            let (Some(token), Some(services)) = (token, services) else { return Err(Refusal::SignedOut) };
            let resumed = blocking(move || {
                let Some(session) = services.console_sessions.resume(&token)? else { return Ok(None) };
                let now = services.clock.now_in(&caller_of(&session).scope)?;
                let moved_clock = (now.millis_since(services.clock.now()) >= 1_000).then_some(now);
                Ok(Some(Self { session, moved_clock }))
            });
            match resumed.await {
                Ok(Some(signed)) => Ok(signed),
                Ok(None) => Err(Refusal::SignedOut),
                Err(_) => Err(Refusal::Unavailable),
            }
        })
    }
}

/// A form posted by a signed-in session with its form token: the parameters as the API's readers
/// take them. The request is marked as the session's, so the request log records it.
pub(super) struct Action {
    pub signed: Signed,
    pub params: Params,
}

impl FromRequest for Action {
    type Error = Refusal;
    type Future = Pin<Box<dyn Future<Output = Result<Self, Refusal>>>>;

    fn from_request(request: &HttpRequest, payload: &mut Payload) -> Self::Future {
        let request = request.clone();
        let mut payload = payload.take();
        Box::pin(async move {
            let signed = Signed::from_request(&request, &mut Payload::None).await?;
            let body = read_body(&request, &mut payload).await.map_err(Refusal::Unreadable)?;
            let mut fields = form::parse(&body)
                .map_err(|error| Refusal::Unreadable(crate::error::ApiError::validation(vec![error])))?;
            let presented = fields.remove(FORM_TOKEN_FIELD);
            let expected = ClientSecret::from_stored(signed.session.form_token.clone());
            if !presented.as_ref().and_then(|token| token.as_str()).is_some_and(|token| expected.matches(token)) {
                return Err(Refusal::StaleForm);
            }
            request.extensions_mut().insert(caller_of(&signed.session));
            Ok(Self { signed, params: Params::new(fields) })
        })
    }
}

/// A page of the console.
pub(super) fn page(rendered: Result<String, askama::Error>) -> HttpResponse {
    html(StatusCode::OK, rendered)
}

/// 303 to a page of the console.
pub(super) fn after_action(path: &str) -> HttpResponse {
    secured(HttpResponse::SeeOther()).insert_header((header::LOCATION, path.to_owned())).finish()
}

/// 303 to a page of the console after an action that answered `object` (the API's JSON of what it
/// made or changed, for the request log).
pub(super) fn after_success(path: &str, object: serde_json::Value) -> HttpResponse {
    let mut response = after_action(path);
    response.extensions_mut().insert(LoggedBody(object.to_string()));
    response
}

/// A use case's refusal as a page: what was wrong, and the way back. Nothing was changed. The
/// request log records the API's error body.
pub(super) fn refused(error: &crate::error::ApiError, back: &str) -> HttpResponse {
    let status = error.status();
    let detail = error.details().join(" ");
    let mut response = message(status, "That did not work", &detail, Some((back, "Back")), false);
    response.extensions_mut().insert(LoggedBody(error.body()));
    response
}

/// A form's parameters as the API's reader `read` takes them; or the page that says what is wrong
/// with them, the way back being `back` (boxed: a response is large). Nothing was changed.
pub(super) fn read_form<T>(
    mut params: Params,
    read: impl FnOnce(&mut Params) -> Option<T>,
    back: &str,
) -> Result<T, Box<HttpResponse>> {
    let value = read(&mut params);
    params.finish(value).map_err(|error| Box::new(refused(&error, back)))
}

/// What an action's page says once it is done: the text of `notices` whose code the browser was
/// sent back with (`?done=<code>`).
pub(super) fn notice(request: &HttpRequest, notices: &[(&str, &'static str)]) -> Option<&'static str> {
    let done = request.query_string().strip_prefix("done=")?;
    notices.iter().find(|(code, _)| *code == done).map(|(_, text)| *text)
}

/// Runs a read of the console on the blocking pool; a refusal becomes a page.
pub(super) async fn load<T: Send + 'static>(
    read: impl FnOnce() -> Result<T, ApplicationError> + Send + 'static,
) -> Result<T, HttpResponse> {
    blocking(read).await.map_err(|error| refused(&error, ROOT))
}

/// The query of a list page without filters, read as the API reads a page of a list.
pub(super) fn page_only(params: &mut Params) -> Option<((), payments_application::pagination::PageRequest)> {
    crate::routes::page_request(params).map(|page| ((), page))
}

/// How many rows a list page shows unless it is asked for another number.
const PAGE_SIZE: &str = "25";

/// The query of a list page: its parameters for the API's list reader (with the page size the
/// console uses), and its filters as given, to keep in the links to the next and previous pages.
pub(super) struct ListQuery {
    pub params: Params,
    filters: Vec<(String, String)>,
    cursor: Option<&'static str>,
}

impl ListQuery {
    /// The query string of `request`; `None` when it is no valid query.
    pub(super) fn of(request: &HttpRequest) -> Option<Self> {
        let mut map = form::parse_query(request.query_string().as_bytes()).ok()?;
        let mut filters = Vec::new();
        for (key, value) in &map {
            if let (false, Some(text)) = (["after", "before", "limit"].contains(&key.as_str()), value.as_str()) {
                if !text.is_empty() {
                    filters.push((key.clone(), text.to_owned()));
                }
            }
        }
        let cursor = ["after", "before"]
            .into_iter()
            .find(|key| map.get(*key).and_then(|value| value.as_str()).is_some_and(|value| !value.is_empty()));
        map.entry("limit").or_insert_with(|| PAGE_SIZE.into());
        Some(Self { params: Params::new(map), filters, cursor })
    }

    /// The query of the list page at `base`, with its filter and page read by the API's list reader
    /// `read`; or the page that says what is wrong with it (boxed: a response is large).
    pub(super) fn read<T>(
        request: &HttpRequest,
        base: &str,
        read: impl FnOnce(&mut Params) -> Option<T>,
    ) -> Result<(Self, T), Box<HttpResponse>> {
        let mut query = Self::of(request).ok_or_else(|| {
            Box::new(refused(&crate::error::ApiError::bad_body("The filters are not a valid query."), base))
        })?;
        let value = read(&mut query.params);
        let params = std::mem::replace(&mut query.params, Params::new(serde_json::Map::new()));
        let value = params.finish(value).map_err(|error| Box::new(refused(&error, base)))?;
        Ok((query, value))
    }

    /// The query of the list page at `base`, whose filters the console reads itself, and its page as
    /// the API reads it; or the page that says what is wrong with it.
    pub(super) fn read_page(
        request: &HttpRequest,
        base: &str,
    ) -> Result<(Self, payments_application::pagination::PageRequest), Box<HttpResponse>> {
        let mut query = Self::of(request).ok_or_else(|| {
            Box::new(refused(&crate::error::ApiError::bad_body("The filters are not a valid query."), base))
        })?;
        let page = page_of(&mut query).map_err(|error| Box::new(refused(&error, base)))?;
        Ok((query, page))
    }

    /// The value the filter `key` was given, for the filter form.
    pub(super) fn filter(&self, key: &str) -> &str {
        self.filters.iter().find(|(name, _)| name == key).map_or("", |(_, value)| value.as_str())
    }

    /// The links to the newer and the older page of a page that shows `ids`.
    pub(super) fn pager(&self, base: &str, ids: &[&str], has_more: bool) -> Pager {
        let (first, last) = (ids.first().copied(), ids.last().copied());
        let link = |cursor: &str, id: &str| {
            let mut query = url::form_urlencoded::Serializer::new(String::new());
            for (key, value) in &self.filters {
                query.append_pair(key, value);
            }
            query.append_pair(cursor, id);
            format!("{base}?{}", query.finish())
        };
        let (newer, older) = match self.cursor {
            None => (false, has_more),
            Some("after") => (true, has_more),
            Some(_) => (has_more, true),
        };
        Pager {
            newer: first.filter(|_| newer).map(|id| link("before", id)),
            older: last.filter(|_| older).map(|id| link("after", id)),
        }
    }
}

/// Links to the pages beside a list page.
pub(super) struct Pager {
    pub newer: Option<String>,
    pub older: Option<String>,
}

/// A time as the console shows it: `2026-11-26 10:00:35 UTC`.
pub(super) fn date_time(at: Timestamp) -> String {
    let (year, month, day) = at.civil_date();
    let seconds = at.unix_seconds().rem_euclid(86_400);
    format!("{year}-{month:02}-{day:02} {:02}:{:02}:{:02} UTC", seconds / 3_600, seconds / 60 % 60, seconds % 60)
}

/// The form's amounts `keys`, typed in pesos (`1,500.50`), as the API's readers take them: in
/// centavos. An amount that is not one is refused by its key, with nothing read.
pub(super) fn amounts_in_centavos(params: Params, keys: &[&str]) -> Result<Params, crate::error::ApiError> {
    let mut values = params.into_values();
    let mut errors = Vec::new();
    for key in keys {
        let Some(serde_json::Value::String(text)) = values.get(*key) else { continue };
        match centavos(text, key) {
            Ok(Some(amount)) => {
                values.insert((*key).to_owned(), serde_json::Value::String(amount.to_string()));
            }
            Ok(None) => {
                values.remove(*key);
            }
            Err(error) => errors.push(error),
        }
    }
    if errors.is_empty() {
        Ok(Params::new(values))
    } else {
        Err(crate::error::ApiError::validation(errors))
    }
}

/// Pesos as typed (`1,000.50`) in centavos; empty is no bound.
pub(super) fn centavos(text: &str, parameter: &str) -> Result<Option<i64>, payments_domain::validation::FieldError> {
    let text = text.trim().replace(',', "");
    if text.is_empty() {
        return Ok(None);
    }
    let refused = || {
        payments_domain::validation::FieldError::invalid(parameter, "Give an amount in pesos, such as 1500 or 1500.50.")
    };
    let (whole, cents) = text.split_once('.').unwrap_or((&text, ""));
    if whole.is_empty()
        || whole.len() > 12
        || cents.len() > 2
        || !(whole.bytes().chain(cents.bytes())).all(|b| b.is_ascii_digit())
    {
        return Err(refused());
    }
    let cents = format!("{cents:0<2}");
    Ok(Some(whole.parse::<i64>().map_err(|_| refused())? * 100 + cents.parse::<i64>().map_err(|_| refused())?))
}

/// The page a list query asks for (`limit`, `after`, `before`), read as the API reads it.
fn page_of(query: &mut ListQuery) -> Result<payments_application::pagination::PageRequest, crate::error::ApiError> {
    let mut params = std::mem::replace(&mut query.params, Params::new(serde_json::Map::new()));
    let page = crate::routes::page_request(&mut params);
    // The console reads its own filters from the query; the API's reader takes the page only.
    for key in params.values().keys().cloned().collect::<Vec<_>>() {
        params.discard(&key);
    }
    params.finish(page)
}

/// An attempt to deliver an event to a webhook, as a row of the event's or the webhook's page.
pub(super) struct AttemptRow {
    pub time: String,
    pub webhook: String,
    pub event: String,
    pub answer: String,
    pub failed: bool,
    pub duration_ms: i64,
    pub excerpt: String,
}

impl AttemptRow {
    pub(super) fn of(attempt: &payments_application::ports::DeliveryAttempt) -> Self {
        Self {
            time: date_time(attempt.attempted_at),
            webhook: attempt.webhook_id.to_string(),
            event: attempt.event_id.to_string(),
            answer: attempt
                .status_code
                .map_or_else(|| attempt.error.clone().unwrap_or_else(|| "no answer".into()), |code| code.to_string()),
            failed: !attempt.delivered(),
            duration_ms: attempt.duration_ms,
            excerpt: attempt.response_excerpt.clone().unwrap_or_default(),
        }
    }
}

/// Runs an action and sends the browser to `back` with `?done=<done>`, or shows why not. The action
/// answers the API's JSON of what it made or changed, which the request log keeps.
pub(super) async fn act(
    back: &str,
    done: &str,
    run: impl FnOnce() -> Result<serde_json::Value, ApplicationError> + Send + 'static,
) -> HttpResponse {
    match blocking(run).await {
        Ok(object) => after_success(&format!("{back}?done={done}"), object),
        Err(error) => refused(&error, back),
    }
}

/// A list page's query, read by the API's list reader `read`, with what `fetch` finds for it and the
/// links to the pages beside it (`id_of` names a found object in them); or the page that says why
/// not.
pub(super) async fn listed<Q, T>(
    signed: &Signed,
    request: &HttpRequest,
    base: &str,
    read: impl FnOnce(&mut Params) -> Option<(Q, payments_application::pagination::PageRequest)>,
    fetch: impl FnOnce(
            &Scope,
            &Q,
            &payments_application::pagination::PageRequest,
        ) -> Result<payments_application::pagination::Page<T>, ApplicationError>
        + Send
        + 'static,
    id_of: fn(&T) -> &str,
) -> Result<(ListQuery, Vec<T>, Pager), HttpResponse>
where
    Q: Send + 'static,
    T: Send + 'static,
{
    let (query, (filter, page)) = ListQuery::read(request, base, read).map_err(|page| *page)?;
    let scope = signed.scope();
    let found = load(move || fetch(&scope, &filter, &page)).await?;
    let ids: Vec<&str> = found.data.iter().map(id_of).collect();
    let pager = query.pager(base, &ids, found.has_more);
    Ok((query, found.data, pager))
}
