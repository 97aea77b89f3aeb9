//! Payouts: what the balance pays into the merchant's bank account on a schedule, with the
//! transactions it is made of (payments, refunds, and the money of a failed payout, as an
//! adjustment), and how it travels: `pending` when made, `in_transit` once sent, then `successful`,
//! or `failed`, when its money comes back to the balance.
//!
//! The rules:
//! - a payout takes every entry available by its time that no payout took, and nothing else;
//! - its `amount` and `net_amount` are the sums of its transactions' (a refund's are negative);
//! - when they come to nothing or less, no payout is made and the entries wait for the next one:
//!   a negative balance is carried forward, never dropped;
//! - how a sent payout ends is the bank's answer, which the payout rail (a port) gives: the test
//!   rail answers by the test bank account's number.

use crate::balance::{BalanceEntry, Centavos, EntryContext, EntrySource};
use crate::error::DomainError;
use crate::ids::{AccountId, BalanceEntryId, PaymentId, PayoutId, PayoutTransactionId, RefundId};
use crate::time::Timestamp;
use crate::validation::{FieldError, Invalid};
use serde::{Deserialize, Serialize};

const RESOURCE: &str = "payout";
const HOUR: i64 = 60 * 60;
/// How long after it is made a payout is sent to the bank.
pub const SEND_AFTER_SECONDS: i64 = HOUR;
/// How long after it is made a payout arrives (or is returned by the bank).
pub const ARRIVE_AFTER_SECONDS: i64 = 24 * HOUR;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PayoutStatus {
    Pending,
    InTransit,
    Successful,
    Failed,
}

impl PayoutStatus {
    pub const ALL: [Self; 4] = [Self::Pending, Self::InTransit, Self::Successful, Self::Failed];

    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Pending => "pending",
            Self::InTransit => "in_transit",
            Self::Successful => "successful",
            Self::Failed => "failed",
        }
    }

    #[must_use]
    pub fn parse(value: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|status| status.as_str() == value)
    }
}

/// The bank account a payout goes to. Made only through its checks: as a merchant gives it
/// ([`BankAccount::new`]), or as a store kept it ([`BankAccount::restore`], which deserializing
/// goes through).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "BankAccountFields")]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct BankAccount {
    account_name: String,
    account_number: String,
    bank_name: String,
}

/// A bank account's fields as they are stored, before their checks.
#[derive(Deserialize)]
struct BankAccountFields {
    account_name: String,
    account_number: String,
    bank_name: String,
}

impl TryFrom<BankAccountFields> for BankAccount {
    type Error = String;
    fn try_from(fields: BankAccountFields) -> Result<Self, String> {
        Self::restore(&fields.account_name, &fields.account_number, &fields.bank_name)
            .map_err(|(field, invalid)| format!("{field}: {}", invalid.detail))
    }
}

/// How a bank answered a payout sent to it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BankOutcome {
    Deposited,
    /// Returned to the balance, with the bank's reason (`account_closed`, `could_not_process` …).
    Returned {
        code: String,
    },
}

/// The longest bank account name and bank name, in characters.
pub const BANK_TEXT_MAX_CHARS: usize = 100;

/// Characters a name a bank shows has no place for: controls (C0, DEL, C1); the invisible format
/// characters (Unicode's `Cf`, but the joiners U+200C and U+200D that Persian and Indic names are
/// written with; with the unassigned code points of their blocks, and the noncharacters), bidi
/// controls among them, which show a name other than it reads (U+202E shows
/// `gnp.exe` as `exe.png`); and line and paragraph separators (U+2028, U+2029), which break a
/// bank's file. Inclusive ranges.
const UNFIT_FOR_A_BANK_FILE: [(char, char); 24] = [
    ('\u{0}', '\u{1f}'),
    ('\u{7f}', '\u{9f}'),
    ('\u{ad}', '\u{ad}'),
    ('\u{600}', '\u{605}'),
    ('\u{61c}', '\u{61c}'),
    ('\u{6dd}', '\u{6dd}'),
    ('\u{70f}', '\u{70f}'),
    ('\u{890}', '\u{891}'),
    ('\u{8e2}', '\u{8e2}'),
    ('\u{180e}', '\u{180e}'),
    ('\u{200b}', '\u{200b}'),
    ('\u{200e}', '\u{200f}'),
    ('\u{2028}', '\u{202e}'),
    ('\u{2060}', '\u{206f}'),
    ('\u{fdd0}', '\u{fdef}'),
    ('\u{feff}', '\u{feff}'),
    ('\u{fff9}', '\u{fffb}'),
    ('\u{fffe}', '\u{ffff}'),
    ('\u{110bd}', '\u{110bd}'),
    ('\u{110cd}', '\u{110cd}'),
    ('\u{13430}', '\u{1343f}'),
    ('\u{1bca0}', '\u{1bca3}'),
    ('\u{1d173}', '\u{1d17a}'),
    ('\u{e0000}', '\u{e00ff}'),
];

