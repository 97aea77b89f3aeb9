//! Payment methods: the method types, card numbers (checked, never shown) and what is kept of a card.

use crate::customer::Address;
use crate::ids::{AccountId, CustomerId, PaymentMethodId};
use crate::time::Timestamp;
use crate::validation::{FieldError, Invalid};
use serde::{Deserialize, Serialize};
use std::fmt;

/// A way to pay that an intent can allow.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "lowercase")]
pub enum PaymentMethodType {
    Card,
    Gcash,
    Maya,
    Billease,
    Qrph,
}

impl PaymentMethodType {
    pub const ALL: [Self; 5] = [Self::Card, Self::Gcash, Self::Maya, Self::Billease, Self::Qrph];

    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Card => "card",
            Self::Gcash => "gcash",
            Self::Maya => "maya",
            Self::Billease => "billease",
            Self::Qrph => "qrph",
        }
    }

    /// # Errors
    /// `parameter_invalid` for an unknown method.
    pub fn parse(value: &str) -> Result<Self, Invalid> {
        Self::ALL.into_iter().find(|method| method.as_str() == value).ok_or_else(|| {
            Invalid::value(format!("{value} is not a payment method; use card, gcash, maya, billease or qrph."))
        })
    }
}

/// Whether a card draws on credit or on the holder's account.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "lowercase")]
pub enum Funding {
    Credit,
    Debit,
    Prepaid,
}

impl Funding {
    pub const ALL: [Self; 3] = [Self::Credit, Self::Debit, Self::Prepaid];

    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Credit => "credit",
            Self::Debit => "debit",
            Self::Prepaid => "prepaid",
        }
    }

    /// # Errors
    /// `parameter_invalid` for anything but credit, debit or prepaid.
    pub fn parse(value: &str) -> Result<Self, Invalid> {
        match value {
            "credit" => Ok(Self::Credit),
            "debit" => Ok(Self::Debit),
            "prepaid" => Ok(Self::Prepaid),
            _ => Err(Invalid::value(format!("{value} is not a card funding; use credit, debit or prepaid."))),
        }
    }
}

/// A card number that passed the Luhn check. `Debug` shows only its last four digits.
#[derive(Clone, PartialEq, Eq)]
pub struct CardNumber(String);

impl CardNumber {
    /// # Errors
    /// `parameter_invalid` unless the number is 12 to 19 digits (spaces allowed) passing the Luhn check.
    pub fn new(number: &str) -> Result<Self, Invalid> {
        let digits: String = number.chars().filter(|c| *c != ' ').collect();
        if !Self::could_be(&digits) {
            return Err(Invalid::value("The card number is not valid."));
        }
        Ok(Self(digits))
    }

    /// Whether `digits` could be a card number: 12 to 19 ASCII digits passing the Luhn check.
    #[must_use]
    pub fn could_be(digits: &str) -> bool {
        (12..=19).contains(&digits.len()) && digits.bytes().all(|b| b.is_ascii_digit()) && luhn(digits)
    }

    /// The digits, for the processor only.
    #[must_use]
    pub fn digits(&self) -> &str {
        &self.0
    }

    #[must_use]
    pub fn first6(&self) -> &str {
        &self.0[..6]
    }

    #[must_use]
    pub fn last4(&self) -> &str {
        &self.0[self.0.len() - 4..]
    }

    /// The card brand from its leading digits.
    #[must_use]
    pub fn brand(&self) -> &'static str {
        let prefix2: u32 = self.0[..2].parse().unwrap_or(0);
        let prefix4: u32 = self.0[..4].parse().unwrap_or(0);
        match (self.0.as_bytes()[0], prefix2, prefix4) {
            (b'4', _, _) => "visa",
            (_, 51..=55, _) | (_, _, 2221..=2720) => "mastercard",
            (_, 34 | 37, _) => "amex",
            (_, _, 3528..=3589) => "jcb",
            _ => "unknown",
        }
    }
}

impl fmt::Debug for CardNumber {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "CardNumber(****{})", self.last4())
    }
}

fn luhn(digits: &str) -> bool {
    let sum: u32 = digits
        .bytes()
        .rev()
        .enumerate()
        .map(|(i, b)| {
            let d = u32::from(b - b'0');
            if i % 2 == 1 {
                let doubled = d * 2;
                if doubled > 9 {
                    doubled - 9
                } else {
                    doubled
                }
            } else {
                d
            }
        })
        .sum();
    sum.is_multiple_of(10)
}

