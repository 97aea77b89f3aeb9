//! `/payments`: retrieve and update.

use super::endpoint::Endpoint;
use super::support::ok;
use crate::auth::SecretKey;
use crate::decode::{BodyParams, Params, QueryParams};
use crate::error::ApiError;
use crate::representation::payment::PaymentResource;
use crate::state::{blocking, Services};
use actix_web::{web, HttpResponse};
use payments_domain::description::Description;
use payments_domain::metadata::Metadata;

pub(super) fn endpoints() -> Vec<Endpoint> {
    vec![
        Endpoint::get("/payments/{id}", retrieve)
            .named("retrieve_payment", "Retrieve a payment")
            .answers::<PaymentResource>(),
        Endpoint::put("/payments/{id}", update)
            .named("update_payment", "Update a payment's description and metadata")
            .body(payment_changes)
            .answers::<PaymentResource>(),
    ]
}

async fn retrieve(
    SecretKey(scope): SecretKey,
    id: web::Path<String>,
    QueryParams(params): QueryParams,
    services: web::Data<Services>,
) -> Result<HttpResponse, ApiError> {
    params.finish(Some(()))?;
    let view = blocking(move || services.payments.retrieve(&scope, &id)).await?;
    Ok(ok(&PaymentResource::new(&view.payment, view.customer.as_ref())))
}

async fn update(
    SecretKey(scope): SecretKey,
    id: web::Path<String>,
    BodyParams(mut params): BodyParams,
    services: web::Data<Services>,
) -> Result<HttpResponse, ApiError> {
    let changes = payment_changes(&mut params);
    let (description, metadata) = params.finish(changes)?;
    let view = blocking(move || services.payments.update(&scope, &id, description, metadata)).await?;
    Ok(ok(&PaymentResource::new(&view.payment, view.customer.as_ref())))
}

/// An update's `description` and `metadata`.
fn payment_changes(params: &mut Params) -> Option<(Option<Description>, Option<Metadata>)> {
    Some((params.description("description"), params.metadata("metadata")))
}
