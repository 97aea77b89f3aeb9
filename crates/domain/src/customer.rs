//! Customers: the people and companies a merchant bills, and the rules of their fields.

use crate::ids::{AccountId, CustomerId};
use crate::metadata::Metadata;
use crate::money::Currency;
use crate::time::Timestamp;
use crate::validation::{ErrorCode, Invalid};
use serde::{Deserialize, Serialize};
use std::fmt;

/// A customer of a merchant.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Customer {
    pub id: CustomerId,
    pub account_id: AccountId,
    pub livemode: bool,
    pub name: CustomerName,
    pub email: Email,
    pub currency: Currency,
    pub billing_statement_prefix: BillingStatementPrefix,
    pub next_billing_statement_sequence_number: SequenceNumber,
    pub billing: Option<Billing>,
    pub metadata: Option<Metadata>,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
    /// Set when the customer was deleted; a deleted customer is kept as a tombstone.
    pub deleted_at: Option<Timestamp>,
    /// Optimistic-concurrency version, bumped by every change.
    pub version: i64,
}

/// What a merchant supplies to create a customer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewCustomer {
    pub name: CustomerName,
    pub email: Email,
    pub currency: Currency,
    pub billing_statement_prefix: Option<BillingStatementPrefix>,
    pub next_billing_statement_sequence_number: Option<SequenceNumber>,
    pub billing: Option<Billing>,
    pub metadata: Option<Metadata>,
}

/// The fields a merchant changes with an update; `None` leaves a field as it is.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CustomerChanges {
    pub name: Option<CustomerName>,
    pub email: Option<Email>,
    pub currency: Option<Currency>,
    pub billing_statement_prefix: Option<BillingStatementPrefix>,
    pub next_billing_statement_sequence_number: Option<SequenceNumber>,
    pub billing: Option<Billing>,
    pub metadata: Option<Metadata>,
}

/// A change refused by a customer's rules.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CustomerError {
    #[error("the customer {0} has been deleted")]
    Deleted(CustomerId),
}

impl Customer {
    /// A new customer; `generated_prefix` is used when the merchant gave no prefix.
    #[must_use]
    pub fn create(
        id: CustomerId,
        account_id: AccountId,
        livemode: bool,
        new: NewCustomer,
        generated_prefix: BillingStatementPrefix,
        now: Timestamp,
    ) -> Self {
        Self {
            id,
            account_id,
            livemode,
            name: new.name,
            email: new.email,
            currency: new.currency,
            billing_statement_prefix: new.billing_statement_prefix.unwrap_or(generated_prefix),
            next_billing_statement_sequence_number: new.next_billing_statement_sequence_number.unwrap_or_default(),
            billing: new.billing,
            metadata: new.metadata,
            created_at: now,
            updated_at: now,
            deleted_at: None,
            version: 1,
        }
    }

    #[must_use]
    pub fn is_deleted(&self) -> bool {
        self.deleted_at.is_some()
    }

    /// Applies a merchant's update. Metadata and billing given in an update replace the old ones.
    ///
    /// # Errors
    /// [`CustomerError::Deleted`] for a deleted customer.
    pub fn update(&mut self, changes: CustomerChanges, now: Timestamp) -> Result<(), CustomerError> {
        self.ensure_not_deleted()?;
        let CustomerChanges {
            name,
            email,
            currency,
            billing_statement_prefix,
            next_billing_statement_sequence_number,
            billing,
            metadata,
        } = changes;
        if let Some(name) = name {
            self.name = name;
        }
        if let Some(email) = email {
            self.email = email;
        }
        if let Some(currency) = currency {
            self.currency = currency;
        }
        if let Some(prefix) = billing_statement_prefix {
            self.billing_statement_prefix = prefix;
        }
        if let Some(sequence) = next_billing_statement_sequence_number {
            self.next_billing_statement_sequence_number = sequence;
        }
        if billing.is_some() {
            self.billing = billing;
        }
        if metadata.is_some() {
            self.metadata = metadata;
        }
        self.touch(now);
        Ok(())
    }

    /// Deletes the customer, keeping it as a tombstone.
    ///
    /// # Errors
    /// [`CustomerError::Deleted`] when it was deleted already.
    pub fn delete(&mut self, now: Timestamp) -> Result<(), CustomerError> {
        self.ensure_not_deleted()?;
        self.deleted_at = Some(now);
        self.touch(now);
        Ok(())
    }