/// Characters that show nothing alone, of those a bank's file takes: white space, the blank fillers
/// (Hangul, Khmer and Khitan fillers, the blank Braille pattern), the joiners, the blocks of
/// combining marks and the variation selectors (Mongolian's too) that only change the character
/// before them. A name needs one character that is none of these. (A lone combining mark of a
/// script's own block, such as Hebrew's U+05B0, is taken as text.) Inclusive ranges.
const BLANK_ALONE: [(char, char); 23] = [
    (' ', ' '),
    ('\u{a0}', '\u{a0}'),
    ('\u{300}', '\u{36f}'),
    ('\u{115f}', '\u{1160}'),
    ('\u{1680}', '\u{1680}'),
    ('\u{17b4}', '\u{17b5}'),
    ('\u{180b}', '\u{180d}'),
    ('\u{180f}', '\u{180f}'),
    ('\u{1ab0}', '\u{1aff}'),
    ('\u{1dc0}', '\u{1dff}'),
    ('\u{2000}', '\u{200a}'),
    ('\u{200c}', '\u{200d}'),
    ('\u{202f}', '\u{202f}'),
    ('\u{205f}', '\u{205f}'),
    ('\u{20d0}', '\u{20ff}'),
    ('\u{2800}', '\u{2800}'),
    ('\u{3000}', '\u{3000}'),
    ('\u{3164}', '\u{3164}'),
    ('\u{fe00}', '\u{fe0f}'),
    ('\u{fe20}', '\u{fe2f}'),
    ('\u{ffa0}', '\u{ffa0}'),
    ('\u{16fe4}', '\u{16fe4}'),
    ('\u{e0100}', '\u{e01ef}'),
];

fn in_ranges(ranges: &[(char, char)], c: char) -> bool {
    ranges.iter().any(|&(first, last)| (first..=last).contains(&c))
}

/// Whether `c` has no place in a name a bank shows ([`UNFIT_FOR_A_BANK_FILE`]).
#[must_use]
pub fn is_unfit_for_a_bank_file(c: char) -> bool {
    in_ranges(&UNFIT_FOR_A_BANK_FILE, c)
}

/// Whether `c` shows nothing alone ([`BLANK_ALONE`]).
#[must_use]
pub fn is_blank_alone(c: char) -> bool {
    in_ranges(&BLANK_ALONE, c)
}

/// A bank account's name and a bank's name as [`BankAccount::new`] takes them, as a pattern for the
/// API's document, made from the same ranges: no character [unfit for a bank's
/// file](is_unfit_for_a_bank_file), and one that is not [blank alone](is_blank_alone). (Characters
/// beyond U+FFFF are written as themselves, which a pattern reads as one character.)
#[must_use]
pub fn bank_text_pattern() -> String {
    let class = |ranges: &[&[(char, char)]]| {
        let mut class = String::new();
        for &(first, last) in ranges.iter().flat_map(|ranges| ranges.iter()) {
            let written = |c: char| match u32::from(c) {
                code @ 0..=0xff => format!("\\x{code:02x}"),
                code @ 0x100..=0xffff => format!("\\u{code:04x}"),
                _ => c.to_string(),
            };
            class.push_str(&written(first));
            if last != first {
                class.push('-');
                class.push_str(&written(last));
            }
        }
        class
    };
    let unfit = class(&[&UNFIT_FOR_A_BANK_FILE]);
    let unfit_or_blank = class(&[&UNFIT_FOR_A_BANK_FILE, &BLANK_ALONE]);
    format!("^[^{unfit}]*[^{unfit_or_blank}][^{unfit}]*$")
}

/// An account number's shape: 6 to 20 digits.
fn is_account_number(number: &str) -> bool {
    (6..=20).contains(&number.len()) && number.bytes().all(|b| b.is_ascii_digit())
}

