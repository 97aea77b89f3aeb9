//! Checkout sessions: a hosted, one-time page where a customer pays for the merchant's line items.
//! Creating one creates its payment intent; paying the intent completes the session.
//!
//! ```text
//! active ──intent paid (or authorized for a manual capture)──▶ completed
//!    └──expire, or expires_at passes (the intent is canceled)──▶ expired
//! ```

use crate::description::Description;
use crate::error::DomainError;
use crate::ids::{AccountId, CheckoutSessionId, CheckoutSessionLineItemId, ClientSecret, PaymentIntentId};
use crate::metadata::Metadata;
use crate::money::{Amount, Currency};
use crate::payment_intent::CardOptions;
use crate::payment_method::PaymentMethodType;
use crate::redirect_url::RedirectUrl;
use crate::statement_descriptor::StatementDescriptor;
use crate::time::Timestamp;
use crate::validation::{ErrorCode, Invalid};

const RESOURCE: &str = "checkout_session";
/// The earliest `expires_at` a merchant may ask for, from creation.
pub const SHORTEST_LIFETIME_SECONDS: i64 = 30 * 60;
/// The latest `expires_at`, and the default, from creation.
pub const LONGEST_LIFETIME_SECONDS: i64 = 24 * 60 * 60;
/// Slack on both bounds of `expires_at` for a merchant's clock a little apart from ours.
const CLOCK_GRACE_SECONDS: i64 = 60;
/// The most line items a session may have.
pub const MAX_LINE_ITEMS: usize = 100;
/// The longest line item name.
pub const NAME_LENGTH: usize = 255;

/// Where a checkout session stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CheckoutSessionStatus {
    Active,
    Completed,
    Expired,
}

impl CheckoutSessionStatus {
    pub const ALL: [Self; 3] = [Self::Active, Self::Completed, Self::Expired];

    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Active => "active",
            Self::Completed => "completed",
            Self::Expired => "expired",
        }
    }

    #[must_use]
    pub fn parse(value: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|status| status.as_str() == value)
    }
}

/// Which billing details the page asks the customer for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BillingDetailsCollection {
    /// Name, e-mail, phone and address (the default).
    Always,
    /// Only what the payment method needs: the cardholder's name for cards.
    Auto,
}

impl BillingDetailsCollection {
    pub const ALL: [Self; 2] = [Self::Always, Self::Auto];

    /// # Errors
    /// `parameter_invalid` for anything but `always` or `auto`.
    pub fn parse(value: &str) -> Result<Self, Invalid> {
        match value {
            "always" => Ok(Self::Always),
            "auto" => Ok(Self::Auto),
            other => Err(Invalid::value(format!("{other} is not a billing details collection; use always or auto."))),
        }
    }

    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Always => "always",
            Self::Auto => "auto",
        }
    }
}

/// The word on the pay button.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SubmitType {
    Pay,
    Donate,
    Book,
}

impl SubmitType {
    pub const ALL: [Self; 3] = [Self::Pay, Self::Donate, Self::Book];

    /// # Errors
    /// `parameter_invalid` for anything but `pay`, `donate` or `book`.
    pub fn parse(value: &str) -> Result<Self, Invalid> {
        match value {
            "pay" => Ok(Self::Pay),
            "donate" => Ok(Self::Donate),
            "book" => Ok(Self::Book),
            other => Err(Invalid::value(format!("{other} is not a submit type; use pay, donate or book."))),
        }
    }

    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Pay => "pay",
            Self::Donate => "donate",
            Self::Book => "book",
        }
    }

    /// The button's verb: "Pay", "Donate", "Book".
    #[must_use]
    pub fn verb(self) -> &'static str {
        match self {
            Self::Pay => "Pay",
            Self::Donate => "Donate",
            Self::Book => "Book",
        }
    }
}

/// One line of what the customer pays for, as the merchant gives it: `quantity` of `name` at
/// `amount` centavos each.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewLineItem {
    pub name: String,
    /// The unit price in centavos.
    pub amount: i64,
    pub quantity: i64,
    pub description: Option<Description>,
    /// A public `https` URL of a picture; the page shows a default one when absent.
    pub image: Option<String>,
}

