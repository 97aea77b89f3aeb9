//! Payouts: made on each account's schedule from what its balance has available, then sent and
//! settled at their times by the payout rail of their mode (a port), all through the due-work
//! machinery (so an advance of a test clock makes a week of payouts happen before it answers); read
//! and listed with their lines; and the schedule changed by the operator and the merchant.

use super::due::{Due, DueKind};
use super::event::EventLog;
use crate::error::ApplicationError;
use crate::pagination::{Page, PageRequest};
use crate::ports::{
    in_transaction, reading, Clock, IdGenerator, KnownAccount, PayoutFilter, PayoutRail, Presenter, ReconciliationLine,
    Repositories, UnitOfWork,
};
use crate::scope::Scope;
use payments_domain::event::EventType;
use payments_domain::ids::{BalanceEntryId, PayoutId, PayoutTransactionId};
use payments_domain::payout::{
    BankAccount, BankOutcome, Payout, PayoutIds, PayoutInterval, PayoutOperation, PayoutSchedule, PayoutStep,
    PayoutTransaction, ScheduleEditor,
};
use payments_domain::time::Timestamp;
use std::sync::Arc;

const RESOURCE: &str = "payout";

/// What a payout's page shows: the payout, its last lines, and whether it has more.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PayoutPage {
    pub payout: Payout,
    pub lines: Vec<PayoutTransaction>,
    pub more: bool,
}

/// The payout rail of each mode: the test bank in test mode; live mode makes no payouts until a
/// processor pays them out.
#[derive(Clone)]
pub struct PayoutRails {
    pub test: Arc<dyn PayoutRail>,
    pub live: Option<Arc<dyn PayoutRail>>,
}

impl PayoutRails {
    fn for_mode(&self, livemode: bool) -> Result<&Arc<dyn PayoutRail>, ApplicationError> {
        if livemode {
            self.live.as_ref().ok_or_else(|| ApplicationError::NotConfigured("Live mode makes no payouts.".into()))
        } else {
            Ok(&self.test)
        }
    }

    /// The bank accounts whose answer the rail of `livemode` knows ahead; none where it has no rail.
    #[must_use]
    pub fn known_accounts(&self, livemode: bool) -> Vec<KnownAccount> {
        self.for_mode(livemode).map(|rail| rail.known_accounts()).unwrap_or_default()
    }

    /// The bank account a new schedule of `livemode` pays out to: its rail's default (the test
    /// rail's while live mode has none, a placeholder the operator replaces).
    #[must_use]
    pub fn default_destination(&self, livemode: bool, account_name: &str) -> BankAccount {
        self.for_mode(livemode).unwrap_or(&self.test).default_destination(account_name)
    }
}

/// Payout use cases.
pub struct PayoutService {
    unit_of_work: Arc<dyn UnitOfWork>,
    clock: Arc<dyn Clock>,
    ids: Arc<dyn IdGenerator>,
    presenter: Arc<dyn Presenter>,
    rails: PayoutRails,
}

impl PayoutService {
    #[must_use]
    pub fn new(
        unit_of_work: Arc<dyn UnitOfWork>,
        clock: Arc<dyn Clock>,
        ids: Arc<dyn IdGenerator>,
        presenter: Arc<dyn Presenter>,
        rails: PayoutRails,
    ) -> Self {
        Self { unit_of_work, clock, ids, presenter, rails }
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

    /// A payout's page: the payout and its last `lines` lines (the last made first), and whether it
    /// has more. One read.
    ///
    /// # Errors
    /// `resource_not_found`; storage failures.
    pub fn page(&self, scope: &Scope, id: &str, lines: u32) -> Result<PayoutPage, ApplicationError> {
        let request = PageRequest::new(Some(i64::from(lines.min(PageRequest::MAX_LIMIT))), None, None)
            .map_err(ApplicationError::Validation)?;
        reading(self.unit_of_work.as_ref(), |repositories| {
            let payout = load(repositories, scope, id)?;
            let Page { data, has_more } = repositories.payouts().transactions(scope, payout.id(), &request)?;
            Ok(PayoutPage { payout, lines: data, more: has_more })
        })
    }

    /// Up to `limit` lines of the payout `id` after the line `after` (the first made first), each
    /// with the payment a merchant reconciles it to: one read of a reconciliation export.
    ///
    /// # Errors
    /// `resource_not_found` for a payout of no payout of the scope; storage failures.
    pub fn reconciliation(
        &self,
        scope: &Scope,
        id: &str,
        after: Option<&PayoutTransactionId>,
        limit: u32,
    ) -> Result<Vec<ReconciliationLine>, ApplicationError> {
        reading(self.unit_of_work.as_ref(), |repositories| {
            let payout = load(repositories, scope, id)?;
            Ok(repositories.payouts().reconciliation(scope, payout.id(), after, limit)?)
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

    /// Moves the payout `id` as its time says: sends it, then its rail answers how the bank took it,
    /// deposited or returned (its money back in the balance). Returns whether it moved.
    ///
    /// # Errors
    /// `resource_conflict` when another instance moved it first; storage failures.
    pub fn move_payout(&self, scope: &Scope, id: &str, at: Timestamp) -> Result<bool, ApplicationError> {
        in_transaction(self.unit_of_work.as_ref(), |repositories| {
            let mut payout = load(repositories, scope, id)?;
            if payout.action_due_at().is_none_or(|due| due > at) {
                return Ok(false);
            }
            let operation = match payout.due_step() {
                None => return Ok(false),
                Some(PayoutStep::Send) => PayoutOperation::Send,
                Some(PayoutStep::Settle) => {
                    PayoutOperation::Settle(self.rails.for_mode(scope.livemode())?.answer(&payout))
                }
            };
            let event = match &operation {
                PayoutOperation::Send => EventType::PayoutUpdated,
                PayoutOperation::Settle(BankOutcome::Deposited) => EventType::PayoutDeposited,
                PayoutOperation::Settle(BankOutcome::Returned { .. }) => EventType::PayoutFailed,
            };
            let before = self.presenter.payout(&payout);
            let version = payout.version();
            let returned = payout.apply(operation, BalanceEntryId::from_random(&self.ids.id_part()), at)?;
            repositories.payouts().update(&payout, version)?;
            if let Some(entry) = returned {
                repositories.balance().insert(&entry)?;
            }
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