    fn ensure_not_deleted(&self) -> Result<(), CustomerError> {
        if self.is_deleted() {
            return Err(CustomerError::Deleted(self.id.clone()));
        }
        Ok(())
    }

    fn touch(&mut self, now: Timestamp) {
        self.updated_at = now;
        self.version += 1;
    }
}

/// A customer's name: 1 to 255 characters, not only white space.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CustomerName(String);

impl CustomerName {
    pub const MAX_LENGTH: usize = 255;

    /// # Errors
    /// `parameter_invalid` for a blank or over-long name.
    pub fn new(name: String) -> Result<Self, Invalid> {
        if name.trim().is_empty() || name.chars().count() > Self::MAX_LENGTH {
            return Err(Invalid::value(format!("The name must be 1 to {} characters long.", Self::MAX_LENGTH)));
        }
        Ok(Self(name))
    }

    #[must_use]
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// A bare e-mail address (an RFC 5322 `addr-spec`, `juan@example.com`), at most 254 characters.
/// Display names (`Juan <juan@example.com>`), lists, domain literals, spaces and control
/// characters are refused: the address goes into a message's `To` header as given.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Email(String);

impl Email {
    pub const MAX_LENGTH: usize = 254;

    /// # Errors
    /// `parameter_invalid` for anything that is not a bare e-mail address.
    pub fn new(address: String) -> Result<Self, Invalid> {
        let bare = email_address::Options::default().without_display_text().without_domain_literal();
        let valid = address.len() <= Self::MAX_LENGTH
            && address.contains('@')
            && !address.chars().any(|c| c.is_control() || c.is_whitespace() || matches!(c, '<' | '>' | ',' | ';'))
            && email_address::EmailAddress::parse_with_options(&address, bare).is_ok();
        if !valid {
            return Err(Invalid::value(format!(
                "{address} is not a valid e-mail address: give the address alone, such as juan@example.com."
            )));
        }
        Ok(Self(address))
    }

    #[must_use]
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// The prefix of a customer's billing statement numbers: 3 to 15 upper-case letters or digits.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct BillingStatementPrefix(String);

impl BillingStatementPrefix {
    pub const MIN_LENGTH: usize = 3;
    pub const MAX_LENGTH: usize = 15;
    /// Length of a prefix the service generates.
    pub const GENERATED_LENGTH: usize = 8;

    /// # Errors
    /// `parameter_invalid` unless the prefix is 3 to 15 upper-case ASCII letters or digits.
    pub fn new(prefix: String) -> Result<Self, Invalid> {
        let valid = (Self::MIN_LENGTH..=Self::MAX_LENGTH).contains(&prefix.len())
            && prefix.bytes().all(|b| b.is_ascii_uppercase() || b.is_ascii_digit());
        if !valid {
            return Err(Invalid::value(format!(
                "The billing statement prefix must be {} to {} upper-case letters or digits.",
                Self::MIN_LENGTH,
                Self::MAX_LENGTH
            )));
        }
        Ok(Self(prefix))
    }

    /// A prefix made from a random alphanumeric string: its first eight characters, upper-cased.
    ///
    /// # Errors
    /// `parameter_invalid` when `random` has fewer than eight alphanumerics.
    pub fn generate(random: &str) -> Result<Self, Invalid> {
        let prefix: String = random
            .chars()
            .filter(char::is_ascii_alphanumeric)
            .take(Self::GENERATED_LENGTH)
            .map(|c| c.to_ascii_uppercase())
            .collect();
        if prefix.len() < Self::GENERATED_LENGTH {
            return Err(Invalid::value("Not enough random characters for a prefix."));
        }
        Self::new(prefix)
    }

    #[must_use]
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// The number the next billing statement of a customer gets: a positive integer shown as a string.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct SequenceNumber(i64);

impl SequenceNumber {
    /// Largest accepted value, so numbers stay readable and fit every integer column.
    pub const MAXIMUM: i64 = 999_999_999_999;
    /// The digits of [`SequenceNumber::MAXIMUM`].
    pub const DIGITS: u32 = 12;

