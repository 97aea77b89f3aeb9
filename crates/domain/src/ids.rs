//! Typed resource ids with the spec's prefixes, and client secrets.
//!
//! An id is its prefix plus 32 alphanumerics: the creation time, then random characters. That part
//! comes from the caller (`IdGenerator::id_part`, a port), so this module stays pure.

use std::fmt;

/// Length of the part after the prefix of ids, and of the random part of client secrets.
pub const RANDOM_PART_LENGTH: usize = 32;

/// True when `random` has the shape of the part after an id's prefix (or of a secret's random part)
/// as this service generates them.
#[must_use]
pub fn is_random_part(random: &str) -> bool {
    random.len() == RANDOM_PART_LENGTH && random.bytes().all(|b| b.is_ascii_alphanumeric())
}

macro_rules! typed_ids {
    ($($(#[$doc:meta])* $name:ident = $prefix:literal;)+) => {
        $(
            $(#[$doc])*
            #[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
            pub struct $name(String);

            impl $name {
                /// The spec's prefix of this id type.
                pub const PREFIX: &'static str = $prefix;

                /// A new id from a freshly drawn part (`IdGenerator::id_part`).
                #[must_use]
                pub fn from_random(random: &str) -> Self {
                    Self(format!("{}{}", Self::PREFIX, random))
                }

                /// An id read back from storage or a request; `None` if it lacks this type's prefix.
                #[must_use]
                pub fn parse(value: &str) -> Option<Self> {
                    let rest = value.strip_prefix(Self::PREFIX)?;
                    (!rest.is_empty() && rest.bytes().all(|b| b.is_ascii_alphanumeric()))
                        .then(|| Self(value.to_owned()))
                }

                #[must_use]
                pub fn as_str(&self) -> &str {
                    &self.0
                }
            }

            impl fmt::Display for $name {
                fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                    f.write_str(&self.0)
                }
            }

            impl AsRef<str> for $name {
                fn as_ref(&self) -> &str {
                    &self.0
                }
            }
        )+

        /// The prefix of every id type the service mints, from the one list that declares them.
        pub const MINTED_PREFIXES: &[&str] = &[$($prefix),+];
    };
}

typed_ids! {
    /// A merchant account, the owner of every resource.
    AccountId = "acct_";
    /// A customer (`cus_`).
    CustomerId = "cus_";
    /// A payment intent (`pi_`).
    PaymentIntentId = "pi_";
    /// A payment: one attempt to move money (`pay_`).
    PaymentId = "pay_";
    /// A refund (`re_`).
    RefundId = "re_";
    /// An event in the outbox (`evt_`).
    EventId = "evt_";
    /// A customer session, which lets a browser use the customer's saved payment methods (`cus_s_`).
    CustomerSessionId = "cus_s_";
    /// A setup intent, which saves a payment method for later (`si_`).
    SetupIntentId = "si_";
    /// A payment method as attached to an intent, or saved to a customer (`pm_`).
    PaymentMethodId = "pm_";
    /// A checkout session: a hosted page where a customer pays for line items (`cs_`).
    CheckoutSessionId = "cs_";
    /// A line item of a checkout session (`cs_li_`).
    CheckoutSessionLineItemId = "cs_li_";
    /// A billing statement: `bstm_…`.
    BillingStatementId = "bstm_";
    /// A line item of a billing statement: `bstm_li_…`.
    BillingStatementLineItemId = "bstm_li_";
    /// An e-mail in the outbox: `mail_…` (the spec names none).
    MailMessageId = "mail_";
    /// A webhook endpoint (`wh_`).
    WebhookId = "wh_";
    /// One delivery of one event to one webhook (`whd_`).
    DeliveryId = "whd_";
    /// One request in an account's request log (`req_`).
    RequestLogId = "req_";
    /// One movement of an account's balance (`bal_`; PayRex shows none).
    BalanceEntryId = "bal_";
    /// A payout to the merchant's bank account (`po_`).
    PayoutId = "po_";
    /// One line of a payout (`po_txn_`).
    PayoutTransactionId = "po_txn_";
    /// A product a merchant sells on its pages (`prod_`; the spec names only `product_id`).
    ProductId = "prod_";
    /// A price of a product (`price_`; the spec names only `price_id`).
    PriceId = "price_";
    /// A page: a reusable payment page with a public address (`page_`).
    PageId = "page_";
    /// A custom field of a page (`page_cf_`): the `id` of a page session's answer.
    CustomFieldId = "page_cf_";
    /// A line of a page session's storefront order (`page_li_`).
    PageLineItemId = "page_li_";
    /// An account's live processor connector (`conn_`; PayRex has none): unguessable, since the
    /// processor's webhooks come to an address made from it.
    ConnectorAccountId = "conn_";
}

/// Whether `text` is an id as this service mints them: a prefix of [`MINTED_PREFIXES`] and a
/// random part (see [`is_random_part`]).
#[must_use]
pub fn is_minted_id(text: &str) -> bool {
    MINTED_PREFIXES.iter().any(|prefix| text.strip_prefix(prefix).is_some_and(is_random_part))
}

/// Whether `text` is the id of an object a merchant works with (a customer, an intent, a webhook …):
/// one of the minted prefixes but those of the account and of the service's own records, and
/// alphanumerics. A new id type is an object's unless named here.
#[must_use]
pub fn is_object_id(text: &str) -> bool {
    const NOT_OBJECTS: [&str; 4] =
        [AccountId::PREFIX, MailMessageId::PREFIX, RequestLogId::PREFIX, ConnectorAccountId::PREFIX];
    MINTED_PREFIXES.iter().filter(|prefix| !NOT_OBJECTS.contains(prefix)).any(|prefix| {
        text.strip_prefix(prefix)
            .is_some_and(|rest| !rest.is_empty() && rest.bytes().all(|b| b.is_ascii_alphanumeric()))
    })
}

/// The secret that lets a browser read and pay one object with a public key:
/// `<object id>_secret_<random>`. `Debug` never shows it.
#[derive(Clone, PartialEq, Eq)]
pub struct ClientSecret(String);

impl ClientSecret {
    /// What stands between the object's id and the random part.
    pub const MARK: &'static str = "_secret_";

    #[must_use]
    pub fn new(object_id: &str, random: &str) -> Self {
        Self(format!("{object_id}{}{random}", Self::MARK))
    }

    /// The id of the object a presented secret names (the part before [`ClientSecret::MARK`]), if
    /// it has the shape of a client secret; whether it is that object's secret is for
    /// [`ClientSecret::matches`] to say.
    #[must_use]
    pub fn object_id(presented: &str) -> Option<&str> {
        presented.split_once(Self::MARK).map(|(object, _)| object).filter(|object| !object.is_empty())
    }

    /// A stored secret read back.
    #[must_use]
    pub fn from_stored(value: String) -> Self {
        Self(value)
    }

    /// Compares a presented secret in time independent of where they differ.
    #[must_use]
    pub fn matches(&self, presented: &str) -> bool {
        let (a, b) = (self.0.as_bytes(), presented.as_bytes());
        a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
    }

    #[must_use]
    pub fn reveal(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for ClientSecret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ClientSecret([redacted])")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const RANDOM: &str = "abcdefghijklmnopqrstuvwxyz012345";

    #[test]
    fn a_new_id_is_the_prefix_and_the_random_part() {
        let id = CustomerId::from_random(RANDOM);
        assert_eq!(id.as_str(), "cus_abcdefghijklmnopqrstuvwxyz012345");
        assert!(is_random_part(RANDOM));
    }

    #[test]
    fn parsing_requires_the_prefix_of_the_type() {
        assert!(CustomerId::parse("cus_abc123").is_some());
        assert!(CustomerId::parse("acct_abc123").is_none());
        assert!(CustomerId::parse("cus_").is_none());
        assert!(CustomerId::parse("cus_abc-123").is_none());
        assert!(AccountId::parse("acct_abc123").is_some());
    }

    #[test]
    fn client_secrets_name_their_object_and_hide_in_debug() {
        let secret = ClientSecret::new("pi_abc", RANDOM);
        assert_eq!(secret.reveal(), format!("pi_abc_secret_{RANDOM}"));
        assert!(secret.matches(&format!("pi_abc_secret_{RANDOM}")));
        assert!(!secret.matches("pi_abc_secret_x"));
        assert!(!format!("{secret:?}").contains(RANDOM));
        assert_eq!(ClientSecret::object_id(secret.reveal()), Some("pi_abc"));
        assert_eq!(ClientSecret::object_id("pi_abc"), None);
        assert_eq!(ClientSecret::object_id("_secret_x"), None);
    }

    #[test]
    fn a_random_part_is_32_alphanumerics() {
        assert!(!is_random_part("short"));
        assert!(!is_random_part("abcdefghijklmnopqrstuvwxyz01234_"));
    }
}