/// A line item of a session, with its id.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LineItem {
    pub id: CheckoutSessionLineItemId,
    pub name: String,
    /// The unit price in centavos.
    pub amount: i64,
    pub quantity: i64,
    pub description: Option<Description>,
    pub image: Option<String>,
}

impl LineItem {
    /// `quantity × amount`, `None` when it overflows.
    #[must_use]
    pub fn total(&self) -> Option<i64> {
        self.quantity.checked_mul(self.amount)
    }
}

impl NewLineItem {
    #[must_use]
    pub fn with_id(self, id: CheckoutSessionLineItemId) -> LineItem {
        let Self { name, amount, quantity, description, image } = self;
        LineItem { id, name, amount, quantity, description, image }
    }

    /// # Errors
    /// `parameter_invalid` for a blank name or one over 255 characters.
    pub fn check_name(name: String) -> Result<String, Invalid> {
        if name.trim().is_empty() || name.chars().count() > NAME_LENGTH {
            return Err(Invalid::value(format!("A line item name is 1 to {NAME_LENGTH} characters long.")));
        }
        Ok(name)
    }

    /// # Errors
    /// `parameter_below_minimum` for a unit price below one centavo.
    pub fn check_unit_amount(centavos: i64) -> Result<i64, Invalid> {
        if centavos < 1 {
            return Err(Invalid::new(ErrorCode::ParameterBelowMinimum, "The unit price must be at least 1 centavo."));
        }
        Ok(centavos)
    }

    /// # Errors
    /// `parameter_below_minimum` for a quantity below one.
    pub fn check_quantity(quantity: i64) -> Result<i64, Invalid> {
        if quantity < 1 {
            return Err(Invalid::new(ErrorCode::ParameterBelowMinimum, "The quantity must be at least 1."));
        }
        Ok(quantity)
    }

    /// # Errors
    /// `parameter_invalid` unless an absolute `https` URL of at most 2,048 characters.
    pub fn check_image(url: String) -> Result<String, Invalid> {
        crate::absolute_url::https_image(url)
    }
}

/// The session's total: the sum of its lines' quantity × unit price, within the bounds of an
/// [`Amount`].
///
/// # Errors
/// `parameter_below_minimum` / `parameter_above_maximum` outside 2000..=5999999999 (an overflow is
/// above the maximum).
pub fn total(line_items: &[NewLineItem]) -> Result<Amount, Invalid> {
    let sum = line_items
        .iter()
        .try_fold(0_i64, |sum, item| item.quantity.checked_mul(item.amount).and_then(|line| sum.checked_add(line)));
    let sum = sum.unwrap_or(i64::MAX);
    Amount::new(sum).map_err(|refused| {
        let bound = if refused.code == ErrorCode::ParameterBelowMinimum { "at least" } else { "at most" };
        let limit = if refused.code == ErrorCode::ParameterBelowMinimum { Amount::MINIMUM } else { Amount::MAXIMUM };
        Invalid::new(
            refused.code,
            format!("The total of the line items (quantity × amount) must be {bound} {limit}; it is {sum}."),
        )
    })
}

/// When a session created at `now` expires: `requested` if it is 30 minutes to 24 hours ahead,
/// else 24 hours from `now`.
///
/// # Errors
/// `parameter_below_minimum` / `parameter_above_maximum` outside that window.
pub fn expiry(requested: Option<i64>, now: Timestamp) -> Result<Timestamp, Invalid> {
    let now_seconds = now.unix_seconds();
    let Some(requested) = requested else {
        return Ok(now.plus_seconds(LONGEST_LIFETIME_SECONDS));
    };
    if requested < now_seconds + SHORTEST_LIFETIME_SECONDS - CLOCK_GRACE_SECONDS {
        return Err(Invalid::new(
            ErrorCode::ParameterBelowMinimum,
            "expires_at must be at least 30 minutes from now (Unix seconds).",
        ));
    }
    if requested > now_seconds + LONGEST_LIFETIME_SECONDS + CLOCK_GRACE_SECONDS {
        return Err(Invalid::new(
            ErrorCode::ParameterAboveMaximum,
            "expires_at must be at most 24 hours from now (Unix seconds).",
        ));
    }
    Ok(Timestamp::from_unix_seconds(requested))
}