impl BankAccount {
    /// A bank account as a merchant gives it: a name, 6 to 20 digits, a bank. A name is any text the
    /// bank shows, 1 to [`BANK_TEXT_MAX_CHARS`] characters, not all [blank alone](is_blank_alone),
    /// and none of them [unfit for a bank's file](is_unfit_for_a_bank_file).
    ///
    /// # Errors
    /// What is wrong with a field, named by it.
    pub fn new(account_name: &str, account_number: &str, bank_name: &str) -> Result<Self, (&'static str, Invalid)> {
        let text = |field: &'static str, value: &str| {
            if value.is_empty() || value.chars().count() > BANK_TEXT_MAX_CHARS {
                Err((field, Invalid::value("Give 1 to 100 characters.")))
            } else if value.chars().any(is_unfit_for_a_bank_file) {
                Err((
                    field,
                    Invalid::value(
                        "Give a name without control characters, invisible formatting characters such as \
                         direction marks, or line and paragraph separators.",
                    ),
                ))
            } else if value.chars().all(is_blank_alone) {
                Err((field, Invalid::value("Give a name that is not blank: one character that shows at least.")))
            } else {
                Ok(value.to_owned())
            }
        };
        if !is_account_number(account_number) {
            return Err(("account_number", Invalid::value("An account number is 6 to 20 digits.")));
        }
        Ok(Self {
            account_name: text("account_name", account_name)?,
            account_number: account_number.to_owned(),
            bank_name: text("bank_name", bank_name)?,
        })
    }

    /// A bank account as a store kept it, held to the rules every stored account was written under:
    /// names of 1 to [`BANK_TEXT_MAX_CHARS`] characters without control characters, and 6 to 20
    /// digits. (The later rules of [`BankAccount::new`], no bidi controls or blank names, hold for
    /// what is given from now on; an account kept before them still reads.)
    ///
    /// # Errors
    /// What a stored field breaks, named by it.
    pub fn restore(account_name: &str, account_number: &str, bank_name: &str) -> Result<Self, (&'static str, Invalid)> {
        let text = |field: &'static str, value: &str| {
            let fits = !value.is_empty() && value.chars().count() <= BANK_TEXT_MAX_CHARS;
            if fits && !value.chars().any(char::is_control) {
                Ok(value.to_owned())
            } else {
                Err((field, Invalid::value("A stored name is 1 to 100 characters without control characters.")))
            }
        };
        if !is_account_number(account_number) {
            return Err(("account_number", Invalid::value("An account number is 6 to 20 digits.")));
        }
        Ok(Self {
            account_name: text("account_name", account_name)?,
            account_number: account_number.to_owned(),
            bank_name: text("bank_name", bank_name)?,
        })
    }

    #[must_use]
    pub fn account_name(&self) -> &str {
        &self.account_name
    }
    #[must_use]
    pub fn account_number(&self) -> &str {
        &self.account_number
    }
    #[must_use]
    pub fn bank_name(&self) -> &str {
        &self.bank_name
    }
}

/// What a payout line is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TransactionType {
    Payment,
    Refund,
    /// A failed payout's money, paid out again.
    Adjustment,
}

impl TransactionType {
    pub const ALL: [Self; 3] = [Self::Payment, Self::Refund, Self::Adjustment];

    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Payment => "payment",
            Self::Refund => "refund",
            Self::Adjustment => "adjustment",
        }
    }

    #[must_use]
    pub fn parse(value: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|kind| kind.as_str() == value)
    }
}

/// What a payout line pays out: a payment, a refund, or a failed payout's money.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum TransactionSource {
    Payment(PaymentId),
    Refund(RefundId),
    /// The failed payout whose money the line pays out again.
    Adjustment(PayoutId),
}

impl TransactionSource {
    /// The line a balance entry makes; `None` for a payout's own entry, which no payout pays out.
    #[must_use]
    pub fn of(entry: &EntrySource) -> Option<Self> {
        match entry {
            EntrySource::Payment(id) => Some(Self::Payment(id.clone())),
            EntrySource::Refund(id) => Some(Self::Refund(id.clone())),
            EntrySource::PayoutFailure(id) => Some(Self::Adjustment(id.clone())),
            EntrySource::Payout(_) => None,
        }
    }

    /// The source of a stored line: its type and an id of that type's object; `None` when they
    /// disagree.
    #[must_use]
    pub fn parse(transaction_type: TransactionType, id: &str) -> Option<Self> {
        match transaction_type {
            TransactionType::Payment => PaymentId::parse(id).map(Self::Payment),
            TransactionType::Refund => RefundId::parse(id).map(Self::Refund),
            TransactionType::Adjustment => PayoutId::parse(id).map(Self::Adjustment),
        }
    }

    #[must_use]
    pub fn transaction_type(&self) -> TransactionType {
        match self {
            Self::Payment(_) => TransactionType::Payment,
            Self::Refund(_) => TransactionType::Refund,
            Self::Adjustment(_) => TransactionType::Adjustment,
        }
    }

    /// The id of the payment (`pay_`), refund (`re_`) or failed payout (`po_`).
    #[must_use]
    pub fn id(&self) -> &str {
        match self {
            Self::Payment(id) => id.as_str(),
            Self::Refund(id) => id.as_str(),
            Self::Adjustment(id) => id.as_str(),
        }
    }
}

