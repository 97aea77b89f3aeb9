//! Payment intents in the console: the list, searched by id, customer e-mail or metadata value and
//! filtered by status, customer, amount and creation date; one intent with its timeline (attempts,
//! payments, refunds, events), its JSON and the actions it allows: capture, cancel, refund. Each
//! action reads its form with the API's reader and calls the service the API's route calls.

use super::badge::Badge;
use super::json::{href, to_html};
use super::{after_action, centavos, date_time, load, page, refused, Action, Chrome, ListQuery, Pager, Signed, ROOT};
use crate::error::ApiError;
use crate::formatting::pesos;
use crate::representation::payment_intent::PaymentIntentResource;
use crate::routes::payment_intent::capture_amount;
use crate::routes::refund::new_refund;
use crate::state::Services;
use actix_web::{web, HttpRequest, HttpResponse};
use askama::Template;
use payments_application::ports::PaymentIntentFilter;
use payments_application::services::IntentTimeline;
use payments_domain::ids::{CustomerId, PaymentIntentId};
use payments_domain::payment::PaymentStatus;
use payments_domain::payment_intent::{PaymentIntent, PaymentIntentOperation, PaymentIntentStatus};
use payments_domain::refund::RefundReason;
use payments_domain::time::Timestamp;
use payments_domain::validation::FieldError;

const LIST: &str = "/dashboard/payment_intents";

pub(super) fn configure(config: &mut web::ServiceConfig) {
    super::pages(config, LIST, list, detail);
    super::form(config, format!("{LIST}/{{id}}/capture"), capture);
    super::form(config, format!("{LIST}/{{id}}/cancel"), cancel);
    super::form(config, format!("{LIST}/{{id}}/refund"), refund);
}

/// An intent as a row of the list.
struct Row {
    id: String,
    amount: String,
    status: &'static str,
    tone: &'static str,
    customer: Option<String>,
    description: String,
    created: String,
}

impl Row {
    fn of(intent: &PaymentIntent) -> Self {
        Self {
            id: intent.id().to_string(),
            amount: pesos(intent.amount().centavos()),
            status: intent.status().as_str(),
            tone: intent.status().tone().class(),
            customer: intent.customer_id().map(ToString::to_string),
            description: intent.description().map(|text| text.as_str().to_owned()).unwrap_or_default(),
            created: date_time(intent.created_at()),
        }
    }
}

#[derive(Template)]
#[template(path = "console/payment_intents.html")]
struct ListPage<'a> {
    chrome: Chrome,
    rows: Vec<Row>,
    query: &'a ListQuery,
    statuses: Vec<&'static str>,
    pager: Pager,
}

/// The list's filters, read from the query; a bad one is a field error naming it.
fn filters(query: &ListQuery) -> Result<(PaymentIntentFilter, Option<String>), FieldError> {
    let mut filter = PaymentIntentFilter::default();
    let mut email = None;
    let search = query.filter("q").trim();
    if search.contains('@') {
        email = Some(search.to_owned());
    } else if !search.is_empty() {
        filter.metadata_value = Some(search.to_owned());
    }
    if let Some(status) = Some(query.filter("status")).filter(|text| !text.is_empty()) {
        filter.status = Some(
            PaymentIntentStatus::ALL
                .into_iter()
                .find(|known| known.as_str() == status)
                .ok_or_else(|| FieldError::invalid("status", "Choose a status from the list."))?,
        );
    }
    if let Some(customer) = Some(query.filter("customer").trim()).filter(|text| !text.is_empty()) {
        let id =
            CustomerId::parse(customer).ok_or_else(|| FieldError::invalid("customer", "That is no customer id."))?;
        filter.customers = Some(vec![id]);
    }
    filter.amount_from = centavos(query.filter("amount_from"), "amount_from")?;
    filter.amount_to = centavos(query.filter("amount_to"), "amount_to")?;
    filter.created_from = date(query.filter("created_from"), "created_from")?;
    filter.created_to = date(query.filter("created_to"), "created_to")?.map(|day| day.plus_seconds(86_399));
    Ok((filter, email))
}