/// What a merchant asks for, read and checked; the line items get their ids when the session is
/// created.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewCheckoutSession<Item = LineItem> {
    pub line_items: Vec<Item>,
    pub amount: Amount,
    pub currency: Currency,
    pub success_url: RedirectUrl,
    pub cancel_url: RedirectUrl,
    pub payment_methods: Vec<PaymentMethodType>,
    pub card_options: CardOptions,
    pub customer_reference_id: Option<String>,
    pub billing_details_collection: BillingDetailsCollection,
    pub description: Option<Description>,
    pub submit_type: SubmitType,
    pub statement_descriptor: Option<StatementDescriptor>,
    pub expires_at: Timestamp,
    pub metadata: Option<Metadata>,
}

impl NewCheckoutSession<NewLineItem> {
    /// The same session with an id for each line item, drawn by `next_id`.
    #[must_use]
    pub fn with_line_item_ids(
        self,
        mut next_id: impl FnMut() -> CheckoutSessionLineItemId,
    ) -> NewCheckoutSession<LineItem> {
        let Self {
            line_items,
            amount,
            currency,
            success_url,
            cancel_url,
            payment_methods,
            card_options,
            customer_reference_id,
            billing_details_collection,
            description,
            submit_type,
            statement_descriptor,
            expires_at,
            metadata,
        } = self;
        NewCheckoutSession {
            line_items: line_items.into_iter().map(|item| item.with_id(next_id())).collect(),
            amount,
            currency,
            success_url,
            cancel_url,
            payment_methods,
            card_options,
            customer_reference_id,
            billing_details_collection,
            description,
            submit_type,
            statement_descriptor,
            expires_at,
            metadata,
        }
    }
}

/// A checkout session. Its status changes only through [`CheckoutSession::complete`] and
/// [`CheckoutSession::expire`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckoutSession {
    id: CheckoutSessionId,
    account_id: AccountId,
    livemode: bool,
    status: CheckoutSessionStatus,
    client_secret: ClientSecret,
    url: String,
    payment_intent_id: PaymentIntentId,
    details: NewCheckoutSession,
    created_at: Timestamp,
    updated_at: Timestamp,
    version: i64,
}

/// A checkout session as a repository stores it, to restore it with [`CheckoutSession::restore`].
#[derive(Debug, Clone)]
pub struct StoredCheckoutSession {
    pub id: CheckoutSessionId,
    pub account_id: AccountId,
    pub livemode: bool,
    pub status: CheckoutSessionStatus,
    pub client_secret: ClientSecret,
    pub url: String,
    pub payment_intent_id: PaymentIntentId,
    pub details: NewCheckoutSession,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
    pub version: i64,
}

impl CheckoutSession {
    /// A new active session paid through `payment_intent_id`, whose page is at `url`.
    #[must_use]
    #[allow(clippy::too_many_arguments)]
    pub fn create(
        id: CheckoutSessionId,
        account_id: AccountId,
        livemode: bool,
        client_secret: ClientSecret,
        url: String,
        payment_intent_id: PaymentIntentId,
        details: NewCheckoutSession,
        now: Timestamp,
    ) -> Self {
        Self {
            id,
            account_id,
            livemode,
            status: CheckoutSessionStatus::Active,
            client_secret,
            url,
            payment_intent_id,
            details,
            created_at: now,
            updated_at: now,
            version: 1,
        }
    }

    #[must_use]
    pub fn restore(stored: StoredCheckoutSession) -> Self {
        let StoredCheckoutSession {
            id,
            account_id,
            livemode,
            status,
            client_secret,
            url,
            payment_intent_id,
            details,
            created_at,
            updated_at,
            version,
        } = stored;
        Self {
            id,
            account_id,
            livemode,
            status,
            client_secret,
            url,
            payment_intent_id,
            details,
            created_at,
            updated_at,
            version,
        }
    }

