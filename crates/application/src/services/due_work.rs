//! What the service does on its own when its time comes: redirects left pending fail, processing
//! payments and setup intents settle, holds past `capture_before_at` are released, checkout
//! sessions expire, billing statements' reminders are sent, payouts are made, sent and settled. The background job runs it by real time
//! across accounts and by each moved test clock; an advance of a test clock runs, before it
//! answers, everything its move made due.

use super::due::{Due, DueKind};
use super::pending_authorization::AuthorizationFlow;
use super::{
    BillingStatementService, CheckoutSessionService, PaymentIntentService, PayoutService, ProcessorEventService,
    RefundService, SetupIntentService,
};
use crate::error::ApplicationError;
use crate::ports::{Clock, UnitOfWork};
use crate::scope::Scope;
use payments_domain::account::Mode;
use payments_domain::ids::AccountId;
use payments_domain::time::Timestamp;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

/// Moved test clocks the background job visits per run, in turn.
const CLOCKS_PER_RUN: u32 = 20;
/// Objects of each kind an advance looks at per round.
const ADVANCE_BATCH: u32 = 500;
/// Due actions of the same second an advance performs at once.
const PERFORMED_AT_ONCE: usize = 4;

/// Runs due background actions, each through the service of its object.
pub struct DueWork {
    payment_intents: Arc<PaymentIntentService>,
    setup_intents: Arc<SetupIntentService>,
    checkout_sessions: Arc<CheckoutSessionService>,
    billing_statements: Arc<BillingStatementService>,
    payouts: Arc<PayoutService>,
    refunds: Arc<RefundService>,
    processor_events: Arc<ProcessorEventService>,
    /// Where the operations sent to live processors are scanned for those due.
    unit_of_work: Arc<dyn UnitOfWork>,
    clock: Arc<dyn Clock>,
    /// The last account whose moved test clock the background job visited.
    visited: Mutex<Option<AccountId>>,
}

impl DueWork {
    #[must_use]
    pub fn new(
        (payment_intents, setup_intents): (Arc<PaymentIntentService>, Arc<SetupIntentService>),
        (checkout_sessions, billing_statements): (Arc<CheckoutSessionService>, Arc<BillingStatementService>),
        (payouts, refunds, processor_events): (Arc<PayoutService>, Arc<RefundService>, Arc<ProcessorEventService>),
        unit_of_work: Arc<dyn UnitOfWork>,
        clock: Arc<dyn Clock>,
    ) -> Self {
        Self {
            payment_intents,
            setup_intents,
            checkout_sessions,
            billing_statements,
            payouts,
            refunds,
            processor_events,
            unit_of_work,
            clock,
            visited: Mutex::default(),
        }
    }

    /// One run of the background job: up to `batch` objects of each kind due by real time, in any
    /// scope, each acted on at its scope's time; then what is due by the next few moved test
    /// clocks, each at the time it fell due. Returns how many objects moved. Safe with several instances: each move is a
    /// versioned update, so only one instance's move lands.
    ///
    /// # Errors
    /// Storage failures of a scan; a failed action is logged and left for the next run.
    pub fn run(&self, batch: u32) -> Result<usize, ApplicationError> {
        let mut moved = 0;
        for due in self.scan(None, self.clock.now(), batch)? {
            let at = self.clock.now_in(&due.scope)?;
            moved += usize::from(self.perform_logged(&due, at));
        }
        let accounts = {
            let mut visited = self.visited.lock().unwrap_or_else(PoisonError::into_inner);
            let accounts = self.clock.moved_test_clocks(visited.as_ref(), CLOCKS_PER_RUN)?;
            *visited = if accounts.len() < CLOCKS_PER_RUN as usize { None } else { accounts.last().cloned() };
            accounts
        };
        for account_id in accounts {
            let scope = Scope { account_id, mode: Mode::Test };
            let now = self.clock.now_in(&scope)?;
            // Each at its own time, in the order they fell due, as an advance does: a clock moved
            // far ahead has a schedule's many payouts to make, each from what was available then.
            let mut due = self.scan(Some(&scope), now, batch)?;
            due.sort_by_key(|due| due.at);
            for due in due {
                moved += usize::from(self.perform_logged(&due, due.at));
            }
        }
        Ok(moved)
    }

