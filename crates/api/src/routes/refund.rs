//! `/refunds`: create and update.

use super::support::{ok, resource};
use crate::auth::SecretKey;
use crate::decode::{BodyParams, Params};
use crate::error::ApiError;
use crate::representation::refund::RefundResource;
use crate::state::{blocking, Services};
use actix_web::{web, HttpResponse};
use payments_domain::limits::{CHOICE_LENGTH, IDENTIFIER_LENGTH};
use payments_domain::money::Currency;
use payments_domain::refund::{NewRefund, RefundReason};

pub(super) fn configure(config: &mut web::ServiceConfig) {
    config
        .service(resource("/refunds").route(web::post().to(create)))
        .service(resource("/refunds/{id}").route(web::put().to(update)));
}

async fn create(
    SecretKey(scope): SecretKey,
    BodyParams(mut params): BodyParams,
    services: web::Data<Services>,
) -> Result<HttpResponse, ApiError> {
    let new = new_refund(&mut params);
    let new = params.finish(new)?;
    let refund = blocking(move || services.refunds.create(&scope, &new)).await?;
    Ok(ok(&RefundResource::new(&refund)))
}

async fn update(
    SecretKey(scope): SecretKey,
    id: web::Path<String>,
    BodyParams(mut params): BodyParams,
    services: web::Data<Services>,
) -> Result<HttpResponse, ApiError> {
    let metadata = params.metadata("metadata");
    params.finish(Some(()))?;
    let refund = blocking(move || services.refunds.update(&scope, &id, metadata)).await?;
    Ok(ok(&RefundResource::new(&refund)))
}

fn new_refund(params: &mut Params) -> Option<NewRefund> {
    // A refund's amount is any positive part of a payment, so it is not held to the 2000 minimum.
    let amount = params.integer("amount").and_then(|amount| {
        if amount < 1 {
            params.push(payments_domain::validation::FieldError::new(
                "amount",
                payments_domain::validation::ErrorCode::ParameterTypeInvalid,
                "The parameter amount must be a positive whole number of centavos.",
            ));
            return None;
        }
        Some(amount)
    });
    let currency =
        params.required_string("currency", CHOICE_LENGTH).and_then(|c| params.check("currency", Currency::parse(&c)));
    let payment_id = params.required_string("payment_id", IDENTIFIER_LENGTH);
    let reason =
        params.required_string("reason", CHOICE_LENGTH).and_then(|r| params.check("reason", RefundReason::parse(&r)));
    let description = params.description("description");
    let remarks = params.description("remarks");
    let metadata = params.metadata("metadata");
    // Every missing parameter is reported before any `?` returns.
    let amount = params.require("amount", amount);
    let currency = params.require("currency", currency);
    let reason = params.require("reason", reason);
    Some(NewRefund {
        amount: amount?,
        currency: currency?,
        payment_id: payment_id?,
        reason: reason?,
        description,
        remarks,
        metadata,
    })
}