    fn refuse(&self, action: &'static str) -> DomainError {
        DomainError::InvalidState { resource: RESOURCE, status: self.status.as_str(), action }
    }

    /// Whether the customer may still pay at `now`.
    #[must_use]
    pub fn payable(&self, now: Timestamp) -> bool {
        self.status == CheckoutSessionStatus::Active && now < self.details.expires_at
    }

    /// The session's intent was paid (or authorized for a manual capture).
    ///
    /// # Errors
    /// `resource_invalid_state` unless active.
    pub fn complete(&mut self, now: Timestamp) -> Result<(), DomainError> {
        self.move_from_active(CheckoutSessionStatus::Completed, "complete", now)
    }

    /// The merchant expired the session, or its `expires_at` passed. The caller cancels the intent
    /// in the same transaction.
    ///
    /// # Errors
    /// `resource_invalid_state` unless active.
    pub fn expire(&mut self, now: Timestamp) -> Result<(), DomainError> {
        self.move_from_active(CheckoutSessionStatus::Expired, "expire", now)
    }

    fn move_from_active(
        &mut self,
        to: CheckoutSessionStatus,
        action: &'static str,
        now: Timestamp,
    ) -> Result<(), DomainError> {
        match self.status {
            CheckoutSessionStatus::Active => {}
            CheckoutSessionStatus::Completed | CheckoutSessionStatus::Expired => return Err(self.refuse(action)),
        }
        self.status = to;
        self.updated_at = now;
        self.version += 1;
        Ok(())
    }

    #[must_use]
    pub fn id(&self) -> &CheckoutSessionId {
        &self.id
    }

    #[must_use]
    pub fn account_id(&self) -> &AccountId {
        &self.account_id
    }

    #[must_use]
    pub fn livemode(&self) -> bool {
        self.livemode
    }

    #[must_use]
    pub fn status(&self) -> CheckoutSessionStatus {
        self.status
    }

    #[must_use]
    pub fn client_secret(&self) -> &ClientSecret {
        &self.client_secret
    }

    /// The hosted page: `{public_base_url}/c/<client_secret>`.
    #[must_use]
    pub fn url(&self) -> &str {
        &self.url
    }

    #[must_use]
    pub fn payment_intent_id(&self) -> &PaymentIntentId {
        &self.payment_intent_id
    }

    /// What the merchant asked for.
    #[must_use]
    pub fn details(&self) -> &NewCheckoutSession {
        &self.details
    }

    #[must_use]
    pub fn expires_at(&self) -> Timestamp {
        self.details.expires_at
    }

    /// `success_url` with Stripe's `{CHECKOUT_SESSION_ID}` placeholder replaced by this session's id.
    #[must_use]
    pub fn success_url(&self) -> String {
        self.details.success_url.as_str().replace("{CHECKOUT_SESSION_ID}", self.id.as_str())
    }

    #[must_use]
    pub fn created_at(&self) -> Timestamp {
        self.created_at
    }

    #[must_use]
    pub fn updated_at(&self) -> Timestamp {
        self.updated_at
    }

