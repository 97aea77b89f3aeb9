//! Payout rails: where payouts go. The test bank answers test mode's payouts by the bank account's
//! number; a processor's payouts would be another rail.

mod test_bank;

pub use test_bank::{TestBank, TEST_BANK_ACCOUNTS};
