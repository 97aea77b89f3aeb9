//! The repository contract: what every implementation of the storage ports must do, written once and
//! run against the in-memory fakes and against diesel on SQLite and PostgreSQL (see
//! [`crate::repository_contract`]). Each check takes a fresh, empty store and panics on a breach.

#![allow(clippy::unwrap_used, clippy::missing_panics_doc)]

use crate::error::{ApplicationError, StoreError};
use crate::pagination::{MetadataMatch, Page, PageRequest};
use crate::ports::{
    in_transaction, reading, BillingStatementFilter, CheckoutSessionFilter, CustomerFilter, DeliveryAttempt,
    EventFilter, IdempotencyRecord, IdempotencyState, IntentOutcome, PassOver, PaymentFilter, PaymentIntentFilter,
    PayoutFilter, RequestLogFilter, UnitOfWork, WebhookFilter,
};
use crate::scope::{Caller, Scope};
use payments_domain::account::{Account, KeyKind, Mode};
use payments_domain::billing_statement::{
    BillingStatement, BillingStatementStatus, Finalization, LineItem, LineItemChanges, StatementDetails,
};
use payments_domain::checkout_session::{
    BillingDetailsCollection, CheckoutSession, CheckoutSessionStatus, LineItem as CheckoutLineItem, NewCheckoutSession,
    SubmitType,
};
use payments_domain::console_session::{ConsoleSession, SessionToken};
use payments_domain::customer::{Billing, BillingStatementPrefix, Customer, CustomerName, Email, NewCustomer};
use payments_domain::customer_session::{Component, ComponentName, CustomerSession, Feature, Toggle};
use payments_domain::description::Description;
use payments_domain::event::{Event, EventType};
use payments_domain::ids::{AccountId, ClientSecret, CustomerId, DeliveryId, EventId, PaymentId, PaymentIntentId};
use payments_domain::ids::{BillingStatementId, BillingStatementLineItemId, MailMessageId};
use payments_domain::ids::{
    CheckoutSessionId, CheckoutSessionLineItemId, CustomerSessionId, PaymentMethodId, SetupIntentId,
};
use payments_domain::ids::{RefundId, RequestLogId, WebhookId};
use payments_domain::mail_message::{MailContent, MailMessage, MailOutcome, MailStatus};
use payments_domain::metadata::Metadata;
use payments_domain::money::{Amount, Currency};
use payments_domain::payment::{FeeRate, Payment, PaymentStatus};
use payments_domain::payment_intent::{
    Attempt, AuthorizationOutcome, CardOptions, NewPaymentIntent, PaymentIntent, PaymentIntentChanges,
    PaymentIntentStatus,
};
use payments_domain::payment_method::{
    CardSummary, Funding, PaymentMethod, PaymentMethodRecord, PaymentMethodType, Usage, VerifiedCard,
};
use payments_domain::pending_authorization::{Authorizing, Verdict};
use payments_domain::redirect_url::RedirectUrl;
use payments_domain::refund::{NewRefund, RefundReason};
use payments_domain::request_log::{RequestLog, RequestSource, Retention, StatusRange};
use payments_domain::retry::RetrySchedule;
use payments_domain::setup_intent::{NewSetupIntent, PendingSetup, SetupIntent, SetupIntentStatus};
use payments_domain::time::Timestamp;
use payments_domain::webhook::{
    DeliveryMove, DeliveryStatus, NewWebhook, StoredWebhook, Webhook, WebhookChanges, WebhookSecret, WebhookStatus,
    WebhookUrl,
};
use payments_domain::webhook_delivery::{AttemptOutcome, Delivery, EndpointHealth};
use std::any::Any;
use std::sync::Arc;

mod account;
mod balance;
mod billing_statement;
mod checkout_session;
mod connector_account;
mod console_session;
mod customer;
mod customer_session;
mod event;
mod idempotency;
mod mail_message;
mod page;
mod payment;
mod payment_intent;
mod payment_method;
mod payout;
mod processor_event;
mod processor_operation;
mod request_log;
mod setup_intent;
mod unit_of_work;
mod webhook;
mod webhook_delivery;

