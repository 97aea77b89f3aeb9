//! A refund as the API shows it.

use payments_domain::description::Description;
use payments_domain::metadata::Metadata;
use payments_domain::refund::Refund;
use payments_domain::refund::RefundStatus;
use serde::Serialize;
use utoipa::ToSchema;

const RESOURCE: &str = "refund";

/// A refund as the API shows it.
#[derive(Serialize, ToSchema)]
#[schema(as = Refund)]
pub(crate) struct RefundResource<'a> {
    id: &'a str,
    resource: &'static str,
    amount: i64,
    currency: &'static str,
    #[schema(schema_with = status_schema)]
    status: &'static str,
    description: Option<&'a str>,
    reason: &'static str,
    remarks: Option<&'a str>,
    payment_id: &'a str,
    livemode: bool,
    metadata: Option<&'a Metadata>,
    created_at: i64,
    updated_at: i64,
}

impl<'a> RefundResource<'a> {
    pub(crate) fn new(refund: &'a Refund) -> Self {
        Self {
            id: refund.id().as_str(),
            resource: RESOURCE,
            amount: refund.amount(),
            currency: refund.currency().code(),
            status: refund.status().as_str(),
            description: refund.description().map(Description::as_str),
            reason: refund.reason().as_str(),
            remarks: refund.remarks().map(Description::as_str),
            payment_id: refund.payment_id().as_str(),
            livemode: refund.livemode(),
            metadata: refund.metadata(),
            created_at: refund.created_at().unix_seconds(),
            updated_at: refund.updated_at().unix_seconds(),
        }
    }
}

/// Its statuses, as the OpenAPI document lists them.
fn status_schema() -> utoipa::openapi::schema::Schema {
    super::one_of(crate::decode::names(&RefundStatus::ALL, RefundStatus::as_str))
}
