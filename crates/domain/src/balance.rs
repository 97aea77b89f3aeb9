//! The balance of an account in a mode: a ledger of immutable entries, one for each movement of
//! the merchant's money. A paid payment adds its net amount, available for payout after its
//! method's settlement delay; a refund takes its amount away at once; a payout takes what it pays
//! out, and a failed payout gives it back. The balance at any moment is the sum of the entries
//! made by then; what is available is the sum of those available by then.

use crate::ids::{AccountId, BalanceEntryId, PaymentId, PayoutId, RefundId};
use crate::payment_method::PaymentMethodType;
use crate::time::Timestamp;

/// What moved the money.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum EntryType {
    /// A paid payment: its amount, less its fee.
    Payment,
    /// A refund of a payment: its amount, taken back.
    Refund,
    /// A payout: what it paid out to the bank account.
    Payout,
    /// A failed payout: its money, back in the balance.
    PayoutFailure,
}

impl EntryType {
    pub const ALL: [Self; 4] = [Self::Payment, Self::Refund, Self::Payout, Self::PayoutFailure];

    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Payment => "payment",
            Self::Refund => "refund",
            Self::Payout => "payout",
            Self::PayoutFailure => "payout_failure",
        }
    }

    #[must_use]
    pub fn parse(value: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|kind| kind.as_str() == value)
    }

    /// Whether a payout pays out entries of this type: payments, refunds and failed payouts' money
    /// do; a payout's own entry is the other side of its transactions.
    #[must_use]
    pub fn paid_out(self) -> bool {
        !matches!(self, Self::Payout)
    }
}

/// One movement of the balance. Never changed once made.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BalanceEntry {
    pub id: BalanceEntryId,
    pub account_id: AccountId,
    pub livemode: bool,
    pub entry_type: EntryType,
    /// The payment (`pay_`), refund (`re_`) or payout (`po_`) that moved the money.
    pub source_id: String,
    /// What moved, gross: positive into the balance, negative out of it.
    pub amount: i64,
    pub fee: i64,
    /// What moved, after fees: what the balance changes by.
    pub net_amount: i64,
    /// From when a payout may take it.
    pub available_at: Timestamp,
    pub created_at: Timestamp,
}

/// How long each method's money takes to become available for payout after a payment is paid.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SettlementDelays {
    pub card_seconds: i64,
    pub gcash_seconds: i64,
    pub maya_seconds: i64,
    pub billease_seconds: i64,
    pub qrph_seconds: i64,
}

const DAY: i64 = 24 * 60 * 60;

impl Default for SettlementDelays {
    /// Cards settle in two days, BillEase (paid by its lender) in three, the e-wallets and QR Ph
    /// the next day.
    fn default() -> Self {
        Self {
            card_seconds: 2 * DAY,
            gcash_seconds: DAY,
            maya_seconds: DAY,
            billease_seconds: 3 * DAY,
            qrph_seconds: DAY,
        }
    }
}

impl SettlementDelays {
    #[must_use]
    pub fn of(&self, method: PaymentMethodType) -> i64 {
        match method {
            PaymentMethodType::Card => self.card_seconds,
            PaymentMethodType::Gcash => self.gcash_seconds,
            PaymentMethodType::Maya => self.maya_seconds,
            PaymentMethodType::Billease => self.billease_seconds,
            PaymentMethodType::Qrph => self.qrph_seconds,
        }
    }
}

/// Where an entry's scope and time come from.
#[derive(Debug, Clone)]
pub struct EntryContext {
    pub id: BalanceEntryId,
    pub account_id: AccountId,
    pub livemode: bool,
    pub now: Timestamp,
}

impl BalanceEntry {
    /// A paid payment's money, available after its method's settlement delay.
    #[must_use]
    pub fn payment(
        context: EntryContext,
        payment: (&PaymentId, i64, i64, PaymentMethodType),
        delays: &SettlementDelays,
    ) -> Self {
        let (id, amount, fee, method) = payment;
        let available_at = context.now.plus_seconds(delays.of(method));
        Self::of(context, EntryType::Payment, id.as_str(), (amount, fee), available_at)
    }