/// One line of a payout: one balance entry it pays out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PayoutTransaction {
    pub id: PayoutTransactionId,
    pub account_id: AccountId,
    pub livemode: bool,
    pub payout_id: PayoutId,
    pub entry_id: BalanceEntryId,
    /// The payment, refund or failed payout the line pays out.
    pub source: TransactionSource,
    pub amount: Centavos,
    pub net_amount: Centavos,
    pub created_at: Timestamp,
}

/// What is due on a payout next, by its time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PayoutStep {
    /// Send it to the bank.
    Send,
    /// Learn how the bank answered (the payout rail's answer).
    Settle,
}

/// What moves a payout.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PayoutOperation {
    /// Sent to the bank: `in_transit`.
    Send,
    /// The bank's answer: `successful` when deposited, `failed` when returned.
    Settle(BankOutcome),
}

impl PayoutOperation {
    #[must_use]
    pub fn as_str(&self) -> &'static str {
        match self {
            Self::Send => "send",
            Self::Settle(_) => "settle",
        }
    }
}

/// A payout. Its fields change only through the transitions below.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Payout {
    id: PayoutId,
    account_id: AccountId,
    livemode: bool,
    amount: Centavos,
    net_amount: Centavos,
    destination: BankAccount,
    status: PayoutStatus,
    failure_code: Option<String>,
    /// When the service next moves it: sends it, then its arrival.
    action_due_at: Option<Timestamp>,
    created_at: Timestamp,
    updated_at: Timestamp,
    version: i64,
}

/// A payout as a repository stores it, to restore it with [`Payout::restore`].
#[derive(Debug, Clone)]
pub struct StoredPayout {
    pub id: PayoutId,
    pub account_id: AccountId,
    pub livemode: bool,
    pub amount: Centavos,
    pub net_amount: Centavos,
    pub destination: BankAccount,
    pub status: PayoutStatus,
    pub failure_code: Option<String>,
    pub action_due_at: Option<Timestamp>,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
    pub version: i64,
}

/// A payout just made: the payout, its lines, and its balance entry.
#[derive(Debug, Clone)]
pub struct MadePayout {
    pub payout: Payout,
    pub transactions: Vec<PayoutTransaction>,
    pub entry: BalanceEntry,
}

/// The ids a new payout takes: its own, its balance entry's, and one line id for each entry offered
/// to [`Payout::make`], in their order.
pub struct PayoutIds {
    pub payout: PayoutId,
    pub entry: BalanceEntryId,
    pub transactions: Vec<PayoutTransactionId>,
}

impl Payout {
    /// Pays out `entries` (those available by `now` that no payout took) to `destination`: a
    /// `pending` payout with one line per entry, and the entry that takes its money out of the
    /// balance. `None` when they come to nothing or less: they wait for the next payout.
    #[must_use]
    pub fn make(
        ids: PayoutIds,
        entries: &[BalanceEntry],
        destination: BankAccount,
        (account_id, livemode): (&AccountId, bool),
        now: Timestamp,
    ) -> Option<MadePayout> {
        let transactions: Vec<PayoutTransaction> = entries
            .iter()
            .zip(ids.transactions)
            .filter(|(entry, _)| {
                entry.available_at() <= now && entry.account_id() == account_id && entry.livemode() == livemode
            })
            .filter_map(|(entry, id)| {
                Some(PayoutTransaction {
                    id,
                    account_id: account_id.clone(),
                    livemode,
                    payout_id: ids.payout.clone(),
                    entry_id: entry.id().clone(),
                    source: TransactionSource::of(entry.source())?,
                    amount: entry.amount(),
                    net_amount: entry.net_amount(),
                    created_at: now,
                })
            })
            .collect();
        let amount: Centavos = transactions.iter().map(|line| line.amount).sum();
        let net_amount: Centavos = transactions.iter().map(|line| line.net_amount).sum();
        if !net_amount.is_positive() {
            return None;
        }
        let context = EntryContext { id: ids.entry, account_id: account_id.clone(), livemode, now };
        let entry = BalanceEntry::payout(context, &ids.payout, amount, net_amount);
        let payout = Self {
            id: ids.payout,
            account_id: account_id.clone(),
            livemode,
            amount,
            net_amount,
            destination,
            status: PayoutStatus::Pending,
            failure_code: None,
            action_due_at: Some(now.plus_seconds(SEND_AFTER_SECONDS)),
            created_at: now,
            updated_at: now,
            version: 0,
        };
        Some(MadePayout { payout, transactions, entry })
    }

    #[must_use]
    pub fn restore(stored: StoredPayout) -> Self {
        let StoredPayout {
            id,
            account_id,
            livemode,
            amount,
            net_amount,
            destination,
            status,
            failure_code,
            action_due_at,
            created_at,
            updated_at,
            version,
        } = stored;
        Self {
            id,
            account_id,
            livemode,
            amount,
            net_amount,
            destination,
            status,
            failure_code,
            action_due_at,
            created_at,
            updated_at,
            version,
        }
    }

