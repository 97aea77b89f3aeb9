//! Pages (PayRex Pages): a reusable payment page with a public address, paid by many customers.
//! Its template is a storefront (the customer picks quantities of the page's prices) or a single
//! amount (fixed, or chosen by the customer within bounds); its custom fields ask the customer
//! questions. An order on the page is checked here and becomes the payment's page session: the
//! answers, and for the storefront one line per chosen price with `total_amount` = quantity × price
//! amount.

use crate::description::Description;
use crate::ids::{AccountId, CustomFieldId, PageId, PageLineItemId, PriceId, ProductId};
use crate::money::Amount;
use crate::payment_method::PaymentMethodType;
use crate::price::Price;
use crate::product::Product;
use crate::redirect_url::RedirectUrl;
use crate::time::Timestamp;
use crate::validation::{ErrorCode, FieldError, Invalid};
use serde::{Deserialize, Serialize};

/// The longest title of a page, in characters.
pub const TITLE_LENGTH: usize = 255;
/// The most prices a storefront offers.
pub const MAX_PRICES: usize = 20;
/// The most units of one price a customer takes in one order.
pub const MAX_QUANTITY: i64 = 99;
/// The most custom fields a page asks.
pub const MAX_CUSTOM_FIELDS: usize = 10;
/// The longest name of a custom field, in characters.
pub const FIELD_NAME_LENGTH: usize = 100;
/// The longest answer a text field takes, and its bound when the merchant sets none.
pub const TEXT_LENGTH: usize = 500;
/// The most options of a dropdown, and the longest option, in characters.
pub const MAX_OPTIONS: usize = 20;
pub const OPTION_LENGTH: usize = 100;
/// The longest message shown after payment, in characters.
pub const MESSAGE_LENGTH: usize = 500;
/// The message shown after payment when the merchant wrote none.
pub const DEFAULT_MESSAGE: &str = "Thank you for your payment.";

/// A page of a merchant.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Page {
    pub id: PageId,
    pub account_id: AccountId,
    pub livemode: bool,
    pub details: PageDetails,
    /// Whether customers can pay it: a deactivated page shows that it takes no payments.
    pub active: bool,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
    /// Optimistic-concurrency version, bumped by every change.
    pub version: i64,
}

/// What a merchant sets on a page.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PageDetails {
    pub title: String,
    pub description: Option<Description>,
    pub template: PageTemplate,
    pub custom_fields: Vec<CustomField>,
    pub payment_methods: Vec<PaymentMethodType>,
    pub after_payment: AfterPayment,
}

/// A custom field as a merchant asks for it, before the service gives it its id.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewCustomField {
    pub name: String,
    pub kind: FieldKind,
    pub required: bool,
}

/// What a merchant supplies to create a page.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewPage {
    pub title: String,
    pub description: Option<Description>,
    pub template: PageTemplate,
    pub custom_fields: Vec<NewCustomField>,
    pub payment_methods: Vec<PaymentMethodType>,
    /// The default message when `None`.
    pub after_payment: Option<AfterPayment>,
}

impl NewPage {
    /// The page's details, its fields given ids by `field_id`.
    #[must_use]
    pub fn details(self, field_id: &mut dyn FnMut() -> CustomFieldId) -> PageDetails {
        PageDetails {
            title: self.title,
            description: self.description,
            template: self.template,
            custom_fields: with_ids(self.custom_fields, field_id),
            payment_methods: self.payment_methods,
            after_payment: self.after_payment.unwrap_or_else(|| AfterPayment::Message(DEFAULT_MESSAGE.to_owned())),
        }
    }
}

/// Custom fields as asked, each given an id by `field_id`.
fn with_ids(fields: Vec<NewCustomField>, field_id: &mut dyn FnMut() -> CustomFieldId) -> Vec<CustomField> {
    fields
        .into_iter()
        .map(|NewCustomField { name, kind, required }| CustomField { id: field_id(), name, kind, required })
        .collect()
}

/// What a merchant changes on a page; `None` leaves a part as it is. Custom fields given replace
/// the page's (each with a new id).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PageChanges {
    pub title: Option<String>,
    pub description: Option<Description>,
    pub template: Option<PageTemplate>,
    pub custom_fields: Option<Vec<NewCustomField>>,
    pub payment_methods: Option<Vec<PaymentMethodType>>,
    pub after_payment: Option<AfterPayment>,
    pub active: Option<bool>,
}

