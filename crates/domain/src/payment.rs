//! Payments: each attempt to move money, paid or failed, with its fee and refunds.

use crate::description::Description;
use crate::error::DomainError;
use crate::ids::{AccountId, CustomerId, PaymentId, PaymentIntentId, RefundId};
use crate::metadata::Metadata;
use crate::money::Currency;
use crate::page::PageSession;
use crate::payment_intent::{Attempt, IntentOwner, PaymentIntent};
use crate::payment_method::PaymentBilling;
use crate::payment_method::{PaymentMethodRecord, PaymentMethodType};
use crate::refund::{NewRefund, Refund};
use crate::time::Timestamp;
use crate::validation::{ErrorCode, FieldError};

const RESOURCE: &str = "payment";

/// Whether money moved.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PaymentStatus {
    Paid,
    Failed,
}

impl PaymentStatus {
    pub const ALL: [Self; 2] = [Self::Paid, Self::Failed];

    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Paid => "paid",
            Self::Failed => "failed",
        }
    }

    #[must_use]
    pub fn parse(value: &str) -> Option<Self> {
        match value {
            "paid" => Some(Self::Paid),
            "failed" => Some(Self::Failed),
            _ => None,
        }
    }
}

/// The fee of a payment method: basis points of the amount plus fixed centavos.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FeeRate {
    pub basis_points: i64,
    pub fixed: i64,
}

impl FeeRate {
    /// The fee of `amount`, rounded half up to the centavo and never more than the amount.
    #[must_use]
    pub fn fee(self, amount: i64) -> i64 {
        let proportional = (i128::from(amount) * i128::from(self.basis_points) + 5_000) / 10_000;
        let fee = i64::try_from(proportional).unwrap_or(i64::MAX).saturating_add(self.fixed);
        fee.clamp(0, amount)
    }
}

/// The fee rate of each payment method.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FeeSchedule {
    pub card: FeeRate,
    pub gcash: FeeRate,
    pub maya: FeeRate,
    pub billease: FeeRate,
    pub qrph: FeeRate,
}

impl FeeSchedule {
    #[must_use]
    pub fn rate(&self, method: PaymentMethodType) -> FeeRate {
        match method {
            PaymentMethodType::Card => self.card,
            PaymentMethodType::Gcash => self.gcash,
            PaymentMethodType::Maya => self.maya,
            PaymentMethodType::Billease => self.billease,
            PaymentMethodType::Qrph => self.qrph,
        }
    }
}

/// A payment. Its fields change only through its own methods (update, refund).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Payment {
    id: PaymentId,
    account_id: AccountId,
    livemode: bool,
    amount: i64,
    amount_refunded: i64,
    billing: Option<PaymentBilling>,
    currency: Currency,
    description: Option<Description>,
    fee: i64,
    metadata: Option<Metadata>,
    net_amount: i64,
    payment_intent_id: PaymentIntentId,
    customer_id: Option<CustomerId>,
    origin: String,
    /// The order placed on a page that the payment pays, for a page's payment.
    page_session: Option<PageSession>,
    status: PaymentStatus,
    payment_method: PaymentMethodRecord,
    refunded: bool,
    created_at: Timestamp,
    updated_at: Timestamp,
    version: i64,
}

/// A payment as a repository stores it, to restore it with [`Payment::restore`].
#[derive(Debug, Clone)]
pub struct StoredPayment {
    pub id: PaymentId,
    pub account_id: AccountId,
    pub livemode: bool,
    pub amount: i64,
    pub amount_refunded: i64,
    pub billing: Option<PaymentBilling>,
    pub currency: Currency,
    pub description: Option<Description>,
    pub fee: i64,
    pub metadata: Option<Metadata>,
    pub net_amount: i64,
    pub payment_intent_id: PaymentIntentId,
    pub customer_id: Option<CustomerId>,
    pub origin: String,
    pub page_session: Option<PageSession>,
    pub status: PaymentStatus,
    pub payment_method: PaymentMethodRecord,
    pub refunded: bool,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
    pub version: i64,
}

impl Payment {
    /// A payment read back from storage.
    #[must_use]
    pub fn restore(stored: StoredPayment) -> Self {
        let StoredPayment {
            id,
            account_id,
            livemode,
            amount,
            amount_refunded,
            billing,
            currency,
            description,
            fee,
            metadata,
            net_amount,
            payment_intent_id,
            customer_id,
            origin,
            page_session,
            status,
            payment_method,
            refunded,
            created_at,
            updated_at,
            version,
        } = stored;
        Self {
            id,
            account_id,
            livemode,
            amount,
            amount_refunded,
            billing,
            currency,
            description,
            fee,
            metadata,
            net_amount,
            payment_intent_id,
            customer_id,
            origin,
            page_session,
            status,
            payment_method,
            refunded,
            created_at,
            updated_at,
            version,
        }
    }

