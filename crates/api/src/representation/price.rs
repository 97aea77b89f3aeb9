//! A price as the API shows it (this service's own resource: PayRex documents none).

use payments_domain::price::Price;
use serde::Serialize;
use utoipa::ToSchema;

const RESOURCE: &str = "price";

/// What one unit of a product costs; its product and amount never change.
#[derive(Serialize, ToSchema)]
#[schema(as = Price)]
pub(crate) struct PriceResource<'a> {
    id: &'a str,
    resource: &'static str,
    product_id: &'a str,
    /// The amount of one unit, in centavos.
    amount: i64,
    currency: &'static str,
    description: Option<&'a str>,
    /// Whether it is offered; an archived price cannot be put on a page or bought.
    active: bool,
    livemode: bool,
    created_at: i64,
    updated_at: i64,
}

impl<'a> From<&'a Price> for PriceResource<'a> {
    fn from(price: &'a Price) -> Self {
        Self {
            id: price.id.as_str(),
            resource: RESOURCE,
            product_id: price.product_id.as_str(),
            amount: price.amount.centavos(),
            currency: "PHP",
            description: price.description.as_ref().map(|text| text.as_str()),
            active: price.active,
            livemode: price.livemode,
            created_at: price.created_at.unix_seconds(),
            updated_at: price.updated_at.unix_seconds(),
        }
    }
}
