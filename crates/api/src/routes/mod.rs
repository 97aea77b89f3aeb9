//! HTTP routes, one file per resource. A handler decodes the request, authenticates, calls one
//! service method and answers with the resource's representation; no business rule lives here.

mod billing;
mod billing_statement;
mod billing_statement_line_item;
mod checkout_session;
mod customer;
mod customer_session;
mod event;
mod health;
mod payment;
mod payment_intent;
pub(crate) mod payment_method;
mod refund;
mod setup_intent;
mod support;
mod webhook;

pub use support::route_not_found;

use actix_web::web;

/// Registers every route.
pub fn configure(config: &mut web::ServiceConfig) {
    health::configure(config);
    customer::configure(config);
    customer_session::configure(config);
    payment_intent::configure(config);
    setup_intent::configure(config);
    checkout_session::configure(config);
    billing_statement::configure(config);
    billing_statement_line_item::configure(config);
    payment_method::configure(config);
    payment::configure(config);
    refund::configure(config);
    event::configure(config);
    webhook::configure(config);
}
