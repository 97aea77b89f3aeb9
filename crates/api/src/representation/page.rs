//! A page as the API shows it (this service's own resource: PayRex documents none).

use payments_domain::page::{AfterPayment, CustomField, FieldKind, Page, PageTemplate};
use serde::Serialize;
use utoipa::ToSchema;

const RESOURCE: &str = "page";

/// A reusable payment page: a storefront of the merchant's prices, or a single amount (fixed, or
/// chosen by the customer within bounds), with questions for the customer.
#[derive(Serialize, ToSchema)]
#[schema(as = Page)]
pub(crate) struct PageResource<'a> {
    id: &'a str,
    resource: &'static str,
    title: &'a str,
    description: Option<&'a str>,
    /// `storefront`, `fixed_amount` or `customer_chosen_amount`.
    template: &'static str,
    /// The prices a storefront offers, in its order.
    prices: Vec<&'a str>,
    /// A fixed amount's centavos.
    amount: Option<i64>,
    /// A customer-chosen amount's bounds, in centavos.
    minimum_amount: Option<i64>,
    maximum_amount: Option<i64>,
    custom_fields: Vec<CustomFieldResource<'a>>,
    payment_methods: Vec<&'static str>,
    /// A message shown after payment, or `null` when the customer is sent to `after_payment_redirect_url`.
    after_payment_message: Option<&'a str>,
    /// Where the customer is sent after payment, with `payment_intent_client_secret`.
    after_payment_redirect_url: Option<&'a str>,
    /// Whether customers can pay it.
    active: bool,
    livemode: bool,
    created_at: i64,
    updated_at: i64,
}

/// A question of the page.
#[derive(Serialize, ToSchema)]
#[schema(as = PageCustomField)]
pub(crate) struct CustomFieldResource<'a> {
    /// The `id` of the answer in a payment's `page_session.custom_fields`.
    id: &'a str,
    name: &'a str,
    /// `text`, `number` or `dropdown`.
    #[serde(rename = "type")]
    kind: &'static str,
    required: bool,
    /// A text field's longest answer.
    max_length: Option<usize>,
    /// A number field's bounds.
    minimum: Option<i64>,
    maximum: Option<i64>,
    /// A dropdown's options.
    options: Option<&'a [String]>,
}

impl<'a> From<&'a CustomField> for CustomFieldResource<'a> {
    fn from(field: &'a CustomField) -> Self {
        let (max_length, minimum, maximum, options) = match &field.kind {
            FieldKind::Text { max_length } => (Some(*max_length), None, None, None),
            FieldKind::Number { minimum, maximum } => (None, *minimum, *maximum, None),
            FieldKind::Dropdown { options } => (None, None, None, Some(options.as_slice())),
        };
        Self {
            id: field.id.as_str(),
            name: &field.name,
            kind: field.kind.name(),
            required: field.required,
            max_length,
            minimum,
            maximum,
            options,
        }
    }
}

impl<'a> From<&'a Page> for PageResource<'a> {
    fn from(page: &'a Page) -> Self {
        let details = &page.details;
        let (prices, amount, minimum_amount, maximum_amount) = match &details.template {
            PageTemplate::Storefront { prices } => (prices.iter().map(|id| id.as_str()).collect(), None, None, None),
            PageTemplate::FixedAmount { amount } => (Vec::new(), Some(amount.centavos()), None, None),
            PageTemplate::CustomerChosenAmount { minimum, maximum } => {
                (Vec::new(), None, Some(minimum.centavos()), Some(maximum.centavos()))
            }
        };
        let (after_payment_message, after_payment_redirect_url) = match &details.after_payment {
            AfterPayment::Message(message) => (Some(message.as_str()), None),
            AfterPayment::Redirect(url) => (None, Some(url.as_str())),
        };
        Self {
            id: page.id.as_str(),
            resource: RESOURCE,
            title: &details.title,
            description: details.description.as_ref().map(|text| text.as_str()),
            template: details.template.name(),
            prices,
            amount,
            minimum_amount,
            maximum_amount,
            custom_fields: details.custom_fields.iter().map(CustomFieldResource::from).collect(),
            payment_methods: details.payment_methods.iter().map(|method| method.as_str()).collect(),
            after_payment_message,
            after_payment_redirect_url,
            active: page.active,
            livemode: page.livemode,
            created_at: page.created_at.unix_seconds(),
            updated_at: page.updated_at.unix_seconds(),
        }
    }
}
