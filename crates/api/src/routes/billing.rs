//! Billing-detail parameters shared by resources: a customer's `billing`, and the `billing` of a
//! payment method given to an attach.

use crate::decode::Params;
use payments_domain::customer::{Address, CountryCode, MAX_ADDRESS_FIELD_LENGTH};
use payments_domain::limits::CHOICE_LENGTH;
use payments_domain::payment_method::PaymentBilling;

/// A payment method's `billing`: name, e-mail, phone and address, each optional.
pub(super) fn payment_billing(billing: &mut Params) -> Option<PaymentBilling> {
    Some(PaymentBilling {
        name: text_field(billing, "name"),
        email: text_field(billing, "email"),
        phone: text_field(billing, "phone"),
        address: billing.object("address", address),
    })
}

/// A postal address, as customers' and payments' billing details carry it.
pub(super) fn address(params: &mut Params) -> Option<Address> {
    Some(Address {
        line1: text_field(params, "line1"),
        line2: text_field(params, "line2"),
        city: text_field(params, "city"),
        state: text_field(params, "state"),
        postal_code: text_field(params, "postal_code"),
        country: country(params),
    })
}

/// A two-letter country code, either case.
fn country(params: &mut Params) -> Option<CountryCode> {
    let code = params.string("country", CHOICE_LENGTH);
    params.pattern("country", "^[A-Za-z]{2}$");
    code.and_then(|c| params.check("country", CountryCode::new(&c)))
}

/// A free-text field of billing details.
pub(super) fn text_field(params: &mut Params, key: &str) -> Option<String> {
    params.string(key, MAX_ADDRESS_FIELD_LENGTH)
}
