//! The balance: the ledger's entries, written in the transaction of the change that moves the money
//! (a payment paid, a refund made), and the balance read at the scope's time with its next payout.

use super::PayoutRails;
use crate::error::ApplicationError;
use crate::pagination::PageRequest;
use crate::ports::{reading, Clock, IdGenerator, KnownAccount, PayoutFilter, Repositories, UnitOfWork};
use crate::scope::Scope;
use payments_domain::balance::{Balance, BalanceEntry, EntryContext, SettlementDelays};
use payments_domain::ids::BalanceEntryId;
use payments_domain::payment::{Payment, PaymentStatus};
use payments_domain::payout::{Payout, PayoutSchedule};
use payments_domain::refund::Refund;
use payments_domain::time::Timestamp;
use std::sync::Arc;

/// The balance of a scope at its time, and how it is paid out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BalanceView {
    pub balance: Balance,
    pub schedule: Option<PayoutSchedule>,
}

/// What the balance's page shows: the balance and its schedule, the latest payouts, and the bank
/// accounts whose answer the mode's rail knows ahead (the test bank's).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BalancePage {
    pub view: BalanceView,
    pub latest: Vec<Payout>,
    pub known_accounts: Vec<KnownAccount>,
}

/// Balance use cases.
pub struct BalanceService {
    unit_of_work: Arc<dyn UnitOfWork>,
    clock: Arc<dyn Clock>,
    rails: PayoutRails,
}

impl BalanceService {
    #[must_use]
    pub fn new(unit_of_work: Arc<dyn UnitOfWork>, clock: Arc<dyn Clock>, rails: PayoutRails) -> Self {
        Self { unit_of_work, clock, rails }
    }

    /// The balance's page: the balance now with its schedule, and the `latest` payouts, newest
    /// first. One read.
    ///
    /// # Errors
    /// Storage failures.
    pub fn page(&self, scope: &Scope, latest: u32) -> Result<BalancePage, ApplicationError> {
        let now = self.clock.now_in(scope)?;
        let request = PageRequest::new(Some(i64::from(latest.min(PageRequest::MAX_LIMIT))), None, None)
            .map_err(ApplicationError::Validation)?;
        let (view, latest) = reading(self.unit_of_work.as_ref(), |repositories| {
            let view = BalanceView {
                balance: repositories.balance().balance(scope, now)?,
                schedule: repositories.payouts().schedule(scope)?,
            };
            Ok((view, repositories.payouts().list(scope, &PayoutFilter::default(), &request)?.data))
        })?;
        Ok(BalancePage { view, latest, known_accounts: self.rails.known_accounts(scope.livemode()) })
    }

    /// The scope's balance now: available and pending, and its payout schedule.
    ///
    /// # Errors
    /// Storage failures.
    pub fn retrieve(&self, scope: &Scope) -> Result<BalanceView, ApplicationError> {
        let now = self.clock.now_in(scope)?;
        reading(self.unit_of_work.as_ref(), |repositories| {
            Ok(BalanceView {
                balance: repositories.balance().balance(scope, now)?,
                schedule: repositories.payouts().schedule(scope)?,
            })
        })
    }
}

fn context(ids: &dyn IdGenerator, scope: &Scope, now: Timestamp) -> EntryContext {
    EntryContext {
        id: BalanceEntryId::from_random(&ids.id_part()),
        account_id: scope.account_id.clone(),
        livemode: scope.livemode(),
        now,
    }
}

/// Records a paid payment's money in the ledger, available after its method's settlement delay; a
/// failed payment moves none.
///
/// # Errors
/// Storage failures.
pub(crate) fn record_payment(
    repositories: &mut dyn Repositories,
    ids: &dyn IdGenerator,
    payment: &Payment,
    delays: &SettlementDelays,
    now: Timestamp,
) -> Result<(), ApplicationError> {
    if payment.status() != PaymentStatus::Paid {
        return Ok(());
    }
    let scope = Scope::of(payment.account_id(), payment.livemode());
    let paid = (payment.id(), payment.amount(), payment.fee(), payment.payment_method().method);
    repositories.balance().insert(&BalanceEntry::payment(context(ids, &scope, now), paid, delays))?;
    Ok(())
}

/// Records a refund's money leaving the ledger, at once.
///
/// # Errors
/// Storage failures.
pub(crate) fn record_refund(
    repositories: &mut dyn Repositories,
    ids: &dyn IdGenerator,
    refund: &Refund,
    now: Timestamp,
) -> Result<(), ApplicationError> {
    let scope = Scope::of(refund.account_id(), refund.livemode());
    repositories.balance().insert(&BalanceEntry::refund(context(ids, &scope, now), refund.id(), refund.amount()))?;
    Ok(())
}
