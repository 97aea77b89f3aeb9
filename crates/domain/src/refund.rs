//! Refunds of paid payments.

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

/// A refund. Test-mode and simulated refunds succeed at once.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refund {
    pub id: RefundId,
    pub account_id: AccountId,
    pub livemode: bool,
    pub amount: i64,
    pub currency: Currency,
    pub status: &'static str,
    pub description: Option<String>,
    pub reason: RefundReason,
    pub remarks: Option<String>,
    pub metadata: Option<Metadata>,
    pub payment_id: PaymentId,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
    pub version: i64,
}

impl Refund {
    /// Replaces the metadata.
    pub fn update(&mut self, metadata: Option<Metadata>, now: Timestamp) {
        if metadata.is_some() {
            self.metadata = metadata;
        }
        self.updated_at = now;
        self.version += 1;
    }
}
