//! Billing statements in the console: the list by status and customer, and one statement with its
//! line items, its hosted page's link, and the forms of the moves it allows now (finalize a draft;
//! send, void or mark uncollectible an open one), each through the API's service.

use super::json::to_html;
use super::table::{list_page, object_page, ActionForm, Cell, Filter, Object, Table};
use super::{date_time, load, refused, Action, Chrome, Signed};
use crate::formatting::pesos;
use crate::representation::billing_statement::BillingStatementResource;
use crate::routes::billing_statement::list_request;
use crate::state::Services;
use actix_web::{web, HttpRequest, HttpResponse};
use payments_application::services::BillingStatementView;
use payments_domain::billing_statement::{BillingStatementOperation, BillingStatementStatus};

const LIST: &str = "/dashboard/billing_statements";
/// The moves a statement's page may offer, as it shows them: the operation (the last segment of the
/// form's path), its title, its button, its class and its note. The page offers those the service
/// says the statement allows now.
const MOVES: [(BillingStatementOperation, &str, &str, &str, &str); 4] = [
    (BillingStatementOperation::Finalize, "Finalize", "Finalize", "primary", "It gets its number and its page."),
    (BillingStatementOperation::Send, "Send", "Send by e-mail", "primary", "E-mails the customer its link."),
    (BillingStatementOperation::Void, "Void", "Void", "danger", "It can no longer be paid."),
    (
        BillingStatementOperation::MarkUncollectible,
        "Mark uncollectible",
        "Mark uncollectible",
        "secondary",
        "It stays payable.",
    ),
];

pub(super) fn configure(config: &mut web::ServiceConfig) {
    super::pages(config, LIST, list, detail);
    for (operation, ..) in MOVES {
        let segment = operation.as_str();
        super::form(config, format!("{LIST}/{{id}}/{segment}"), move_statement);
    }
}

fn row(view: &BillingStatementView) -> Vec<Cell> {
    let statement = &view.statement;
    vec![
        Cell::pesos(statement.amount()),
        Cell::status(statement.status()),
        Cell::id(statement.id().as_str()),
        Cell::text(view.customer.name.as_str()),
        Cell::text(statement.details().due_at.map(date_time).unwrap_or_default()),
    ]
}

async fn list(signed: Signed, request: HttpRequest, services: web::Data<Services>) -> HttpResponse {
    let found = super::listed(
        &signed,
        &request,
        LIST,
        list_request,
        move |scope, filter, page| services.billing_statements.list(scope, filter, page),
        |view| view.statement.id().as_str(),
    );
    let (query, statements, pager) = match found.await {
        Ok(listed) => listed,
        Err(page) => return page,
    };
    let table = Table {
        headers: vec!["Amount", "Status", "Billing statement", "Customer", "Due"],
        rows: statements.iter().map(row).collect(),
    };
    let statuses = BillingStatementStatus::ALL.iter().map(|status| status.as_str()).collect();
    let filters =
        vec![Filter::choice(&query, "status", "Status", statuses), Filter::text(&query, "customer_id", "Customer id")];
    list_page(Chrome::new(&signed, "Billing statements"), "Billing statements", LIST, filters, table, pager)
}

async fn detail(
    signed: Signed,
    id: web::Path<String>,
    request: HttpRequest,
    services: web::Data<Services>,
) -> HttpResponse {
    let scope = signed.scope();
    let (view, allowed) = match load(move || services.billing_statements.with_operations(&scope, &id)).await {
        Ok(loaded) => loaded,
        Err(response) => return response,
    };
    let statement = &view.statement;
    let mut facts = vec![
        ("Customer", Cell::linked(view.customer.name.as_str(), format!("/dashboard/customers/{}", view.customer.id))),
        ("Created", Cell::text(date_time(statement.created_at()))),
    ];
    if let Some(due) = statement.details().due_at {
        facts.push(("Due", Cell::text(date_time(due))));
    }
    if let Some(finalization) = statement.finalization() {
        facts.push(("Number", Cell::text(finalization.number.as_str())));
        facts.push(("Payment intent", Cell::id(finalization.payment_intent_id.as_str())));
        facts.push(("Hosted page", Cell::linked(finalization.url.as_str(), finalization.url.as_str())));
    }
    let items = Table {
        headers: vec!["Item", "Unit price", "Quantity", "Total"],
        rows: statement
            .line_items()
            .iter()
            .map(|item| {
                vec![
                    Cell::text(item.description.as_str()),
                    Cell::pesos(item.unit_price),
                    Cell::text(item.quantity.to_string()),
                    Cell::pesos(item.total()),
                ]
            })
            .collect(),
    };
    let actions = MOVES
        .iter()
        .filter(|(operation, ..)| allowed.contains(operation))
        .map(|(operation, title, button, class, note)| ActionForm {
            title,
            path: format!("{LIST}/{}/{}", statement.id(), operation.as_str()),
            button,
            class,
            note: (*note).into(),
            fields: Vec::new(),
        })
        .collect();
    let notice = request.query_string().strip_prefix("done=").and_then(|done| {
        MOVES
            .iter()
            .find(|(operation, ..)| operation.as_str() == done)
            .map(|_| "Done: the statement moved on, and its event went out.")
    });
    let json = serde_json::to_value(BillingStatementResource::new(&view)).unwrap_or_default();
    object_page(
        Chrome::new(&signed, "Billing statements"),
        Object {
            back: ("Billing statements", LIST.to_owned()),
            heading: pesos(statement.amount()),
            status: Some(Cell::status(statement.status())),
            id: statement.id().to_string(),
            notice,
            facts,
            actions,
            sections: vec![("Line items", items)],
            json: to_html(&json),
        },
    )
}

/// Finalize, send, void or mark uncollectible: the last segment of the path says which.
async fn move_statement(
    action: Action,
    id: web::Path<String>,
    request: HttpRequest,
    services: web::Data<Services>,
) -> HttpResponse {
    let Action { signed, params } = action;
    let back = format!("{LIST}/{id}");
    if let Err(error) = params.finish(Some(())) {
        return refused(&error, &back);
    }
    let segment = request.path().rsplit('/').next().unwrap_or_default().to_owned();
    let scope = signed.scope();
    super::act(&back, &segment.clone(), move || {
        let statements = &services.billing_statements;
        let view = match segment.as_str() {
            "finalize" => statements.finalize(&scope, &id),
            "send" => statements.send(&scope, &id),
            "void" => statements.void(&scope, &id),
            _ => statements.mark_uncollectible(&scope, &id),
        }?;
        Ok(serde_json::to_value(BillingStatementResource::new(&view)).unwrap_or_default())
    })
    .await
}
