//! `/payments`: retrieve and update.

use super::support::{ok, resource};
use crate::auth::SecretKey;
use crate::decode::{BodyParams, QueryParams};
use crate::error::ApiError;
use crate::representation::payment::PaymentResource;
use crate::state::{blocking, Services};
use actix_web::{web, HttpResponse};

pub(super) fn configure(config: &mut web::ServiceConfig) {
    config.service(resource("/payments/{id}").route(web::get().to(retrieve)).route(web::put().to(update)));
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
    let description = params.description("description");
    let metadata = params.metadata("metadata");
    params.finish(Some(()))?;
    let view = blocking(move || services.payments.update(&scope, &id, description, metadata)).await?;
    Ok(ok(&PaymentResource::new(&view.payment, view.customer.as_ref())))
}
