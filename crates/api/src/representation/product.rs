//! A product as the API shows it (this service's own resource: PayRex documents none).

use payments_domain::product::Product;
use serde::Serialize;
use utoipa::ToSchema;

pub(crate) const RESOURCE: &str = "product";

/// Something a merchant sells on its pages.
#[derive(Serialize, ToSchema)]
#[schema(as = Product)]
pub(crate) struct ProductResource<'a> {
    id: &'a str,
    resource: &'static str,
    name: &'a str,
    description: Option<&'a str>,
    /// A public `https` URL of its picture.
    image: Option<&'a str>,
    /// Whether it is offered; an archived product's prices cannot be put on a page or bought.
    active: bool,
    livemode: bool,
    created_at: i64,
    updated_at: i64,
}

impl<'a> From<&'a Product> for ProductResource<'a> {
    fn from(product: &'a Product) -> Self {
        Self {
            id: product.id.as_str(),
            resource: RESOURCE,
            name: product.name.as_str(),
            description: product.description.as_ref().map(|text| text.as_str()),
            image: product.image.as_deref(),
            active: product.active,
            livemode: product.livemode,
            created_at: product.created_at.unix_seconds(),
            updated_at: product.updated_at.unix_seconds(),
        }
    }
}
