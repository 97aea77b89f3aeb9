//! Billing statements and their line items: drafts and their edits, finalizing (a number from the
//! customer's sequence and the payment intent, in one transaction), sending by e-mail through the
//! outbox, voiding, what the hosted page shows and how it pays, and the due-date reminders.

use super::account::merchant_name;
use super::customer::live_customer;
use super::due::{Due, DueKind};
use super::event::EventLog;
use super::intent_owner::ensure_owner_may_end;
use super::payment_intent::{load_view, views, AttachOutcome, AttachRequest, PaymentIntentService, PaymentIntentView};
use super::redirect::Access;
use crate::error::{ApplicationError, StateRefusal};
use crate::pagination::{Page, PageRequest};
use crate::ports::{
    in_transaction, reading, retry_on_conflict, retry_on_conflict_up_to, BillingStatementFilter, Clock, IdGenerator,
    MailComposer, Presenter, Repositories, StatementNotice, UnitOfWork,
};
use crate::scope::Scope;
use payments_domain::billing_statement::{
    check_due_at, BillingStatement, BillingStatementOperation, BillingStatementStatus, Finalization, LineItem,
    LineItemChanges, StatementChanges, StatementDetails,
};
use payments_domain::checkout_session::BillingDetailsCollection;
use payments_domain::customer::Customer;
use payments_domain::description::Description;
use payments_domain::event::EventType;
use payments_domain::hosted_page::HostedPage;
use payments_domain::ids::{
    BillingStatementId, BillingStatementLineItemId, ClientSecret, CustomerId, MailMessageId, PaymentIntentId,
    RANDOM_PART_LENGTH,
};
use payments_domain::mail_message::MailMessage;
use payments_domain::metadata::Metadata;
use payments_domain::money::Currency;
use payments_domain::payment_intent::{CardOptions, IntentOwner, NewPaymentIntent};
use payments_domain::payment_method::PaymentMethodType;
use payments_domain::redirect_url::RedirectUrl;
use payments_domain::statement_descriptor::StatementDescriptor;
use payments_domain::time::Timestamp;
use payments_domain::validation::FieldError;
use serde_json::Value;
use std::sync::Arc;

const RESOURCE: &str = "billing_statement";
const LINE_ITEM: &str = "billing_statement_line_item";
/// Attempts of a use case that many requests contend for at once: finalizing the statements of one
/// customer (its sequence), editing the line items of one statement.
const CONTENDED_ATTEMPTS: usize = 16;

/// A statement with what its representation embeds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BillingStatementView {
    pub statement: BillingStatement,
    pub customer: Customer,
    /// Set once finalized.
    pub payment_intent: Option<PaymentIntentView>,
    /// The merchant's name (the account's), shown to the customer.
    pub merchant_name: String,
}

/// A line item with the statement it belongs to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LineItemView {
    pub item: LineItem,
    pub statement_id: BillingStatementId,
    pub livemode: bool,
}

/// What a merchant asks for when creating a statement.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewBillingStatement {
    pub customer_id: CustomerId,
    /// When given, it must be the customer's.
    pub currency: Option<Currency>,
    pub description: Option<Description>,
    pub due_at: Option<Timestamp>,
    pub billing_details_collection: Option<BillingDetailsCollection>,
    pub payment_methods: Option<Vec<PaymentMethodType>>,
    pub statement_descriptor: Option<StatementDescriptor>,
    pub metadata: Option<Metadata>,
}

/// A new line item's fields, checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewLineItem {
    pub billing_statement_id: String,
    pub description: String,
    pub unit_price: i64,
    pub quantity: i64,
}

/// What the hosted page of a statement shows, found by its client secret.
#[derive(Debug, Clone)]
pub struct StatementPage {
    pub view: BillingStatementView,
    /// Whether `due_at` has passed (the page says "overdue").
    pub overdue: bool,
}

impl StatementPage {
    /// Whether the customer may pay now: the statement is open.
    #[must_use]
    pub fn payable(&self) -> bool {
        self.view.statement.status() == BillingStatementStatus::Open
    }
}

