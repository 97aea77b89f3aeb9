//! A billing statement line item as the API shows it, alone and inside its statement.

use payments_application::services::LineItemView;
use payments_domain::billing_statement::LineItem;
use payments_domain::ids::BillingStatementId;
use serde::Serialize;
use utoipa::ToSchema;

#[derive(Serialize, ToSchema)]
#[schema(as = BillingStatementLineItem)]
pub(crate) struct BillingStatementLineItemResource<'a> {
    id: &'a str,
    resource: &'static str,
    description: &'a str,
    unit_price: i64,
    quantity: i64,
    billing_statement_id: &'a str,
    livemode: bool,
    created_at: i64,
    updated_at: i64,
}

impl<'a> BillingStatementLineItemResource<'a> {
    pub(crate) fn new(item: &'a LineItem, statement_id: &'a BillingStatementId, livemode: bool) -> Self {
        Self {
            id: item.id.as_str(),
            resource: "billing_statement_line_item",
            description: &item.description,
            unit_price: item.unit_price,
            quantity: item.quantity,
            billing_statement_id: statement_id.as_str(),
            livemode,
            created_at: item.created_at.unix_seconds(),
            updated_at: item.updated_at.unix_seconds(),
        }
    }

    pub(crate) fn of(view: &'a LineItemView) -> Self {
        Self::new(&view.item, &view.statement_id, view.livemode)
    }
}