    #[must_use]
    pub fn id(&self) -> &PaymentId {
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
    pub fn amount(&self) -> i64 {
        self.amount
    }

    #[must_use]
    pub fn amount_refunded(&self) -> i64 {
        self.amount_refunded
    }

    #[must_use]
    pub fn billing(&self) -> Option<&PaymentBilling> {
        self.billing.as_ref()
    }

    #[must_use]
    pub fn currency(&self) -> Currency {
        self.currency
    }

    #[must_use]
    pub fn description(&self) -> Option<&Description> {
        self.description.as_ref()
    }

    #[must_use]
    pub fn fee(&self) -> i64 {
        self.fee
    }

    #[must_use]
    pub fn metadata(&self) -> Option<&Metadata> {
        self.metadata.as_ref()
    }

    #[must_use]
    pub fn net_amount(&self) -> i64 {
        self.net_amount
    }

    #[must_use]
    pub fn payment_intent_id(&self) -> &PaymentIntentId {
        &self.payment_intent_id
    }

    #[must_use]
    pub fn customer_id(&self) -> Option<&CustomerId> {
        self.customer_id.as_ref()
    }

    #[must_use]
    pub fn origin(&self) -> &str {
        &self.origin
    }

    /// The order placed on a page that the payment pays (the spec's `page_session`).
    #[must_use]
    pub fn page_session(&self) -> Option<&PageSession> {
        self.page_session.as_ref()
    }

    #[must_use]
    pub fn status(&self) -> PaymentStatus {
        self.status
    }

    #[must_use]
    pub fn payment_method(&self) -> &PaymentMethodRecord {
        &self.payment_method
    }

    #[must_use]
    pub fn refunded(&self) -> bool {
        self.refunded
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

impl Payment {
    /// The paid payment of `amount` an intent's attempt produced; metadata is copied from the intent.
    #[must_use]
    pub fn paid(
        id: PaymentId,
        intent: &PaymentIntent,
        amount: i64,
        attempt: Attempt,
        rate: FeeRate,
        now: Timestamp,
    ) -> Self {
        let fee = rate.fee(amount);
        Self::from_attempt(id, intent, amount, attempt, PaymentStatus::Paid, fee, now)
    }

    /// A paid payment of an intent's attempt that a live processor captured, with the processor's
    /// own fee (its net is what the processor pays out).
    #[must_use]
    pub fn paid_at_processor(
        id: PaymentId,
        intent: &PaymentIntent,
        amount: i64,
        fee: i64,
        attempt: Attempt,
        now: Timestamp,
    ) -> Self {
        Self::from_attempt(id, intent, amount, attempt, PaymentStatus::Paid, fee, now)
    }

    /// The failed payment of an intent's attempt.
    #[must_use]
    pub fn failed(id: PaymentId, intent: &PaymentIntent, attempt: Attempt, now: Timestamp) -> Self {
        Self::from_attempt(id, intent, intent.amount().centavos(), attempt, PaymentStatus::Failed, 0, now)
    }

    fn from_attempt(
        id: PaymentId,
        intent: &PaymentIntent,
        amount: i64,
        attempt: Attempt,
        status: PaymentStatus,
        fee: i64,
        now: Timestamp,
    ) -> Self {
        let net_amount = match status {
            PaymentStatus::Paid => amount - fee,
            PaymentStatus::Failed => 0,
        };
        Self {
            id,
            account_id: intent.account_id().clone(),
            livemode: intent.livemode(),
            amount,
            amount_refunded: 0,
            billing: attempt.billing,
            currency: intent.currency(),
            description: intent.description().cloned(),
            fee,
            metadata: intent.metadata().cloned(),
            net_amount,
            payment_intent_id: intent.id().clone(),
            customer_id: intent.customer_id().cloned(),
            origin: IntentOwner::payment_origin(intent.owner()).to_owned(),
            page_session: intent.page_session().cloned(),
            status,
            payment_method: attempt.payment_method,
            refunded: false,
            created_at: now,
            updated_at: now,
            version: 1,
        }
    }

    /// Updates the merchant's fields.
    pub fn update(&mut self, description: Option<Description>, metadata: Option<Metadata>, now: Timestamp) {
        if description.is_some() {
            self.description = description;
        }
        if metadata.is_some() {
            self.metadata = metadata;
        }
        self.touch(now);
    }

    /// What is left to refund.
    #[must_use]
    pub fn refundable(&self) -> i64 {
        self.amount - self.amount_refunded
    }

    /// Refunds part or all of a paid payment and returns the refund; refunds never add up to more
    /// than the payment.
    ///
    /// # Errors
    /// `resource_invalid_state` for a failed payment; `parameter_invalid` on `payment_id` for QR Ph or
    /// on `currency` for another currency; `parameter_below_minimum` / `parameter_above_maximum` on
    /// `amount`.
    pub fn refund(&mut self, id: RefundId, new: NewRefund, now: Timestamp) -> Result<Refund, DomainError> {
        let amount = new.amount;
        match self.status {
            PaymentStatus::Paid => {}
            PaymentStatus::Failed => {
                return Err(DomainError::InvalidState {
                    resource: RESOURCE,
                    status: self.status.as_str(),
                    action: "refund",
                })
            }
        }
        if self.payment_method.method == PaymentMethodType::Qrph {
            return Err(DomainError::Invalid(FieldError::invalid(
                "payment_id",
                "Payments made with QR Ph cannot be refunded.",
            )));
        }
        if new.currency != self.currency {
            return Err(DomainError::Invalid(FieldError::invalid(
                "currency",
                "The currency must be the payment's currency.",
            )));
        }
        if amount < 1 {
            return Err(DomainError::Invalid(FieldError::new(
                "amount",
                ErrorCode::ParameterBelowMinimum,
                "The refund amount must be at least 1.",
            )));
        }
        if amount > self.refundable() {
            return Err(DomainError::Invalid(FieldError::new(
                "amount",
                ErrorCode::ParameterAboveMaximum,
                format!("The refund amount must be at most the {} left to refund.", self.refundable()),
            )));
        }
        self.amount_refunded += amount;
        self.refunded = true;
        self.touch(now);
        Ok(Refund::create(id, self.account_id.clone(), self.livemode, self.id.clone(), new, now))
    }

    /// A refund that failed at the processor gives its amount back: it may be refunded again.
    ///
    /// # Errors
    /// `resource_invalid_state` for a refund of another payment, or one not failed.
    pub fn give_back_refund(&mut self, refund: &Refund, now: Timestamp) -> Result<(), DomainError> {
        if refund.payment_id() != &self.id || refund.status() != crate::refund::RefundStatus::Failed {
            return Err(DomainError::InvalidState {
                resource: RESOURCE,
                status: self.status.as_str(),
                action: "give back a refund of",
            });
        }
        self.amount_refunded = (self.amount_refunded - refund.amount()).max(0);
        self.refunded = self.amount_refunded > 0;
        self.touch(now);
        Ok(())
    }

    /// The payment as it was before `refund` counted against it: what `payment.refunded`'s event
    /// shows as the previous state of a live refund held while the processor was asked.
    #[must_use]
    pub fn before_refund(&self, refund: &Refund) -> Self {
        let mut before = self.clone();
        before.amount_refunded = (self.amount_refunded - refund.amount()).max(0);
        before.refunded = before.amount_refunded > 0;
        before
    }

    /// What of the payment may still be refunded now, if any: decided by [`Payment::refund`] itself,
    /// tried on a copy for the whole amount left, so a page offers exactly what the API takes.
    #[must_use]
    pub fn refundable_now(&self, now: Timestamp) -> Option<i64> {
        let whole = NewRefund {
            amount: self.refundable(),
            currency: self.currency,
            payment_id: self.id.to_string(),
            reason: crate::refund::RefundReason::Others,
            description: None,
            remarks: None,
            metadata: None,
        };
        let refunded = self.clone().refund(RefundId::from_random("whole"), whole, now);
        refunded.ok().map(|_| self.refundable())
    }

    fn touch(&mut self, now: Timestamp) {
        self.updated_at = now;
        self.version += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fees_are_basis_points_plus_fixed_and_never_exceed_the_amount() {
        let card = FeeRate { basis_points: 350, fixed: 1_500 };
        assert_eq!(card.fee(10_000), 350 + 1_500);
        assert_eq!(card.fee(10_001), 350 + 1_500);
        assert_eq!(FeeRate { basis_points: 250, fixed: 0 }.fee(2_002), 50);
        assert_eq!(FeeRate { basis_points: 0, fixed: 5_000 }.fee(2_000), 2_000);
        assert_eq!(FeeRate { basis_points: 350, fixed: 1_500 }.fee(5_999_999_999), 210_001_500);
    }
}
