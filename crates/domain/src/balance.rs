//! The balance of an account in a mode: a ledger of immutable entries, one for each movement of
//! the merchant's money. A paid payment adds its net amount, available for payout after its
//! method's settlement delay; a refund takes its amount away at once; a payout takes what it pays
//! out, and a failed payout gives it back. The balance at any moment is the sum of the entries
//! made by then; what is available is the sum of those available by then.
//!
//! The ledger's invariant: a payout's entry takes out exactly the net of the entries it pays out
//! (and a failed payout's money comes back as an entry of its own, which no payout took yet), so at
//! the ledger's present the sum of every entry is the sum of the entries no payout took
//! ([`Balance::of_unpaid`]), which is what a store reads.

use crate::ids::{AccountId, BalanceEntryId, PaymentId, PayoutId, RefundId};
use crate::payment_method::PaymentMethodType;
use crate::time::Timestamp;
use crate::validation::Invalid;
use std::collections::HashSet;
use std::fmt;
use std::iter::Sum;
use std::ops::{Add, AddAssign, Neg, Sub};

/// Centavos that move in the ledger: positive into the balance, negative out of it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Centavos(i64);

impl Centavos {
    pub const ZERO: Self = Self(0);

    #[must_use]
    pub const fn new(centavos: i64) -> Self {
        Self(centavos)
    }

    /// The number of centavos.
    #[must_use]
    pub const fn get(self) -> i64 {
        self.0
    }

    #[must_use]
    pub const fn is_positive(self) -> bool {
        self.0 > 0
    }
}

impl Add for Centavos {
    type Output = Self;
    fn add(self, other: Self) -> Self {
        Self(self.0 + other.0)
    }
}

impl AddAssign for Centavos {
    fn add_assign(&mut self, other: Self) {
        self.0 += other.0;
    }
}

impl Sub for Centavos {
    type Output = Self;
    fn sub(self, other: Self) -> Self {
        Self(self.0 - other.0)
    }
}

impl Neg for Centavos {
    type Output = Self;
    fn neg(self) -> Self {
        Self(-self.0)
    }
}

impl Sum for Centavos {
    fn sum<I: Iterator<Item = Self>>(amounts: I) -> Self {
        amounts.fold(Self::ZERO, Add::add)
    }
}

impl<'a> Sum<&'a Centavos> for Centavos {
    fn sum<I: Iterator<Item = &'a Self>>(amounts: I) -> Self {
        amounts.copied().sum()
    }
}

impl fmt::Display for Centavos {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// What kind of movement an entry is, as stored and as a payout's line names it.
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
        match self {
            Self::Payment | Self::Refund | Self::PayoutFailure => true,
            Self::Payout => false,
        }
    }
}

/// What moved the money: the object an entry records, by its kind.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum EntrySource {
    Payment(PaymentId),
    Refund(RefundId),
    Payout(PayoutId),
    /// The payout that failed, whose money came back.
    PayoutFailure(PayoutId),
}

impl EntrySource {
    #[must_use]
    pub fn entry_type(&self) -> EntryType {
        match self {
            Self::Payment(_) => EntryType::Payment,
            Self::Refund(_) => EntryType::Refund,
            Self::Payout(_) => EntryType::Payout,
            Self::PayoutFailure(_) => EntryType::PayoutFailure,
        }
    }

    /// The id of the payment (`pay_`), refund (`re_`) or payout (`po_`).
    #[must_use]
    pub fn id(&self) -> &str {
        match self {
            Self::Payment(id) => id.as_str(),
            Self::Refund(id) => id.as_str(),
            Self::Payout(id) | Self::PayoutFailure(id) => id.as_str(),
        }
    }

    /// The source of a stored entry: its type and an id of that type's object; `None` when they
    /// disagree.
    #[must_use]
    pub fn parse(entry_type: EntryType, id: &str) -> Option<Self> {
        match entry_type {
            EntryType::Payment => PaymentId::parse(id).map(Self::Payment),
            EntryType::Refund => RefundId::parse(id).map(Self::Refund),
            EntryType::Payout => PayoutId::parse(id).map(Self::Payout),
            EntryType::PayoutFailure => PayoutId::parse(id).map(Self::PayoutFailure),
        }
    }

    /// Whether money of this source moves into the balance (a payment, a failed payout's money) or
    /// out of it (a refund, a payout).
    fn moves_in(&self) -> bool {
        match self {
            Self::Payment(_) | Self::PayoutFailure(_) => true,
            Self::Refund(_) | Self::Payout(_) => false,
        }
    }
}

