//! `/payments`: retrieve and update.

use super::customer::CustomerResource;
use super::{blocking, ok, resource};
use crate::auth::SecretKey;
use crate::decode::{BodyParams, QueryParams};
use crate::error::ApiError;
use crate::startup::Services;
use actix_web::{web, HttpResponse};
use payments_domain::customer::Customer;
use payments_domain::limits::DESCRIPTION_LENGTH;
use payments_domain::metadata::Metadata;
use payments_domain::payment::Payment;
use payments_domain::payment_intent::PaymentBilling;
use payments_domain::payment_method::{CardSummary, PaymentMethodType, QrphSummary};
use serde::Serialize;

const RESOURCE: &str = "payment";

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
    let description = params.string("description", DESCRIPTION_LENGTH);
    let metadata = params.string_map("metadata").and_then(|pairs| params.check("metadata", Metadata::new(pairs)));
    params.finish(Some(()))?;
    let view = blocking(move || services.payments.update(&scope, &id, description, metadata)).await?;
    Ok(ok(&PaymentResource::new(&view.payment, view.customer.as_ref())))
}

/// A card as a payment shows it.
#[derive(Serialize)]
struct CardView<'a> {
    first6: &'a str,
    last4: &'a str,
    brand: &'a str,
}

/// The payment method of a payment: `card` only for cards, `qrph` only for QR Ph.
#[derive(Serialize)]
struct PaymentMethodView<'a> {
    #[serde(rename = "type")]
    kind: PaymentMethodType,
    #[serde(skip_serializing_if = "Option::is_none")]
    card: Option<CardView<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    qrph: Option<&'a QrphSummary>,
}

/// A payment as the API shows it.
#[derive(Serialize)]
pub(crate) struct PaymentResource<'a> {
    id: &'a str,
    resource: &'static str,
    amount: i64,
    amount_refunded: i64,
    billing: Option<&'a PaymentBilling>,
    currency: &'static str,
    description: Option<&'a str>,
    fee: i64,
    livemode: bool,
    metadata: Option<&'a Metadata>,
    net_amount: i64,
    payment_intent_id: &'a str,
    status: &'static str,
    customer: Option<CustomerResource<'a>>,
    origin: &'a str,
    page_session: Option<()>,
    payment_method: PaymentMethodView<'a>,
    refunded: bool,
    created_at: i64,
    updated_at: i64,
}

impl<'a> PaymentResource<'a> {
    pub(crate) fn new(payment: &'a Payment, customer: Option<&'a Customer>) -> Self {
        let card = payment.payment_method.card.as_ref().map(|card: &CardSummary| CardView {
            first6: &card.first6,
            last4: &card.last4,
            brand: &card.brand,
        });
        Self {
            id: payment.id.as_str(),
            resource: RESOURCE,
            amount: payment.amount,
            amount_refunded: payment.amount_refunded,
            billing: payment.billing.as_ref(),
            currency: payment.currency.code(),
            description: payment.description.as_deref(),
            fee: payment.fee,
            livemode: payment.livemode,
            metadata: payment.metadata.as_ref(),
            net_amount: payment.net_amount,
            payment_intent_id: payment.payment_intent_id.as_str(),
            status: payment.status.as_str(),
            customer: customer.map(CustomerResource::from),
            origin: &payment.origin,
            page_session: None,
            payment_method: PaymentMethodView {
                kind: payment.payment_method.method,
                card,
                qrph: payment.payment_method.qrph.as_ref(),
            },
            refunded: payment.refunded,
            created_at: payment.created_at.unix_seconds(),
            updated_at: payment.updated_at.unix_seconds(),
        }
    }
}