    #[must_use]
    pub fn version(&self) -> i64 {
        self.version
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn item(amount: i64, quantity: i64) -> NewLineItem {
        NewLineItem { name: "Mug".into(), amount, quantity, description: None, image: None }
    }

    #[test]
    fn the_total_is_the_sum_of_quantity_times_unit_price_within_the_amount_bounds() {
        assert_eq!(total(&[item(1_000, 2), item(500, 1)]).map(Amount::centavos), Ok(2_500));
        assert_eq!(total(&[item(1_999, 1)]).unwrap_err().code, ErrorCode::ParameterBelowMinimum);
        assert_eq!(total(&[item(5_999_999_999, 1)]).map(Amount::centavos), Ok(5_999_999_999));
        assert_eq!(total(&[item(3_000_000_000, 2)]).unwrap_err().code, ErrorCode::ParameterAboveMaximum);
        assert_eq!(total(&[item(i64::MAX, 2)]).unwrap_err().code, ErrorCode::ParameterAboveMaximum);
        assert_eq!(total(&[item(i64::MAX, 1), item(1, 1)]).unwrap_err().code, ErrorCode::ParameterAboveMaximum);
    }

    #[test]
    fn expiry_is_30_minutes_to_24_hours_ahead_and_24_hours_by_default() {
        let now = Timestamp::from_unix_seconds(1_800_000_000);
        assert_eq!(expiry(None, now), Ok(now.plus_seconds(86_400)));
        assert_eq!(expiry(Some(1_800_001_800), now), Ok(Timestamp::from_unix_seconds(1_800_001_800)));
        assert_eq!(expiry(Some(1_800_086_400), now), Ok(Timestamp::from_unix_seconds(1_800_086_400)));
        assert_eq!(expiry(Some(1_800_001_000), now).unwrap_err().code, ErrorCode::ParameterBelowMinimum);
        assert_eq!(expiry(Some(1_800_090_000), now).unwrap_err().code, ErrorCode::ParameterAboveMaximum);
        assert_eq!(expiry(Some(-1), now).unwrap_err().code, ErrorCode::ParameterBelowMinimum);
    }

    fn session(now: Timestamp) -> CheckoutSession {
        let random = "abcdefghijklmnopqrstuvwxyz012345";
        let details = NewCheckoutSession {
            line_items: vec![item(5_000, 1)],
            amount: Amount::new(5_000).unwrap(),
            currency: Currency::Php,
            success_url: RedirectUrl::new("https://s.example/ok?cs={CHECKOUT_SESSION_ID}".into()).unwrap(),
            cancel_url: RedirectUrl::new("https://s.example/no".into()).unwrap(),
            payment_methods: vec![PaymentMethodType::Card],
            card_options: CardOptions::default(),
            customer_reference_id: None,
            billing_details_collection: BillingDetailsCollection::Always,
            description: None,
            submit_type: SubmitType::Pay,
            statement_descriptor: None,
            expires_at: now.plus_seconds(3_600),
            metadata: None,
        }
        .with_line_item_ids(|| CheckoutSessionLineItemId::from_random(random));
        let id = CheckoutSessionId::from_random(random);
        let secret = ClientSecret::new(id.as_str(), random);
        let intent = PaymentIntentId::from_random(random);
        CheckoutSession::create(id, AccountId::from_random(random), false, secret, "u".into(), intent, details, now)
    }

    #[test]
    fn only_an_active_session_completes_or_expires_and_only_before_expires_at_is_it_payable() {
        let now = Timestamp::from_unix_seconds(1_800_000_000);
        let mut completed = session(now);
        assert!(completed.payable(now) && !completed.payable(now.plus_seconds(3_600)));
        assert_eq!(completed.success_url(), format!("https://s.example/ok?cs={}", completed.id()));
        completed.complete(now).unwrap();
        assert_eq!((completed.status(), completed.version()), (CheckoutSessionStatus::Completed, 2));
        assert!(completed.expire(now).is_err() && completed.complete(now).is_err() && !completed.payable(now));
        let mut expired = session(now);
        expired.expire(now).unwrap();
        assert_eq!(expired.status(), CheckoutSessionStatus::Expired);
        assert!(expired.complete(now).is_err() && expired.expire(now).is_err() && !expired.payable(now));
    }

    #[test]
    fn images_are_https_urls_and_names_are_not_blank() {
        assert!(NewLineItem::check_image("https://cdn.example/mug.png".into()).is_ok());
        assert!(NewLineItem::check_image("http://cdn.example/mug.png".into()).is_err());
        assert!(NewLineItem::check_image("javascript:alert(1)".into()).is_err());
        assert!(NewLineItem::check_name("  ".into()).is_err());
        assert!(NewLineItem::check_name("x".repeat(256)).is_err());
        assert!(NewLineItem::check_quantity(0).is_err());
        assert!(NewLineItem::check_unit_amount(0).is_err());
    }
}