/// One movement of the balance. Never changed once made.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BalanceEntry {
    id: BalanceEntryId,
    account_id: AccountId,
    livemode: bool,
    source: EntrySource,
    amount: Centavos,
    fee: Centavos,
    net_amount: Centavos,
    available_at: Timestamp,
    created_at: Timestamp,
}

/// A balance entry as a store keeps it, to restore with [`BalanceEntry::restore`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredBalanceEntry {
    pub id: BalanceEntryId,
    pub account_id: AccountId,
    pub livemode: bool,
    pub source: EntrySource,
    pub amount: i64,
    pub fee: i64,
    pub net_amount: i64,
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
        let (amount, fee) = (Centavos(amount), Centavos(fee));
        Self::of(context, EntrySource::Payment(id.clone()), (amount, fee), available_at)
    }

    /// A refund: its amount leaves the balance at once, whatever is available.
    #[must_use]
    pub fn refund(context: EntryContext, refund: &RefundId, amount: i64) -> Self {
        let now = context.now;
        Self::of(context, EntrySource::Refund(refund.clone()), (-Centavos(amount), Centavos::ZERO), now)
    }

    /// A payout of `amount` (`net_amount` after fees): out of the balance as it is made.
    #[must_use]
    pub fn payout(context: EntryContext, payout: &PayoutId, amount: Centavos, net_amount: Centavos) -> Self {
        let now = context.now;
        Self::of(context, EntrySource::Payout(payout.clone()), (-amount, net_amount - amount), now)
    }

    /// A failed payout's money, back and available at once.
    #[must_use]
    pub fn payout_failure(context: EntryContext, payout: &PayoutId, amount: Centavos, net_amount: Centavos) -> Self {
        let now = context.now;
        Self::of(context, EntrySource::PayoutFailure(payout.clone()), (amount, amount - net_amount), now)
    }

    fn of(
        context: EntryContext,
        source: EntrySource,
        (amount, fee): (Centavos, Centavos),
        available_at: Timestamp,
    ) -> Self {
        Self {
            id: context.id,
            account_id: context.account_id,
            livemode: context.livemode,
            source,
            amount,
            fee,
            net_amount: amount - fee,
            available_at,
            created_at: context.now,
        }
    }

    /// An entry read back from a store, held to what every entry is: its net is its amount less its
    /// fee, its money moves the way its source moves money, and it is not available before it was
    /// made.
    ///
    /// # Errors
    /// What a stored entry breaks.
    pub fn restore(stored: StoredBalanceEntry) -> Result<Self, Invalid> {
        let StoredBalanceEntry { id, account_id, livemode, source, amount, fee, net_amount, available_at, created_at } =
            stored;
        if amount.checked_sub(fee) != Some(net_amount) {
            return Err(Invalid::value(format!("Entry {id}: its net {net_amount} is not {amount} less {fee}.")));
        }
        let moves_the_right_way = if source.moves_in() { amount >= 0 } else { amount <= 0 };
        if !moves_the_right_way {
            return Err(Invalid::value(format!("Entry {id}: a {} of {amount}.", source.entry_type().as_str())));
        }
        if available_at < created_at {
            return Err(Invalid::value(format!("Entry {id}: available before it was made.")));
        }
        let (amount, fee, net_amount) = (Centavos(amount), Centavos(fee), Centavos(net_amount));
        Ok(Self { id, account_id, livemode, source, amount, fee, net_amount, available_at, created_at })
    }

    /// The entry as a store keeps it.
    #[must_use]
    pub fn stored(&self) -> StoredBalanceEntry {
        StoredBalanceEntry {
            id: self.id.clone(),
            account_id: self.account_id.clone(),
            livemode: self.livemode,
            source: self.source.clone(),
            amount: self.amount.get(),
            fee: self.fee.get(),
            net_amount: self.net_amount.get(),
            available_at: self.available_at,
            created_at: self.created_at,
        }
    }

    #[must_use]
    pub fn id(&self) -> &BalanceEntryId {
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
    /// The payment, refund or payout that moved the money.
    #[must_use]
    pub fn source(&self) -> &EntrySource {
        &self.source
    }
    #[must_use]
    pub fn entry_type(&self) -> EntryType {
        self.source.entry_type()
    }
    /// What moved, gross: positive into the balance, negative out of it.
    #[must_use]
    pub fn amount(&self) -> Centavos {
        self.amount
    }
    #[must_use]
    pub fn fee(&self) -> Centavos {
        self.fee
    }
    /// What moved, after fees: what the balance changes by.
    #[must_use]
    pub fn net_amount(&self) -> Centavos {
        self.net_amount
    }
    /// From when a payout may take it.
    #[must_use]
    pub fn available_at(&self) -> Timestamp {
        self.available_at
    }
    #[must_use]
    pub fn created_at(&self) -> Timestamp {
        self.created_at
    }
}