    /// A refund: its amount leaves the balance at once, whatever is available.
    #[must_use]
    pub fn refund(context: EntryContext, refund: &RefundId, amount: i64) -> Self {
        let now = context.now;
        Self::of(context, EntryType::Refund, refund.as_str(), (-amount, 0), now)
    }

    /// A payout of `amount` (`net_amount` after fees): out of the balance as it is made.
    #[must_use]
    pub fn payout(context: EntryContext, payout: &PayoutId, amount: i64, net_amount: i64) -> Self {
        let now = context.now;
        Self::of(context, EntryType::Payout, payout.as_str(), (-amount, net_amount - amount), now)
    }

    /// A failed payout's money, back and available at once.
    #[must_use]
    pub fn payout_failure(context: EntryContext, payout: &PayoutId, amount: i64, net_amount: i64) -> Self {
        let now = context.now;
        Self::of(context, EntryType::PayoutFailure, payout.as_str(), (amount, amount - net_amount), now)
    }

    fn of(
        context: EntryContext,
        entry_type: EntryType,
        source_id: &str,
        (amount, fee): (i64, i64),
        available_at: Timestamp,
    ) -> Self {
        Self {
            id: context.id,
            account_id: context.account_id,
            livemode: context.livemode,
            entry_type,
            source_id: source_id.to_owned(),
            amount,
            fee,
            net_amount: amount - fee,
            available_at,
            created_at: context.now,
        }
    }
}

/// The balance at a moment: what a payout may take now, and what becomes available later.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Balance {
    pub available: i64,
    pub pending: i64,
}

impl Balance {
    /// The balance of `entries` at `now`: the sum of those made by then, split by availability.
    #[must_use]
    pub fn of<'a>(entries: impl IntoIterator<Item = &'a BalanceEntry>, now: Timestamp) -> Self {
        entries.into_iter().filter(|entry| entry.created_at <= now).fold(Self::default(), |balance, entry| {
            if entry.available_at <= now {
                Self { available: balance.available + entry.net_amount, ..balance }
            } else {
                Self { pending: balance.pending + entry.net_amount, ..balance }
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn context(n: u32, seconds: i64) -> EntryContext {
        EntryContext {
            id: BalanceEntryId::from_random(&format!("e{n}")),
            account_id: AccountId::from_random("a"),
            livemode: false,
            now: Timestamp::from_unix_seconds(seconds),
        }
    }

    #[test]
    fn a_payment_is_pending_until_its_method_settles_and_a_refund_leaves_at_once() {
        let delays = SettlementDelays::default();
        let paid = BalanceEntry::payment(
            context(1, 0),
            (&PaymentId::from_random("p"), 10_000, 350, PaymentMethodType::Card),
            &delays,
        );
        assert_eq!((paid.net_amount, paid.available_at), (9_650, Timestamp::from_unix_seconds(2 * DAY)));
        let refunded = BalanceEntry::refund(context(2, 60), &RefundId::from_random("r"), 4_000);
        assert_eq!((refunded.amount, refunded.net_amount), (-4_000, -4_000));
        let entries = [paid, refunded];
        assert_eq!(Balance::of(&entries, Timestamp::from_unix_seconds(30)), Balance { available: 0, pending: 9_650 });
        assert_eq!(
            Balance::of(&entries, Timestamp::from_unix_seconds(60)),
            Balance { available: -4_000, pending: 9_650 },
            "a refund larger than what is available leaves the balance negative, not lost"
        );
        assert_eq!(
            Balance::of(&entries, Timestamp::from_unix_seconds(2 * DAY)),
            Balance { available: 5_650, pending: 0 }
        );
    }

    #[test]
    fn a_payout_and_its_failure_cancel_out() {
        let payout = PayoutId::from_random("po");
        let out = BalanceEntry::payout(context(1, 10), &payout, 10_000, 9_650);
        let back = BalanceEntry::payout_failure(context(2, 20), &payout, 10_000, 9_650);
        assert_eq!((out.net_amount, back.net_amount), (-9_650, 9_650));
        assert_eq!(out.amount + back.amount, 0);
        assert!(!EntryType::Payout.paid_out() && EntryType::PayoutFailure.paid_out());
    }
}
