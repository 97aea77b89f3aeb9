//! The payout rail port: the bank transfer that takes a sent payout and answers how it ended. The
//! test bank is one adapter; a processor's payouts would be another.

use payments_domain::payout::{BankAccount, BankOutcome, Payout};

/// A bank account whose answer a rail knows ahead, as its documentation lists it (the test bank's).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KnownAccount {
    pub account_number: String,
    pub outcome: BankOutcome,
}

/// Where payouts go.
pub trait PayoutRail: Send + Sync {
    /// How the bank answered `payout`, sent to its destination: deposited, or returned with its
    /// reason.
    fn answer(&self, payout: &Payout) -> BankOutcome;

    /// The bank account an account's schedule pays out to until it names one.
    fn default_destination(&self, account_name: &str) -> BankAccount;

    /// The accounts whose answer the rail knows ahead, to tell the merchant (none for a real bank).
    fn known_accounts(&self) -> Vec<KnownAccount>;
}