/// The balance at a moment: what a payout may take now, and what becomes available later.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Balance {
    pub available: Centavos,
    pub pending: Centavos,
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

    /// The balance at `now` from the entries no payout took (`paid_out` names those a payout
    /// took), as a store reads it: by the ledger's invariant (the module's header), the same as
    /// [`Balance::of`] every entry at the ledger's present, whatever its history.
    #[must_use]
    pub fn of_unpaid<'a>(
        entries: impl IntoIterator<Item = &'a BalanceEntry>,
        paid_out: &HashSet<BalanceEntryId>,
        now: Timestamp,
    ) -> Self {
        let unpaid = entries.into_iter().filter(|entry| entry.entry_type().paid_out() && !paid_out.contains(&entry.id));
        Self::of(unpaid, now)
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

    fn balance(available: i64, pending: i64) -> Balance {
        Balance { available: Centavos::new(available), pending: Centavos::new(pending) }
    }

    #[test]
    fn a_payment_is_pending_until_its_method_settles_and_a_refund_leaves_at_once() {
        let delays = SettlementDelays::default();
        let paid = BalanceEntry::payment(
            context(1, 0),
            (&PaymentId::from_random("p"), 10_000, 350, PaymentMethodType::Card),
            &delays,
        );
        assert_eq!((paid.net_amount().get(), paid.available_at()), (9_650, Timestamp::from_unix_seconds(2 * DAY)));
        let refunded = BalanceEntry::refund(context(2, 60), &RefundId::from_random("r"), 4_000);
        assert_eq!((refunded.amount().get(), refunded.net_amount().get()), (-4_000, -4_000));
        let entries = [paid, refunded];
        assert_eq!(Balance::of(&entries, Timestamp::from_unix_seconds(30)), balance(0, 9_650));
        assert_eq!(
            Balance::of(&entries, Timestamp::from_unix_seconds(60)),
            balance(-4_000, 9_650),
            "a refund larger than what is available leaves the balance negative, not lost"
        );
        assert_eq!(Balance::of(&entries, Timestamp::from_unix_seconds(2 * DAY)), balance(5_650, 0));
    }

    #[test]
    fn a_payout_and_its_failure_cancel_out() {
        let payout = PayoutId::from_random("po");
        let out = BalanceEntry::payout(context(1, 10), &payout, Centavos::new(10_000), Centavos::new(9_650));
        let back = BalanceEntry::payout_failure(context(2, 20), &payout, Centavos::new(10_000), Centavos::new(9_650));
        assert_eq!((out.net_amount().get(), back.net_amount().get()), (-9_650, 9_650));
        assert_eq!(out.amount() + back.amount(), Centavos::ZERO);
        assert!(!EntryType::Payout.paid_out() && EntryType::PayoutFailure.paid_out());
    }

    #[test]
    fn a_source_is_its_kind_and_an_id_of_that_kind() {
        let payment = PaymentId::from_random("p");
        assert_eq!(
            EntrySource::parse(EntryType::Payment, payment.as_str()),
            Some(EntrySource::Payment(payment.clone()))
        );
        assert_eq!(EntrySource::parse(EntryType::Refund, payment.as_str()), None, "a payment's id is no refund's");
        assert_eq!(
            EntrySource::parse(EntryType::PayoutFailure, "po_1").map(|s| s.entry_type()),
            Some(EntryType::PayoutFailure)
        );
    }

    #[test]
    fn a_stored_entry_is_restored_only_when_it_is_whole() {
        let paid = BalanceEntry::payment(
            context(1, 0),
            (&PaymentId::from_random("p"), 10_000, 350, PaymentMethodType::Card),
            &SettlementDelays::default(),
        );
        assert_eq!(BalanceEntry::restore(paid.stored()), Ok(paid.clone()));
        for broken in [
            StoredBalanceEntry { net_amount: 10_000, ..paid.stored() },
            StoredBalanceEntry { amount: -10_000, net_amount: -10_350, ..paid.stored() },
            StoredBalanceEntry { available_at: Timestamp::from_unix_seconds(-1), ..paid.stored() },
        ] {
            assert!(BalanceEntry::restore(broken.clone()).is_err(), "{broken:?}");
        }
    }
}
