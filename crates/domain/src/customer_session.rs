//! Customer sessions: what the client-side payment element may do with a customer's saved payment
//! methods, for 24 hours.

use crate::ids::{AccountId, ClientSecret, CustomerId, CustomerSessionId};
use crate::time::Timestamp;
use crate::validation::Invalid;
use serde::{Deserialize, Serialize};

/// How long a session lasts.
pub const SESSION_SECONDS: i64 = 24 * 60 * 60;

/// What a component lets the customer do with saved payment methods.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum Feature {
    /// Save more payment methods.
    PaymentMethodSave,
    /// Delete saved payment methods.
    PaymentMethodRemove,
    /// Pay with a saved payment method (the session shows them).
    PaymentMethodRedisplay,
    /// In the seed's resource without a meaning; accepted and shown, and it grants nothing here.
    PaymentMethodEdit,
}

impl Feature {
    pub const ALL: [Self; 4] =
        [Self::PaymentMethodSave, Self::PaymentMethodRemove, Self::PaymentMethodRedisplay, Self::PaymentMethodEdit];

    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Self::PaymentMethodSave => "payment_method_save",
            Self::PaymentMethodRemove => "payment_method_remove",
            Self::PaymentMethodRedisplay => "payment_method_redisplay",
            Self::PaymentMethodEdit => "payment_method_edit",
        }
    }

    /// # Errors
    /// `parameter_invalid` for an unknown feature.
    pub fn parse(value: &str) -> Result<Self, Invalid> {
        Self::ALL.into_iter().find(|feature| feature.as_str() == value).ok_or_else(|| {
            Invalid::value(format!(
                "{value} is not a feature; use payment_method_save, payment_method_remove, \
                 payment_method_redisplay or payment_method_edit."
            ))
        })
    }
}

/// One setting of the payment element: `{"component": "payment_element", "feature": …, "value":
/// "enabled" | "disabled"}`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Component {
    /// The only component there is: `payment_element`.
    pub component: ComponentName,
    pub feature: Feature,
    pub value: Toggle,
}

/// The components a session can configure.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum ComponentName {
    PaymentElement,
}

impl ComponentName {
    pub const ALL: [Self; 1] = [Self::PaymentElement];

    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Self::PaymentElement => "payment_element",
        }
    }

    /// # Errors
    /// `parameter_invalid` for anything but `payment_element`.
    pub fn parse(value: &str) -> Result<Self, Invalid> {
        Self::ALL
            .into_iter()
            .find(|name| name.as_str() == value)
            .ok_or_else(|| Invalid::value(format!("{value} is not a component; use payment_element.")))
    }
}

/// Whether a feature is on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum Toggle {
    Enabled,
    Disabled,
}

impl Toggle {
    pub const ALL: [Self; 2] = [Self::Enabled, Self::Disabled];

    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Enabled => "enabled",
            Self::Disabled => "disabled",
        }
    }

    /// # Errors
    /// `parameter_invalid` for anything but `enabled` or `disabled`.
    pub fn parse(value: &str) -> Result<Self, Invalid> {
        Self::ALL
            .into_iter()
            .find(|toggle| toggle.as_str() == value)
            .ok_or_else(|| Invalid::value(format!("{value} is not a value; use enabled or disabled.")))
    }
}

/// A customer session. It never changes after creation; it only expires.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CustomerSession {
    pub id: CustomerSessionId,
    pub account_id: AccountId,
    pub livemode: bool,
    pub customer_id: CustomerId,
    pub client_secret: ClientSecret,
    pub components: Vec<Component>,
    pub expired_at: Timestamp,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
}

impl CustomerSession {
    /// A session for the customer that expires [`SESSION_SECONDS`] after `now`.
    #[must_use]
    pub fn create(
        id: CustomerSessionId,
        account_id: AccountId,
        livemode: bool,
        client_secret: ClientSecret,
        customer_id: CustomerId,
        components: Vec<Component>,
        now: Timestamp,
    ) -> Self {
        Self {
            id,
            account_id,
            livemode,
            customer_id,
            client_secret,
            components,
            expired_at: now.plus_seconds(SESSION_SECONDS),
            created_at: now,
            updated_at: now,
        }
    }

    #[must_use]
    pub fn expired(&self, now: Timestamp) -> bool {
        now >= self.expired_at
    }

    /// Whether the session grants `feature` at `now`: enabled by its last component that names it,
    /// and not expired.
    #[must_use]
    pub fn allows(&self, feature: Feature, now: Timestamp) -> bool {
        !self.expired(now)
            && self.components.iter().rev().find(|c| c.feature == feature).is_some_and(|c| c.value == Toggle::Enabled)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn session(components: Vec<Component>) -> CustomerSession {
        let id = CustomerSessionId::from_random("session");
        let secret = ClientSecret::new(id.as_str(), "secret");
        let customer = CustomerId::from_random("customer");
        let account = AccountId::from_random("acct");
        CustomerSession::create(id, account, false, secret, customer, components, Timestamp::from_unix_seconds(0))
    }

    fn component(feature: Feature, value: Toggle) -> Component {
        Component { component: ComponentName::PaymentElement, feature, value }
    }

    #[test]
    fn a_feature_is_granted_only_when_enabled_and_not_expired() {
        let session = session(vec![
            component(Feature::PaymentMethodRemove, Toggle::Enabled),
            component(Feature::PaymentMethodRedisplay, Toggle::Disabled),
        ]);
        let now = Timestamp::from_unix_seconds(60);
        assert!(session.allows(Feature::PaymentMethodRemove, now));
        assert!(!session.allows(Feature::PaymentMethodRedisplay, now), "disabled");
        assert!(!session.allows(Feature::PaymentMethodSave, now), "not named is not granted");
        let expiry = Timestamp::from_unix_seconds(SESSION_SECONDS);
        assert!(session.expired(expiry) && !session.allows(Feature::PaymentMethodRemove, expiry));
    }

    #[test]
    fn unknown_features_components_and_values_are_refused() {
        assert_eq!(Feature::parse("payment_method_edit"), Ok(Feature::PaymentMethodEdit));
        assert!(Feature::parse("payment_method_steal").unwrap_err().detail.starts_with("payment_method_steal is not"));
        assert!(ComponentName::parse("buy_button").unwrap_err().detail.contains("payment_element"));
        assert!(Toggle::parse("on").unwrap_err().detail.contains("enabled or disabled"));
    }
}