/// A date as a date input sends it (`2026-11-26`), as its midnight UTC; empty is no bound.
fn date(text: &str, parameter: &str) -> Result<Option<Timestamp>, FieldError> {
    let text = text.trim();
    if text.is_empty() {
        return Ok(None);
    }
    let refused = || FieldError::invalid(parameter, "Give a date as YYYY-MM-DD.");
    let mut parts = text.splitn(3, '-');
    let (Some(year), Some(month), Some(day)) = (parts.next(), parts.next(), parts.next()) else {
        return Err(refused());
    };
    let (Ok(year), Ok(month), Ok(day)) = (year.parse(), month.parse(), day.parse()) else { return Err(refused()) };
    Timestamp::from_civil_date(year, month, day).map(Some).ok_or_else(refused)
}

async fn list(signed: Signed, request: HttpRequest, services: web::Data<Services>) -> HttpResponse {
    let (query, page_request) = match ListQuery::read_page(&request, LIST) {
        Ok(read) => read,
        Err(page) => return *page,
    };
    let search = query.filter("q").trim().to_owned();
    if PaymentIntentId::parse(&search).is_some() {
        return after_action(&format!("{LIST}/{search}"));
    }
    let (filter, email) = match filters(&query) {
        Ok(filters) => filters,
        Err(error) => return refused(&ApiError::validation(vec![error]), LIST),
    };
    let scope = signed.scope();
    let found = load(move || services.payment_intents.list(&scope, filter, email.as_deref(), &page_request)).await;
    let intents = match found {
        Ok(intents) => intents,
        Err(response) => return response,
    };
    let rows: Vec<Row> = intents.data.iter().map(Row::of).collect();
    let ids: Vec<&str> = rows.iter().map(|row| row.id.as_str()).collect();
    let pager = query.pager(LIST, &ids, intents.has_more);
    let statuses = PaymentIntentStatus::ALL.iter().map(|status| status.as_str()).collect();
    page(ListPage { chrome: Chrome::new(&signed, "Payment intents"), rows, query: &query, statuses, pager }.render())
}

/// One moment of an intent's history.
struct Moment {
    at: Timestamp,
    time: String,
    text: String,
    link: Option<(String, String)>,
}

/// A paid payment that can still be refunded: what a refund form needs.
struct Refundable {
    payment_id: String,
    refundable: i64,
    shown: String,
}

#[derive(Template)]
#[template(path = "console/payment_intent.html")]
struct DetailPage {
    chrome: Chrome,
    row: Row,
    notice: Option<&'static str>,
    customer: Option<(String, Option<String>)>,
    facts: Vec<(&'static str, String)>,
    capturable: Option<i64>,
    cancelable: bool,
    refundable: Vec<Refundable>,
    reasons: Vec<&'static str>,
    timeline: Vec<Moment>,
    json: String,
}

/// What an action's notice says, by the code it sends the browser back with.
fn notice(request: &HttpRequest) -> Option<&'static str> {
    super::notice(request, &[("captured", "Captured."), ("canceled", "Canceled."), ("refunded", "Refund created.")])
}