impl PageChanges {
    /// The page's details with these changes, fields given ids by `field_id`.
    #[must_use]
    pub fn applied_to(self, details: &PageDetails, field_id: &mut dyn FnMut() -> CustomFieldId) -> PageDetails {
        let current = details.clone();
        PageDetails {
            title: self.title.unwrap_or(current.title),
            description: self.description.or(current.description),
            template: self.template.unwrap_or(current.template),
            custom_fields: match self.custom_fields {
                Some(fields) => with_ids(fields, field_id),
                None => current.custom_fields,
            },
            payment_methods: self.payment_methods.unwrap_or(current.payment_methods),
            after_payment: self.after_payment.unwrap_or(current.after_payment),
        }
    }
}

/// What the customer pays for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PageTemplate {
    /// The customer picks quantities of these prices (at least one unit in all).
    Storefront { prices: Vec<PriceId> },
    /// One amount the merchant fixed.
    FixedAmount { amount: Amount },
    /// An amount the customer chooses within `minimum..=maximum`.
    CustomerChosenAmount { minimum: Amount, maximum: Amount },
}

impl PageTemplate {
    /// Its name in the API.
    #[must_use]
    pub fn name(&self) -> &'static str {
        match self {
            Self::Storefront { .. } => "storefront",
            Self::FixedAmount { .. } => "fixed_amount",
            Self::CustomerChosenAmount { .. } => "customer_chosen_amount",
        }
    }
}

/// A question the page asks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CustomField {
    pub id: CustomFieldId,
    pub name: String,
    pub kind: FieldKind,
    pub required: bool,
}

/// What kind of answer a field takes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum FieldKind {
    /// Text of at most `max_length` characters.
    Text { max_length: usize },
    /// A whole number within the bounds given.
    Number { minimum: Option<i64>, maximum: Option<i64> },
    /// One of the options.
    Dropdown { options: Vec<String> },
}

impl FieldKind {
    /// Its name in the API.
    #[must_use]
    pub fn name(&self) -> &'static str {
        match self {
            Self::Text { .. } => "text",
            Self::Number { .. } => "number",
            Self::Dropdown { .. } => "dropdown",
        }
    }
}

/// What the customer sees after paying.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AfterPayment {
    /// A message on the page.
    Message(String),
    /// The merchant's page, with the payment intent's client secret.
    Redirect(RedirectUrl),
}

/// A customer's order on a page, as the page's form sends it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PageOrder {
    /// Units of each price the customer took (a storefront), by the price's id as sent.
    pub quantities: Vec<(String, i64)>,
    /// The amount the customer chose (a customer-chosen amount).
    pub amount: Option<i64>,
    /// The answers, by the field's id as sent; a blank answer is no answer.
    pub answers: Vec<(String, String)>,
}

/// What a payment made through a page carries (the spec's `page_session`), and its amount.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PageSession {
    pub page_id: String,
    pub amount: i64,
    pub custom_fields: Vec<CustomFieldAnswer>,
    pub line_items: Vec<PageLineItem>,
}

/// An answer to a custom field, as the spec shows it: all strings.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CustomFieldAnswer {
    pub id: String,
    pub name: String,
    pub value: String,
}

/// One chosen price of a storefront, as the spec shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PageLineItem {
    pub id: String,
    pub price_id: String,
    pub price_amount: i64,
    pub price_description: Option<String>,
    pub product_id: String,
    pub product_name: String,
    pub product_description: Option<String>,
    pub quantity: i64,
    pub total_amount: i64,
}

