//! Payouts: made on each account's schedule from what its balance has available, then sent and
//! settled by the bank at their times, all through the due-work machinery (so an advance of a test
//! clock makes a week of payouts happen before it answers); read and listed with their lines; and
//! the schedule changed by the operator and the console.

use super::due::{Due, DueKind};
use super::event::EventLog;
use crate::error::ApplicationError;
use crate::pagination::{Page, PageRequest};
use crate::ports::{in_transaction, reading, Clock, IdGenerator, PayoutFilter, Presenter, Repositories, UnitOfWork};
use crate::scope::Scope;
use payments_domain::event::EventType;
use payments_domain::ids::{BalanceEntryId, PayoutId, PayoutTransactionId};
use payments_domain::payout::{
    BankAccount, Payout, PayoutIds, PayoutInterval, PayoutOperation, PayoutSchedule, PayoutTransaction, ScheduleEditor,
};
use payments_domain::time::Timestamp;
use std::sync::Arc;

const RESOURCE: &str = "payout";

/// Payout use cases.
pub struct PayoutService {
    unit_of_work: Arc<dyn UnitOfWork>,
    clock: Arc<dyn Clock>,
    ids: Arc<dyn IdGenerator>,
    presenter: Arc<dyn Presenter>,
}

impl PayoutService {
    #[must_use]
    pub fn new(
        unit_of_work: Arc<dyn UnitOfWork>,
        clock: Arc<dyn Clock>,
        ids: Arc<dyn IdGenerator>,
        presenter: Arc<dyn Presenter>,
    ) -> Self {
        Self { unit_of_work, clock, ids, presenter }
    }

    /// # Errors
    /// `resource_not_found`; storage failures.
    pub fn retrieve(&self, scope: &Scope, id: &str) -> Result<Payout, ApplicationError> {
        reading(self.unit_of_work.as_ref(), |repositories| load(repositories, scope, id))
    }

    /// The scope's payouts that match `filter`, newest first.
    ///
    /// # Errors
    /// `parameter_invalid` for a cursor that names no payout of the scope; storage failures.
    pub fn list(
        &self,
        scope: &Scope,
        filter: &PayoutFilter,
        page: &PageRequest,
    ) -> Result<Page<Payout>, ApplicationError> {
        reading(self.unit_of_work.as_ref(), |repositories| {
            repositories.payouts().list(scope, filter, page).map_err(|error| page.explain(error))
        })
    }

    /// The lines of the payout `id`, the last made first.
    ///
    /// # Errors
    /// `resource_not_found` for a payout of no payout of the scope; `parameter_invalid` for a cursor
    /// that names no line of it; storage failures.
    pub fn transactions(
        &self,
        scope: &Scope,
        id: &str,
        page: &PageRequest,
    ) -> Result<Page<PayoutTransaction>, ApplicationError> {
        reading(self.unit_of_work.as_ref(), |repositories| {
            let payout = load(repositories, scope, id)?;
            repositories.payouts().transactions(scope, payout.id(), page).map_err(|error| page.explain(error))
        })
    }

    /// The scope's payout schedule.
    ///
    /// # Errors
    /// `resource_not_found` for an account that does not exist; storage failures.
    pub fn schedule(&self, scope: &Scope) -> Result<PayoutSchedule, ApplicationError> {
        reading(self.unit_of_work.as_ref(), |repositories| schedule_of(repositories, scope))
    }

    /// Changes how often the scope is paid out, or where to, as `editor` may: from now, the next
    /// payout is the interval's next time.
    ///
    /// # Errors
    /// `parameter_invalid` (`livemode`) for a merchant in live mode; `resource_not_found` for an
    /// account that does not exist; `resource_conflict` when another change came first; storage
    /// failures.
    pub fn change_schedule(
        &self,
        scope: &Scope,
        editor: ScheduleEditor,
        interval: Option<PayoutInterval>,
        destination: Option<BankAccount>,
    ) -> Result<PayoutSchedule, ApplicationError> {
        let now = self.clock.now_in(scope)?;
        in_transaction(self.unit_of_work.as_ref(), |repositories| {
            let schedule = schedule_of(repositories, scope)?;
            schedule.may_be_changed_by(editor)?;
            let changed = schedule.changed(interval, destination.clone(), now);
            repositories.payouts().save_schedule(&changed, Some(schedule.version))?;
            Ok(PayoutSchedule { version: schedule.version + 1, ..changed })
        })
    }

    /// The scheduled payouts due at `now`, in `within` or in any scope, the earliest first.
    ///
    /// # Errors
    /// Storage failures.
    pub fn due_runs(&self, within: Option<&Scope>, now: Timestamp, limit: u32) -> Result<Vec<Due>, ApplicationError> {
        reading(self.unit_of_work.as_ref(), |repositories| {
            let schedules = repositories.payouts().due_schedules(within, now, limit)?;
            Ok(schedules
                .into_iter()
                .filter_map(|schedule| {
                    let at = schedule.next_payout_at?;
                    let scope = Scope::of(&schedule.account_id, schedule.livemode);
                    Some(Due { kind: DueKind::PayoutRun, scope, id: String::new(), at })
                })
                .collect())
        })
    }