    /// What the service does next on its own, once [`Payout::action_due_at`] comes: send it, then
    /// learn how the bank answered.
    #[must_use]
    pub fn due_step(&self) -> Option<PayoutStep> {
        match self.status {
            PayoutStatus::Pending => Some(PayoutStep::Send),
            PayoutStatus::InTransit => Some(PayoutStep::Settle),
            PayoutStatus::Successful | PayoutStatus::Failed => None,
        }
    }

    /// Moves the payout by `operation` at `now`. A payout the bank returned answers the entry that
    /// gives its money back to the balance (with the id `entry`).
    ///
    /// # Errors
    /// `resource_invalid_state` from a status the operation does not leave.
    pub fn apply(
        &mut self,
        operation: PayoutOperation,
        entry: BalanceEntryId,
        now: Timestamp,
    ) -> Result<Option<BalanceEntry>, DomainError> {
        let refused =
            DomainError::InvalidState { resource: RESOURCE, status: self.status.as_str(), action: operation.as_str() };
        let returned = match (operation, self.status) {
            (PayoutOperation::Send, PayoutStatus::Pending) => {
                self.status = PayoutStatus::InTransit;
                self.action_due_at = Some(self.created_at.plus_seconds(ARRIVE_AFTER_SECONDS).max(now));
                None
            }
            (PayoutOperation::Settle(BankOutcome::Deposited), PayoutStatus::InTransit) => {
                self.status = PayoutStatus::Successful;
                self.action_due_at = None;
                None
            }
            (PayoutOperation::Settle(BankOutcome::Returned { code }), PayoutStatus::InTransit) => {
                self.status = PayoutStatus::Failed;
                self.action_due_at = None;
                self.failure_code = Some(code);
                let context =
                    EntryContext { id: entry, account_id: self.account_id.clone(), livemode: self.livemode, now };
                Some(BalanceEntry::payout_failure(context, &self.id, self.amount, self.net_amount))
            }
            (PayoutOperation::Send, PayoutStatus::InTransit | PayoutStatus::Successful | PayoutStatus::Failed)
            | (PayoutOperation::Settle(_), PayoutStatus::Pending | PayoutStatus::Successful | PayoutStatus::Failed) => {
                return Err(refused)
            }
        };
        self.updated_at = now;
        self.version += 1;
        Ok(returned)
    }

