//! A billing statement as the API shows it: the seed's table with its customer (`id`, `name`,
//! `email`), its line items in order, and its payment intent once finalized. `url` and
//! `billing_statement_url` carry the same value, `null` unless the statement is open.

use super::billing_statement_line_item::BillingStatementLineItemResource;
use super::payment_intent::PaymentIntentResource;
use payments_application::services::BillingStatementView;
use payments_domain::billing_statement::BillingStatement;
use payments_domain::billing_statement::BillingStatementStatus;
use payments_domain::customer::Customer;
use payments_domain::description::Description;
use payments_domain::metadata::Metadata;
use payments_domain::payment_method::PaymentMethodType;
use payments_domain::statement_descriptor::StatementDescriptor;
use payments_domain::time::Timestamp;
use serde::Serialize;
use utoipa::ToSchema;

const RESOURCE: &str = "billing_statement";

#[derive(Serialize, ToSchema)]
#[schema(as = BillingStatementCustomer)]
struct StatementCustomer<'a> {
    id: &'a str,
    name: &'a str,
    email: &'a str,
}

#[derive(Serialize, ToSchema)]
#[schema(as = BillingStatementPaymentSettings)]
struct PaymentSettings<'a> {
    payment_methods: &'a [PaymentMethodType],
}

/// A billing statement embedding `payment_intent` (its resource, or its already presented JSON).
#[derive(Serialize, ToSchema)]
#[schema(as = BillingStatement)]
pub(crate) struct BillingStatementResource<'a, P> {
    id: &'a str,
    resource: &'static str,
    amount: i64,
    currency: &'static str,
    customer_id: &'a str,
    customer: StatementCustomer<'a>,
    billing_details_collection: &'static str,
    billing_statement_merchant_name: &'a str,
    billing_statement_number: Option<&'a str>,
    billing_statement_url: Option<&'a str>,
    url: Option<&'a str>,
    description: Option<&'a str>,
    #[schema(schema_with = status_schema)]
    status: &'static str,
    line_items: Vec<BillingStatementLineItemResource<'a>>,
    livemode: bool,
    payment_intent: Option<P>,
    metadata: Option<&'a Metadata>,
    payment_settings: PaymentSettings<'a>,
    statement_descriptor: Option<&'a str>,
    due_at: Option<i64>,
    finalized_at: Option<i64>,
    /// The fields below are read by PayRex's Python client's `BillingStatementEntity` (which shares
    /// them with checkout sessions): the statement's own where it has one, else `null`.
    client_secret: &'a str,
    payment_methods: &'a [PaymentMethodType],
    customer_reference_id: Option<&'a str>,
    success_url: Option<&'a str>,
    cancel_url: Option<&'a str>,
    setup_future_usage: Option<&'a str>,
    submit_type: Option<&'a str>,
    expires_at: Option<i64>,
    created_at: i64,
    updated_at: i64,
}

impl<'a> BillingStatementResource<'a, PaymentIntentResource<'a>> {
    pub(crate) fn new(view: &'a BillingStatementView) -> Self {
        Self::with_intent(
            &view.statement,
            &view.customer,
            view.payment_intent.as_ref().map(PaymentIntentResource::new),
            &view.merchant_name,
        )
    }
}

impl<'a, P: Serialize> BillingStatementResource<'a, P> {
    pub(crate) fn with_intent(
        statement: &'a BillingStatement,
        customer: &'a Customer,
        payment_intent: Option<P>,
        merchant_name: &'a str,
    ) -> Self {
        let details = statement.details();
        Self {
            id: statement.id().as_str(),
            resource: RESOURCE,
            amount: statement.amount(),
            currency: details.currency.code(),
            customer_id: statement.customer_id().as_str(),
            customer: StatementCustomer {
                id: customer.id.as_str(),
                name: customer.name.as_str(),
                email: customer.email.as_str(),
            },
            billing_details_collection: details.billing_details_collection.as_str(),
            billing_statement_merchant_name: merchant_name,
            billing_statement_number: statement.finalization().map(|done| done.number.as_str()),
            billing_statement_url: statement.url(),
            url: statement.url(),
            description: details.description.as_ref().map(Description::as_str),
            status: statement.status().as_str(),
            line_items: statement
                .line_items()
                .iter()
                .map(|item| BillingStatementLineItemResource::new(item, statement.id(), statement.livemode()))
                .collect(),
            livemode: statement.livemode(),
            payment_intent,
            metadata: details.metadata.as_ref(),
            payment_settings: PaymentSettings { payment_methods: &details.payment_methods },
            statement_descriptor: details.statement_descriptor.as_ref().map(StatementDescriptor::as_str),
            due_at: details.due_at.map(Timestamp::unix_seconds),
            finalized_at: statement.finalization().map(|done| done.finalized_at.unix_seconds()),
            client_secret: statement.client_secret().reveal(),
            payment_methods: &details.payment_methods,
            customer_reference_id: None,
            success_url: None,
            cancel_url: None,
            setup_future_usage: None,
            submit_type: None,
            expires_at: None,
            created_at: statement.created_at().unix_seconds(),
            updated_at: statement.updated_at().unix_seconds(),
        }
    }
}

/// Its statuses, as the OpenAPI document lists them.
fn status_schema() -> utoipa::openapi::schema::Schema {
    super::one_of(crate::decode::names(&BillingStatementStatus::ALL, BillingStatementStatus::as_str))
}
