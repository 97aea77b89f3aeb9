//! Checkout sessions in the console: the list by status and reference, and one session with its
//! line items, its hosted page's link and, while it is active, the form that expires it.

use super::json::to_html;
use super::table::{list_page, object_page, ActionForm, Cell, Filter, Object, Table};
use super::{date_time, load, refused, Action, Chrome, Signed};
use crate::formatting::pesos;
use crate::representation::checkout_session::CheckoutSessionResource;
use crate::routes::checkout_session::list_request;
use crate::state::Services;
use actix_web::{web, HttpRequest, HttpResponse};
use payments_application::services::CheckoutSessionView;
use payments_domain::checkout_session::CheckoutSessionStatus;

const LIST: &str = "/dashboard/checkout_sessions";

pub(super) fn configure(config: &mut web::ServiceConfig) {
    super::pages(config, LIST, list, detail);
    super::form(config, format!("{LIST}/{{id}}/expire"), expire);
}

fn row(view: &CheckoutSessionView) -> Vec<Cell> {
    let session = &view.session;
    vec![
        Cell::pesos(session.details().amount.centavos()),
        Cell::status(session.status()),
        Cell::id(session.id().as_str()),
        Cell::text(session.details().customer_reference_id.clone().unwrap_or_default()),
        Cell::text(date_time(session.created_at())),
    ]
}

async fn list(signed: Signed, request: HttpRequest, services: web::Data<Services>) -> HttpResponse {
    let found = super::listed(
        &signed,
        &request,
        LIST,
        list_request,
        move |scope, filter, page| services.checkout_sessions.list(scope, filter, page),
        |view| view.session.id().as_str(),
    );
    let (query, sessions, pager) = match found.await {
        Ok(listed) => listed,
        Err(page) => return page,
    };
    let table = Table {
        headers: vec!["Amount", "Status", "Checkout session", "Reference", "Created"],
        rows: sessions.iter().map(row).collect(),
    };
    let statuses = CheckoutSessionStatus::ALL.iter().map(|status| status.as_str()).collect();
    let filters = vec![
        Filter::choice(&query, "status", "Status", statuses),
        Filter::text(&query, "customer_reference_id", "Reference"),
    ];
    list_page(Chrome::new(&signed, "Checkout sessions"), "Checkout sessions", LIST, filters, table, pager)
}

async fn detail(
    signed: Signed,
    id: web::Path<String>,
    request: HttpRequest,
    services: web::Data<Services>,
) -> HttpResponse {
    let scope = signed.scope();
    let view = match load(move || services.checkout_sessions.retrieve(&scope, &id)).await {
        Ok(view) => view,
        Err(response) => return response,
    };
    let session = &view.session;
    let details = session.details();
    let mut facts = vec![
        ("Created", Cell::text(date_time(session.created_at()))),
        ("Expires", Cell::text(date_time(session.expires_at()))),
        ("Payment intent", Cell::id(session.payment_intent_id().as_str())),
        ("Hosted page", Cell::linked(session.url(), session.url())),
        ("Success URL", Cell::text(details.success_url.as_str())),
        ("Cancel URL", Cell::text(details.cancel_url.as_str())),
    ];
    if let Some(reference) = &details.customer_reference_id {
        facts.push(("Reference", Cell::text(reference.as_str())));
    }
    let items = Table {
        headers: vec!["Item", "Unit price", "Quantity", "Total"],
        rows: details
            .line_items
            .iter()
            .map(|item| {
                vec![
                    Cell::text(item.name.as_str()),
                    Cell::pesos(item.amount),
                    Cell::text(item.quantity.to_string()),
                    Cell::text(item.total().map_or_else(String::new, pesos)),
                ]
            })
            .collect(),
    };
    let actions = if view.expirable() {
        vec![ActionForm {
            title: "Expire",
            path: format!("{LIST}/{}/expire", session.id()),
            button: "Expire session",
            class: "secondary",
            note: "Its page stops taking payments.".into(),
            fields: Vec::new(),
        }]
    } else {
        Vec::new()
    };
    let json = serde_json::to_value(CheckoutSessionResource::new(&view)).unwrap_or_default();
    object_page(
        Chrome::new(&signed, "Checkout sessions"),
        Object {
            back: ("Checkout sessions", LIST.to_owned()),
            heading: pesos(details.amount.centavos()),
            status: Some(Cell::status(session.status())),
            id: session.id().to_string(),
            notice: (request.query_string() == "done=expired").then_some("Expired."),
            facts,
            actions,
            sections: vec![("Line items", items)],
            json: to_html(&json),
        },
    )
}

async fn expire(action: Action, id: web::Path<String>, services: web::Data<Services>) -> HttpResponse {
    let Action { signed, params } = action;
    let back = format!("{LIST}/{id}");
    if let Err(error) = params.finish(Some(())) {
        return refused(&error, &back);
    }
    let scope = signed.scope();
    super::act(&back, "expired", move || {
        let view = services.checkout_sessions.expire(&scope, &id)?;
        Ok(serde_json::to_value(CheckoutSessionResource::new(&view)).unwrap_or_default())
    })
    .await
}
