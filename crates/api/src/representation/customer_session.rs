//! A customer session as the API shows it: the seed's table with the customer embedded and also
//! named by `customer_id` (API.md). A browser holding the client secret (a public key) gets what the
//! payment element needs, the saved methods it may show again, and not the customer: the merchant's
//! metadata, phone and address are not the browser's to read.

use super::customer::CustomerResource;
use super::payment_method::PaymentMethodResource;
use payments_application::services::CustomerSessionView;
use payments_domain::customer_session::Component;
use serde::Serialize;
use utoipa::ToSchema;

const RESOURCE: &str = "customer_session";

/// A customer session as a secret key sees it: with the customer embedded.
#[derive(Serialize, ToSchema)]
#[schema(as = CustomerSession)]
pub(crate) struct CustomerSessionResource<'a> {
    #[serde(flatten)]
    session: PublicCustomerSessionResource<'a>,
    customer: CustomerResource<'a>,
}

impl<'a> CustomerSessionResource<'a> {
    pub(crate) fn new(view: &'a CustomerSessionView) -> Self {
        Self { session: PublicCustomerSessionResource::new(view), customer: CustomerResource::from(&view.customer) }
    }
}

/// What a public key sees of a customer session: everything but the embedded customer.
#[derive(Serialize, ToSchema)]
#[schema(as = PublicCustomerSession)]
pub(crate) struct PublicCustomerSessionResource<'a> {
    id: &'a str,
    resource: &'static str,
    customer_id: &'a str,
    client_secret: &'a str,
    livemode: bool,
    components: &'a [Component],
    expired: bool,
    expired_at: i64,
    #[serde(skip_serializing_if = "Option::is_none")]
    payment_methods: Option<Vec<PaymentMethodResource<'a>>>,
    created_at: i64,
    updated_at: i64,
}

impl<'a> PublicCustomerSessionResource<'a> {
    pub(crate) fn new(view: &'a CustomerSessionView) -> Self {
        let session = &view.session;
        Self {
            id: session.id.as_str(),
            resource: RESOURCE,
            customer_id: session.customer_id.as_str(),
            client_secret: session.client_secret.reveal(),
            livemode: session.livemode,
            components: &session.components,
            expired: view.expired,
            expired_at: session.expired_at.unix_seconds(),
            payment_methods: view
                .payment_methods
                .as_ref()
                .map(|methods| methods.iter().map(PaymentMethodResource::new).collect()),
            created_at: session.created_at.unix_seconds(),
            updated_at: session.updated_at.unix_seconds(),
        }
    }
}
