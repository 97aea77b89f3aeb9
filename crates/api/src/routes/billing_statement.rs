//! `/billing_statements`: create, list, retrieve, update and delete drafts; finalize, send, void and
//! mark uncollectible. The customer pays on the hosted page (`pages::billing_statement`).

use super::endpoint::Endpoint;
use super::payment_method::payment_methods;
use super::support::{ok, page_request};
use crate::auth::SecretKey;
use crate::decode::{names, BodyParams, Params, QueryParams};
use crate::error::ApiError;
use crate::representation::billing_statement::BillingStatementResource;
use crate::representation::envelope::{Deleted, List};
use crate::representation::payment_intent::PaymentIntentResource;
use crate::state::{blocking, Services};
use actix_web::{web, HttpResponse, Route};
use payments_application::pagination::PageRequest;
use payments_application::ports::BillingStatementFilter;
use payments_application::services::{BillingStatementService, BillingStatementView, NewBillingStatement};
use payments_application::ApplicationError;
use payments_application::Scope;
use payments_domain::billing_statement::{BillingStatementStatus, StatementChanges, LATEST_DUE_AT};
use payments_domain::checkout_session::BillingDetailsCollection;
use payments_domain::ids::CustomerId;
use payments_domain::limits::IDENTIFIER_LENGTH;
use payments_domain::money::Currency;
use payments_domain::time::Timestamp;
use payments_domain::validation::{FieldError, Invalid};

const RESOURCE: &str = "billing_statement";

/// A statement as every operation answers it.
type Statement<'a> = BillingStatementResource<'a, PaymentIntentResource<'a>>;