pub use account::*;
pub use balance::*;
pub use billing_statement::*;
pub use checkout_session::*;
pub use connector_account::*;
pub use console_session::*;
pub use customer::*;
pub use customer_session::*;
pub use event::*;
pub use idempotency::*;
pub use mail_message::*;
pub use page::*;
pub use payment::*;
pub use payment_intent::*;
pub use payment_method::*;
pub use payout::*;
pub use processor_event::*;
pub use processor_operation::*;
pub use request_log::*;
pub use setup_intent::*;
pub use unit_of_work::*;
pub use webhook::*;
pub use webhook_delivery::*;

/// A store under test, with whatever keeps it alive (a temporary database).
pub struct ContractStore {
    unit_of_work: Arc<dyn UnitOfWork>,
    _keep: Box<dyn Any>,
}

impl ContractStore {
    #[must_use]
    pub fn new(unit_of_work: Arc<dyn UnitOfWork>, keep: impl Any) -> Self {
        Self { unit_of_work, _keep: Box::new(keep) }
    }

    #[must_use]
    pub fn unit_of_work(&self) -> &dyn UnitOfWork {
        self.unit_of_work.as_ref()
    }
}

/// Declares one `#[test]` per check of the contract, each on a store made by `$make` (an expression
/// evaluated once per test, yielding a [`ContractStore`]).
#[macro_export]
macro_rules! repository_contract {
    ($make:expr) => {
        $crate::repository_contract!(@checks $make;
            accounts_are_found_by_key_digest,
            accounts_are_listed_and_their_objects_deleted_by_mode,
            deliveries_fall_due_at_the_time_given_not_the_events,
            failed_deliveries_are_requeued_from_the_time_they_failed,
            a_disabled_webhooks_recovered_deliveries_are_held_until_it_is_enabled,
            failed_attempts_are_those_the_domain_calls_undelivered,
            test_clocks_move_only_from_where_they_stand,
            customers_round_trip_and_stay_in_their_scope,
            a_stale_version_is_a_conflict,
            a_taken_statement_prefix_is_a_unique_violation,
            lists_page_newest_first_with_cursors_and_filters,
            idempotency_keys_record_and_replay_per_api_key,
            payment_intents_round_trip_and_are_found_by_redirect_token_and_due_time,
            payments_and_refunds_round_trip_with_versioned_updates,
            a_change_is_all_or_nothing,
            appended_events_reach_the_webhooks_that_listen_to_them,
            setup_intents_round_trip_and_are_found_by_redirect_token_and_due_time,
            saved_payment_methods_are_listed_per_customer_changed_and_deleted,
            the_ledger_sums_by_availability_and_finds_what_is_unpaid,
            payouts_claim_each_entry_once_and_move_by_version,
            a_payouts_lines_reconcile_to_their_payments,
            payout_schedules_are_saved_once_and_moved_by_version,
            customer_sessions_round_trip_in_their_scope,
            events_are_appended_listed_and_counted,
            events_are_filtered_by_type_and_object,
            events_are_streamed_once_in_the_order_they_were_appended,
            webhooks_are_stored_listed_and_filtered,
            deliveries_are_leased_settled_and_moved,
            billing_statements_round_trip_with_their_line_items_and_filters,
            mail_messages_are_queued_claimed_and_listed,
            processor_operations_are_written_once_and_checked_when_due,
            processor_events_are_kept_once_and_due_until_processed,
            connector_accounts_are_one_per_account_and_found_by_id,
            checkout_sessions_round_trip_and_are_found_by_intent_page_and_expiry,
            a_read_refuses_to_write,
            a_write_keeps_to_its_tenant,
            request_logs_are_listed_filtered_and_pruned,
            request_logs_keep_their_newest_entries_within_a_byte_cap,
            request_logs_are_trimmed_to_their_caps_one_scope_at_a_time,
            console_sessions_are_found_by_digest_touched_and_ended,
            payment_intents_are_listed_filtered_and_counted,
            products_prices_and_pages_round_trip_in_their_scope,
        );
    };
    (@checks $make:expr; $($check:ident),* $(,)?) => {$(
        #[test]
        fn $check() {
            let store: $crate::testing::contract::ContractStore = $make;
            $crate::testing::contract::$check(store.unit_of_work());
        }
    )*};
}

