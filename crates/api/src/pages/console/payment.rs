//! Payments in the console: the list by status, and one payment with its refunds.

use super::json::to_html;
use super::table::{list_page, object_page, Cell, Filter, Object, Table};
use super::{date_time, load, refused, Chrome, ListQuery, Signed};
use crate::error::ApiError;
use crate::representation::payment::PaymentResource;
use crate::state::Services;
use actix_web::{web, HttpRequest, HttpResponse};
use payments_application::ports::PaymentFilter;
use payments_domain::payment::{Payment, PaymentStatus};
use payments_domain::validation::FieldError;

const LIST: &str = "/dashboard/payments";

pub(super) fn configure(config: &mut web::ServiceConfig) {
    super::pages(config, LIST, list, detail);
}

fn row(payment: &Payment) -> Vec<Cell> {
    vec![
        Cell::pesos(payment.amount()),
        Cell::status(payment.status()),
        Cell::id(payment.id().as_str()),
        Cell::text(payment.payment_method().method.as_str()),
        Cell::id(payment.payment_intent_id().as_str()),
        Cell::text(date_time(payment.created_at())),
    ]
}

async fn list(signed: Signed, request: HttpRequest, services: web::Data<Services>) -> HttpResponse {
    let (query, page_request) = match ListQuery::read_page(&request, LIST) {
        Ok(read) => read,
        Err(page) => return *page,
    };
    let status = match query.filter("status") {
        "" => None,
        given => match PaymentStatus::ALL.into_iter().find(|status| status.as_str() == given) {
            Some(status) => Some(status),
            None => {
                return refused(&ApiError::validation(vec![FieldError::invalid("status", "Choose a status.")]), LIST)
            }
        },
    };
    let scope = signed.scope();
    let filter = PaymentFilter { status, ..PaymentFilter::default() };
    let payments = match load(move || services.payments.list(&scope, &filter, &page_request)).await {
        Ok(payments) => payments,
        Err(response) => return response,
    };
    let ids: Vec<&str> = payments.data.iter().map(|payment| payment.id().as_str()).collect();
    let pager = query.pager(LIST, &ids, payments.has_more);
    let table = Table {
        headers: vec!["Amount", "Status", "Payment", "Method", "Payment intent", "Created"],
        rows: payments.data.iter().map(row).collect(),
    };
    let statuses = PaymentStatus::ALL.iter().map(|status| status.as_str()).collect();
    let filters = vec![Filter::choice(&query, "status", "Status", statuses)];
    list_page(Chrome::new(&signed, "Payments"), "Payments", LIST, filters, table, pager)
}

async fn detail(signed: Signed, id: web::Path<String>, services: web::Data<Services>) -> HttpResponse {
    let scope = signed.scope();
    let loaded = load(move || services.payments.with_refunds(&scope, &id)).await;
    let (view, refunds) = match loaded {
        Ok(loaded) => loaded,
        Err(response) => return response,
    };
    let payment = &view.payment;
    let mut facts = vec![
        ("Created", Cell::text(date_time(payment.created_at()))),
        ("Payment intent", Cell::id(payment.payment_intent_id().as_str())),
        ("Method", Cell::text(payment.payment_method().method.as_str())),
        ("Fee", Cell::pesos(payment.fee())),
        ("Net", Cell::pesos(payment.net_amount())),
        ("Refunded", Cell::pesos(payment.amount_refunded())),
    ];
    if let Some(customer) = payment.customer_id() {
        facts.push(("Customer", Cell::id(customer.as_str())));
    }
    let refunds = Table {
        headers: vec!["Amount", "Refund", "Reason", "Created"],
        rows: refunds
            .iter()
            .map(|refund| {
                vec![
                    Cell::pesos(refund.amount()),
                    Cell::id(refund.id().as_str()),
                    Cell::text(refund.reason().as_str()),
                    Cell::text(date_time(refund.created_at())),
                ]
            })
            .collect(),
    };
    let json = serde_json::to_value(PaymentResource::new(payment, view.customer.as_ref())).unwrap_or_default();
    object_page(
        Chrome::new(&signed, "Payments"),
        Object {
            back: ("Payments", LIST.to_owned()),
            heading: crate::formatting::pesos(payment.amount()),
            status: Some(Cell::status(payment.status())),
            id: payment.id().to_string(),
            notice: None,
            facts,
            actions: Vec::new(),
            sections: vec![("Refunds", refunds)],
            json: to_html(&json),
        },
    )
}
