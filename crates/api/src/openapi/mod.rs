//! The OpenAPI 3.1 document of the API, built from the code: the paths and operations from the
//! endpoint list the server registers, request parameters from the decoders themselves (run on a
//! describing [`Params`](crate::decode::Params)), responses from the types that serialize them, and
//! the webhook payloads from the event types. Served at `/openapi.json` and rendered at `/docs`.

mod operation;
mod webhooks;

use crate::error::ErrorBody;
use crate::routes::endpoint::{Component, Endpoint};
use serde_json::json;
use utoipa::openapi::extensions::ExtensionsBuilder;
use utoipa::openapi::security::{Http, HttpAuthScheme, SecurityScheme};
use utoipa::openapi::tag::TagBuilder;
use utoipa::openapi::{
    ComponentsBuilder, InfoBuilder, OpenApi, OpenApiBuilder, Paths, RefOr, Schema, ServerBuilder, Tag,
};

/// The security scheme of secret keys.
pub(crate) const SECRET_KEY: &str = "secret_key";
/// The security scheme of public keys.
pub(crate) const PUBLIC_KEY: &str = "public_key";

const DESCRIPTION: &str = "A self-hosted payments service with the interface of the PayRex API: \
payment intents with hold-then-capture, setup intents and saved payment methods, billing \
statements, customers, customer sessions, checkout sessions with hosted pages, payments, refunds, \
and signed webhook events.\n\nRequests send parameters as `application/x-www-form-urlencoded` \
with bracket keys (`metadata[order]=42`, `payment_methods[]=card`) or as `application/json`. An \
optional parameter sent as `null` or as an empty string is absent, and a list may be sent as its \
one item (the schemas list these forms after the parameter's own). Every error answers `{\"errors\": [{\"code\", \"detail\", \"parameter\"}]}`. A POST, PUT or \
DELETE with an `Idempotency-Key` header runs once: a retry with the same key and body replays \
the first answer.";

/// The document for a service reachable at `base_url`.
#[must_use]
pub fn document(base_url: &str) -> OpenApi {
    let endpoints = crate::routes::endpoints();
    let mut paths = Paths::new();
    let mut schemas = Vec::new();
    let mut requests = Vec::new();
    let mut tags: Vec<Tag> = Vec::new();
    for endpoint in endpoints.iter().filter(|endpoint| endpoint.alias_of.is_none()) {
        collect_schemas(endpoint, &mut schemas);
        if !tags.iter().any(|tag| tag.name == endpoint.tag) {
            let own = OWN_RESOURCES.contains(&endpoint.tag).then_some(OWN_RESOURCE);
            tags.push(TagBuilder::new().name(endpoint.tag).description(own).build());
        }
        paths.add_path_operation(
            endpoint.path,
            vec![operation::method(&endpoint.method)],
            operation::of(endpoint, &endpoints, &mut requests),
        );
    }
    add_aliases(&mut paths, &endpoints);
    Component::of::<ErrorBody>().collect_into(&mut schemas);
    let webhooks = webhooks::paths(&mut schemas);
    require_present_properties(&mut schemas);
    state_resources(&mut schemas);
    schemas.append(&mut requests);

    let secret_key = Http::builder()
        .scheme(HttpAuthScheme::Basic)
        .description(Some("A secret key (`sk_test_…` or `sk_live_…`) as the user name, with an empty password."))
        .build();
    let public_key = Http::builder()
        .scheme(HttpAuthScheme::Basic)
        .description(Some(
            "A public key (`pk_test_…` or `pk_live_…`) as the user name, with an empty password. It reaches \
             one object only, with that object's `client_secret` in the request.",
        ))
        .build();
    let components = ComponentsBuilder::new()
        .security_scheme(SECRET_KEY, SecurityScheme::Http(secret_key))
        .security_scheme(PUBLIC_KEY, SecurityScheme::Http(public_key))
        .schemas_from_iter(schemas)
        .build();
    OpenApiBuilder::new()
        .info(
            InfoBuilder::new().title("Payments API").version(env!("CARGO_PKG_VERSION")).description(Some(DESCRIPTION)),
        )
        .servers(Some([ServerBuilder::new().url(base_url.trim_end_matches('/')).build()]))
        .paths(paths)
        .components(Some(components))
        .tags(Some(tags))
        .webhooks(Some(webhooks))
        .build()
}

/// Every schema an endpoint answers with, once each.
fn collect_schemas(endpoint: &Endpoint, schemas: &mut Vec<(String, RefOr<Schema>)>) {
    for component in endpoint.output.components() {
        component.collect_into(schemas);
    }
}