const NOW: i64 = 1_700_000_000;

fn at(offset: i64) -> Timestamp {
    Timestamp::from_unix_seconds(NOW + offset)
}

/// A test-mode scope of a new account (with one secret test key, digest `digest-<account id>`).
pub fn account(store: &dyn UnitOfWork, name: &str) -> Scope {
    let id = AccountId::from_random(name);
    let account = Account { id: id.clone(), name: name.into(), created_at: at(0) };
    let keys = vec![(format!("digest-{id}"), KeyKind::Secret, Mode::Test)];
    in_transaction(store, |r| Ok(r.accounts().insert(&account, &keys)?)).unwrap();
    Scope { account_id: id, mode: Mode::Test }
}

fn write<T>(
    store: &dyn UnitOfWork,
    work: impl FnOnce(&mut dyn crate::ports::Repositories) -> Result<T, StoreError>,
) -> T {
    in_transaction(store, |r| Ok(work(r)?)).unwrap()
}

/// Appends `events`, their deliveries due when the first of them happened.
fn appended(r: &mut dyn crate::ports::Repositories, events: &[Event]) -> Result<(), StoreError> {
    r.events().append(events, events.first().map_or(at(0), |event| event.created_at))
}

fn read<T>(
    store: &dyn UnitOfWork,
    work: impl FnOnce(&mut dyn crate::ports::Repositories) -> Result<T, StoreError>,
) -> T {
    reading(store, |r| Ok(work(r)?)).unwrap()
}

fn ids<T>(page: &Page<T>, id: impl Fn(&T) -> String) -> Vec<String> {
    page.data.iter().map(id).collect()
}

/// Customer number `n` of `scope`, not yet stored (statement prefix `P000n`).
#[must_use]
pub fn customer(scope: &Scope, n: u32) -> Customer {
    let new = NewCustomer {
        name: CustomerName::new(format!("Customer {n}")).unwrap(),
        email: Email::new(format!("c{n}@example.com")).unwrap(),
        currency: Currency::Php,
        billing_statement_prefix: None,
        next_billing_statement_sequence_number: None,
        billing: None,
        metadata: None,
    };
    Customer::create(
        CustomerId::from_random(&format!("c{n}{}", scope.account_id.as_str().len())),
        scope.account_id.clone(),
        scope.livemode(),
        new,
        BillingStatementPrefix::new(format!("P{n:04}")).unwrap(),
        at(0),
    )
}

fn metadata(pairs: &[(&str, &str)]) -> Metadata {
    Metadata::new(pairs.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect()).unwrap()
}

#[cfg(test)]
mod tests {
    /// `repository_contract!` names every check of the files beside it: a check left out of the
    /// macro would never run.
    #[test]
    fn the_macro_runs_every_check() {
        let directory = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/testing/contract");
        let mut checks = std::collections::BTreeSet::new();
        for file in std::fs::read_dir(&directory).unwrap() {
            let source = std::fs::read_to_string(file.unwrap().path()).unwrap();
            for line in source.lines() {
                if let Some(name) =
                    line.strip_prefix("pub fn ").and_then(|rest| rest.strip_suffix("(store: &dyn UnitOfWork) {"))
                {
                    checks.insert(name.to_owned());
                }
            }
        }
        let this = std::fs::read_to_string(directory.join("mod.rs")).unwrap();
        let start = this.find("@checks $make;").unwrap();
        let listed: std::collections::BTreeSet<String> = this[start..this[start..].find(");").unwrap() + start]
            .lines()
            .skip(1)
            .map(|line| line.trim().trim_end_matches(',').to_owned())
            .filter(|name| !name.is_empty())
            .collect();
        assert!(checks.len() >= 30, "the checks are found: {checks:?}");
        assert_eq!(listed, checks, "repository_contract! lists exactly the checks");
    }
}