    #[must_use]
    pub fn id(&self) -> &PayoutId {
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
    pub fn amount(&self) -> Centavos {
        self.amount
    }
    #[must_use]
    pub fn net_amount(&self) -> Centavos {
        self.net_amount
    }
    #[must_use]
    pub fn destination(&self) -> &BankAccount {
        &self.destination
    }
    #[must_use]
    pub fn status(&self) -> PayoutStatus {
        self.status
    }
    #[must_use]
    pub fn failure_code(&self) -> Option<&str> {
        self.failure_code.as_deref()
    }
    #[must_use]
    pub fn action_due_at(&self) -> Option<Timestamp> {
        self.action_due_at
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

/// How often an account's balance is paid out. Payouts are made at midnight in the Philippines
/// (16:00 UTC), which has no daylight saving time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PayoutInterval {
    Daily,
    /// On a day of the week, 0 (Monday) to 6 (Sunday).
    Weekly(u32),
    /// On a day of the month, 1 to 28 (every month has it).
    Monthly(u32),
    /// Never on its own.
    Manual,
}

/// The days of the week as a weekly interval names them, Monday first.
pub const WEEKDAYS: [&str; 7] = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"];

/// The days of the month a monthly interval may name: the days every month has.
pub const MONTHLY_ANCHORS: std::ops::RangeInclusive<u32> = 1..=28;

/// The UTC time of midnight in the Philippines, seconds into the UTC day.
const PAYOUT_SECOND_OF_DAY: i64 = 16 * HOUR;
/// When payouts are made, as a merchant is told.
pub const PAYOUT_TIME: &str = "midnight in the Philippines (16:00 UTC)";
const DAY: i64 = 24 * HOUR;

impl PayoutInterval {
    /// The intervals' names.
    pub const NAMES: [&'static str; 4] = ["daily", "weekly", "monthly", "manual"];

    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Daily => "daily",
            Self::Weekly(_) => "weekly",
            Self::Monthly(_) => "monthly",
            Self::Manual => "manual",
        }
    }

    /// The next payout time strictly after `after`, if the interval has one.
    #[must_use]
    pub fn next_after(self, after: Timestamp) -> Option<Timestamp> {
        if self == Self::Manual {
            return None;
        }
        let seconds = after.unix_seconds();
        let first = (seconds - PAYOUT_SECOND_OF_DAY).div_euclid(DAY) * DAY + PAYOUT_SECOND_OF_DAY + DAY;
        // At most a month and a bit of days to look through.
        (0..62).map(|day| Timestamp::from_unix_seconds(first + day * DAY)).find(|at| self.falls_on(*at))
    }

    /// Whether a payout time (midnight in the Philippines) is one of this interval's.
    fn falls_on(self, at: Timestamp) -> bool {
        // The Philippine calendar date of that midnight is the UTC date 8 hours later.
        let local = at.plus_seconds(8 * HOUR);
        match self {
            Self::Daily => true,
            // 1970-01-01 was a Thursday (3 with Monday as 0).
            Self::Weekly(weekday) => (local.unix_seconds().div_euclid(DAY) + 3).rem_euclid(7) == i64::from(weekday),
            Self::Monthly(day) => local.civil_date().2 == day,
            Self::Manual => false,
        }
    }
}

impl PayoutInterval {
    /// The interval a merchant names: `daily`, `weekly` with `weekly_anchor` (`monday` …
    /// `sunday`), `monthly` with `monthly_anchor` (1 to 28), or `manual`.
    ///
    /// # Errors
    /// What is wrong, named by its parameter.
    pub fn parse(
        interval: &str,
        weekly_anchor: Option<&str>,
        monthly_anchor: Option<i64>,
    ) -> Result<Self, (&'static str, Invalid)> {
        let unwanted =
            |name: &'static str| Err((name, Invalid::value(format!("{name} does not go with a {interval} interval."))));
        match (interval, weekly_anchor, monthly_anchor) {
            ("daily" | "manual", Some(_), _) | ("monthly", Some(_), _) => unwanted("weekly_anchor"),
            ("daily" | "manual", _, Some(_)) | ("weekly", _, Some(_)) => unwanted("monthly_anchor"),
            ("daily", None, None) => Ok(Self::Daily),
            ("manual", None, None) => Ok(Self::Manual),
            ("weekly", anchor, None) => {
                let day = anchor.unwrap_or("monday");
                WEEKDAYS
                    .iter()
                    .position(|name| *name == day)
                    .and_then(|index| u32::try_from(index).ok())
                    .map(Self::Weekly)
                    .ok_or((
                        "weekly_anchor",
                        Invalid::value(format!("Give a day of the week: {}.", Self::days_of_week())),
                    ))
            }
            ("monthly", None, anchor) => {
                let day = anchor.unwrap_or(1);
                u32::try_from(day).ok().filter(|day| MONTHLY_ANCHORS.contains(day)).map(Self::Monthly).ok_or((
                    "monthly_anchor",
                    Invalid::value(format!("Give a day of the month {}.", Self::days_of_month())),
                ))
            }
            _ => Err(("interval", Invalid::value(format!("Give {}.", Self::names_in_words())))),
        }
    }

    /// The intervals a merchant may choose, in words: `daily, weekly, monthly or manual`.
    #[must_use]
    pub fn names_in_words() -> String {
        let (last, others) = Self::NAMES.split_last().unwrap_or((&"", &[]));
        format!("{} or {last}", others.join(", "))
    }

    /// The days a weekly interval may name, in words: `monday to sunday`.
    #[must_use]
    pub fn days_of_week() -> String {
        format!("{} to {}", WEEKDAYS[0], WEEKDAYS[WEEKDAYS.len() - 1])
    }

    /// The days a monthly interval may name, in words: `from 1 to 28`.
    #[must_use]
    pub fn days_of_month() -> String {
        format!("from {} to {}", MONTHLY_ANCHORS.start(), MONTHLY_ANCHORS.end())
    }

    /// The anchor of a weekly interval, as it is named.
    #[must_use]
    pub fn weekly_anchor(self) -> Option<&'static str> {
        match self {
            Self::Weekly(day) => WEEKDAYS.get(usize::try_from(day).ok()?).copied(),
            Self::Daily | Self::Monthly(_) | Self::Manual => None,
        }
    }

    /// The anchor of a monthly interval.
    #[must_use]
    pub fn monthly_anchor(self) -> Option<u32> {
        match self {
            Self::Monthly(day) => Some(day),
            Self::Daily | Self::Weekly(_) | Self::Manual => None,
        }
    }
}

/// Who changes a payout schedule.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ScheduleEditor {
    /// The service's operator (the operator API).
    Operator,
    /// The merchant: with a test helper of the API, or in the console.
    Merchant,
}

/// How and where an account's balance is paid out in a mode, and when next.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PayoutSchedule {
    pub account_id: AccountId,
    pub livemode: bool,
    pub interval: PayoutInterval,
    pub destination: BankAccount,
    /// When the next payout is made; `None` for a manual schedule, and in live mode, which has no
    /// processor to pay out from.
    pub next_payout_at: Option<Timestamp>,
    pub version: i64,
}