impl PageDetails {
    /// Checks what a merchant set: a title, the template's bounds, the fields and the methods.
    ///
    /// # Errors
    /// Every field that breaks a rule, by its parameter's name.
    pub fn check(&self) -> Result<(), Vec<FieldError>> {
        let mut errors = Vec::new();
        if self.title.trim().is_empty() || self.title.chars().count() > TITLE_LENGTH {
            errors.push(FieldError::invalid(
                "title",
                format!("A title is 1 to {TITLE_LENGTH} characters long, not blank."),
            ));
        }
        match &self.template {
            PageTemplate::Storefront { prices } => {
                if prices.is_empty() || prices.len() > MAX_PRICES {
                    errors
                        .push(FieldError::invalid("prices", format!("A storefront offers 1 to {MAX_PRICES} prices.")));
                } else if (1..prices.len()).any(|i| prices[..i].contains(&prices[i])) {
                    errors.push(FieldError::invalid("prices", "Each price is offered once."));
                }
            }
            PageTemplate::FixedAmount { .. } => {}
            PageTemplate::CustomerChosenAmount { minimum, maximum } => {
                if minimum > maximum {
                    errors.push(FieldError::invalid("maximum_amount", "The maximum must be at least the minimum."));
                }
            }
        }
        if self.custom_fields.len() > MAX_CUSTOM_FIELDS {
            let detail = format!("A page asks at most {MAX_CUSTOM_FIELDS} custom fields.");
            errors.push(FieldError::invalid("custom_fields", detail));
        }
        for (position, field) in self.custom_fields.iter().enumerate() {
            if let Err((part, refused)) = field.check() {
                errors.push(refused.at(format!(
                    "custom_fields[{position}]{}",
                    part.map(|part| format!("[{part}]")).unwrap_or_default()
                )));
            }
        }
        if self.payment_methods.is_empty() {
            errors.push(FieldError::required("payment_methods"));
        }
        if let AfterPayment::Message(message) = &self.after_payment {
            if message.trim().is_empty() || message.chars().count() > MESSAGE_LENGTH {
                let detail = format!("A message is 1 to {MESSAGE_LENGTH} characters long, not blank.");
                errors.push(FieldError::invalid("after_payment_message", detail));
            }
        }
        if errors.is_empty() {
            Ok(())
        } else {
            Err(errors)
        }
    }
}

impl CustomField {
    /// The field's rules; a refusal names the part of the field it is about, when one.
    fn check(&self) -> Result<(), (Option<&'static str>, Invalid)> {
        if self.name.trim().is_empty() || self.name.chars().count() > FIELD_NAME_LENGTH {
            let detail = format!("A field's name is 1 to {FIELD_NAME_LENGTH} characters long.");
            return Err((Some("name"), Invalid::value(detail)));
        }
        let refused = |part: &'static str, detail: String| Err((Some(part), Invalid::value(detail)));
        match &self.kind {
            FieldKind::Text { max_length } if !(1..=TEXT_LENGTH).contains(max_length) => {
                refused("max_length", format!("A text field takes at most 1 to {TEXT_LENGTH} characters."))
            }
            FieldKind::Number { minimum: Some(minimum), maximum: Some(maximum) } if minimum > maximum => {
                refused("maximum", "A number field's maximum must be at least its minimum.".to_owned())
            }
            FieldKind::Dropdown { options }
                if options.is_empty()
                    || options.len() > MAX_OPTIONS
                    || options
                        .iter()
                        .any(|option| option.trim().is_empty() || option.chars().count() > OPTION_LENGTH)
                    || (1..options.len()).any(|i| options[..i].contains(&options[i])) =>
            {
                refused(
                    "options",
                    format!("A dropdown has 1 to {MAX_OPTIONS} different options of 1 to {OPTION_LENGTH} characters."),
                )
            }
            FieldKind::Text { .. } | FieldKind::Number { .. } | FieldKind::Dropdown { .. } => Ok(()),
        }
    }

    /// The customer's `answer`, as the page keeps it; `None` for a blank answer to an optional field.
    fn answer(&self, answer: Option<&str>) -> Result<Option<String>, Invalid> {
        let Some(answer) = answer.filter(|answer| !answer.trim().is_empty()) else {
            return if self.required {
                Err(Invalid::new(ErrorCode::ParameterRequired, format!("Answer \"{}\".", self.name)))
            } else {
                Ok(None)
            };
        };
        match &self.kind {
            FieldKind::Text { max_length } if answer.chars().count() > *max_length => {
                Err(Invalid::value(format!("\"{}\" takes at most {max_length} characters.", self.name)))
            }
            FieldKind::Number { minimum, maximum } => {
                let digits = answer.trim();
                let number = digits
                    .strip_prefix('-')
                    .unwrap_or(digits)
                    .bytes()
                    .all(|b| b.is_ascii_digit())
                    .then(|| digits.parse::<i64>().ok())
                    .flatten()
                    .ok_or_else(|| {
                        Invalid::new(
                            ErrorCode::ParameterTypeInvalid,
                            format!("\"{}\" takes a whole number.", self.name),
                        )
                    })?;
                if let Some(minimum) = minimum.filter(|minimum| number < *minimum) {
                    let detail = format!("\"{}\" must be at least {minimum}.", self.name);
                    return Err(Invalid::new(ErrorCode::ParameterBelowMinimum, detail));
                }
                if let Some(maximum) = maximum.filter(|maximum| number > *maximum) {
                    let detail = format!("\"{}\" must be at most {maximum}.", self.name);
                    return Err(Invalid::new(ErrorCode::ParameterAboveMaximum, detail));
                }
                Ok(Some(number.to_string()))
            }
            FieldKind::Dropdown { options } if !options.iter().any(|option| option == answer) => {
                Err(Invalid::value(format!("Choose one of the options of \"{}\".", self.name)))
            }
            FieldKind::Text { .. } | FieldKind::Dropdown { .. } => Ok(Some(answer.to_owned())),
        }
    }
}