    /// # Errors
    /// `parameter_invalid` unless `text` is a whole number from 1 to 999999999999.
    pub fn parse(text: &str) -> Result<Self, Invalid> {
        if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
            return Err(Invalid::value("The sequence number must be a whole number written in digits."));
        }
        match text.trim_start_matches('0').len() {
            0..=12 => Self::new(text.parse::<i64>().unwrap_or(0)),
            _ => Self::new(i64::MAX),
        }
    }

    /// # Errors
    /// `parameter_below_minimum` / `parameter_above_maximum` outside 1..=999999999999.
    pub fn new(number: i64) -> Result<Self, Invalid> {
        if number < 1 {
            return Err(Invalid::new(ErrorCode::ParameterBelowMinimum, "The sequence number must be at least 1."));
        }
        if number > Self::MAXIMUM {
            return Err(Invalid::new(
                ErrorCode::ParameterAboveMaximum,
                format!("The sequence number must be at most {}.", Self::MAXIMUM),
            ));
        }
        Ok(Self(number))
    }

    #[must_use]
    pub const fn value(self) -> i64 {
        self.0
    }
}

impl Default for SequenceNumber {
    fn default() -> Self {
        Self(1)
    }
}

impl fmt::Display for SequenceNumber {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// A customer's billing details.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Billing {
    pub phone: Option<String>,
    pub address: Option<Address>,
}

/// A postal address.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Address {
    pub line1: Option<String>,
    pub line2: Option<String>,
    pub city: Option<String>,
    pub state: Option<String>,
    pub postal_code: Option<String>,
    pub country: Option<CountryCode>,
}

/// Longest accepted text of an address line, city, state, postal code or phone number.
pub const MAX_ADDRESS_FIELD_LENGTH: usize = 255;

/// A two-letter ISO 3166-1 country code, upper case.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(transparent)]
pub struct CountryCode(String);

impl CountryCode {
    /// # Errors
    /// `parameter_invalid` unless the code is two ASCII letters (lower case is upper-cased).
    pub fn new(code: &str) -> Result<Self, Invalid> {
        if code.len() != 2 || !code.bytes().all(|b| b.is_ascii_alphabetic()) {
            return Err(Invalid::value(format!("{code} is not a two-letter ISO country code.")));
        }
        Ok(Self(code.to_ascii_uppercase()))
    }

    #[must_use]
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn new_customer() -> NewCustomer {
        NewCustomer {
            name: CustomerName::new("Juan dela Cruz".into()).unwrap(),
            email: Email::new("juan@example.com".into()).unwrap(),
            currency: Currency::Php,
            billing_statement_prefix: None,
            next_billing_statement_sequence_number: None,
            billing: None,
            metadata: None,
        }
    }

    fn customer() -> Customer {
        Customer::create(
            CustomerId::from_random("c1"),
            AccountId::from_random("a1"),
            false,
            new_customer(),
            BillingStatementPrefix::generate("abcd1234xyz").unwrap(),
            Timestamp::from_unix_seconds(100),
        )
    }

    #[test]
    fn a_new_customer_gets_the_generated_prefix_and_sequence_one() {
        let customer = customer();
        assert_eq!(customer.billing_statement_prefix.as_str(), "ABCD1234");
        assert_eq!(customer.next_billing_statement_sequence_number.to_string(), "1");
        assert_eq!(customer.version, 1);
        assert!(!customer.is_deleted());
    }

    #[test]
    fn statement_prefixes_are_3_to_15_upper_case_letters_or_digits() {
        assert!(BillingStatementPrefix::new("AB1".into()).is_ok());
        assert!(BillingStatementPrefix::new("ABCDEFGHIJKLMN5".into()).is_ok());
        assert_eq!(
            BillingStatementPrefix::new("AB".into()).unwrap_err().detail,
            "The billing statement prefix must be 3 to 15 upper-case letters or digits."
        );
        assert_eq!(
            BillingStatementPrefix::new("ABCDEFGHIJKLMNOP".into()).unwrap_err().detail,
            "The billing statement prefix must be 3 to 15 upper-case letters or digits."
        );
        assert_eq!(
            BillingStatementPrefix::new("abc".into()).unwrap_err().detail,
            "The billing statement prefix must be 3 to 15 upper-case letters or digits."
        );
        assert_eq!(
            BillingStatementPrefix::new("AB-C".into()).unwrap_err().detail,
            "The billing statement prefix must be 3 to 15 upper-case letters or digits."
        );
        assert_eq!(
            BillingStatementPrefix::generate("abc").unwrap_err().detail,
            "Not enough random characters for a prefix."
        );
    }

