//! A payment as the API shows it.

use super::customer::CustomerResource;
use payments_domain::customer::Customer;
use payments_domain::description::Description;
use payments_domain::metadata::Metadata;
use payments_domain::page::{CustomFieldAnswer, PageLineItem};
use payments_domain::payment::Payment;
use payments_domain::payment::PaymentStatus;
use payments_domain::payment_method::PaymentBilling;
use payments_domain::payment_method::{CardSummary, PaymentMethodType, QrphSummary};
use serde::Serialize;
use utoipa::ToSchema;

const RESOURCE: &str = "payment";

/// A card as a payment shows it.
#[derive(Serialize, ToSchema)]
#[schema(as = PaymentCard)]
struct CardView<'a> {
    first6: &'a str,
    last4: &'a str,
    brand: &'a str,
}

/// The payment method of a payment: `card` only for cards, `qrph` only for QR Ph.
#[derive(Serialize, ToSchema)]
#[schema(as = PaymentPaymentMethod)]
struct PaymentMethodView<'a> {
    #[serde(rename = "type")]
    kind: PaymentMethodType,
    #[serde(skip_serializing_if = "Option::is_none")]
    card: Option<CardView<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    qrph: Option<&'a QrphSummary>,
}

/// A payment as the API shows it.
#[derive(Serialize, ToSchema)]
#[schema(as = Payment)]
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
    #[schema(schema_with = status_schema)]
    status: &'static str,
    customer: Option<CustomerResource<'a>>,
    origin: &'a str,
    /// Present when processed through Pages: the customer's answers and, with the storefront
    /// template, one line per chosen price (`total_amount` = quantity × `price_amount`).
    page_session: Option<PageSessionView<'a>>,
    payment_method: PaymentMethodView<'a>,
    refunded: bool,
    created_at: i64,
    updated_at: i64,
}

/// A payment's `page_session`, in the spec's shape.
#[derive(Serialize, ToSchema)]
#[schema(as = PageSession)]
pub(crate) struct PageSessionView<'a> {
    #[schema(value_type = Vec<PageSessionCustomField>)]
    custom_fields: &'a [CustomFieldAnswer],
    #[schema(value_type = Vec<PageSessionLineItem>)]
    line_items: &'a [PageLineItem],
}

/// An answer to a page's custom field: all strings.
#[derive(ToSchema)]
#[allow(dead_code)]
pub(crate) struct PageSessionCustomField {
    id: String,
    name: String,
    value: String,
}

/// One chosen price of a storefront page.
#[derive(ToSchema)]
#[allow(dead_code)]
pub(crate) struct PageSessionLineItem {
    id: String,
    price_id: String,
    price_amount: i64,
    price_description: Option<String>,
    product_id: String,
    product_name: String,
    product_description: Option<String>,
    quantity: i64,
    total_amount: i64,
}

impl<'a> PaymentResource<'a> {
    pub(crate) fn new(payment: &'a Payment, customer: Option<&'a Customer>) -> Self {
        let card = payment.payment_method().card.as_ref().map(|card: &CardSummary| CardView {
            first6: &card.first6,
            last4: &card.last4,
            brand: &card.brand,
        });
        Self {
            id: payment.id().as_str(),
            resource: RESOURCE,
            amount: payment.amount(),
            amount_refunded: payment.amount_refunded(),
            billing: payment.billing(),
            currency: payment.currency().code(),
            description: payment.description().map(Description::as_str),
            fee: payment.fee(),
            livemode: payment.livemode(),
            metadata: payment.metadata(),
            net_amount: payment.net_amount(),
            payment_intent_id: payment.payment_intent_id().as_str(),
            status: payment.status().as_str(),
            customer: customer.map(CustomerResource::from),
            origin: payment.origin(),
            page_session: payment.page_session().map(|session| PageSessionView {
                custom_fields: &session.custom_fields,
                line_items: &session.line_items,
            }),
            payment_method: PaymentMethodView {
                kind: payment.payment_method().method,
                card,
                qrph: payment.payment_method().qrph.as_ref(),
            },
            refunded: payment.refunded(),
            created_at: payment.created_at().unix_seconds(),
            updated_at: payment.updated_at().unix_seconds(),
        }
    }
}

/// Its statuses, as the OpenAPI document lists them.
fn status_schema() -> utoipa::openapi::schema::Schema {
    super::one_of(crate::decode::names(&PaymentStatus::ALL, PaymentStatus::as_str))
}
