//! Payouts and the balance over in-memory fakes, driven by the test clock: a week of daily payouts,
//! a negative balance carried forward, a payout the bank returns paid out again, two schedule runs
//! racing for one payout, and the balance's page read at once.

use crate::support::card_payment;
use payments_application::pagination::PageRequest;
use payments_application::ports::{Clock, PayoutFilter};
use payments_application::services::{Access, AttachOutcome};
use payments_application::testing::{card_intent, TestPorts};
use payments_application::Scope;
use payments_domain::account::Mode;
use payments_domain::balance::Centavos;
use payments_domain::payout::{BankAccount, Payout, PayoutStatus, ScheduleEditor, TransactionSource};
use payments_domain::refund::{NewRefund, RefundReason};
use payments_domain::money::Currency;
use payments_domain::test_clock::ClockMove;

const DAY: i64 = 24 * 60 * 60;

/// A new account's test mode, with its daily schedule.
fn account(ports: &TestPorts) -> Scope {
    let (account, _) = ports.account_service().create("Acme").unwrap();
    Scope { account_id: account.id, mode: Mode::Test }
}

/// A card payment of `amount` in `scope`: its id.
fn paid(ports: &TestPorts, scope: &Scope, amount: i64) -> String {
    let intents = ports.payment_intent_service();
    let intent = intents.create(scope, card_intent(amount)).unwrap().intent;
    let AttachOutcome::Attached(view) = intents.attach(scope, intent.id().as_str(), Access::SecretKey, card_payment()).unwrap()
    else {
        panic!("the test card is approved")
    };
    view.latest_payment.expect("a payment").id().to_string()
}

fn refund(ports: &TestPorts, scope: &Scope, payment_id: &str, amount: i64) {
    let new = NewRefund {
        amount,
        currency: Currency::Php,
        payment_id: payment_id.to_owned(),
        reason: RefundReason::Others,
        description: None,
        remarks: None,
        metadata: None,
    };
    ports.refund_service().create(scope, &new).unwrap();
}

fn advance(ports: &TestPorts, scope: &Scope, seconds: i64) {
    ports.test_clock_service().advance(scope, ClockMove::By { seconds }).unwrap();
}

/// Every payout of `scope`, oldest first.
fn payouts(ports: &TestPorts, scope: &Scope) -> Vec<Payout> {
    let page = PageRequest::new(Some(100), None, None).unwrap();
    let mut listed = ports.payout_service().list(scope, &PayoutFilter::default(), &page).unwrap().data;
    listed.reverse();
    listed
}

fn net_of(ports: &TestPorts, scope: &Scope, payment_id: &str) -> Centavos {
    Centavos::new(ports.payment_service().retrieve(scope, payment_id).unwrap().payment.net_amount())
}

#[test]
fn a_week_of_payouts_is_made_by_the_clock_each_at_midnight_in_manila() {
    let ports = TestPorts::new();
    let scope = account(&ports);
    let mut nets = Centavos::ZERO;
    for amount in [10_000, 20_000, 30_000] {
        let payment = paid(&ports, &scope, amount);
        nets += net_of(&ports, &scope, &payment);
        advance(&ports, &scope, DAY);
    }
    advance(&ports, &scope, 7 * DAY);
    let made = payouts(&ports, &scope);
    assert_eq!(made.len(), 3, "one a day, as each payment settled");
    for payout in &made {
        assert_eq!(payout.created_at().unix_seconds().rem_euclid(DAY), 16 * 60 * 60, "{payout:?}");
        assert_eq!(payout.status(), PayoutStatus::Successful);
    }
    assert_eq!(made.iter().map(Payout::net_amount).sum::<Centavos>(), nets, "to the centavo");
    assert_eq!(ports.balance_service().retrieve(&scope).unwrap().balance.available, Centavos::ZERO);
}