/// Billing statement use cases.
pub struct BillingStatementService {
    unit_of_work: Arc<dyn UnitOfWork>,
    clock: Arc<dyn Clock>,
    ids: Arc<dyn IdGenerator>,
    presenter: Arc<dyn Presenter>,
    composer: Arc<dyn MailComposer>,
    payment_intents: Arc<PaymentIntentService>,
    /// Whether e-mail leaves the service; without it live statements cannot be sent.
    mail_delivers: bool,
    /// Base of the hosted pages' URLs.
    public_base_url: String,
}

impl BillingStatementService {
    #[must_use]
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        unit_of_work: Arc<dyn UnitOfWork>,
        clock: Arc<dyn Clock>,
        ids: Arc<dyn IdGenerator>,
        presenter: Arc<dyn Presenter>,
        composer: Arc<dyn MailComposer>,
        payment_intents: Arc<PaymentIntentService>,
        mail_delivers: bool,
        public_base_url: String,
    ) -> Self {
        Self { unit_of_work, clock, ids, presenter, composer, payment_intents, mail_delivers, public_base_url }
    }

    fn random(&self) -> String {
        self.ids.alphanumeric(RANDOM_PART_LENGTH)
    }

    /// Creates a draft for a customer, in the customer's currency.
    ///
    /// # Errors
    /// `parameter_invalid` on `customer_id` naming no live customer, or on a `currency` other than
    /// the customer's; `parameter_below_minimum` on a past `due_at`; storage failures.
    pub fn create(&self, scope: &Scope, new: NewBillingStatement) -> Result<BillingStatementView, ApplicationError> {
        let now = self.clock.now_in(scope)?;
        if let Some(due_at) = new.due_at {
            check_due_at(due_at, now).map_err(|invalid| ApplicationError::invalid(invalid.at("due_at")))?;
        }
        let id = BillingStatementId::from_random(&self.ids.id_part());
        let secret = ClientSecret::new(id.as_str(), &self.random());
        in_transaction(self.unit_of_work.as_ref(), |repositories| {
            let customer = live_customer(repositories, scope, &new.customer_id)?;
            if new.currency.is_some_and(|currency| currency != customer.currency) {
                return Err(ApplicationError::invalid(FieldError::invalid(
                    "currency",
                    format!("A billing statement is in its customer's currency, {}.", customer.currency),
                )));
            }
            let details = StatementDetails {
                currency: customer.currency,
                description: new.description.clone(),
                due_at: new.due_at,
                billing_details_collection: new.billing_details_collection.unwrap_or(BillingDetailsCollection::Always),
                payment_methods: new.payment_methods.clone().unwrap_or_else(|| vec![PaymentMethodType::Card]),
                statement_descriptor: new.statement_descriptor.clone(),
                metadata: new.metadata.clone(),
            };
            let statement = BillingStatement::create(
                id.clone(),
                scope.account_id.clone(),
                scope.livemode(),
                customer.id.clone(),
                secret.clone(),
                details,
                now,
            );
            repositories.billing_statements().insert(&statement)?;
            let view = self.complete_view(repositories, scope, statement, Some(customer))?;
            self.log(scope, now).append(
                repositories,
                EventType::BillingStatementCreated,
                &self.present(&view),
                None,
            )?;
            Ok(view)
        })
    }

    /// # Errors
    /// `resource_not_found`; storage failures.
    pub fn retrieve(&self, scope: &Scope, id: &str) -> Result<BillingStatementView, ApplicationError> {
        reading(self.unit_of_work.as_ref(), |repositories| {
            let statement = load(repositories, scope, id)?;
            self.complete_view(repositories, scope, statement, None)
        })
    }

    /// # Errors
    /// `parameter_invalid` on an unknown cursor; storage failures.
    pub fn list(
        &self,
        scope: &Scope,
        filter: &BillingStatementFilter,
        page: &PageRequest,
    ) -> Result<Page<BillingStatementView>, ApplicationError> {
        reading(self.unit_of_work.as_ref(), |repositories| {
            let statements =
                repositories.billing_statements().list(scope, filter, page).map_err(|error| page.explain(error))?;
            let merchant_name = merchant_name(repositories, scope)?;
            // Their customers and intents, in a few reads however many statements there are.
            let customer_ids: Vec<CustomerId> =
                statements.data.iter().map(|statement| statement.customer_id().clone()).collect();
            let customers = repositories.customers().find_many(scope, &customer_ids)?;
            let intent_ids: Vec<PaymentIntentId> =
                statements.data.iter().filter_map(|statement| statement.payment_intent_id().cloned()).collect();
            let intents = repositories.payment_intents().find_many(scope, &intent_ids)?;
            let mut intent_views = views(repositories, scope, intents)?;
            let mut data = Vec::with_capacity(statements.data.len());
            for statement in statements.data {
                let customer = customers
                    .iter()
                    .find(|customer| &customer.id == statement.customer_id())
                    .cloned()
                    .ok_or_else(|| ApplicationError::internal("a billing statement's customer is missing"))?;
                let payment_intent = match statement.payment_intent_id() {
                    Some(id) => {
                        let at = intent_views.iter().position(|view| view.intent.id() == id).ok_or_else(|| {
                            ApplicationError::internal("a billing statement's payment intent is missing")
                        })?;
                        Some(intent_views.swap_remove(at))
                    }
                    None => None,
                };
                data.push(BillingStatementView {
                    statement,
                    customer,
                    payment_intent,
                    merchant_name: merchant_name.clone(),
                });
            }
            Ok(Page { data, has_more: statements.has_more })
        })
    }

    /// Changes a statement: `metadata` in every status, anything else only while a draft.
    ///
    /// # Errors
    /// `resource_invalid_state` for other changes once finalized; `parameter_below_minimum` on a
    /// past `due_at`; `resource_not_found`; storage failures.
    pub fn update(
        &self,
        scope: &Scope,
        id: &str,
        changes: StatementChanges,
    ) -> Result<BillingStatementView, ApplicationError> {
        let now = self.clock.now_in(scope)?;
        if let Some(due_at) = changes.due_at {
            check_due_at(due_at, now).map_err(|invalid| ApplicationError::invalid(invalid.at("due_at")))?;
        }
        retry_on_conflict(|| {
            in_transaction(self.unit_of_work.as_ref(), |repositories| {
                let before = load(repositories, scope, id)?;
                let mut statement = before.clone();
                statement.update(changes.clone(), now)?;
                if statement.details() == before.details() {
                    // Nothing changed: no write, no `billing_statement.updated` for webhooks to ignore.
                    return self.complete_view(repositories, scope, before, None);
                }
                repositories.billing_statements().update(&statement, before.version())?;
                let old = self.complete_view(repositories, scope, before, None)?;
                self.record_change(repositories, scope, old, (statement, None), EventType::BillingStatementUpdated, now)
            })
        })
    }

    /// Deletes a draft and its line items.
    ///
    /// # Errors
    /// `resource_invalid_state` once finalized; `resource_not_found`; storage failures.
    pub fn delete(&self, scope: &Scope, id: &str) -> Result<BillingStatementView, ApplicationError> {
        let now = self.clock.now_in(scope)?;
        retry_on_conflict(|| {
            in_transaction(self.unit_of_work.as_ref(), |repositories| {
                let statement = load(repositories, scope, id)?;
                statement.ensure_deletable()?;
                repositories.billing_statements().delete(&statement, statement.version())?;
                let view = self.complete_view(repositories, scope, statement, None)?;
                let log = self.log(scope, now);
                log.append(repositories, EventType::BillingStatementDeleted, &self.present(&view), None)?;
                Ok(view)
            })
        })
    }

    /// Finalizes a draft: the next number of the customer's sequence (a versioned update of the
    /// customer, so two statements finalized at once never share a number), the payment intent with
    /// the statement's methods, description and latest metadata, and the page. → `open`.
    ///
    /// # Errors
    /// `resource_invalid_state` unless a draft, or for a deleted customer; `parameter_required` /
    /// `parameter_below_minimum` on `due_at`; `parameter_below_minimum` / `parameter_above_maximum`
    /// on `amount`; `resource_not_found`; storage failures.
    pub fn finalize(&self, scope: &Scope, id: &str) -> Result<BillingStatementView, ApplicationError> {
        retry_on_conflict_up_to(CONTENDED_ATTEMPTS, || {
            let now = self.clock.now_in(scope)?;
            in_transaction(self.unit_of_work.as_ref(), |repositories| {
                let before = load(repositories, scope, id)?;
                let amount = before.finalizable(now)?;
                let mut customer =
                    self.customer_of(repositories, scope, &before, BillingStatementOperation::Finalize)?;
                let customer_version = customer.version;
                let number = BillingStatement::take_number(&mut customer, now)?;
                repositories.customers().update(&customer, customer_version)?;
                let details = before.details();
                let url = HostedPage::BillingStatement.url(&self.public_base_url, before.client_secret().reveal());
                let intent = self
                    .payment_intents
                    .build(
                        scope,
                        NewPaymentIntent {
                            amount,
                            currency: details.currency,
                            payment_methods: details.payment_methods.clone(),
                            statement_descriptor: details.statement_descriptor.clone(),
                            description: before.payment_description(&number),
                            metadata: details.metadata.clone(),
                            customer_id: Some(customer.id.clone()),
                            return_url: Some(RedirectUrl::trusted(url.clone())),
                            card_options: CardOptions::default(),
                        },
                        now,
                    )
                    .owned_by(IntentOwner::BillingStatement);
                repositories.payment_intents().insert(&intent)?;
                let mut statement = before.clone();
                let finalization =
                    Finalization { number, payment_intent_id: intent.id().clone(), url, finalized_at: now };
                statement.finalize(finalization, now)?;
                repositories.billing_statements().update(&statement, before.version())?;
                let old = self.complete_view(repositories, scope, before, Some(customer.clone()))?;
                let intent = PaymentIntentView { intent, latest_payment: None, customer: Some(customer) };
                let event = EventType::BillingStatementFinalized;
                self.record_change(repositories, scope, old, (statement, Some(intent)), event, now)
            })
        })
    }

    /// The statement `id` with what the merchant may do to it now: what the domain allows, less
    /// what this service refuses besides ([`BillingStatementService::ensure_service_allows`]).
    ///
    /// # Errors
    /// `resource_not_found`; storage failures.
    pub fn with_operations(
        &self,
        scope: &Scope,
        id: &str,
    ) -> Result<(BillingStatementView, Vec<BillingStatementOperation>), ApplicationError> {
        let now = self.clock.now_in(scope)?;
        let view = self.retrieve(scope, id)?;
        let allowed = BillingStatementOperation::ALL
            .into_iter()
            .filter(|operation| view.statement.allows(*operation, now))
            .filter(|operation| {
                self.ensure_service_allows(scope, *operation, &view.customer, view.payment_intent.as_ref()).is_ok()
            })
            .collect();
        Ok((view, allowed))
    }

    /// E-mails an open statement's link to its customer: the message is written to the outbox in
    /// this transaction and sent by the mail worker after the commit.
    ///
    /// # Errors
    /// `resource_invalid_state` unless open, or for a deleted customer; `service_unavailable` in
    /// live mode without a mail server; `resource_not_found`; storage failures.
    pub fn send(&self, scope: &Scope, id: &str) -> Result<BillingStatementView, ApplicationError> {
        let now = self.clock.now_in(scope)?;
        let message_id = MailMessageId::from_random(&self.ids.id_part());
        in_transaction(self.unit_of_work.as_ref(), |repositories| {
            let statement = load(repositories, scope, id)?;
            statement.ensure_open("send")?;
            let customer = self.customer_of(repositories, scope, &statement, BillingStatementOperation::Send)?;
            let view = self.complete_view(repositories, scope, statement, Some(customer))?;
            let content = self.composer.billing_statement(StatementNotice {
                statement: &view.statement,
                customer: &view.customer,
                merchant_name: &view.merchant_name,
                message_key: message_id.as_str(),
            });
            let message = MailMessage::create(
                message_id.clone(),
                scope.account_id.clone(),
                scope.livemode(),
                Some(view.statement.id().clone()),
                content,
                // The outbox keeps real time, as webhook deliveries do: a test clock moves neither.
                self.clock.now(),
            );
            repositories.mail_messages().insert(&message)?;
            self.log(scope, now).append(repositories, EventType::BillingStatementSent, &self.present(&view), None)?;
            Ok(view)
        })
    }

    /// Voids an open statement and cancels its payment intent.
    ///
    /// # Errors
    /// `resource_invalid_state` unless open, or while its payment is processing;
    /// `resource_not_found`; storage failures.
    pub fn void(&self, scope: &Scope, id: &str) -> Result<BillingStatementView, ApplicationError> {
        self.close(scope, id, BillingStatementOperation::Void)
    }

    /// Marks an open statement uncollectible and cancels its payment intent.
    ///
    /// # Errors
    /// As [`BillingStatementService::void`].
    pub fn mark_uncollectible(&self, scope: &Scope, id: &str) -> Result<BillingStatementView, ApplicationError> {
        self.close(scope, id, BillingStatementOperation::MarkUncollectible)
    }

    /// Ends an open statement by `operation` (void or mark uncollectible), and cancels its intent.
    fn close(
        &self,
        scope: &Scope,
        id: &str,
        operation: BillingStatementOperation,
    ) -> Result<BillingStatementView, ApplicationError> {
        type Transition = fn(&mut BillingStatement, Timestamp) -> Result<(), payments_domain::error::DomainError>;
        let (transition, event_type): (Transition, _) = match operation {
            BillingStatementOperation::Void => (BillingStatement::void, EventType::BillingStatementVoided),
            _ => (BillingStatement::mark_uncollectible, EventType::BillingStatementMarkedUncollectible),
        };
        retry_on_conflict(|| {
            let now = self.clock.now_in(scope)?;
            in_transaction(self.unit_of_work.as_ref(), |repositories| {
                let before = load(repositories, scope, id)?;
                let mut statement = before.clone();
                transition(&mut statement, now)?;
                // The view before, read before the intent is canceled: the event's previous attributes.
                let old = self.complete_view(repositories, scope, before, None)?;
                let mut intent_after = None;
                self.ensure_service_allows(scope, operation, &old.customer, old.payment_intent.as_ref())?;
                if let Some(intent) = &old.payment_intent {
                    let canceled = self.payment_intents.abandon_within(repositories, scope, intent.intent.id(), now)?;
                    intent_after = Some(canceled);
                }
                repositories.billing_statements().update(&statement, old.statement.version())?;
                self.record_change(repositories, scope, old, (statement, intent_after), event_type, now)
            })
        })
    }

    /// Adds a line item to a draft statement.
    ///
    /// # Errors
    /// `parameter_invalid` on `billing_statement_id` naming no statement of the scope;
    /// `resource_invalid_state` unless a draft; `parameter_above_maximum` when the total would pass
    /// the largest amount; storage failures.
    pub fn add_line_item(&self, scope: &Scope, new: NewLineItem) -> Result<LineItemView, ApplicationError> {
        let id = BillingStatementLineItemId::from_random(&self.ids.id_part());
        retry_on_conflict_up_to(CONTENDED_ATTEMPTS, || {
            let now = self.clock.now_in(scope)?;
            in_transaction(self.unit_of_work.as_ref(), |repositories| {
                let unknown = || {
                    ApplicationError::invalid(FieldError::missing(
                        "billing_statement_id",
                        format!("No billing statement with id {} exists.", new.billing_statement_id),
                    ))
                };
                let statement_id = BillingStatementId::parse(&new.billing_statement_id).ok_or_else(unknown)?;
                let before = repositories.billing_statements().find(scope, &statement_id)?.ok_or_else(unknown)?;
                let item = LineItem {
                    id: id.clone(),
                    description: new.description.clone(),
                    unit_price: new.unit_price,
                    quantity: new.quantity,
                    created_at: now,
                    updated_at: now,
                };
                let mut statement = before.clone();
                statement.add_line_item(item.clone(), now)?;
                self.store_line_items(repositories, &statement, before.version())?;
                self.record_line_item(
                    repositories,
                    scope,
                    &statement,
                    item,
                    EventType::BillingStatementLineItemCreated,
                    None,
                    now,
                )
            })
        })
    }

    /// # Errors
    /// `resource_not_found`; storage failures.
    pub fn line_item(&self, scope: &Scope, id: &str) -> Result<LineItemView, ApplicationError> {
        reading(self.unit_of_work.as_ref(), |repositories| {
            let (statement, item_id) = load_by_line_item(repositories, scope, id)?;
            let item = statement.line_item(&item_id).cloned().ok_or_else(|| line_item_not_found(id))?;
            Ok(LineItemView { item, statement_id: statement.id().clone(), livemode: statement.livemode() })
        })
    }

    /// Changes a line item of a draft statement.
    ///
    /// # Errors
    /// `resource_invalid_state` unless its statement is a draft; `parameter_above_maximum` when the
    /// total would pass the largest amount; `resource_not_found`; storage failures.
    pub fn update_line_item(
        &self,
        scope: &Scope,
        id: &str,
        changes: LineItemChanges,
    ) -> Result<LineItemView, ApplicationError> {
        retry_on_conflict_up_to(CONTENDED_ATTEMPTS, || {
            let now = self.clock.now_in(scope)?;
            in_transaction(self.unit_of_work.as_ref(), |repositories| {
                let (before, item_id) = load_by_line_item(repositories, scope, id)?;
                let old = before.line_item(&item_id).cloned().ok_or_else(|| line_item_not_found(id))?;
                let mut statement = before.clone();
                let item = statement.update_line_item(&item_id, changes.clone(), now)?;
                self.store_line_items(repositories, &statement, before.version())?;
                let event = EventType::BillingStatementLineItemUpdated;
                self.record_line_item(repositories, scope, &statement, item, event, Some(old), now)
            })
        })
    }

    /// Removes a line item of a draft statement.
    ///
    /// # Errors
    /// `resource_invalid_state` unless its statement is a draft; `resource_not_found`; storage failures.
    pub fn delete_line_item(&self, scope: &Scope, id: &str) -> Result<LineItemView, ApplicationError> {
        retry_on_conflict_up_to(CONTENDED_ATTEMPTS, || {
            let now = self.clock.now_in(scope)?;
            in_transaction(self.unit_of_work.as_ref(), |repositories| {
                let (before, item_id) = load_by_line_item(repositories, scope, id)?;
                let mut statement = before.clone();
                let item = statement.remove_line_item(&item_id, now)?;
                self.store_line_items(repositories, &statement, before.version())?;
                let event = EventType::BillingStatementLineItemDeleted;
                self.record_line_item(repositories, scope, &statement, item, event, None, now)
            })
        })
    }

    /// The statement whose client secret is `secret`, for its hosted page.
    ///
    /// # Errors
    /// `resource_not_found` for a secret that names no finalized statement; storage failures.
    pub fn page(&self, secret: &str) -> Result<StatementPage, ApplicationError> {
        let view = reading(self.unit_of_work.as_ref(), |repositories| {
            let statement = find_by_secret(repositories, secret)?;
            self.complete_view(repositories, &scope_of(&statement), statement, None)
        })?;
        let overdue = view.statement.overdue(self.clock.now_in(&scope_of(&view.statement))?);
        Ok(StatementPage { view, overdue })
    }

    /// The customer pays on the page they loaded: the statement's intent is attached as a browser
    /// with its client secret would, so concurrent submissions charge at most once.
    ///
    /// # Errors
    /// `resource_invalid_state` unless open; what attaching answers.
    pub fn pay(&self, page: &StatementPage, request: AttachRequest) -> Result<AttachOutcome, ApplicationError> {
        let statement = &page.view.statement;
        statement.ensure_open("pay")?;
        let intent = &page
            .view
            .payment_intent
            .as_ref()
            .ok_or_else(|| ApplicationError::internal("an open billing statement has no payment intent"))?
            .intent;
        let access = Access::ClientSecret(Some(intent.client_secret().reveal()));
        self.payment_intents.attach(&scope_of(statement), intent.id().as_str(), access, request)
    }

    /// The open statements with a due-date reminder due at `now`, in `within` or in any scope:
    /// `billing_statement.will_be_due` five days before `due_at`, `billing_statement.overdue` five
    /// days after.
    ///
    /// # Errors
    /// Storage failures.
    pub(crate) fn due(&self, within: Option<&Scope>, now: Timestamp, limit: u32) -> Result<Vec<Due>, ApplicationError> {
        let due = reading(self.unit_of_work.as_ref(), |repositories| {
            Ok(repositories.billing_statements().with_notice_due(within, now, limit)?)
        })?;
        Ok(due
            .iter()
            .filter_map(|statement| {
                Some(Due {
                    kind: DueKind::BillingStatement,
                    scope: scope_of(statement),
                    id: statement.id().to_string(),
                    at: statement.next_notice_at()?,
                })
            })
            .collect())
    }

    /// Sends the reminder of the statement `due` names that is due at `at`, once. Returns whether
    /// the statement moved.
    ///
    /// # Errors
    /// `resource_conflict` when another instance sent it first; storage failures.
    pub(crate) fn perform_due(&self, due: &Due, at: Timestamp) -> Result<bool, ApplicationError> {
        let scope = &due.scope;
        in_transaction(self.unit_of_work.as_ref(), |repositories| {
            let before = load(repositories, scope, &due.id)?;
            let mut statement = before.clone();
            let notice = statement.take_due_notice(at);
            if statement.version() == before.version() {
                return Ok(false);
            }
            repositories.billing_statements().update(&statement, before.version())?;
            if let Some(notice) = notice {
                let view = self.complete_view(repositories, scope, statement, None)?;
                self.log(scope, at).append(repositories, notice.event_type(), &self.present(&view), None)?;
            }
            Ok(true)
        })
    }

    /// Writes a statement whose line items changed: the versioned update first, so a concurrent
    /// finalize or edit makes this one lose before anything else is written.
    fn store_line_items(
        &self,
        repositories: &mut dyn Repositories,
        statement: &BillingStatement,
        expected_version: i64,
    ) -> Result<(), ApplicationError> {
        repositories.billing_statements().update(statement, expected_version)?;
        repositories.billing_statements().replace_line_items(statement)?;
        Ok(())
    }

    #[allow(clippy::too_many_arguments)]
    fn record_line_item(
        &self,
        repositories: &mut dyn Repositories,
        scope: &Scope,
        statement: &BillingStatement,
        item: LineItem,
        event_type: EventType,
        before: Option<LineItem>,
        now: Timestamp,
    ) -> Result<LineItemView, ApplicationError> {
        let view = LineItemView { item, statement_id: statement.id().clone(), livemode: statement.livemode() };
        let after = self.presenter.billing_statement_line_item(&view.item, &view.statement_id, view.livemode);
        let before =
            before.map(|old| self.presenter.billing_statement_line_item(&old, &view.statement_id, view.livemode));
        self.log(scope, now).append(repositories, event_type, &after, before.as_ref())?;
        Ok(view)
    }

    /// Appends `event_type` for a statement that moved from `old`, and returns its view. `intent` is
    /// its payment intent when the move changed or created it; else the old one stands.
    fn record_change(
        &self,
        repositories: &mut dyn Repositories,
        scope: &Scope,
        old: BillingStatementView,
        (statement, intent): (BillingStatement, Option<PaymentIntentView>),
        event_type: EventType,
        now: Timestamp,
    ) -> Result<BillingStatementView, ApplicationError> {
        let view = BillingStatementView {
            payment_intent: intent.or_else(|| old.payment_intent.clone()),
            statement,
            customer: old.customer.clone(),
            merchant_name: old.merchant_name.clone(),
        };
        self.log(scope, now).append(repositories, event_type, &self.present(&view), Some(&self.present(&old)))?;
        Ok(view)
    }

    /// The statement with its customer (`customer` when already loaded), intent and merchant name.
    fn complete_view(
        &self,
        repositories: &mut dyn Repositories,
        scope: &Scope,
        statement: BillingStatement,
        customer: Option<Customer>,
    ) -> Result<BillingStatementView, ApplicationError> {
        let merchant_name = merchant_name(repositories, scope)?;
        self.view_with(repositories, scope, statement, customer, merchant_name)
    }

    fn view_with(
        &self,
        repositories: &mut dyn Repositories,
        scope: &Scope,
        statement: BillingStatement,
        customer: Option<Customer>,
        merchant_name: String,
    ) -> Result<BillingStatementView, ApplicationError> {
        let customer = match customer {
            Some(customer) => customer,
            None => repositories
                .customers()
                .find(scope, statement.customer_id())?
                .ok_or_else(|| ApplicationError::internal("a billing statement's customer is missing"))?,
        };
        let payment_intent = match statement.payment_intent_id() {
            Some(id) => Some(load_view(repositories, scope, id.as_str())?),
            None => None,
        };
        Ok(BillingStatementView { statement, customer, payment_intent, merchant_name })
    }

    /// The statement's customer, when this service allows `operation` with it
    /// ([`BillingStatementService::ensure_service_allows`]).
    fn customer_of(
        &self,
        repositories: &mut dyn Repositories,
        scope: &Scope,
        statement: &BillingStatement,
        operation: BillingStatementOperation,
    ) -> Result<Customer, ApplicationError> {
        let customer = repositories.customers().find(scope, statement.customer_id())?.ok_or_else(|| {
            ApplicationError::InvalidState(StateRefusal::StatementCustomerDeleted {
                customer_id: statement.customer_id().to_string(),
            })
        })?;
        self.ensure_service_allows(scope, operation, &customer, None)?;
        Ok(customer)
    }

    /// What this service refuses besides the domain's transitions: a live statement cannot be sent
    /// without a mail server; a deleted customer's statement cannot be finalized or sent; a
    /// statement cannot be ended while its payment is processing.
    ///
    /// # Errors
    /// `service_unavailable`, `resource_invalid_state`.
    fn ensure_service_allows(
        &self,
        scope: &Scope,
        operation: BillingStatementOperation,
        customer: &Customer,
        intent: Option<&PaymentIntentView>,
    ) -> Result<(), ApplicationError> {
        match operation {
            BillingStatementOperation::Send if scope.livemode() && !self.mail_delivers => {
                Err(ApplicationError::NotConfigured(
                    "No mail server is configured, so live billing statements cannot be sent.".into(),
                ))
            }
            BillingStatementOperation::Finalize | BillingStatementOperation::Send if customer.is_deleted() => {
                Err(ApplicationError::InvalidState(StateRefusal::StatementCustomerDeleted {
                    customer_id: customer.id.to_string(),
                }))
            }
            BillingStatementOperation::Void | BillingStatementOperation::MarkUncollectible => match intent {
                Some(intent) => ensure_owner_may_end(&intent.intent, "billing statement"),
                None => Ok(()),
            },
            _ => Ok(()),
        }
    }

    fn present(&self, view: &BillingStatementView) -> Value {
        present(self.presenter.as_ref(), view)
    }

    fn log<'a>(&'a self, scope: &'a Scope, now: Timestamp) -> EventLog<'a> {
        EventLog::new(self.ids.as_ref(), self.presenter.as_ref(), scope, now, self.clock.as_ref())
    }
}

