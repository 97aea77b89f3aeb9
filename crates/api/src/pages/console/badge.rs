//! How a status shows in the console: a badge whose colour says whether it ended well, ended badly,
//! or waits. Each status enum gives every one of its statuses a tone by an exhaustive match, so a
//! new status does not compile until it has one.

use payments_domain::billing_statement::BillingStatementStatus;
use payments_domain::checkout_session::CheckoutSessionStatus;
use payments_domain::payment::PaymentStatus;
use payments_domain::payment_intent::PaymentIntentStatus;
use payments_domain::payout::PayoutStatus;
use payments_domain::refund::RefundStatus;
use payments_domain::webhook::WebhookStatus;

/// A badge's colour.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Tone {
    /// Done, as hoped: paid, delivered, enabled.
    Good,
    /// Ended without the money or the delivery: failed, canceled, expired, disabled.
    Bad,
    /// Not done yet: waiting on the customer, the bank or the merchant.
    Wait,
}

impl Tone {
    /// The class the console's style sheet colours it by.
    pub(super) fn class(self) -> &'static str {
        match self {
            Self::Good => "good",
            Self::Bad => "bad",
            Self::Wait => "wait",
        }
    }
}

/// A status the console shows as a badge.
pub(super) trait Badge: Copy {
    /// The status's name, as the API spells it.
    fn name(self) -> &'static str;
    fn tone(self) -> Tone;
}

impl Badge for PaymentIntentStatus {
    fn name(self) -> &'static str {
        self.as_str()
    }
    fn tone(self) -> Tone {
        match self {
            Self::Succeeded => Tone::Good,
            Self::Canceled => Tone::Bad,
            Self::AwaitingPaymentMethod | Self::AwaitingNextAction | Self::Processing | Self::AwaitingCapture => {
                Tone::Wait
            }
        }
    }
}

impl Badge for PaymentStatus {
    fn name(self) -> &'static str {
        self.as_str()
    }
    fn tone(self) -> Tone {
        match self {
            Self::Paid => Tone::Good,
            Self::Failed => Tone::Bad,
        }
    }
}

impl Badge for RefundStatus {
    fn name(self) -> &'static str {
        self.as_str()
    }
    fn tone(self) -> Tone {
        match self {
            Self::Succeeded => Tone::Good,
            Self::Failed => Tone::Bad,
            Self::Pending => Tone::Wait,
        }
    }
}

impl Badge for PayoutStatus {
    fn name(self) -> &'static str {
        self.as_str()
    }
    fn tone(self) -> Tone {
        match self {
            Self::Successful => Tone::Good,
            Self::Failed => Tone::Bad,
            Self::Pending | Self::InTransit => Tone::Wait,
        }
    }
}

impl Badge for CheckoutSessionStatus {
    fn name(self) -> &'static str {
        self.as_str()
    }
    fn tone(self) -> Tone {
        match self {
            Self::Active | Self::Completed => Tone::Good,
            Self::Expired => Tone::Bad,
        }
    }
}

impl Badge for BillingStatementStatus {
    fn name(self) -> &'static str {
        self.as_str()
    }
    fn tone(self) -> Tone {
        match self {
            Self::Paid => Tone::Good,
            Self::Void | Self::Uncollectible => Tone::Bad,
            Self::Draft | Self::Open => Tone::Wait,
        }
    }
}

impl Badge for WebhookStatus {
    fn name(self) -> &'static str {
        self.as_str()
    }
    fn tone(self) -> Tone {
        match self {
            Self::Enabled => Tone::Good,
            Self::Disabled => Tone::Bad,
        }
    }
}

/// Whether a product, a price or a page is offered: what archiving or deactivating changes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Offered {
    Active,
    /// A product or a price no longer sold.
    Archived,
    /// A page that takes no more orders.
    Inactive,
}

impl Badge for Offered {
    fn name(self) -> &'static str {
        match self {
            Self::Active => "active",
            Self::Archived => "archived",
            Self::Inactive => "inactive",
        }
    }
    fn tone(self) -> Tone {
        match self {
            Self::Active => Tone::Good,
            Self::Archived | Self::Inactive => Tone::Bad,
        }
    }
}
