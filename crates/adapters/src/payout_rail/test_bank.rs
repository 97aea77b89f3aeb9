//! The test bank: a payout rail whose answer the bank account's number decides, so a merchant can
//! try a payout that is returned as well as one that arrives.

use payments_application::ports::{KnownAccount, PayoutRail};
use payments_domain::payout::{BankAccount, BankOutcome, Payout};

/// The test bank accounts and how a payout to each ends: any other number receives its payouts.
/// The first is where a new account's payouts go until it names another.
pub const TEST_BANK_ACCOUNTS: [(&str, Option<&str>); 3] =
    [("000123456789", None), ("000111111116", Some("account_closed")), ("000222222227", Some("could_not_process"))];

/// The name of the test bank, on a new account's default bank account.
const TEST_BANK_NAME: &str = "Test Bank of the Philippines";

/// The test bank's rail.
#[derive(Debug, Clone, Copy, Default)]
pub struct TestBank;

impl TestBank {
    fn outcome_of(number: &str) -> BankOutcome {
        TEST_BANK_ACCOUNTS
            .iter()
            .find(|(known, _)| *known == number)
            .and_then(|(_, returned)| *returned)
            .map_or(BankOutcome::Deposited, |code| BankOutcome::Returned { code: code.to_owned() })
    }
}

impl PayoutRail for TestBank {
    fn answer(&self, payout: &Payout) -> BankOutcome {
        Self::outcome_of(payout.destination().account_number())
    }

    fn default_destination(&self, account_name: &str) -> BankAccount {
        let number = TEST_BANK_ACCOUNTS[0].0;
        // An account's name is 1 to 100 characters a bank shows; one from before that rule reads as
        // the merchant's.
        BankAccount::new(account_name, number, TEST_BANK_NAME)
            .or_else(|_| BankAccount::new("Merchant", number, TEST_BANK_NAME))
            .unwrap_or_else(|_| unreachable!("the test bank's own name and number are a bank account"))
    }

    fn known_accounts(&self) -> Vec<KnownAccount> {
        TEST_BANK_ACCOUNTS
            .iter()
            .map(|(number, _)| KnownAccount { account_number: (*number).to_owned(), outcome: Self::outcome_of(number) })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_account_number_decides_how_a_test_payout_ends() {
        assert_eq!(TestBank::outcome_of("000111111116"), BankOutcome::Returned { code: "account_closed".into() });
        assert_eq!(TestBank::outcome_of("000222222227"), BankOutcome::Returned { code: "could_not_process".into() });
        assert_eq!(TestBank::outcome_of("000123456789"), BankOutcome::Deposited);
        assert_eq!(TestBank::outcome_of("555555"), BankOutcome::Deposited, "any other number receives");
        assert_eq!(TestBank.default_destination("Shop").account_number(), "000123456789");
        assert_eq!(TestBank.known_accounts().len(), 3);
    }
}