/// A statement view as the API shows it.
pub(crate) fn present(presenter: &dyn Presenter, view: &BillingStatementView) -> Value {
    let intent = view.payment_intent.as_ref().map(|intent| {
        presenter.payment_intent(&intent.intent, intent.latest_payment.as_ref(), intent.customer.as_ref())
    });
    presenter.billing_statement(&view.statement, &view.customer, intent.as_ref(), &view.merchant_name)
}

fn scope_of(statement: &BillingStatement) -> Scope {
    Scope::of(statement.account_id(), statement.livemode())
}

fn load(repositories: &mut dyn Repositories, scope: &Scope, id: &str) -> Result<BillingStatement, ApplicationError> {
    let not_found = || ApplicationError::NotFound { resource: RESOURCE, id: id.to_owned() };
    let statement_id = BillingStatementId::parse(id).ok_or_else(not_found)?;
    repositories.billing_statements().find(scope, &statement_id)?.ok_or_else(not_found)
}

fn line_item_not_found(id: &str) -> ApplicationError {
    ApplicationError::NotFound { resource: LINE_ITEM, id: id.to_owned() }
}

fn load_by_line_item(
    repositories: &mut dyn Repositories,
    scope: &Scope,
    id: &str,
) -> Result<(BillingStatement, BillingStatementLineItemId), ApplicationError> {
    let item_id = BillingStatementLineItemId::parse(id).ok_or_else(|| line_item_not_found(id))?;
    let statement =
        repositories.billing_statements().find_by_line_item(scope, &item_id)?.ok_or_else(|| line_item_not_found(id))?;
    Ok((statement, item_id))
}

/// The finalized statement a client secret (`bstm_…_secret_…`) names, if the secret is its own.
fn find_by_secret(repositories: &mut dyn Repositories, secret: &str) -> Result<BillingStatement, ApplicationError> {
    let not_found = || ApplicationError::NotFound { resource: RESOURCE, id: "this page".to_owned() };
    let id = ClientSecret::object_id(secret).and_then(BillingStatementId::parse).ok_or_else(not_found)?;
    let statement = repositories.billing_statements().find_for_page(&id)?.ok_or_else(not_found)?;
    if statement.client_secret().matches(secret) && statement.finalization().is_some() {
        Ok(statement)
    } else {
        Err(not_found())
    }
}