impl PayoutSchedule {
    /// The schedule an account has until it sets one: daily, to `destination` (the payout rail's
    /// default). Live mode makes no payouts.
    #[must_use]
    pub fn default_for(account_id: &AccountId, livemode: bool, destination: BankAccount, now: Timestamp) -> Self {
        let interval = PayoutInterval::Daily;
        Self {
            account_id: account_id.clone(),
            livemode,
            interval,
            destination,
            next_payout_at: if livemode { None } else { interval.next_after(now) },
            version: 0,
        }
    }

    /// The schedule after the payout time `at` passed: the next time after it.
    #[must_use]
    pub fn after_payout(&self, at: Timestamp) -> Self {
        Self { next_payout_at: self.scheduled_after(at), ..self.clone() }
    }

    /// Whether `editor` may change the schedule: the operator in either mode; the merchant in test
    /// mode only, since in live mode the schedule says where real money goes, which the operator
    /// sets once the bank account is verified.
    ///
    /// # Errors
    /// `livemode` refused for the merchant in live mode.
    pub fn may_be_changed_by(&self, editor: ScheduleEditor) -> Result<(), DomainError> {
        match (editor, self.livemode) {
            (ScheduleEditor::Operator, _) | (ScheduleEditor::Merchant, false) => Ok(()),
            (ScheduleEditor::Merchant, true) => Err(DomainError::Invalid(FieldError::invalid(
                "livemode",
                "In live mode the payout schedule and bank account are set by the service's operator; \
                 a test secret key changes test mode's.",
            ))),
        }
    }

    /// The schedule with another interval or destination, from `now`.
    #[must_use]
    pub fn changed(&self, interval: Option<PayoutInterval>, destination: Option<BankAccount>, now: Timestamp) -> Self {
        let mut changed = self.clone();
        if let Some(interval) = interval {
            changed.interval = interval;
        }
        if let Some(destination) = destination {
            changed.destination = destination;
        }
        changed.next_payout_at = changed.scheduled_after(now);
        changed
    }