/// The properties an answer leaves out when they have no value (`#[serde(skip_serializing_if)]`).
const OMITTED_WHEN_EMPTY: [(&str, &str); 6] = [
    ("PaymentPaymentMethod", "card"),
    ("PaymentPaymentMethod", "qrph"),
    ("CustomerSession", "payment_methods"),
    ("CustomerSession", "granted_features"),
    ("CustomerSession", "customer"),
    ("ErrorEntry", "parameter"),
];

/// Marks required every property that answers always carry, `null` when empty (as the contract's
/// tables show them), which is all of them but [`OMITTED_WHEN_EMPTY`]. utoipa leaves an `Option`
/// optional; the conformance check in CI fails if an answer ever lacks a property marked here.
fn require_present_properties(schemas: &mut [(String, RefOr<Schema>)]) {
    debug_assert!(
        OMITTED_WHEN_EMPTY.iter().all(|(schema, property)| schemas.iter().any(|(name, candidate)| {
            name == schema
                && matches!(candidate, RefOr::T(Schema::Object(object)) if object.properties.contains_key(*property))
        })),
        "every entry of OMITTED_WHEN_EMPTY names a property of a documented schema"
    );
    for (name, schema) in schemas {
        let RefOr::T(Schema::Object(object)) = schema else { continue };
        for property in object.properties.keys() {
            let omitted = OMITTED_WHEN_EMPTY.contains(&(name.as_str(), property.as_str()));
            if !omitted && !object.required.contains(property) {
                object.required.push(property.clone());
            }
        }
    }
}

/// The resources this service has of its own: PayRex documents no API for them (Pages' products,
/// prices and pages), so a PayRex client library has no calls for them.
const OWN_RESOURCES: [&str; 3] = ["products", "prices", "pages"];
const OWN_RESOURCE: &str =
    "This service's own: PayRex documents no API for it, and its client libraries have no calls for it.";

/// The `resource` of each answer's schema: the one value it always has, or (for a deletion's
/// tombstone) the resources that can be deleted.
const RESOURCES: [(&str, &[&str]); 26] = [
    ("Attempt", &["webhook_attempt"]),
    ("Balance", &["balance"]),
    ("BillingStatement", &["billing_statement"]),
    ("BillingStatementLineItem", &["billing_statement_line_item"]),
    ("CheckoutSession", &["checkout_session"]),
    ("CheckoutSessionLineItem", &["checkout_session_line_item"]),
    ("Customer", &["customer"]),
    ("CustomerSession", &["customer_session"]),
    (
        "Deleted",
        &["customer", "billing_statement", "billing_statement_line_item", "webhook", "payment_method", "product"],
    ),
    ("Event", &["event"]),
    ("Page", &["page"]),
    ("Payment", &["payment"]),
    ("PaymentIntent", &["payment_intent"]),
    ("PaymentMethod", &["payment_method"]),
    ("Payout", &["payout"]),
    ("PayoutTransaction", &["payout_transaction"]),
    ("Price", &["price"]),
    ("Product", &["product"]),
    ("PublicPaymentIntent", &["payment_intent"]),
    ("PublicSetupIntent", &["setup_intent"]),
    ("Refund", &["refund"]),
    ("RequestLog", &["request_log"]),
    ("SetupIntent", &["setup_intent"]),
    ("TestClock", &["test_clock"]),
    ("Webhook", &["webhook"]),
    ("WebhookRecovery", &["webhook_recovery"]),
];

/// States each answer's `resource` as its value ([`RESOURCES`]): a generated client can tell
/// answers apart by it. CI's conformance check fails if an answer ever carries another.
fn state_resources(schemas: &mut [(String, RefOr<Schema>)]) {
    for (name, schema) in schemas {
        let RefOr::T(Schema::Object(object)) = schema else { continue };
        let Some(RefOr::T(Schema::Object(resource))) = object.properties.get_mut("resource") else { continue };
        let values = RESOURCES.iter().find(|(schema, _)| schema == name).map(|(_, values)| *values);
        debug_assert!(values.is_some(), "RESOURCES names the resource of {name}");
        resource.enum_values = values.map(|values| values.iter().map(|value| json!(value)).collect());
    }
}

/// Records on each documented path the other spellings that serve it (`x-aliases`).
fn add_aliases(paths: &mut Paths, endpoints: &[Endpoint]) {
    for (canonical, item) in &mut paths.paths {
        let mut aliases: Vec<&str> = endpoints
            .iter()
            .filter(|endpoint| endpoint.alias_of == Some(canonical.as_str()))
            .map(|endpoint| endpoint.path)
            .collect();
        aliases.dedup();
        if !aliases.is_empty() {
            item.extensions = Some(ExtensionsBuilder::new().add("x-aliases", json!(aliases)).build());
        }
    }
}
