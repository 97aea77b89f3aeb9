//! Refunds of paid payments.

use crate::description::Description;
use crate::error::DomainError;
use crate::ids::{AccountId, PaymentId, RefundId};
use crate::metadata::Metadata;
use crate::money::Currency;
use crate::time::Timestamp;
use crate::validation::Invalid;

/// Why a merchant refunds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RefundReason {
    Fraudulent,
    RequestedByCustomer,
    ProductOutOfStock,
    ServiceNotProvided,
    ProductWasDamaged,
    ServiceMisaligned,
    WrongProductReceived,
    Others,
}

impl RefundReason {
    pub const ALL: [Self; 8] = [
        Self::Fraudulent,
        Self::RequestedByCustomer,
        Self::ProductOutOfStock,
        Self::ServiceNotProvided,
        Self::ProductWasDamaged,
        Self::ServiceMisaligned,
        Self::WrongProductReceived,
        Self::Others,
    ];

    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Fraudulent => "fraudulent",
            Self::RequestedByCustomer => "requested_by_customer",
            Self::ProductOutOfStock => "product_out_of_stock",
            Self::ServiceNotProvided => "service_not_provided",
            Self::ProductWasDamaged => "product_was_damaged",
            Self::ServiceMisaligned => "service_misaligned",
            Self::WrongProductReceived => "wrong_product_received",
            Self::Others => "others",
        }
    }

    /// # Errors
    /// `parameter_invalid` for an unknown reason.
    pub fn parse(value: &str) -> Result<Self, Invalid> {
        Self::ALL
            .into_iter()
            .find(|reason| reason.as_str() == value)
            .ok_or_else(|| Invalid::value(format!("{value} is not a refund reason.")))
    }
}

/// Where a refund stands. A test-mode refund succeeds when it is made; a live one is `pending`
/// while the processor is asked, then `succeeded`, or `failed` with nothing returned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RefundStatus {
    Pending,
    Succeeded,
    Failed,
}

impl RefundStatus {
    pub const ALL: [Self; 3] = [Self::Pending, Self::Succeeded, Self::Failed];

    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Pending => "pending",
            Self::Succeeded => "succeeded",
            Self::Failed => "failed",
        }
    }

    #[must_use]
    pub fn parse(value: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|status| status.as_str() == value)
    }
}

/// What a merchant supplies to refund a payment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewRefund {
    pub amount: i64,
    pub currency: Currency,
    pub payment_id: String,
    pub reason: RefundReason,
    pub description: Option<Description>,
    pub remarks: Option<Description>,
    pub metadata: Option<Metadata>,
}

/// A refund. Test-mode and simulated refunds succeed at once.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refund {
    id: RefundId,
    account_id: AccountId,
    livemode: bool,
    amount: i64,
    currency: Currency,
    status: RefundStatus,
    description: Option<Description>,
    reason: RefundReason,
    remarks: Option<Description>,
    metadata: Option<Metadata>,
    payment_id: PaymentId,
    created_at: Timestamp,
    updated_at: Timestamp,
    version: i64,
}

/// A refund as a repository stores it, to restore it with [`Refund::restore`].
#[derive(Debug, Clone)]
pub struct StoredRefund {
    pub id: RefundId,
    pub account_id: AccountId,
    pub livemode: bool,
    pub amount: i64,
    pub currency: Currency,
    pub status: RefundStatus,
    pub description: Option<Description>,
    pub reason: RefundReason,
    pub remarks: Option<Description>,
    pub metadata: Option<Metadata>,
    pub payment_id: PaymentId,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
    pub version: i64,
}

impl Refund {
    /// A refund read back from storage.
    #[must_use]
    pub fn restore(stored: StoredRefund) -> Self {
        let StoredRefund {
            id,
            account_id,
            livemode,
            amount,
            currency,
            status,
            description,
            reason,
            remarks,
            metadata,
            payment_id,
            created_at,
            updated_at,
            version,
        } = stored;
        Self {
            id,
            account_id,
            livemode,
            amount,
            currency,
            status,
            description,
            reason,
            remarks,
            metadata,
            payment_id,
            created_at,
            updated_at,
            version,
        }
    }

    #[must_use]
    pub fn id(&self) -> &RefundId {
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
    pub fn currency(&self) -> Currency {
        self.currency
    }

    #[must_use]
    pub fn status(&self) -> RefundStatus {
        self.status
    }

    #[must_use]
    pub fn description(&self) -> Option<&Description> {
        self.description.as_ref()
    }

    #[must_use]
    pub fn reason(&self) -> RefundReason {
        self.reason
    }

    #[must_use]
    pub fn remarks(&self) -> Option<&Description> {
        self.remarks.as_ref()
    }

    #[must_use]
    pub fn metadata(&self) -> Option<&Metadata> {
        self.metadata.as_ref()
    }

    #[must_use]
    pub fn payment_id(&self) -> &PaymentId {
        &self.payment_id
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

impl Refund {
    /// The refund a payment made of itself (a payment is the only maker of refunds).
    pub(crate) fn create(
        id: RefundId,
        account_id: AccountId,
        livemode: bool,
        payment_id: PaymentId,
        new: NewRefund,
        now: Timestamp,
    ) -> Self {
        Self {
            id,
            account_id,
            livemode,
            amount: new.amount,
            currency: new.currency,
            status: RefundStatus::Succeeded,
            description: new.description,
            reason: new.reason,
            remarks: new.remarks,
            metadata: new.metadata,
            payment_id,
            created_at: now,
            updated_at: now,
            version: 1,
        }
    }

    /// The refund waits for a live processor's answer: its amount is held against the payment
    /// until then.
    #[must_use]
    pub fn pending(mut self) -> Self {
        self.status = RefundStatus::Pending;
        self
    }

    /// The processor answered: the refund succeeded, or failed and returned nothing (the payment
    /// gives its amount back, [`crate::payment::Payment::give_back_refund`]).
    ///
    /// # Errors
    /// `resource_invalid_state` unless pending.
    pub fn settle(&mut self, succeeded: bool, now: Timestamp) -> Result<(), DomainError> {
        if self.status != RefundStatus::Pending {
            return Err(DomainError::InvalidState {
                resource: "refund",
                status: self.status.as_str(),
                action: "settle",
            });
        }
        self.status = if succeeded { RefundStatus::Succeeded } else { RefundStatus::Failed };
        self.updated_at = now;
        self.version += 1;
        Ok(())
    }

    /// Replaces the metadata.
    pub fn update(&mut self, metadata: Option<Metadata>, now: Timestamp) {
        if metadata.is_some() {
            self.metadata = metadata;
        }
        self.updated_at = now;
        self.version += 1;
    }
}