pub(super) fn endpoints() -> Vec<Endpoint> {
    let transitions: [(&'static str, &'static str, &'static str, Transition); 4] = [
        (
            "/billing_statements/{id}/finalize",
            "finalize_billing_statement",
            "Finalize a draft: number it and open it for payment",
            BillingStatementService::finalize,
        ),
        (
            "/billing_statements/{id}/send",
            "send_billing_statement",
            "E-mail an open statement to its customer",
            BillingStatementService::send,
        ),
        (
            "/billing_statements/{id}/void",
            "void_billing_statement",
            "Void an open statement",
            BillingStatementService::void,
        ),
        (
            "/billing_statements/{id}/mark_uncollectible",
            "mark_uncollectible_billing_statement",
            "Mark an open statement uncollectible",
            BillingStatementService::mark_uncollectible,
        ),
    ];
    let mut endpoints = vec![
        Endpoint::post("/billing_statements", create)
            .named("create_billing_statement", "Create a draft billing statement")
            .body(new_statement)
            .answers::<Statement>(),
        Endpoint::get("/billing_statements", list)
            .named("list_billing_statements", "List billing statements, newest first")
            .query(list_request)
            .answers::<Statement>()
            .list(),
        Endpoint::get("/billing_statements/{id}", retrieve)
            .named("retrieve_billing_statement", "Retrieve a billing statement")
            .answers::<Statement>(),
        Endpoint::put("/billing_statements/{id}", update)
            .named("update_billing_statement", "Update a billing statement")
            .body(statement_changes)
            .answers::<Statement>(),
        Endpoint::delete("/billing_statements/{id}", delete)
            .named("delete_billing_statement", "Delete a draft billing statement")
            .answers::<Deleted>(),
    ];
    for (path, operation_id, summary, action) in transitions {
        endpoints.push(
            Endpoint::new(actix_web::http::Method::POST, path, transition(action))
                .named(operation_id, summary)
                .answers::<Statement>(),
        );
    }
    endpoints
}

async fn create(
    SecretKey(scope): SecretKey,
    BodyParams(mut params): BodyParams,
    services: web::Data<Services>,
) -> Result<HttpResponse, ApiError> {
    let new = new_statement(&mut params);
    let new = params.finish(new)?;
    let view = blocking(move || services.billing_statements.create(&scope, new)).await?;
    Ok(ok(&BillingStatementResource::new(&view)))
}

async fn list(
    SecretKey(scope): SecretKey,
    QueryParams(mut params): QueryParams,
    services: web::Data<Services>,
) -> Result<HttpResponse, ApiError> {
    let request = list_request(&mut params);
    let (filter, page) = params.finish(request)?;
    let statements = blocking(move || services.billing_statements.list(&scope, &filter, &page)).await?;
    Ok(ok(&List::of(&statements, BillingStatementResource::new)))
}

async fn retrieve(
    SecretKey(scope): SecretKey,
    id: web::Path<String>,
    QueryParams(params): QueryParams,
    services: web::Data<Services>,
) -> Result<HttpResponse, ApiError> {
    params.finish(Some(()))?;
    let view = blocking(move || services.billing_statements.retrieve(&scope, &id)).await?;
    Ok(ok(&BillingStatementResource::new(&view)))
}

async fn update(
    SecretKey(scope): SecretKey,
    id: web::Path<String>,
    BodyParams(mut params): BodyParams,
    services: web::Data<Services>,
) -> Result<HttpResponse, ApiError> {
    let changes = statement_changes(&mut params);
    let changes = params.finish(changes)?;
    let view = blocking(move || services.billing_statements.update(&scope, &id, changes)).await?;
    Ok(ok(&BillingStatementResource::new(&view)))
}

async fn delete(
    SecretKey(scope): SecretKey,
    id: web::Path<String>,
    BodyParams(params): BodyParams,
    services: web::Data<Services>,
) -> Result<HttpResponse, ApiError> {
    params.finish(Some(()))?;
    let view = blocking(move || services.billing_statements.delete(&scope, &id)).await?;
    Ok(ok(&Deleted::new(view.statement.id().as_str(), RESOURCE)))
}

/// The use case of a transition: finalize, send, void, mark uncollectible.
type Transition = fn(&BillingStatementService, &Scope, &str) -> Result<BillingStatementView, ApplicationError>;

/// `POST /billing_statements/{id}/<action>`, which takes no parameters.
fn transition(action: Transition) -> Route {
    web::post().to(
        move |caller: SecretKey, id: web::Path<String>, params: BodyParams, services: web::Data<Services>| {
            act(caller, id, params, services, action)
        },
    )
}

/// A transition without parameters: the body must be empty of them.
async fn act(
    SecretKey(scope): SecretKey,
    id: web::Path<String>,
    BodyParams(params): BodyParams,
    services: web::Data<Services>,
    action: Transition,
) -> Result<HttpResponse, ApiError> {
    params.finish(Some(()))?;
    let view = blocking(move || action(&services.billing_statements, &scope, &id)).await?;
    Ok(ok(&BillingStatementResource::new(&view)))
}

fn new_statement(params: &mut Params) -> Option<NewBillingStatement> {
    let customer_id = params.required_string("customer_id", IDENTIFIER_LENGTH).and_then(|id| {
        let parsed =
            CustomerId::parse(&id).ok_or_else(|| Invalid::missing(format!("No customer with id {id} exists.")));
        params.check("customer_id", parsed)
    });
    let currency = params
        .choice("currency", || names(&Currency::ALL, Currency::code))
        .and_then(|code| params.check("currency", Currency::parse(&code)));
    let fields = statement_fields(params);
    customer_id.map(|customer_id| NewBillingStatement {
        customer_id,
        currency,
        description: fields.description,
        due_at: fields.due_at,
        billing_details_collection: fields.billing_details_collection,
        payment_methods: fields.payment_methods,
        statement_descriptor: fields.statement_descriptor,
        metadata: fields.metadata,
    })
}

fn statement_changes(params: &mut Params) -> Option<StatementChanges> {
    Some(statement_fields(params))
}

/// A list request: the page and the filters.
pub(crate) fn list_request(params: &mut Params) -> Option<(BillingStatementFilter, PageRequest)> {
    let page = page_request(params);
    // An id of no customer simply matches nothing, as a filter should.
    let customer_id = params
        .string("customer_id", IDENTIFIER_LENGTH)
        .map(|id| CustomerId::parse(&id).unwrap_or_else(|| CustomerId::from_random("0")));
    let status = params.one_of("status", &BillingStatementStatus::ALL, BillingStatementStatus::as_str);
    Some((BillingStatementFilter { customer_id, status }, page?))
}

/// The fields create and update share.
fn statement_fields(params: &mut Params) -> StatementChanges {
    let description = params.description("description");
    let due_at = params.integer("due_at");
    params.bounds("due_at", 0, LATEST_DUE_AT);
    let due_at = due_at.and_then(|seconds| {
        if seconds < 0 {
            params.push(FieldError::new(
                "due_at",
                payments_domain::validation::ErrorCode::ParameterBelowMinimum,
                "due_at must be in the future (Unix seconds).",
            ));
            return None;
        }
        Some(Timestamp::from_unix_seconds(seconds))
    });
    let billing_details_collection = params
        .choice("billing_details_collection", || {
            names(&BillingDetailsCollection::ALL, BillingDetailsCollection::as_str)
        })
        .and_then(|value| params.check("billing_details_collection", BillingDetailsCollection::parse(&value)));
    let payment_methods = params.object("payment_settings", |settings| {
        let methods = payment_methods(settings);
        settings.require("payment_methods", methods)
    });
    let statement_descriptor = params.statement_descriptor("statement_descriptor");
    let metadata = params.metadata("metadata");
    StatementChanges {
        description,
        due_at,
        billing_details_collection,
        payment_methods,
        statement_descriptor,
        metadata,
    }
}
