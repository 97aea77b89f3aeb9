//! Customers in the console: the list by name or e-mail, and one customer with their saved payment
//! methods, billing statements, customer sessions and payment intents.

use super::json::to_html;
use super::table::{list_page, object_page, Cell, Filter, Object, Table};
use super::{date_time, load, Chrome, Signed};
use crate::representation::customer::CustomerResource;
use crate::routes::customer::list_request;
use crate::state::Services;
use actix_web::{web, HttpRequest, HttpResponse};
use payments_application::services::CustomerPage;
use payments_domain::customer::Customer;

const LIST: &str = "/dashboard/customers";
/// Related objects shown on a customer's page, of each kind.
const RELATED: u32 = 20;

pub(super) fn configure(config: &mut web::ServiceConfig) {
    super::pages(config, LIST, list, detail);
}

fn row(customer: &Customer) -> Vec<Cell> {
    vec![
        Cell::linked(customer.name.as_str(), format!("{LIST}/{}", customer.id)),
        Cell::text(customer.email.as_str()),
        Cell::id(customer.id.as_str()),
        Cell::text(date_time(customer.created_at)),
    ]
}

async fn list(signed: Signed, request: HttpRequest, services: web::Data<Services>) -> HttpResponse {
    let found = super::listed(
        &signed,
        &request,
        LIST,
        list_request,
        move |scope, filter, page| services.customers.list(scope, filter, page),
        |customer| customer.id.as_str(),
    );
    let (query, customers, pager) = match found.await {
        Ok(listed) => listed,
        Err(page) => return page,
    };
    let table =
        Table { headers: vec!["Name", "E-mail", "Customer", "Created"], rows: customers.iter().map(row).collect() };
    let filters = vec![Filter::text(&query, "name", "Name"), Filter::text(&query, "email", "E-mail")];
    list_page(Chrome::new(&signed, "Customers"), "Customers", LIST, filters, table, pager)
}

async fn detail(signed: Signed, id: web::Path<String>, services: web::Data<Services>) -> HttpResponse {
    let scope = signed.scope();
    let page = match load(move || services.customers.page(&scope, &id, RELATED)).await {
        Ok(page) => page,
        Err(response) => return response,
    };
    let CustomerPage {
        customer,
        payment_intents: intents,
        payment_methods: methods,
        billing_statements,
        customer_sessions: sessions,
        now,
    } = page;
    let facts = vec![
        ("E-mail", Cell::text(customer.email.as_str())),
        ("Created", Cell::text(date_time(customer.created_at))),
        ("Statement prefix", Cell::text(customer.billing_statement_prefix.as_str())),
    ];
    let sections = vec![
        (
            "Payment intents",
            Table {
                headers: vec!["Amount", "Status", "Payment intent", "Created"],
                rows: intents
                    .iter()
                    .map(|intent| {
                        vec![
                            Cell::pesos(intent.amount().centavos()),
                            Cell::status(intent.status()),
                            Cell::id(intent.id().as_str()),
                            Cell::text(date_time(intent.created_at())),
                        ]
                    })
                    .collect(),
            },
        ),
        (
            "Saved payment methods",
            Table {
                headers: vec!["Card", "Expires", "Payment method", "Saved"],
                rows: methods
                    .iter()
                    .map(|method| {
                        let card = &method.verified.card;
                        vec![
                            Cell::text(format!("{} •••• {}", card.brand, card.last4)),
                            Cell::text(format!("{:02}/{}", card.exp_month, card.exp_year)),
                            Cell::id(method.id.as_str()),
                            Cell::text(date_time(method.created_at)),
                        ]
                    })
                    .collect(),
            },
        ),
        (
            "Billing statements",
            Table {
                headers: vec!["Amount", "Status", "Billing statement", "Created"],
                rows: billing_statements
                    .iter()
                    .map(|statement| {
                        vec![
                            Cell::pesos(statement.amount()),
                            Cell::status(statement.status()),
                            Cell::id(statement.id().as_str()),
                            Cell::text(date_time(statement.created_at())),
                        ]
                    })
                    .collect(),
            },
        ),
        (
            "Customer sessions",
            Table {
                headers: vec!["Customer session", "Created", "Expires"],
                rows: sessions
                    .iter()
                    .map(|session| {
                        let expiry = if session.expired(now) { "expired" } else { "active" };
                        vec![
                            Cell::id(session.id.as_str()),
                            Cell::text(date_time(session.created_at)),
                            Cell::text(format!("{} ({expiry})", date_time(session.expired_at))),
                        ]
                    })
                    .collect(),
            },
        ),
    ];
    let json = serde_json::to_value(CustomerResource::from(&customer)).unwrap_or_default();
    object_page(
        Chrome::new(&signed, "Customers"),
        Object {
            back: ("Customers", LIST.to_owned()),
            heading: customer.name.as_str().to_owned(),
            status: None,
            id: customer.id.to_string(),
            notice: None,
            facts,
            actions: Vec::new(),
            sections,
            json: to_html(&json),
        },
    )
}
