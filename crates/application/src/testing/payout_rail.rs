//! A payout rail with scripted answers.

use crate::ports::{KnownAccount, PayoutRail};
use payments_domain::payout::{BankAccount, BankOutcome, Payout};
use std::sync::{Mutex, PoisonError};

/// A rail that deposits every payout but to the accounts it was told return them.
#[derive(Debug, Default)]
pub struct ScriptedRail {
    returning: Mutex<Vec<KnownAccount>>,
}

/// The account number of [`ScriptedRail`]'s default bank account.
pub const DEFAULT_ACCOUNT_NUMBER: &str = "000123456789";

impl ScriptedRail {
    /// Payouts to `account_number` are returned with `code` from now on.
    pub fn returns(&self, account_number: &str, code: &str) {
        let returned = KnownAccount {
            account_number: account_number.to_owned(),
            outcome: BankOutcome::Returned { code: code.to_owned() },
        };
        self.returning.lock().unwrap_or_else(PoisonError::into_inner).push(returned);
    }
}

impl PayoutRail for ScriptedRail {
    fn answer(&self, payout: &Payout) -> BankOutcome {
        let returning = self.returning.lock().unwrap_or_else(PoisonError::into_inner);
        let number = payout.destination().account_number();
        returning
            .iter()
            .find(|known| known.account_number == number)
            .map_or(BankOutcome::Deposited, |known| known.outcome.clone())
    }

    fn default_destination(&self, account_name: &str) -> BankAccount {
        BankAccount::new(account_name, DEFAULT_ACCOUNT_NUMBER, "Scripted Bank")
            .or_else(|_| BankAccount::new("Merchant", DEFAULT_ACCOUNT_NUMBER, "Scripted Bank"))
            .unwrap_or_else(|_| unreachable!("a name and a number of the rail's own"))
    }

    fn known_accounts(&self) -> Vec<KnownAccount> {
        self.returning.lock().unwrap_or_else(PoisonError::into_inner).clone()
    }
}