impl Page {
    #[must_use]
    pub fn create(id: PageId, account_id: AccountId, livemode: bool, details: PageDetails, now: Timestamp) -> Self {
        Self { id, account_id, livemode, details, active: true, created_at: now, updated_at: now, version: 1 }
    }

    /// Replaces what the merchant set, checked by the caller, and whether it takes payments.
    pub fn update(&mut self, details: Option<PageDetails>, active: Option<bool>, now: Timestamp) {
        if let Some(details) = details {
            self.details = details;
        }
        if let Some(active) = active {
            self.active = active;
        }
        self.updated_at = now;
        self.version += 1;
    }

    /// Checks a customer's order against the page and makes its page session. `offered` holds the
    /// page's prices with their products as they stand (an archived one cannot be bought);
    /// `line_item_id` mints the id of each line.
    ///
    /// # Errors
    /// Every part of the order that breaks a rule, by the form's parameter names: a deactivated
    /// page, a quantity out of `0..=99` or of a price the page does not offer, no unit at all, an
    /// amount out of bounds, a required answer missing or an answer the field does not take.
    pub fn order(
        &self,
        order: &PageOrder,
        offered: &[(Price, Product)],
        line_item_id: &mut dyn FnMut() -> PageLineItemId,
    ) -> Result<PageSession, Vec<FieldError>> {
        if !self.active {
            return Err(vec![FieldError::invalid("page", "This page no longer takes payments.")]);
        }
        let mut errors = Vec::new();
        let (amount, line_items) = match &self.details.template {
            PageTemplate::Storefront { prices } => self.storefront(order, prices, offered, line_item_id, &mut errors),
            PageTemplate::FixedAmount { amount } => (Some(*amount), Vec::new()),
            PageTemplate::CustomerChosenAmount { minimum, maximum } => {
                (chosen_amount(order.amount, *minimum, *maximum, &mut errors), Vec::new())
            }
        };
        // What the template does not take is refused, not ignored.
        if !matches!(self.details.template, PageTemplate::Storefront { .. }) {
            for (sent, _) in &order.quantities {
                errors.push(FieldError::invalid(format!("quantity[{sent}]"), "This page does not offer that price."));
            }
        }
        if order.amount.is_some() && !matches!(self.details.template, PageTemplate::CustomerChosenAmount { .. }) {
            errors.push(FieldError::invalid("amount", "This page sets the amount to pay."));
        }
        let custom_fields = self.answers(order, &mut errors);
        match amount {
            Some(amount) if errors.is_empty() => {
                Ok(PageSession { page_id: self.id.to_string(), amount: amount.centavos(), custom_fields, line_items })
            }
            _ => Err(errors),
        }
    }

