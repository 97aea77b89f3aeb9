//! A customer as the API shows it.

use payments_domain::customer::{Billing, Customer};
use payments_domain::metadata::Metadata;
use serde::Serialize;
use utoipa::ToSchema;

pub(crate) const RESOURCE: &str = "customer";

#[derive(Serialize, ToSchema)]
#[schema(as = Customer)]
pub(crate) struct CustomerResource<'a> {
    id: &'a str,
    resource: &'static str,
    billing_statement_prefix: &'a str,
    billing: Option<&'a Billing>,
    currency: &'static str,
    email: &'a str,
    name: &'a str,
    livemode: bool,
    metadata: Option<&'a Metadata>,
    next_billing_statement_sequence_number: String,
    created_at: i64,
    updated_at: i64,
}

impl<'a> From<&'a Customer> for CustomerResource<'a> {
    fn from(customer: &'a Customer) -> Self {
        Self {
            id: customer.id.as_str(),
            resource: RESOURCE,
            billing_statement_prefix: customer.billing_statement_prefix.as_str(),
            billing: customer.billing.as_ref(),
            currency: customer.currency.code(),
            email: customer.email.as_str(),
            name: customer.name.as_str(),
            livemode: customer.livemode,
            metadata: customer.metadata.as_ref(),
            next_billing_statement_sequence_number: customer.next_billing_statement_sequence_number.to_string(),
            created_at: customer.created_at.unix_seconds(),
            updated_at: customer.updated_at.unix_seconds(),
        }
    }
}