/// A card verification code. `Debug` never shows it.
#[derive(Clone, PartialEq, Eq)]
pub struct Cvc(String);

impl Cvc {
    /// # Errors
    /// `parameter_invalid` unless it is 3 or 4 digits.
    pub fn new(cvc: &str) -> Result<Self, Invalid> {
        if !(3..=4).contains(&cvc.len()) || !cvc.bytes().all(|b| b.is_ascii_digit()) {
            return Err(Invalid::value("The CVC must be 3 or 4 digits."));
        }
        Ok(Self(cvc.to_owned()))
    }

    #[must_use]
    pub fn len(&self) -> usize {
        self.0.len()
    }

    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl fmt::Debug for Cvc {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Cvc(***)")
    }
}

/// Card data as a customer enters it; handed to the processor and never stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CardInput {
    pub number: CardNumber,
    pub exp_month: u32,
    pub exp_year: u32,
    pub cvc: Cvc,
}

impl CardInput {
    /// What is kept of this card: brand, first six and last four digits, expiry, and `funding`.
    #[must_use]
    pub fn summary(&self, funding: Funding) -> CardSummary {
        CardSummary {
            brand: self.number.brand().to_owned(),
            first6: self.number.first6().to_owned(),
            last4: self.number.last4().to_owned(),
            exp_month: self.exp_month,
            exp_year: self.exp_year,
            funding,
        }
    }
}

/// What the service keeps of a card.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct CardSummary {
    pub brand: String,
    pub first6: String,
    pub last4: String,
    pub exp_month: u32,
    pub exp_year: u32,
    pub funding: Funding,
}

impl CardSummary {
    /// Whether the card's expiry month has ended by `now`: a card is good through its last day.
    #[must_use]
    pub fn expired(&self, now: Timestamp) -> bool {
        (i64::from(self.exp_year), self.exp_month) < now.year_month()
    }
}

/// What the service keeps of a QR Ph payer's account.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct QrphSummary {
    pub account_name: String,
    pub last4_account_number: String,
    pub account_institution: String,
    pub account_institution_name: String,
}

/// A payment method as a payment records it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PaymentMethodRecord {
    #[serde(rename = "type")]
    pub method: PaymentMethodType,
    pub card: Option<CardSummary>,
    pub qrph: Option<QrphSummary>,
}

/// Billing details a customer gave with an attempt.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct PaymentBilling {
    pub name: Option<String>,
    pub email: Option<String>,
    pub phone: Option<String>,
    pub address: Option<Address>,
}

/// When a saved payment method may be charged: only with the customer in the payment form, or also
/// by the merchant alone.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Usage {
    OnSession,
    OffSession,
}

impl Usage {
    pub const ALL: [Self; 2] = [Self::OnSession, Self::OffSession];

    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Self::OnSession => "on_session",
            Self::OffSession => "off_session",
        }
    }

    /// # Errors
    /// `parameter_invalid` for anything but `on_session` or `off_session`.
    pub fn parse(value: &str) -> Result<Self, Invalid> {
        match value {
            "on_session" => Ok(Self::OnSession),
            "off_session" => Ok(Self::OffSession),
            _ => Err(Invalid::value(format!("{value} is not a usage; use on_session or off_session."))),
        }
    }
}

/// A card the processor verified for saving: what the entity shows of it, and the processor's
/// reference to charge it again. Never the number or the CVC.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VerifiedCard {
    pub card: CardSummary,
    pub billing: Option<PaymentBilling>,
    /// The processor's handle on the card (a network token for a real acquirer; the test card's
    /// behaviour for the simulator).
    pub processor_reference: String,
}

/// A payment method saved to a customer by a setup intent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PaymentMethod {
    pub id: PaymentMethodId,
    pub account_id: AccountId,
    pub livemode: bool,
    pub customer_id: CustomerId,
    pub verified: VerifiedCard,
    pub usage: Usage,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
}

impl PaymentMethod {
    /// The only method type that can be saved: e-wallets and QR Ph authorize each payment anew.
    pub const SAVABLE: [PaymentMethodType; 1] = [PaymentMethodType::Card];

