//! `/refunds`: create and update.

use super::endpoint::Endpoint;
use super::support::ok;
use crate::auth::SecretKey;
use crate::decode::{names, BodyParams, Params};
use crate::error::ApiError;
use crate::representation::refund::RefundResource;
use crate::state::{blocking, Services};
use actix_web::{web, HttpResponse};
use payments_domain::limits::IDENTIFIER_LENGTH;
use payments_domain::metadata::Metadata;
use payments_domain::money::{Amount, Currency};
use payments_domain::refund::{NewRefund, RefundReason};

pub(super) fn endpoints() -> Vec<Endpoint> {
    vec![
        Endpoint::post("/refunds", create)
            .named("create_refund", "Refund all or part of a payment")
            .body(new_refund)
            .answers::<RefundResource>(),
        Endpoint::put("/refunds/{id}", update)
            .named("update_refund", "Update a refund's metadata")
            .body(refund_changes)
            .answers::<RefundResource>(),
    ]
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
    let metadata = refund_changes(&mut params);
    let metadata = params.finish(metadata)?;
    let refund = blocking(move || services.refunds.update(&scope, &id, metadata)).await?;
    Ok(ok(&RefundResource::new(&refund)))
}

/// An update's `metadata`.
fn refund_changes(params: &mut Params) -> Option<Option<Metadata>> {
    Some(params.metadata("metadata"))
}

pub(crate) fn new_refund(params: &mut Params) -> Option<NewRefund> {
    // A refund's amount is any positive part of a payment, so it is not held to the 2000 minimum.
    let amount = params.integer_between("amount", Some(1), Some(Amount::MAXIMUM));
    let currency = params
        .required_choice("currency", || names(&Currency::ALL, Currency::code))
        .and_then(|c| params.check("currency", Currency::parse(&c)));
    let payment_id = params.required_string("payment_id", IDENTIFIER_LENGTH);
    let reason = params
        .required_choice("reason", || names(&RefundReason::ALL, RefundReason::as_str))
        .and_then(|r| params.check("reason", RefundReason::parse(&r)));
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