    fn storefront(
        &self,
        order: &PageOrder,
        prices: &[PriceId],
        offered: &[(Price, Product)],
        line_item_id: &mut dyn FnMut() -> PageLineItemId,
        errors: &mut Vec<FieldError>,
    ) -> (Option<Amount>, Vec<PageLineItem>) {
        let mut lines = Vec::new();
        for (sent, quantity) in &order.quantities {
            let parameter = format!("quantity[{sent}]");
            let Some((price, product)) =
                offered.iter().find(|(price, _)| price.id.as_str() == sent && prices.contains(&price.id))
            else {
                errors.push(FieldError::invalid(parameter, "This page does not offer that price."));
                continue;
            };
            if !(0..=MAX_QUANTITY).contains(quantity) {
                let detail = format!("Take 0 to {MAX_QUANTITY} of \"{}\".", product.name.as_str());
                let code =
                    if *quantity < 0 { ErrorCode::ParameterBelowMinimum } else { ErrorCode::ParameterAboveMaximum };
                errors.push(FieldError::new(parameter, code, detail));
                continue;
            }
            if *quantity == 0 {
                continue;
            }
            if !is_sold(price, product) {
                let detail = format!("\"{}\" is no longer sold.", product.name.as_str());
                errors.push(FieldError::invalid(parameter, detail));
                continue;
            }
            if lines.iter().any(|line: &PageLineItem| line.price_id == price.id.as_str()) {
                errors.push(FieldError::invalid(parameter, "Each price is taken once, with its quantity."));
                continue;
            }
            lines.push(PageLineItem {
                id: line_item_id().to_string(),
                price_id: price.id.to_string(),
                price_amount: price.amount.centavos(),
                price_description: price.description.as_ref().map(|text| text.as_str().to_owned()),
                product_id: product.id.to_string(),
                product_name: product.name.as_str().to_owned(),
                product_description: product.description.as_ref().map(|text| text.as_str().to_owned()),
                quantity: *quantity,
                total_amount: quantity * price.amount.centavos(),
            });
        }
        if lines.is_empty() {
            if errors.is_empty() {
                errors.push(FieldError::new("quantity", ErrorCode::ParameterRequired, "Choose at least one item."));
            }
            return (None, lines);
        }
        let sum = lines.iter().try_fold(0_i64, |sum, line| sum.checked_add(line.total_amount)).unwrap_or(i64::MAX);
        match Amount::new(sum) {
            Ok(amount) => (Some(amount), lines),
            Err(refused) => {
                let bound = if refused.code == ErrorCode::ParameterBelowMinimum {
                    format!("at least {}", Amount::MINIMUM)
                } else {
                    format!("at most {}", Amount::MAXIMUM)
                };
                let detail = format!("The order's total must be {bound} centavos; it is {sum}.");
                errors.push(FieldError::new("quantity", refused.code, detail));
                (None, lines)
            }
        }
    }

    /// The answers to the page's fields, in the page's order; unknown fields are refused.
    fn answers(&self, order: &PageOrder, errors: &mut Vec<FieldError>) -> Vec<CustomFieldAnswer> {
        for (sent, _) in &order.answers {
            if !self.details.custom_fields.iter().any(|field| field.id.as_str() == sent) {
                errors.push(FieldError::invalid(format!("custom_fields[{sent}]"), "This page asks no such question."));
            }
        }
        let mut answers = Vec::new();
        for field in &self.details.custom_fields {
            let sent = order.answers.iter().find(|(id, _)| id == field.id.as_str()).map(|(_, value)| value.as_str());
            match field.answer(sent) {
                Ok(Some(value)) => {
                    answers.push(CustomFieldAnswer { id: field.id.to_string(), name: field.name.clone(), value });
                }
                Ok(None) => {}
                Err(refused) => errors.push(refused.at(format!("custom_fields[{}]", field.id))),
            }
        }
        answers
    }
}

/// The amount a customer chose, within the page's bounds.
fn chosen_amount(
    chosen: Option<i64>,
    minimum: Amount,
    maximum: Amount,
    errors: &mut Vec<FieldError>,
) -> Option<Amount> {
    let Some(chosen) = chosen else {
        errors.push(FieldError::new("amount", ErrorCode::ParameterRequired, "Enter the amount to pay."));
        return None;
    };
    if chosen < minimum.centavos() {
        let detail = format!("The amount must be at least {} centavos.", minimum.centavos());
        errors.push(FieldError::new("amount", ErrorCode::ParameterBelowMinimum, detail));
        return None;
    }
    if chosen > maximum.centavos() {
        let detail = format!("The amount must be at most {} centavos.", maximum.centavos());
        errors.push(FieldError::new("amount", ErrorCode::ParameterAboveMaximum, detail));
        return None;
    }
    Amount::new(chosen).ok()
}

/// Whether `price` of `product` can be bought: neither is archived.
#[must_use]
pub fn is_sold(price: &Price, product: &Product) -> bool {
    price.active && product.active
}

/// The product of each price, paired, for [`Page::order`]; a price whose product is missing is
/// left out.
#[must_use]
pub fn offered(prices: Vec<Price>, products: &[Product]) -> Vec<(Price, Product)> {
    prices
        .into_iter()
        .filter_map(|price| {
            let product = products.iter().find(|product| product.id == price.product_id)?.clone();
            Some((price, product))
        })
        .collect()
}

/// The products `offered` names, once each.
#[must_use]
pub fn product_ids(prices: &[Price]) -> Vec<ProductId> {
    let mut ids: Vec<ProductId> = Vec::new();
    for price in prices {
        if !ids.contains(&price.product_id) {
            ids.push(price.product_id.clone());
        }
    }
    ids
}

#[cfg(test)]
mod tests;