async fn detail(
    signed: Signed,
    id: web::Path<String>,
    request: HttpRequest,
    services: web::Data<Services>,
) -> HttpResponse {
    let scope = signed.scope();
    let timeline = match load(move || services.payment_intents.timeline(&scope, &id)).await {
        Ok(timeline) => timeline,
        Err(response) => return response,
    };
    let IntentTimeline { view, payments, events, allowed, refundable } = &timeline;
    let intent = &view.intent;
    let mut timeline = vec![Moment {
        at: intent.created_at(),
        time: date_time(intent.created_at()),
        text: format!("Created for {}", pesos(intent.amount().centavos())),
        link: None,
    }];
    for (payment, refunds) in payments {
        let text = match payment.status() {
            PaymentStatus::Paid => {
                format!("Paid {} by {}", pesos(payment.amount()), payment.payment_method().method.as_str())
            }
            PaymentStatus::Failed => format!("A payment by {} failed", payment.payment_method().method.as_str()),
        };
        timeline.push(Moment {
            at: payment.created_at(),
            time: date_time(payment.created_at()),
            text,
            link: Some((payment.id().to_string(), format!("{ROOT}/request_logs?object_id={}", payment.id()))),
        });
        for refund in refunds {
            timeline.push(Moment {
                at: refund.created_at(),
                time: date_time(refund.created_at()),
                text: format!(
                    "Refunded {} ({}, {})",
                    pesos(refund.amount()),
                    refund.reason().as_str(),
                    refund.status().as_str()
                ),
                link: Some((refund.id().to_string(), format!("{ROOT}/request_logs?object_id={}", refund.id()))),
            });
        }
    }
    let refundable = refundable
        .iter()
        .map(|(payment_id, amount)| Refundable {
            payment_id: payment_id.to_string(),
            refundable: *amount,
            shown: pesos(*amount),
        })
        .collect();
    for event in events {
        timeline.push(Moment {
            at: event.created_at,
            time: date_time(event.created_at),
            text: format!("Event {}", event.event_type.as_str()),
            link: href(event.id.as_str()).map(|link| (event.id.to_string(), link)),
        });
    }
    timeline.sort_by_key(|moment| moment.at);
    let mut facts = vec![("Created", date_time(intent.created_at()))];
    facts.push((
        "Payment methods",
        intent.payment_methods().iter().map(|method| method.as_str()).collect::<Vec<_>>().join(", "),
    ));
    if let Some(description) = intent.description() {
        facts.push(("Description", description.as_str().to_owned()));
    }
    if let Some(error) = intent.last_payment_error() {
        facts.push(("Last payment error", format!("{}: {}", error.code, error.detail)));
    }
    if let Some(before) = intent.capture_before_at() {
        facts.push(("Capture before", date_time(before)));
    }
    if let Some(metadata) = intent.metadata() {
        for (key, value) in metadata.pairs() {
            facts.push(("Metadata", format!("{key}: {value}")));
        }
    }
    let json = serde_json::to_value(PaymentIntentResource::new(view)).map(|value| to_html(&value)).unwrap_or_default();
    page(
        DetailPage {
            chrome: Chrome::new(&signed, "Payment intents"),
            row: Row::of(intent),
            notice: notice(&request),
            customer: intent.customer_id().map(|id| (id.to_string(), href(id.as_str()))),
            facts,
            capturable: allowed.contains(&PaymentIntentOperation::Capture).then(|| intent.amount_capturable()),
            cancelable: allowed.contains(&PaymentIntentOperation::Cancel),
            refundable,
            reasons: RefundReason::ALL.iter().map(|reason| reason.as_str()).collect(),
            timeline,
            json,
        }
        .render(),
    )
}

/// The API's JSON of an intent.
fn intent_json(view: &payments_application::services::PaymentIntentView) -> serde_json::Value {
    serde_json::to_value(PaymentIntentResource::new(view)).unwrap_or_default()
}

async fn capture(action: Action, id: web::Path<String>, services: web::Data<Services>) -> HttpResponse {
    let Action { signed, params } = action;
    let back = format!("{LIST}/{id}");
    let amount = match super::read_form(params, capture_amount, &back) {
        Ok(amount) => amount,
        Err(page) => return *page,
    };
    let scope = signed.scope();
    let intent = id.clone();
    super::act(&back, "captured", move || Ok(intent_json(&services.payment_intents.capture(&scope, &intent, amount)?)))
        .await
}

async fn cancel(action: Action, id: web::Path<String>, services: web::Data<Services>) -> HttpResponse {
    let Action { signed, params } = action;
    if let Err(error) = params.finish(Some(())) {
        return refused(&error, &format!("{LIST}/{id}"));
    }
    let scope = signed.scope();
    let intent = id.clone();
    super::act(&format!("{LIST}/{id}"), "canceled", move || {
        Ok(intent_json(&services.payment_intents.cancel(&scope, &intent)?))
    })
    .await
}

async fn refund(action: Action, id: web::Path<String>, services: web::Data<Services>) -> HttpResponse {
    let Action { signed, params } = action;
    let back = format!("{LIST}/{id}");
    let new = match super::read_form(params, new_refund, &back) {
        Ok(new) => new,
        Err(page) => return *page,
    };
    let scope = signed.scope();
    super::act(&back, "refunded", move || {
        let refund = services.refunds.create_for_intent(&scope, &id, &new)?;
        Ok(serde_json::to_value(crate::representation::refund::RefundResource::new(&refund)).unwrap_or_default())
    })
    .await
}