    #[test]
    fn sequence_numbers_are_positive_whole_numbers_in_digits() {
        assert_eq!(SequenceNumber::parse("42").map(SequenceNumber::value), Ok(42));
        assert_eq!(SequenceNumber::parse("0").unwrap_err().code, ErrorCode::ParameterBelowMinimum);
        assert_eq!(
            SequenceNumber::parse("-1").unwrap_err().detail,
            "The sequence number must be a whole number written in digits."
        );
        assert_eq!(
            SequenceNumber::parse("1.5").unwrap_err().detail,
            "The sequence number must be a whole number written in digits."
        );
        assert_eq!(
            SequenceNumber::parse("").unwrap_err().detail,
            "The sequence number must be a whole number written in digits."
        );
        let too_large = SequenceNumber::parse("9999999999999").unwrap_err();
        assert_eq!(
            (too_large.code, too_large.detail.as_str()),
            (ErrorCode::ParameterAboveMaximum, "The sequence number must be at most 999999999999.")
        );
        assert_eq!(SequenceNumber::parse("0007").map(SequenceNumber::value), Ok(7));
    }

    #[test]
    fn emails_names_and_countries_are_checked() {
        assert!(Email::new("a@b.co".into()).is_ok());
        assert_eq!(
            Email::new("not-an-email".into()).unwrap_err().detail,
            "not-an-email is not a valid e-mail address: give the address alone, such as juan@example.com."
        );
        assert!(Email::new("a@".into()).unwrap_err().detail.starts_with("a@ is not a valid e-mail address"));
        for not_bare in [
            "Victim\r\nBcc: x@evil.example <juan@example.com>",
            "Juan <juan@example.com>",
            "juan@example.com, x@evil.example",
            "juan@example.com;x@evil.example",
            "juan@example.com\r\nBcc: x@evil.example",
            "\"juan x\"@example.com",
            "juan@[127.0.0.1]",
            "juan @example.com",
        ] {
            assert!(Email::new(not_bare.into()).is_err(), "{not_bare:?}");
        }
        assert!(Email::new("juan.dela-cruz+shop@mail.example.ph".into()).is_ok());
        assert_eq!(CustomerName::new("   ".into()).unwrap_err().detail, "The name must be 1 to 255 characters long.");
        assert_eq!(
            CustomerName::new("x".repeat(256)).unwrap_err().detail,
            "The name must be 1 to 255 characters long."
        );
        assert_eq!(CountryCode::new("ph").unwrap().as_str(), "PH");
        assert_eq!(CountryCode::new("PHL").unwrap_err().detail, "PHL is not a two-letter ISO country code.");
        assert_eq!(CountryCode::new("P1").unwrap_err().detail, "P1 is not a two-letter ISO country code.");
    }

    #[test]
    fn an_update_replaces_given_fields_and_bumps_the_version() {
        let mut customer = customer();
        let changes =
            CustomerChanges { name: Some(CustomerName::new("Maria".into()).unwrap()), ..CustomerChanges::default() };
        customer.update(changes, Timestamp::from_unix_seconds(200)).unwrap();
        assert_eq!(customer.name.as_str(), "Maria");
        assert_eq!(customer.email.as_str(), "juan@example.com");
        assert_eq!(customer.updated_at.unix_seconds(), 200);
        assert_eq!(customer.version, 2);
    }

    #[test]
    fn a_deleted_customer_can_be_neither_updated_nor_deleted_again() {
        let mut customer = customer();
        customer.delete(Timestamp::from_unix_seconds(300)).unwrap();
        assert!(customer.is_deleted());
        assert_eq!(
            customer.update(CustomerChanges::default(), Timestamp::from_unix_seconds(301)),
            Err(CustomerError::Deleted(customer.id.clone()))
        );
        assert_eq!(
            customer.delete(Timestamp::from_unix_seconds(302)),
            Err(CustomerError::Deleted(customer.id.clone()))
        );
    }
}