#[test]
fn a_negative_balance_is_carried_forward_to_the_next_payout() {
    let ports = TestPorts::new();
    let scope = account(&ports);
    let first = paid(&ports, &scope, 10_000);
    advance(&ports, &scope, 3 * DAY);
    assert_eq!(payouts(&ports, &scope).len(), 1);
    // More refunded than is left: nothing to pay out, and the debt waits.
    refund(&ports, &scope, &first, 10_000);
    advance(&ports, &scope, 2 * DAY);
    assert_eq!(payouts(&ports, &scope).len(), 1, "less than nothing makes no payout");
    let balance = ports.balance_service().retrieve(&scope).unwrap().balance;
    assert_eq!(balance.available, Centavos::new(-10_000), "carried forward, not dropped");
    let second = paid(&ports, &scope, 30_000);
    advance(&ports, &scope, 3 * DAY);
    let made = payouts(&ports, &scope);
    assert_eq!(made.len(), 2);
    assert_eq!(made[1].net_amount(), net_of(&ports, &scope, &second) - Centavos::new(10_000), "the refund's line in it");
}

#[test]
fn a_payout_the_bank_returns_is_paid_again_as_an_adjustment() {
    let ports = TestPorts::new();
    let scope = account(&ports);
    ports.rail.returns("000111111116", "account_closed");
    let closed = BankAccount::new("Acme", "000111111116", "Test Bank").unwrap();
    ports.payout_service().change_schedule(&scope, ScheduleEditor::Merchant, None, Some(closed)).unwrap();
    let payment = paid(&ports, &scope, 10_000);
    advance(&ports, &scope, 4 * DAY);
    let returned = payouts(&ports, &scope);
    assert_eq!((returned[0].status(), returned[0].failure_code()), (PayoutStatus::Failed, Some("account_closed")));
    let open = BankAccount::new("Acme", "000123456789", "Test Bank").unwrap();
    ports.payout_service().change_schedule(&scope, ScheduleEditor::Merchant, None, Some(open)).unwrap();
    advance(&ports, &scope, 2 * DAY);
    let made = payouts(&ports, &scope);
    let again = made.iter().find(|payout| payout.status() == PayoutStatus::Successful).expect("paid again");
    assert_eq!(again.net_amount(), net_of(&ports, &scope, &payment), "the same money, once");
    let lines = ports.payout_service().page(&scope, again.id().as_str(), 10).unwrap().lines;
    assert_eq!(lines.iter().map(|line| line.source.clone()).collect::<Vec<_>>(), [TransactionSource::Adjustment(returned[0].id().clone())]);
}

#[test]
fn two_schedule_runs_at_once_make_one_payout() {
    let ports = TestPorts::new();
    let scope = account(&ports);
    paid(&ports, &scope, 10_000);
    let due = ports.payout_service().schedule(&scope).unwrap().next_payout_at.unwrap().plus_seconds(2 * DAY);
    let service = ports.payout_service();
    let outcomes: Vec<_> = std::thread::scope(|threads| {
        let runs: Vec<_> = (0..2).map(|_| threads.spawn(|| service.run_schedule(&scope, due))).collect();
        runs.into_iter().map(|run| run.join().unwrap()).collect()
    });
    assert_eq!(outcomes.iter().filter(|outcome| matches!(outcome, Ok(true))).count(), 1, "{outcomes:?}");
    assert_eq!(payouts(&ports, &scope).len(), 1);
}

#[test]
fn the_balances_page_reads_the_balance_its_schedule_and_the_latest_payouts_at_once() {
    let ports = TestPorts::new();
    let scope = account(&ports);
    ports.rail.returns("000222222227", "could_not_process");
    for _ in 0..3 {
        paid(&ports, &scope, 10_000);
        advance(&ports, &scope, 3 * DAY);
    }
    let pending = paid(&ports, &scope, 20_000);
    let page = ports.balance_service().page(&scope, 2).unwrap();
    assert_eq!(page.latest.len(), 2, "the latest two of three");
    assert_eq!(page.latest, payouts(&ports, &scope).into_iter().rev().take(2).collect::<Vec<_>>(), "newest first");
    assert_eq!(page.view.balance.pending, net_of(&ports, &scope, &pending));
    assert!(page.view.schedule.is_some());
    assert_eq!(page.known_accounts.len(), 1, "the rail's own: {:?}", page.known_accounts);
    let live = ports.balance_service().page(&Scope { mode: Mode::Live, ..scope.clone() }, 2).unwrap();
    assert!(live.latest.is_empty() && live.known_accounts.is_empty(), "live mode has no rail");
    assert!(ports.clock.now_in(&scope).unwrap() > ports.clock.now(), "the test clock moved, real time did not");
}
