//! A customer session as the API shows it: the seed's table with the customer embedded and also
//! named by `customer_id` (API.md). A browser holding the client secret (a public key) gets what the
//! payment element needs, the saved methods it may show again, the features it grants, and not the customer: the merchant's
//! metadata, phone and address are not the browser's to read.

use super::customer::CustomerResource;
use super::payment_method::PaymentMethodResource;
use payments_application::services::CustomerSessionView;
use payments_domain::customer_session::Component;
use serde::Serialize;
use utoipa::ToSchema;

const RESOURCE: &str = "customer_session";

/// A customer session: with the customer embedded for a secret key ([`Self::for_merchant`]); without
/// it for a browser holding the client secret ([`Self::for_browser`]).
#[derive(Serialize, ToSchema)]
#[schema(as = CustomerSession)]
pub(crate) struct CustomerSessionResource<'a> {
    id: &'a str,
    resource: &'static str,
    customer_id: &'a str,
    client_secret: &'a str,
    livemode: bool,
    components: &'a [Component],
    expired: bool,
    expired_at: i64,
    /// For a browser holding the client secret, when the session enables `payment_method_redisplay`.
    #[serde(skip_serializing_if = "Option::is_none")]
    payment_methods: Option<Vec<PaymentMethodResource<'a>>>,
    /// For a browser holding the client secret: the payment element's features the session grants
    /// now (none once it expires), so the element shows only what the service will allow.
    #[serde(skip_serializing_if = "Option::is_none")]
    granted_features: Option<Vec<&'static str>>,
    created_at: i64,
    updated_at: i64,
    /// For a secret key only.
    #[serde(skip_serializing_if = "Option::is_none")]
    customer: Option<CustomerResource<'a>>,
}

impl<'a> CustomerSessionResource<'a> {
    /// What a secret key sees: the session with its customer.
    pub(crate) fn for_merchant(view: &'a CustomerSessionView) -> Self {
        Self {
            customer: Some(CustomerResource::from(&view.customer)),
            granted_features: None,
            ..Self::for_browser(view)
        }
    }

    /// What a public key with the client secret sees: everything but the customer.
    pub(crate) fn for_browser(view: &'a CustomerSessionView) -> Self {
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
            granted_features: Some(view.granted.iter().map(|feature| feature.as_str()).collect()),
            created_at: session.created_at.unix_seconds(),
            updated_at: session.updated_at.unix_seconds(),
            customer: None,
        }
    }
}
