//! The balance as the API shows it (`GET /balance`): what a payout may take now, what becomes
//! available later, and the payout schedule with its bank account.

use payments_application::services::BalanceView;
use payments_domain::payout::{BankAccount, PayoutSchedule};
use serde::Serialize;
use utoipa::ToSchema;

/// The balance of an account in a mode, in centavos.
#[derive(Serialize, ToSchema)]
#[schema(as = Balance)]
pub(crate) struct BalanceResource<'a> {
    resource: &'static str,
    /// What the next payout takes: every entry available by now that no payout took.
    available: i64,
    /// Paid payments whose settlement delay has not passed yet.
    pending: i64,
    currency: &'static str,
    livemode: bool,
    payout_schedule: Option<ScheduleResource<'a>>,
}

/// How often payouts are made (at midnight in the Philippines), the next one, and where they go.
#[derive(Serialize, ToSchema)]
#[schema(as = PayoutSchedule)]
pub(crate) struct ScheduleResource<'a> {
    /// `daily`, `weekly`, `monthly` or `manual`.
    interval: &'static str,
    weekly_anchor: Option<&'static str>,
    monthly_anchor: Option<u32>,
    next_payout_at: Option<i64>,
    destination: &'a BankAccount,
}

impl<'a> BalanceResource<'a> {
    pub(crate) fn new(view: &'a BalanceView, livemode: bool) -> Self {
        Self {
            resource: "balance",
            available: view.balance.available.get(),
            pending: view.balance.pending.get(),
            currency: "PHP",
            livemode,
            payout_schedule: view.schedule.as_ref().map(ScheduleResource::new),
        }
    }
}

impl<'a> ScheduleResource<'a> {
    pub(crate) fn new(schedule: &'a PayoutSchedule) -> Self {
        Self {
            interval: schedule.interval.as_str(),
            weekly_anchor: schedule.interval.weekly_anchor(),
            monthly_anchor: schedule.interval.monthly_anchor(),
            next_payout_at: schedule.next_payout_at.map(|at| at.unix_seconds()),
            destination: &schedule.destination,
        }
    }
}