    /// Everything due in `scope` by `now`, acted on in the order it fell due (to the second: what
    /// fell due in the same second is acted on several at once), each at its own time: also what
    /// fell due before the clock's move began, which a concurrent advance has not reached yet (a
    /// payout is dated at its schedule's time and takes only what was available then). Returns how
    /// many objects moved; what cannot move yet (a checkout session whose payment still processes)
    /// is left.
    ///
    /// # Errors
    /// Storage failures.
    pub fn run_all(&self, scope: &Scope, now: Timestamp) -> Result<usize, ApplicationError> {
        let mut moved = 0;
        let mut previous_round = Vec::new();
        loop {
            let batches = self.batches(Some(scope), now, ADVANCE_BATCH)?;
            // A full batch may hold back objects due before those another kind offers: this round
            // stops at the latest of the shortest-reaching full batch.
            let horizon = batches
                .iter()
                .filter(|batch| batch.len() >= ADVANCE_BATCH as usize)
                .filter_map(|batch| batch.last().map(|due| due.at))
                .min()
                .unwrap_or(now);
            let mut round: Vec<Due> = batches.into_iter().flatten().filter(|due| due.at <= horizon).collect();
            round.sort_by(|a, b| (a.at, &a.id).cmp(&(b.at, &b.id)));
            let mut moved_in_round = 0;
            for same_second in round.chunk_by(|a, b| a.at.unix_seconds() == b.at.unix_seconds()) {
                moved_in_round += self.perform_together(same_second)?;
            }
            // Done when nothing is left, or what is left stays as it was: it cannot move yet. A
            // round another instance's background job moved first is no reason to stop.
            if round.is_empty() || (moved_in_round == 0 && round == previous_round) {
                return Ok(moved);
            }
            moved += moved_in_round;
            previous_round = round;
        }
    }

    /// Performs what fell due in the same second, each at its time, several at once: their order
    /// among themselves is not kept. Returns how many moved.
    fn perform_together(&self, same_second: &[Due]) -> Result<usize, ApplicationError> {
        let next = AtomicUsize::new(0);
        let work = || -> Result<usize, ApplicationError> {
            let mut moved = 0;
            while let Some(due) = same_second.get(next.fetch_add(1, Ordering::Relaxed)) {
                moved += usize::from(self.perform(due, due.at)?);
            }
            Ok(moved)
        };
        if same_second.len() == 1 {
            return work();
        }
        std::thread::scope(|scope| {
            let workers: Vec<_> = (0..PERFORMED_AT_ONCE.min(same_second.len())).map(|_| scope.spawn(work)).collect();
            let mut moved = 0;
            for worker in workers {
                moved += worker.join().map_err(|_| ApplicationError::internal("a due action panicked"))??;
            }
            Ok(moved)
        })
    }

    fn scan(&self, within: Option<&Scope>, now: Timestamp, limit: u32) -> Result<Vec<Due>, ApplicationError> {
        Ok(self.batches(within, now, limit)?.into_iter().flatten().collect())
    }

    fn batches(&self, within: Option<&Scope>, now: Timestamp, limit: u32) -> Result<[Vec<Due>; 8], ApplicationError> {
        Ok([
            self.payment_intents.due(within, now, limit)?,
            self.setup_intents.due(within, now, limit)?,
            self.checkout_sessions.due(within, now, limit)?,
            self.billing_statements.due(within, now, limit)?,
            self.payouts.due_runs(within, now, limit)?,
            self.payouts.due(within, now, limit)?,
            super::processor_operation::due_operations(self.unit_of_work.as_ref(), within, now, limit)?,
            self.processor_events.due(within, limit)?,
        ])
    }

    /// Acts on `due` at `at`. Returns whether it moved: not when another instance or a request
    /// moved it first, its state no longer allows the action, or it is gone.
    fn perform(&self, due: &Due, at: Timestamp) -> Result<bool, ApplicationError> {
        let outcome = match due.kind {
            DueKind::PaymentIntent if due.scope.livemode() => self.payment_intents.perform_live_due(due, at),
            DueKind::PaymentIntent => self.payment_intents.perform_due(due, at),
            DueKind::SetupIntent => self.setup_intents.perform_due(due, at),
            DueKind::CheckoutSession => self.checkout_sessions.perform_due(due, at),
            DueKind::BillingStatement => self.billing_statements.perform_due(due, at),
            DueKind::PayoutRun => self.payouts.run_schedule(&due.scope, at),
            DueKind::Payout => self.payouts.move_payout(&due.scope, &due.id, at),
            DueKind::ProcessorOperation => self.payment_intents.check_operation(due, at),
            DueKind::RefundOperation => self.refunds.check_operation(due, at),
            DueKind::ProcessorEvent => self.processor_events.process(due, at),
        };
        match outcome {
            Err(ApplicationError::Conflict | ApplicationError::InvalidState(_) | ApplicationError::NotFound { .. }) => {
                Ok(false)
            }
            other => other,
        }
    }

    fn perform_logged(&self, due: &Due, at: Timestamp) -> bool {
        self.perform(due, at).unwrap_or_else(|error| {
            tracing::warn!(kind = ?due.kind, id = %due.id, %error, "a due background action failed");
            false
        })
    }
}