    /// The payouts whose next move is due at `now`, in `within` or in any scope, the earliest first.
    ///
    /// # Errors
    /// Storage failures.
    pub fn due(&self, within: Option<&Scope>, now: Timestamp, limit: u32) -> Result<Vec<Due>, ApplicationError> {
        reading(self.unit_of_work.as_ref(), |repositories| {
            let payouts = repositories.payouts().due(within, now, limit)?;
            Ok(payouts
                .into_iter()
                .filter_map(|payout| {
                    let at = payout.action_due_at()?;
                    let scope = Scope::of(payout.account_id(), payout.livemode());
                    Some(Due { kind: DueKind::Payout, scope, id: payout.id().to_string(), at })
                })
                .collect())
        })
    }

    /// The scope's scheduled payout at `at`: every entry available by then that no payout took, to
    /// the schedule's bank account, and the schedule moved to its next time. Nothing, or less, makes
    /// no payout: it waits for the next. Returns whether the schedule moved.
    ///
    /// # Errors
    /// `resource_conflict` when another instance made it first; storage failures.
    pub fn run_schedule(&self, scope: &Scope, at: Timestamp) -> Result<bool, ApplicationError> {
        in_transaction(self.unit_of_work.as_ref(), |repositories| {
            let Some(schedule) = repositories.payouts().schedule(scope)? else { return Ok(false) };
            if schedule.next_payout_at.is_none_or(|next| next > at) {
                return Ok(false);
            }
            // The schedule moves first: of two instances, the second's versioned write fails.
            repositories.payouts().save_schedule(&schedule.after_payout(at), Some(schedule.version))?;
            let unpaid = repositories.balance().unpaid(scope, at)?;
            let ids = self.payout_ids(unpaid.len());
            let Some(made) =
                Payout::make(ids, &unpaid, schedule.destination.clone(), (&scope.account_id, scope.livemode()), at)
            else {
                return Ok(true);
            };
            repositories.payouts().insert(&made)?;
            let log = EventLog::new(self.ids.as_ref(), self.presenter.as_ref(), scope, at, self.clock.as_ref());
            log.append(repositories, EventType::PayoutCreated, &self.presenter.payout(&made.payout), None)?;
            Ok(true)
        })
    }

    /// Moves the payout `id` as its time says: sends it, then the bank deposits or returns it (its
    /// money back in the balance). Returns whether it moved.
    ///
    /// # Errors
    /// `resource_conflict` when another instance moved it first; storage failures.
    pub fn move_payout(&self, scope: &Scope, id: &str, at: Timestamp) -> Result<bool, ApplicationError> {
        in_transaction(self.unit_of_work.as_ref(), |repositories| {
            let mut payout = load(repositories, scope, id)?;
            if payout.action_due_at().is_none_or(|due| due > at) {
                return Ok(false);
            }
            let Some(operation) = payout.due_operation() else { return Ok(false) };
            let before = self.presenter.payout(&payout);
            let version = payout.version();
            let returned = payout.apply(operation, BalanceEntryId::from_random(&self.ids.id_part()), at)?;
            repositories.payouts().update(&payout, version)?;
            if let Some(entry) = returned {
                repositories.balance().insert(&entry)?;
            }
            let event = match operation {
                PayoutOperation::Send => EventType::PayoutUpdated,
                PayoutOperation::Deposit => EventType::PayoutDeposited,
                PayoutOperation::Fail => EventType::PayoutFailed,
            };
            let log = EventLog::new(self.ids.as_ref(), self.presenter.as_ref(), scope, at, self.clock.as_ref());
            log.append(repositories, event, &self.presenter.payout(&payout), Some(&before))?;
            Ok(true)
        })
    }

    fn payout_ids(&self, lines: usize) -> PayoutIds {
        PayoutIds {
            payout: PayoutId::from_random(&self.ids.id_part()),
            entry: BalanceEntryId::from_random(&self.ids.id_part()),
            transactions: (0..lines).map(|_| PayoutTransactionId::from_random(&self.ids.id_part())).collect(),
        }
    }
}

/// Every account has a schedule in each mode from its creation: none is no account.
fn schedule_of(repositories: &mut dyn Repositories, scope: &Scope) -> Result<PayoutSchedule, ApplicationError> {
    repositories
        .payouts()
        .schedule(scope)?
        .ok_or_else(|| ApplicationError::NotFound { resource: "account", id: scope.account_id.to_string() })
}

fn load(repositories: &mut dyn Repositories, scope: &Scope, id: &str) -> Result<Payout, ApplicationError> {
    let not_found = || ApplicationError::NotFound { resource: RESOURCE, id: id.to_owned() };
    let payout_id = PayoutId::parse(id).ok_or_else(not_found)?;
    repositories.payouts().find(scope, &payout_id)?.ok_or_else(not_found)
}
