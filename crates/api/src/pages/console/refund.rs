//! Refunds in the console: the list, and one refund.

use super::json::to_html;
use super::table::{list_page, object_page, Cell, Object, Table};
use super::{date_time, load, Chrome, ListQuery, Signed};
use crate::representation::refund::RefundResource;
use crate::state::Services;
use actix_web::{web, HttpRequest, HttpResponse};
use payments_domain::refund::Refund;

const LIST: &str = "/dashboard/refunds";

pub(super) fn configure(config: &mut web::ServiceConfig) {
    super::pages(config, LIST, list, detail);
}

fn row(refund: &Refund) -> Vec<Cell> {
    vec![
        Cell::pesos(refund.amount()),
        Cell::status(refund.status()),
        Cell::id(refund.id().as_str()),
        Cell::text(refund.reason().as_str()),
        Cell::id(refund.payment_id().as_str()),
        Cell::text(date_time(refund.created_at())),
    ]
}

async fn list(signed: Signed, request: HttpRequest, services: web::Data<Services>) -> HttpResponse {
    let (query, page_request) = match ListQuery::read_page(&request, LIST) {
        Ok(read) => read,
        Err(page) => return *page,
    };
    let scope = signed.scope();
    let refunds = match load(move || services.refunds.list(&scope, &page_request)).await {
        Ok(refunds) => refunds,
        Err(response) => return response,
    };
    let ids: Vec<&str> = refunds.data.iter().map(|refund| refund.id().as_str()).collect();
    let pager = query.pager(LIST, &ids, refunds.has_more);
    let table = Table {
        headers: vec!["Amount", "Status", "Refund", "Reason", "Payment", "Created"],
        rows: refunds.data.iter().map(row).collect(),
    };
    list_page(Chrome::new(&signed, "Refunds"), "Refunds", LIST, Vec::new(), table, pager)
}

async fn detail(signed: Signed, id: web::Path<String>, services: web::Data<Services>) -> HttpResponse {
    let scope = signed.scope();
    let refund = match load(move || services.refunds.retrieve(&scope, &id)).await {
        Ok(refund) => refund,
        Err(response) => return response,
    };
    let mut facts = vec![
        ("Created", Cell::text(date_time(refund.created_at()))),
        ("Payment", Cell::id(refund.payment_id().as_str())),
        ("Reason", Cell::text(refund.reason().as_str())),
    ];
    if let Some(description) = refund.description() {
        facts.push(("Description", Cell::text(description.as_str())));
    }
    if let Some(remarks) = refund.remarks() {
        facts.push(("Remarks", Cell::text(remarks.as_str())));
    }
    let json = serde_json::to_value(RefundResource::new(&refund)).unwrap_or_default();
    object_page(
        Chrome::new(&signed, "Refunds"),
        Object {
            back: ("Refunds", LIST.to_owned()),
            heading: crate::formatting::pesos(refund.amount()),
            status: Some(Cell::status(refund.status())),
            id: refund.id().to_string(),
            notice: None,
            facts,
            actions: Vec::new(),
            sections: Vec::new(),
            json: to_html(&json),
        },
    )
}
