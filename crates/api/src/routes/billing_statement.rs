//! `/billing_statements`: create, list, retrieve, update and delete drafts; finalize, send, void and
//! mark uncollectible. The customer pays on the hosted page (`pages::billing_statement`).

use super::payment_method::payment_methods;
use super::support::{ok, page_request, resource};
use crate::auth::SecretKey;
use crate::decode::{BodyParams, Params, QueryParams};
use crate::error::ApiError;
use crate::representation::billing_statement::BillingStatementResource;
use crate::representation::envelope::{Deleted, List};
use crate::state::{blocking, Services};
use actix_web::{web, HttpResponse, Route};
use payments_application::ports::BillingStatementFilter;
use payments_application::services::{BillingStatementService, BillingStatementView, NewBillingStatement};
use payments_application::ApplicationError;
use payments_application::Scope;
use payments_domain::billing_statement::{BillingStatementStatus, StatementChanges};
use payments_domain::checkout_session::BillingDetailsCollection;
use payments_domain::ids::CustomerId;
use payments_domain::limits::{CHOICE_LENGTH, IDENTIFIER_LENGTH};
use payments_domain::money::Currency;
use payments_domain::payment_method::PaymentMethodType;
use payments_domain::time::Timestamp;
use payments_domain::validation::{FieldError, Invalid};

const RESOURCE: &str = "billing_statement";

pub(super) fn configure(config: &mut web::ServiceConfig) {
    config
        .service(resource("/billing_statements").route(web::post().to(create)).route(web::get().to(list)))
        .service(
            resource("/billing_statements/{id}")
                .route(web::get().to(retrieve))
                .route(web::put().to(update))
                .route(web::delete().to(delete)),
        )
        .service(resource("/billing_statements/{id}/finalize").route(transition(BillingStatementService::finalize)))
        .service(resource("/billing_statements/{id}/send").route(transition(BillingStatementService::send)))
        .service(resource("/billing_statements/{id}/void").route(transition(BillingStatementService::void)))
        .service(
            resource("/billing_statements/{id}/mark_uncollectible")
                .route(transition(BillingStatementService::mark_uncollectible)),
        );
}

async fn create(
    SecretKey(scope): SecretKey,
    BodyParams(mut params): BodyParams,
    services: web::Data<Services>,
) -> Result<HttpResponse, ApiError> {
    let customer_id = params.required_string("customer_id", IDENTIFIER_LENGTH).and_then(|id| {
        let parsed = CustomerId::parse(&id).ok_or_else(|| Invalid::value(format!("No customer with id {id} exists.")));
        params.check("customer_id", parsed)
    });
    let currency =
        params.string("currency", CHOICE_LENGTH).and_then(|code| params.check("currency", Currency::parse(&code)));
    let fields = statement_fields(&mut params);
    let new = customer_id.map(|customer_id| NewBillingStatement {
        customer_id,
        currency,
        description: fields.description,
        due_at: fields.due_at,
        billing_details_collection: fields.billing_details_collection,
        payment_methods: fields.payment_methods,
        statement_descriptor: fields.statement_descriptor,
        metadata: fields.metadata,
    });
    let new = params.finish(new)?;
    let view = blocking(move || services.billing_statements.create(&scope, new)).await?;
    Ok(ok(&BillingStatementResource::new(&view)))
}

async fn list(
    SecretKey(scope): SecretKey,
    QueryParams(mut params): QueryParams,
    services: web::Data<Services>,
) -> Result<HttpResponse, ApiError> {
    let page = page_request(&mut params);
    // An id of no customer simply matches nothing, as a filter should.
    let customer_id = params
        .string("customer_id", IDENTIFIER_LENGTH)
        .map(|id| CustomerId::parse(&id).unwrap_or_else(|| CustomerId::from_random("0")));
    let status = params.string("status", CHOICE_LENGTH).and_then(|status| {
        let parsed = BillingStatementStatus::parse(&status).ok_or_else(|| {
            Invalid::value(format!("{status} is not a status; use draft, open, paid, void or uncollectible."))
        });
        params.check("status", parsed)
    });
    let page = params.finish(page)?;
    let filter = BillingStatementFilter { customer_id, status };
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
    let fields = statement_fields(&mut params);
    let changes = params.finish(Some(StatementChanges {
        description: fields.description,
        due_at: fields.due_at,
        billing_details_collection: fields.billing_details_collection,
        payment_methods: fields.payment_methods,
        statement_descriptor: fields.statement_descriptor,
        metadata: fields.metadata,
    }))?;
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

/// The fields create and update share.
struct StatementFields {
    description: Option<payments_domain::description::Description>,
    due_at: Option<Timestamp>,
    billing_details_collection: Option<BillingDetailsCollection>,
    payment_methods: Option<Vec<PaymentMethodType>>,
    statement_descriptor: Option<payments_domain::statement_descriptor::StatementDescriptor>,
    metadata: Option<payments_domain::metadata::Metadata>,
}

fn statement_fields(params: &mut Params) -> StatementFields {
    let description = params.description("description");
    let due_at = params.integer("due_at").and_then(|seconds| {
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
        .string("billing_details_collection", CHOICE_LENGTH)
        .and_then(|value| params.check("billing_details_collection", BillingDetailsCollection::parse(&value)));
    let payment_methods = params.object("payment_settings", |settings| {
        let methods = payment_methods(settings);
        settings.require("payment_methods", methods)
    });
    let statement_descriptor = params.statement_descriptor("statement_descriptor");
    let metadata = params.metadata("metadata");
    StatementFields { description, due_at, billing_details_collection, payment_methods, statement_descriptor, metadata }
}