    #[must_use]
    pub fn method(&self) -> PaymentMethodType {
        PaymentMethodType::Card
    }

    /// Gives the saved card the expiry of its renewed card (same number, new date), as the
    /// `payment_method_edit` feature of a customer session lets the customer do.
    ///
    /// # Errors
    /// `parameter_invalid` on `exp_year` when that expiry has already passed at `now`.
    pub fn change_expiry(&mut self, exp_month: u32, exp_year: u32, now: Timestamp) -> Result<(), FieldError> {
        let mut card = self.verified.card.clone();
        card.exp_month = exp_month;
        card.exp_year = exp_year;
        if card.expired(now) {
            return Err(FieldError::invalid("exp_year", "The new expiry date has already passed."));
        }
        self.verified.card = card;
        self.updated_at = now;
        Ok(())
    }

    /// Whether a caller may charge this method: a customer in the payment form always, the merchant
    /// alone only when it was saved for `off_session` use.
    #[must_use]
    pub fn chargeable(&self, customer_present: bool) -> bool {
        customer_present || self.usage == Usage::OffSession
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn card_numbers_must_pass_the_luhn_check() {
        assert!(CardNumber::new("4242424242424242").is_ok());
        assert!(CardNumber::new("4242 4242 4242 4242").is_ok());
        assert_eq!(CardNumber::new("4242424242424241").unwrap_err().detail, "The card number is not valid.");
        assert_eq!(CardNumber::new("42424242").unwrap_err().detail, "The card number is not valid.");
        assert_eq!(CardNumber::new("4242a24242424242").unwrap_err().detail, "The card number is not valid.");
    }

    #[test]
    fn a_card_shows_only_brand_first6_and_last4() {
        let card = CardNumber::new("5425233430109903").unwrap();
        assert_eq!((card.brand(), card.first6(), card.last4()), ("mastercard", "542523", "9903"));
        assert_eq!(CardNumber::new("4242424242424242").unwrap().brand(), "visa");
        assert_eq!(format!("{card:?}"), "CardNumber(****9903)");
        assert_eq!(format!("{:?}", Cvc::new("123").unwrap()), "Cvc(***)");
    }

    #[test]
    fn a_saved_card_takes_a_renewed_expiry_but_not_a_past_one() {
        let card = CardSummary {
            brand: "visa".into(),
            first6: "424242".into(),
            last4: "4242".into(),
            exp_month: 1,
            exp_year: 2027,
            funding: Funding::Credit,
        };
        let created = Timestamp::from_unix_seconds(0);
        let mut method = PaymentMethod {
            id: PaymentMethodId::from_random("1"),
            account_id: AccountId::from_random("1"),
            livemode: false,
            customer_id: CustomerId::from_random("1"),
            verified: VerifiedCard { card, billing: None, processor_reference: "approve".into() },
            usage: Usage::OnSession,
            created_at: created,
            updated_at: created,
        };
        // 2027-01-15: January 2027 is still good; December 2026 is not.
        let now = Timestamp::from_unix_seconds(1_800_000_000);
        assert_eq!(now.year_month(), (2027, 1));
        let before = method.clone();
        assert_eq!(method.change_expiry(12, 2026, now).unwrap_err().parameter, "exp_year");
        assert_eq!(method, before, "a refused change changes nothing");
        method.change_expiry(1, 2027, now).unwrap();
        method.change_expiry(3, 2031, now).unwrap();
        assert_eq!((method.verified.card.exp_month, method.verified.card.exp_year, method.updated_at), (3, 2031, now));
        assert_eq!(method.verified.card.last4, "4242", "the number stays");
    }

    #[test]
    fn methods_and_funding_parse_from_their_names() {
        assert_eq!(PaymentMethodType::parse("gcash"), Ok(PaymentMethodType::Gcash));
        assert_eq!(
            PaymentMethodType::parse("paypal").unwrap_err().detail,
            "paypal is not a payment method; use card, gcash, maya, billease or qrph."
        );
        assert_eq!(Funding::parse("debit"), Ok(Funding::Debit));
        assert_eq!(Cvc::new("12").unwrap_err().detail, "The CVC must be 3 or 4 digits.");
    }
}