    /// Why the schedule makes no payout on its own, when it makes none: live mode, or a manual
    /// interval.
    #[must_use]
    pub fn held_because(&self) -> Option<&'static str> {
        if self.livemode {
            Some("live mode has no processor to pay out from")
        } else if self.interval == PayoutInterval::Manual {
            Some("the schedule is manual")
        } else {
            None
        }
    }

    fn scheduled_after(&self, at: Timestamp) -> Option<Timestamp> {
        if self.livemode {
            None
        } else {
            self.interval.next_after(at)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn payouts_fall_at_midnight_in_the_philippines_on_their_days() {
        // 2026-11-27 10:00 UTC (a Friday), 18:00 in Manila.
        let now = Timestamp::from_unix_seconds(1_795_773_600);
        assert_eq!(now.civil_date(), (2026, 11, 27));
        let daily = PayoutInterval::Daily.next_after(now).unwrap();
        assert_eq!((daily.civil_date(), daily.unix_seconds() % DAY), ((2026, 11, 27), 16 * HOUR));
        assert_eq!(PayoutInterval::Daily.next_after(daily).unwrap(), daily.plus_seconds(DAY), "strictly after");
        // Monday in Manila is Sunday 16:00 UTC.
        let monday = PayoutInterval::Weekly(0).next_after(now).unwrap();
        assert_eq!(monday.plus_seconds(8 * HOUR).civil_date(), (2026, 11, 30));
        let first = PayoutInterval::Monthly(1).next_after(now).unwrap();
        assert_eq!(first.plus_seconds(8 * HOUR).civil_date(), (2026, 12, 1));
        assert_eq!(PayoutInterval::Manual.next_after(now), None);
    }

    #[test]
    fn a_schedule_says_why_it_makes_no_payout() {
        let account = AccountId::from_random("acct");
        let now = Timestamp::from_unix_seconds(1_795_773_600);
        let test = PayoutSchedule::default_for(&account, false, shop(), now);
        assert_eq!((test.held_because(), test.next_payout_at.is_some()), (None, true));
        let manual = test.changed(Some(PayoutInterval::Manual), None, now);
        assert_eq!((manual.held_because(), manual.next_payout_at), (Some("the schedule is manual"), None));
        let live = PayoutSchedule::default_for(&account, true, shop(), now);
        assert_eq!(live.next_payout_at, None);
        assert!(live.held_because().is_some_and(|why| why.contains("live mode")));
    }

    fn shop() -> BankAccount {
        BankAccount::new("Shop", "000123456789", "Test Bank").unwrap()
    }

    #[test]
    fn bank_accounts_are_checked_as_given_and_as_restored() {
        assert_eq!(BankAccount::new("Shop", "12ab", "Bank").unwrap_err().0, "account_number");
        assert_eq!(BankAccount::new("", "123456", "Bank").unwrap_err().0, "account_name");
        for name in ["Sh\u{0}op", "Shop\n", "Sh\u{7f}op", "Sh\u{85}op"] {
            assert_eq!(BankAccount::new(name, "000111111116", "Bank").unwrap_err().0, "account_name", "{name:?}");
            assert_eq!(BankAccount::new("Shop", "000111111116", name).unwrap_err().0, "bank_name", "{name:?}");
        }
        // A stored account is read through the same checks, but for the rules added since.
        let stored = |name: &str, number: &str| {
            serde_json::from_value::<BankAccount>(
                serde_json::json!({"account_name": name, "account_number": number, "bank_name": "Bank"}),
            )
        };
        assert_eq!(stored("Shop", "000123456789").unwrap(), BankAccount::new("Shop", "000123456789", "Bank").unwrap());
        assert!(
            stored("Shop", "12ab").is_err()
                && stored("", "000123456789").is_err()
                && stored("Sh\nop", "000123456789").is_err()
        );
        assert!(stored("Shop\u{202e}x", "000123456789").is_ok(), "an account kept before the bidi rule still reads");
    }

    #[test]
    fn a_bank_account_name_is_text_a_bank_shows_as_it_reads() {
        for fit in [
            "Acme Trading",
            "Bangko Sentral ng Pilipinas",
            "José Rizal",
            "\u{5d0}\u{5d1} Ltd",
            " Acme ",
            "\u{645}\u{6cc}\u{200c}\u{627}",
            "&",
        ] {
            assert!(BankAccount::new(fit, "000123456789", fit).is_ok(), "{fit:?}");
        }
        for (unfit, says) in [
            ("", "1 to 100"),
            (&"x".repeat(101), "1 to 100"),
            ("Shop\u{202e}gnp.exe", "direction marks"),
            ("Shop\u{200f}", "direction marks"),
            ("Shop\u{2067}x\u{2069}", "direction marks"),
            ("Shop\u{61c}", "direction marks"),
            ("Shop\u{2028}x", "line and paragraph"),
            ("Shop\u{2029}", "line and paragraph"),
            ("Shop\u{1b}[31m", "control characters"),
            ("Shop\u{85}", "control characters"),
            ("   ", "not blank"),
            ("\u{3000}\u{a0}\u{2003}", "not blank"),
            ("\u{200b}", "invisible formatting"),
            ("\u{feff}Shop", "invisible formatting"),
            ("Sh\u{ad}op", "invisible formatting"),
            ("Shop\u{e0041}", "invisible formatting"),
            ("Shop\u{206a}x", "invisible formatting"),
            ("Shop\u{fff9}x", "invisible formatting"),
            ("\u{3164}", "not blank"),
            ("\u{2800}\u{2800}", "not blank"),
            ("\u{301}", "not blank"),
            ("\u{fe0f}", "not blank"),
            ("\u{200d} \u{200c}", "not blank"),
            ("\u{180b}\u{17b4}\u{16fe4}", "not blank"),
            ("Shop\u{2065}", "invisible formatting"),
            ("Shop\u{fffe}", "invisible formatting"),
            ("Shop\u{e0080}", "invisible formatting"),
        ] {
            for (name, bank) in [(unfit, "Bank"), ("Shop", unfit)] {
                let refused = BankAccount::new(name, "000123456789", bank).unwrap_err();
                let field = if name == unfit { "account_name" } else { "bank_name" };
                assert_eq!(refused.0, field, "{unfit:?}");
                assert!(refused.1.detail.contains(says), "{unfit:?}: {}", refused.1.detail);
            }
        }
    }

    #[test]
    fn only_the_operator_changes_a_live_schedule() {
        let account = AccountId::from_random("acct");
        let now = Timestamp::from_unix_seconds(1_795_773_600);
        let test = PayoutSchedule::default_for(&account, false, shop(), now);
        let live = PayoutSchedule::default_for(&account, true, shop(), now);
        assert_eq!(test.may_be_changed_by(ScheduleEditor::Merchant), Ok(()));
        assert_eq!(test.may_be_changed_by(ScheduleEditor::Operator), Ok(()));
        assert_eq!(live.may_be_changed_by(ScheduleEditor::Operator), Ok(()));
        let refused = live.may_be_changed_by(ScheduleEditor::Merchant);
        assert!(
            matches!(refused, Err(DomainError::Invalid(ref field)) if field.parameter == "livemode"),
            "{refused:?}"
        );
    }
}
