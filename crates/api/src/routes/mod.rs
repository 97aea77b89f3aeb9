//! HTTP routes, one file per resource. A handler decodes the request, authenticates, calls one
//! service method and answers with the resource's representation; no business rule lives here.

mod balance;
mod billing;
pub(crate) mod billing_statement;
mod billing_statement_line_item;
pub(crate) mod checkout_session;
pub(crate) mod customer;
mod customer_session;
pub(crate) mod endpoint;
pub(crate) mod event;
mod health;
pub(crate) mod page;
pub(crate) mod payment;
pub(crate) mod payment_intent;
pub(crate) mod payment_method;
pub(crate) mod payout;
mod pending_authorization;
pub(crate) mod price;
pub(crate) mod product;
pub(crate) mod refund;
pub(crate) mod request_log;
mod setup_intent;
mod support;
mod test_clock;
pub(crate) mod webhook;

pub(crate) use support::page_request;
pub use support::{allow_header, allow_only, get_or_head, route_not_found};

use actix_web::http::Method;
use actix_web::middleware::from_fn;
use actix_web::web;
use endpoint::{Auth, Endpoint};
use support::resource;

/// A resource's endpoints.
type Endpoints = fn() -> Vec<Endpoint>;

/// The names of the parameters that some endpoint's decoder marks as a secret's (card data, client
/// secrets), as their fields are named: what the request log and the idempotency record never keep.
#[must_use]
pub fn secret_parameter_names() -> std::collections::BTreeSet<String> {
    endpoints()
        .iter()
        .filter_map(|endpoint| endpoint.input.as_ref())
        .flat_map(|input| input.shape().secret_names().to_vec())
        .collect()
}

/// Every endpoint of the API, each resource's under its tag, in the order the document lists them.
pub(crate) fn endpoints() -> Vec<Endpoint> {
    let resources: [(&str, Endpoints); 20] = [
        ("customers", customer::endpoints),
        ("customer_sessions", customer_session::endpoints),
        ("payment_intents", payment_intent::endpoints),
        ("setup_intents", setup_intent::endpoints),
        ("payment_methods", payment_method::endpoints),
        ("payments", payment::endpoints),
        ("refunds", refund::endpoints),
        ("payouts", payout::endpoints),
        ("balance", balance::endpoints),
        ("checkout_sessions", checkout_session::endpoints),
        ("billing_statements", billing_statement::endpoints),
        ("billing_statement_line_items", billing_statement_line_item::endpoints),
        ("products", product::endpoints),
        ("prices", price::endpoints),
        ("pages", page::endpoints),
        ("events", event::endpoints),
        ("webhooks", webhook::endpoints),
        ("request_logs", request_log::endpoints),
        ("test_helpers", test_clock::endpoints),
        ("health", health::endpoints),
    ];
    resources.into_iter().flat_map(|(tag, endpoints)| endpoints().into_iter().map(move |e| e.tagged(tag))).collect()
}

/// The routes of one path, the methods they serve, and those a public key may use there.
struct PathRoutes {
    path: &'static str,
    routes: Vec<actix_web::Route>,
    methods: Vec<Method>,
    public_key_methods: Vec<Method>,
}

/// Registers every endpoint: one resource per path, whose other methods answer 405 with `Allow`;
/// a path with operations a public key may call answers CORS requests for them ([`crate::cors`]).
pub fn configure(config: &mut web::ServiceConfig) {
    let mut paths: Vec<PathRoutes> = Vec::new();
    for endpoint in endpoints() {
        let index = match paths.iter().position(|known| known.path == endpoint.path) {
            Some(index) => index,
            None => {
                paths.push(PathRoutes {
                    path: endpoint.path,
                    routes: Vec::new(),
                    methods: Vec::new(),
                    public_key_methods: Vec::new(),
                });
                paths.len() - 1
            }
        };
        if endpoint.auth == Auth::AnyKey {
            paths[index].public_key_methods.push(endpoint.method.clone());
        }
        paths[index].methods.push(endpoint.method.clone());
        // Idempotency wraps each mutating route, after its method matched: a method the path does
        // not serve is answered 405 whatever key it carries.
        let route = match endpoint.method {
            Method::POST | Method::PUT | Method::DELETE => {
                endpoint.route.wrap(from_fn(crate::idempotency::idempotency))
            }
            _ => endpoint.route,
        };
        paths[index].routes.push(route);
    }
    for PathRoutes { path, routes, methods, public_key_methods } in paths {
        let resource = routes.into_iter().fold(resource(path, &methods), actix_web::Resource::route);
        if public_key_methods.is_empty() {
            config.service(resource);
        } else {
            config.service(
                resource
                    .wrap(crate::cors::for_public_key_methods(&public_key_methods))
                    .wrap(from_fn(crate::cors::public_keys_only)),
            );
        }
    }
}
