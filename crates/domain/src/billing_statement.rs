//! Billing statements: an itemized bill for a customer with a due date, paid through a hosted page.
//! Line items change only while the statement is a draft; finalizing numbers it and creates its
//! payment intent; paying the intent pays the statement.
//!
//! ```text
//! draft ──finalize──▶ open ──intent paid──▶ paid
//!   │                  ├──void──▶ void
//!   └──delete          └──mark_uncollectible──▶ uncollectible
//! ```

use crate::checkout_session::BillingDetailsCollection;
use crate::customer::Customer;
use crate::description::Description;
use crate::error::DomainError;
use crate::event::EventType;
use crate::ids::{
    AccountId, BillingStatementId, BillingStatementLineItemId, ClientSecret, CustomerId, PaymentIntentId,
};
use crate::metadata::Metadata;
use crate::money::{Amount, Currency};
use crate::payment_method::PaymentMethodType;
use crate::statement_descriptor::StatementDescriptor;
use crate::time::Timestamp;
use crate::validation::{ErrorCode, FieldError, Invalid};

const RESOURCE: &str = "billing_statement";
/// The most line items a statement may have.
pub const MAX_LINE_ITEMS: usize = 100;
/// The longest line item description.
pub const LINE_ITEM_DESCRIPTION_LENGTH: usize = 255;
/// `billing_statement.will_be_due` comes this long before `due_at`, `overdue` this long after.
pub const DUE_NOTICE_SECONDS: i64 = 5 * 24 * 60 * 60;
/// Slack for a merchant's clock a little apart from ours when `due_at` must be in the future.
const CLOCK_GRACE_SECONDS: i64 = 60;
/// The latest `due_at` accepted: the end of year 9999, so every date reads as four digits.
pub const LATEST_DUE_AT: i64 = 253_402_300_799;

/// Where a billing statement stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BillingStatementStatus {
    Draft,
    Open,
    Paid,
    Void,
    Uncollectible,
}

impl BillingStatementStatus {
    pub const ALL: [Self; 5] = [Self::Draft, Self::Open, Self::Paid, Self::Void, Self::Uncollectible];

    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Draft => "draft",
            Self::Open => "open",
            Self::Paid => "paid",
            Self::Void => "void",
            Self::Uncollectible => "uncollectible",
        }
    }

    #[must_use]
    pub fn parse(value: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|status| status.as_str() == value)
    }
}

/// A line of a statement: `quantity` of `description` at `unit_price` centavos each.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LineItem {
    pub id: BillingStatementLineItemId,
    pub description: String,
    /// The price of one unit in centavos.
    pub unit_price: i64,
    pub quantity: i64,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
}

impl LineItem {
    /// `quantity × unit_price`; never overflows for the values the checks below let in.
    #[must_use]
    pub fn total(&self) -> i64 {
        self.quantity.saturating_mul(self.unit_price)
    }

    /// # Errors
    /// `parameter_invalid` for a blank description or one over 255 characters.
    pub fn check_description(text: String) -> Result<String, Invalid> {
        if text.trim().is_empty() || text.chars().count() > LINE_ITEM_DESCRIPTION_LENGTH {
            return Err(Invalid::value(format!(
                "A line item description is 1 to {LINE_ITEM_DESCRIPTION_LENGTH} characters long."
            )));
        }
        Ok(text)
    }

    /// # Errors
    /// `parameter_below_minimum` under one centavo, `parameter_above_maximum` over the largest amount.
    pub fn check_unit_price(centavos: i64) -> Result<i64, Invalid> {
        within("The unit price", centavos, Amount::MAXIMUM, "centavos")
    }

    /// # Errors
    /// `parameter_below_minimum` under one, `parameter_above_maximum` over the largest amount.
    pub fn check_quantity(quantity: i64) -> Result<i64, Invalid> {
        within("The quantity", quantity, Amount::MAXIMUM, "")
    }
}

fn within(what: &str, value: i64, maximum: i64, unit: &str) -> Result<i64, Invalid> {
    let unit = if unit.is_empty() { String::new() } else { format!(" {unit}") };
    if value < 1 {
        return Err(Invalid::new(ErrorCode::ParameterBelowMinimum, format!("{what} must be at least 1{unit}.")));
    }
    if value > maximum {
        return Err(Invalid::new(ErrorCode::ParameterAboveMaximum, format!("{what} must be at most {maximum}{unit}.")));
    }
    Ok(value)
}

/// A line item's fields as a merchant gives them; on an update, absent fields stay as they are.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LineItemChanges {
    pub description: Option<String>,
    pub unit_price: Option<i64>,
    pub quantity: Option<i64>,
}

/// `due_at` checked against `now`: in the future (a minute of grace) and at most in year 9999.
///
/// # Errors
/// `parameter_below_minimum` in the past, `parameter_above_maximum` past year 9999.
pub fn check_due_at(due_at: Timestamp, now: Timestamp) -> Result<Timestamp, Invalid> {
    if due_at.unix_seconds() < now.unix_seconds() - CLOCK_GRACE_SECONDS {
        return Err(Invalid::new(ErrorCode::ParameterBelowMinimum, "due_at must be in the future (Unix seconds)."));
    }
    if due_at.unix_seconds() > LATEST_DUE_AT {
        return Err(Invalid::new(ErrorCode::ParameterAboveMaximum, "due_at must be before the year 10000."));
    }
    Ok(due_at)
}

/// The fields a merchant sets on a statement.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StatementDetails {
    pub currency: Currency,
    pub description: Option<Description>,
    pub due_at: Option<Timestamp>,
    pub billing_details_collection: BillingDetailsCollection,
    pub payment_methods: Vec<PaymentMethodType>,
    pub statement_descriptor: Option<StatementDescriptor>,
    pub metadata: Option<Metadata>,
}

/// A merchant's update of a statement; absent fields stay as they are.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct StatementChanges {
    pub description: Option<Description>,
    pub due_at: Option<Timestamp>,
    pub billing_details_collection: Option<BillingDetailsCollection>,
    pub payment_methods: Option<Vec<PaymentMethodType>>,
    pub statement_descriptor: Option<StatementDescriptor>,
    pub metadata: Option<Metadata>,
}

impl StatementChanges {
    /// Whether the update changes anything but `metadata`, which may change in every status.
    fn beyond_metadata(&self) -> bool {
        let Self {
            description,
            due_at,
            billing_details_collection,
            payment_methods,
            statement_descriptor,
            metadata: _,
        } = self;
        description.is_some()
            || due_at.is_some()
            || billing_details_collection.is_some()
            || payment_methods.is_some()
            || statement_descriptor.is_some()
    }
}

/// What finalizing gives a statement: its number, its payment intent, its page, and when.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finalization {
    pub number: String,
    pub payment_intent_id: PaymentIntentId,
    /// `{public_base_url}/b/<client_secret>`.
    pub url: String,
    pub finalized_at: Timestamp,
}

/// A reminder a statement is due for, each sent once.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DueNotice {
    /// Five days before `due_at`.
    WillBeDue,
    /// Five days after `due_at`, still unpaid.
    Overdue,
}

impl DueNotice {
    #[must_use]
    pub fn event_type(self) -> EventType {
        match self {
            Self::WillBeDue => EventType::BillingStatementWillBeDue,
            Self::Overdue => EventType::BillingStatementOverdue,
        }
    }
}

/// A billing statement with its line items. Its status and amount change only through its methods.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BillingStatement {
    id: BillingStatementId,
    account_id: AccountId,
    livemode: bool,
    status: BillingStatementStatus,
    customer_id: CustomerId,
    client_secret: ClientSecret,
    details: StatementDetails,
    line_items: Vec<LineItem>,
    finalization: Option<Finalization>,
    will_be_due_noticed: bool,
    overdue_noticed: bool,
    created_at: Timestamp,
    updated_at: Timestamp,
    version: i64,
}

/// A statement as a repository stores it, to restore it with [`BillingStatement::restore`].
#[derive(Debug, Clone)]
pub struct StoredBillingStatement {
    pub id: BillingStatementId,
    pub account_id: AccountId,
    pub livemode: bool,
    pub status: BillingStatementStatus,
    pub customer_id: CustomerId,
    pub client_secret: ClientSecret,
    pub details: StatementDetails,
    pub line_items: Vec<LineItem>,
    pub finalization: Option<Finalization>,
    pub will_be_due_noticed: bool,
    pub overdue_noticed: bool,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
    pub version: i64,
}

/// What a merchant may ask of a billing statement, besides changing it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BillingStatementOperation {
    Finalize,
    Send,
    Void,
    MarkUncollectible,
    Delete,
}

impl BillingStatementOperation {
    pub const ALL: [Self; 5] = [Self::Finalize, Self::Send, Self::Void, Self::MarkUncollectible, Self::Delete];

    /// The operation's name in the API's paths and the console's forms.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Finalize => "finalize",
            Self::Send => "send",
            Self::Void => "void",
            Self::MarkUncollectible => "mark_uncollectible",
            Self::Delete => "delete",
        }
    }
}

impl BillingStatement {
    /// A new draft without line items.
    #[must_use]
    pub fn create(
        id: BillingStatementId,
        account_id: AccountId,
        livemode: bool,
        customer_id: CustomerId,
        client_secret: ClientSecret,
        details: StatementDetails,
        now: Timestamp,
    ) -> Self {
        Self {
            id,
            account_id,
            livemode,
            status: BillingStatementStatus::Draft,
            customer_id,
            client_secret,
            details,
            line_items: Vec::new(),
            finalization: None,
            will_be_due_noticed: false,
            overdue_noticed: false,
            created_at: now,
            updated_at: now,
            version: 1,
        }
    }

    #[must_use]
    pub fn restore(stored: StoredBillingStatement) -> Self {
        let StoredBillingStatement {
            id,
            account_id,
            livemode,
            status,
            customer_id,
            client_secret,
            details,
            line_items,
            finalization,
            will_be_due_noticed,
            overdue_noticed,
            created_at,
            updated_at,
            version,
        } = stored;
        Self {
            id,
            account_id,
            livemode,
            status,
            customer_id,
            client_secret,
            details,
            line_items,
            finalization,
            will_be_due_noticed,
            overdue_noticed,
            created_at,
            updated_at,
            version,
        }
    }

    /// The statement as a repository stores it.
    #[must_use]
    pub fn stored(&self) -> StoredBillingStatement {
        StoredBillingStatement {
            id: self.id.clone(),
            account_id: self.account_id.clone(),
            livemode: self.livemode,
            status: self.status,
            customer_id: self.customer_id.clone(),
            client_secret: self.client_secret.clone(),
            details: self.details.clone(),
            line_items: self.line_items.clone(),
            finalization: self.finalization.clone(),
            will_be_due_noticed: self.will_be_due_noticed,
            overdue_noticed: self.overdue_noticed,
            created_at: self.created_at,
            updated_at: self.updated_at,
            version: self.version,
        }
    }

    fn refuse(&self, action: &'static str) -> DomainError {
        DomainError::InvalidState { resource: RESOURCE, status: self.status.as_str(), action }
    }

    fn ensure_draft(&self, action: &'static str) -> Result<(), DomainError> {
        match self.status {
            BillingStatementStatus::Draft => Ok(()),
            BillingStatementStatus::Open
            | BillingStatementStatus::Paid
            | BillingStatementStatus::Void
            | BillingStatementStatus::Uncollectible => Err(self.refuse(action)),
        }
    }

    fn touch(&mut self, now: Timestamp) {
        self.updated_at = now;
        self.version += 1;
    }

    /// Applies a merchant's update: `metadata` in every status, anything else only to a draft.
    ///
    /// # Errors
    /// `resource_invalid_state` for a change beyond `metadata` once finalized.
    pub fn update(&mut self, changes: StatementChanges, now: Timestamp) -> Result<(), DomainError> {
        if changes.beyond_metadata() {
            self.ensure_draft("update")?;
        }
        let StatementChanges {
            description,
            due_at,
            billing_details_collection,
            payment_methods,
            statement_descriptor,
            metadata,
        } = changes;
        let details = &mut self.details;
        if description.is_some() {
            details.description = description;
        }
        if due_at.is_some() {
            details.due_at = due_at;
        }
        if let Some(collection) = billing_details_collection {
            details.billing_details_collection = collection;
        }
        if let Some(methods) = payment_methods {
            details.payment_methods = methods;
        }
        if statement_descriptor.is_some() {
            details.statement_descriptor = statement_descriptor;
        }
        if metadata.is_some() {
            details.metadata = metadata;
        }
        self.touch(now);
        Ok(())
    }

    /// The sum of quantity × unit price over `items`, refused above the largest amount.
    fn total_of(items: &[LineItem], parameter: &str) -> Result<i64, DomainError> {
        items
            .iter()
            .try_fold(0_i64, |sum, item| sum.checked_add(item.total()))
            .filter(|sum| *sum <= Amount::MAXIMUM)
            .ok_or_else(|| {
                DomainError::Invalid(FieldError::new(
                    parameter,
                    ErrorCode::ParameterAboveMaximum,
                    format!(
                        "The statement's total (quantity × unit_price of its line items) must be at most {}.",
                        Amount::MAXIMUM
                    ),
                ))
            })
    }

    /// Adds a line item to a draft.
    ///
    /// # Errors
    /// `resource_invalid_state` unless a draft; `parameter_invalid` past 100 line items;
    /// `parameter_above_maximum` when the total would pass the largest amount.
    pub fn add_line_item(&mut self, item: LineItem, now: Timestamp) -> Result<(), DomainError> {
        self.ensure_draft("add a line item to")?;
        if self.line_items.len() >= MAX_LINE_ITEMS {
            return Err(DomainError::Invalid(FieldError::invalid(
                "billing_statement_id",
                format!("A billing statement has at most {MAX_LINE_ITEMS} line items."),
            )));
        }
        let mut items = self.line_items.clone();
        items.push(item);
        Self::total_of(&items, "unit_price")?;
        self.line_items = items;
        self.touch(now);
        Ok(())
    }

    /// Changes a line item of a draft and returns it as it now is.
    ///
    /// # Errors
    /// `resource_invalid_state` unless a draft; `parameter_above_maximum` when the total would pass
    /// the largest amount; `parameter_invalid` for an id of another statement.
    pub fn update_line_item(
        &mut self,
        id: &BillingStatementLineItemId,
        changes: LineItemChanges,
        now: Timestamp,
    ) -> Result<LineItem, DomainError> {
        self.ensure_draft("update a line item of")?;
        let mut items = self.line_items.clone();
        let item = items.iter_mut().find(|item| &item.id == id).ok_or_else(|| self.unknown_item(id))?;
        if let Some(description) = changes.description {
            item.description = description;
        }
        if let Some(unit_price) = changes.unit_price {
            item.unit_price = unit_price;
        }
        if let Some(quantity) = changes.quantity {
            item.quantity = quantity;
        }
        item.updated_at = now;
        let updated = item.clone();
        Self::total_of(&items, if changes.quantity.is_some() { "quantity" } else { "unit_price" })?;
        self.line_items = items;
        self.touch(now);
        Ok(updated)
    }

    /// Removes a line item of a draft and returns it.
    ///
    /// # Errors
    /// `resource_invalid_state` unless a draft.
    pub fn remove_line_item(
        &mut self,
        id: &BillingStatementLineItemId,
        now: Timestamp,
    ) -> Result<LineItem, DomainError> {
        self.ensure_draft("delete a line item of")?;
        let position = self.line_items.iter().position(|item| &item.id == id).ok_or_else(|| self.unknown_item(id))?;
        let removed = self.line_items.remove(position);
        self.touch(now);
        Ok(removed)
    }

    fn unknown_item(&self, id: &BillingStatementLineItemId) -> DomainError {
        DomainError::Invalid(FieldError::invalid(
            "id",
            format!("Line item {id} is not on billing statement {}.", self.id),
        ))
    }

    /// Checks that a draft can be finalized at `now`: it has a `due_at` still ahead and a total
    /// within the bounds of an amount.
    ///
    /// # Errors
    /// `resource_invalid_state` unless a draft; `parameter_required` / `parameter_below_minimum` on
    /// `due_at`; `parameter_below_minimum` / `parameter_above_maximum` on `amount`.
    pub fn finalizable(&self, now: Timestamp) -> Result<Amount, DomainError> {
        self.ensure_draft("finalize")?;
        let due_at = self.details.due_at.ok_or_else(|| {
            DomainError::Invalid(FieldError::new(
                "due_at",
                ErrorCode::ParameterRequired,
                "Set due_at before finalizing the billing statement.",
            ))
        })?;
        check_due_at(due_at, now).map_err(|invalid| DomainError::Invalid(invalid.at("due_at")))?;
        let total = self.amount();
        Amount::new(total).map_err(|refused| {
            DomainError::Invalid(FieldError::new(
                "amount",
                refused.code,
                format!(
                    "A billing statement's total must be within {} and {} to finalize it; it is {total}.",
                    Amount::MINIMUM,
                    Amount::MAXIMUM
                ),
            ))
        })
    }

    /// Opens a draft: numbered, with its payment intent and page.
    ///
    /// # Errors
    /// What [`BillingStatement::finalizable`] refuses.
    pub fn finalize(&mut self, finalization: Finalization, now: Timestamp) -> Result<(), DomainError> {
        self.finalizable(now)?;
        self.finalization = Some(finalization);
        self.status = BillingStatementStatus::Open;
        self.touch(now);
        Ok(())
    }

    /// The statement's intent was paid.
    ///
    /// # Errors
    /// `resource_invalid_state` unless open.
    pub fn pay(&mut self, now: Timestamp) -> Result<(), DomainError> {
        self.close(BillingStatementStatus::Paid, "pay", now)
    }

    /// The merchant voids an open statement; the caller cancels its intent in the same transaction.
    ///
    /// # Errors
    /// `resource_invalid_state` unless open.
    pub fn void(&mut self, now: Timestamp) -> Result<(), DomainError> {
        self.close(BillingStatementStatus::Void, "void", now)
    }

    /// The merchant gives up on an open statement; the caller cancels its intent too.
    ///
    /// # Errors
    /// `resource_invalid_state` unless open.
    pub fn mark_uncollectible(&mut self, now: Timestamp) -> Result<(), DomainError> {
        self.close(BillingStatementStatus::Uncollectible, "mark uncollectible", now)
    }

    fn close(&mut self, to: BillingStatementStatus, action: &'static str, now: Timestamp) -> Result<(), DomainError> {
        self.ensure_open(action)?;
        self.status = to;
        self.touch(now);
        Ok(())
    }

    /// # Errors
    /// `resource_invalid_state` unless open (sending, paying).
    pub fn ensure_open(&self, action: &'static str) -> Result<(), DomainError> {
        match self.status {
            BillingStatementStatus::Open => Ok(()),
            BillingStatementStatus::Draft
            | BillingStatementStatus::Paid
            | BillingStatementStatus::Void
            | BillingStatementStatus::Uncollectible => Err(self.refuse(action)),
        }
    }

    /// # Errors
    /// `resource_invalid_state` unless a draft.
    pub fn ensure_deletable(&self) -> Result<(), DomainError> {
        self.ensure_draft("delete")
    }

    /// Whether the statement allows `operation` at `now`: decided by the transition's own check, on a
    /// copy where it moves the statement, so a page offers exactly what the API takes.
    #[must_use]
    pub fn allows(&self, operation: BillingStatementOperation, now: Timestamp) -> bool {
        let mut copy = self.clone();
        match operation {
            BillingStatementOperation::Finalize => self.finalizable(now).is_ok(),
            BillingStatementOperation::Send => self.ensure_open("send").is_ok(),
            BillingStatementOperation::Void => copy.void(now).is_ok(),
            BillingStatementOperation::MarkUncollectible => copy.mark_uncollectible(now).is_ok(),
            BillingStatementOperation::Delete => self.ensure_deletable().is_ok(),
        }
    }

    /// The reminder due at `now`, if any, marked as sent. A statement finalized less than five days
    /// before its due date gets `will_be_due` at once; one already past `due_at` never gets it.
    pub fn take_due_notice(&mut self, now: Timestamp) -> Option<DueNotice> {
        if self.status != BillingStatementStatus::Open {
            return None;
        }
        let due_at = self.details.due_at?;
        let noticed_before = self.notices();
        let mut notice = None;
        if !self.will_be_due_noticed && now >= due_at.plus_seconds(-DUE_NOTICE_SECONDS) {
            self.will_be_due_noticed = true;
            notice = (now < due_at).then_some(DueNotice::WillBeDue);
        }
        if notice.is_none() && !self.overdue_noticed && now >= due_at.plus_seconds(DUE_NOTICE_SECONDS) {
            self.overdue_noticed = true;
            notice = Some(DueNotice::Overdue);
        }
        if self.notices() != noticed_before {
            self.touch(now);
        }
        notice
    }

    /// When the next reminder falls due, if one is still to come.
    #[must_use]
    pub fn next_notice_at(&self) -> Option<Timestamp> {
        let due_at = self.details.due_at.filter(|_| self.status == BillingStatementStatus::Open)?;
        if !self.will_be_due_noticed {
            Some(due_at.plus_seconds(-DUE_NOTICE_SECONDS))
        } else if !self.overdue_noticed {
            Some(due_at.plus_seconds(DUE_NOTICE_SECONDS))
        } else {
            None
        }
    }

    /// Whether `due_at` has passed at `now` while the statement is still open.
    #[must_use]
    pub fn overdue(&self, now: Timestamp) -> bool {
        self.status == BillingStatementStatus::Open && self.details.due_at.is_some_and(|due_at| now >= due_at)
    }

    /// The next number of `customer`'s statements, `PREFIX-0001`, advancing the customer's sequence.
    ///
    /// # Errors
    /// `parameter_above_maximum` naming `customer_id` when the sequence is at its largest value
    /// (999999999999), which cannot be advanced: the merchant sets it lower.
    pub fn take_number(customer: &mut Customer, now: Timestamp) -> Result<String, DomainError> {
        let sequence = customer.next_billing_statement_sequence_number;
        let next = crate::customer::SequenceNumber::new(sequence.value() + 1).map_err(|_| {
            DomainError::Invalid(FieldError::new(
                "customer_id",
                ErrorCode::ParameterAboveMaximum,
                format!(
                    "Customer {}'s next_billing_statement_sequence_number is at its largest value, {}; set it lower \
                     to number more statements.",
                    customer.id,
                    sequence.value()
                ),
            ))
        })?;
        customer.next_billing_statement_sequence_number = next;
        customer.updated_at = now;
        customer.version += 1;
        Ok(format!("{}-{:04}", customer.billing_statement_prefix.as_str(), sequence.value()))
    }

    /// The sum of quantity × unit price of the line items.
    #[must_use]
    pub fn amount(&self) -> i64 {
        self.line_items.iter().map(LineItem::total).fold(0, i64::saturating_add)
    }

    #[must_use]
    pub fn id(&self) -> &BillingStatementId {
        &self.id
    }

    #[must_use]
    pub fn account_id(&self) -> &AccountId {
        &self.account_id
    }

    #[must_use]
    pub fn livemode(&self) -> bool {
        self.livemode
    }

    #[must_use]
    pub fn status(&self) -> BillingStatementStatus {
        self.status
    }

    #[must_use]
    pub fn customer_id(&self) -> &CustomerId {
        &self.customer_id
    }

    #[must_use]
    pub fn client_secret(&self) -> &ClientSecret {
        &self.client_secret
    }

    #[must_use]
    pub fn details(&self) -> &StatementDetails {
        &self.details
    }

    #[must_use]
    pub fn line_items(&self) -> &[LineItem] {
        &self.line_items
    }

    #[must_use]
    pub fn line_item(&self, id: &BillingStatementLineItemId) -> Option<&LineItem> {
        self.line_items.iter().find(|item| &item.id == id)
    }

    /// The number, intent and page a finalized statement has.
    #[must_use]
    pub fn finalization(&self) -> Option<&Finalization> {
        self.finalization.as_ref()
    }

    #[must_use]
    pub fn payment_intent_id(&self) -> Option<&PaymentIntentId> {
        self.finalization.as_ref().map(|done| &done.payment_intent_id)
    }

    /// The page's address, shown only while the statement is open.
    #[must_use]
    pub fn url(&self) -> Option<&str> {
        self.finalization.as_ref().filter(|_| self.status == BillingStatementStatus::Open).map(|done| done.url.as_str())
    }

    /// Whether the reminders were sent: (`will_be_due`, `overdue`).
    #[must_use]
    pub fn notices(&self) -> (bool, bool) {
        (self.will_be_due_noticed, self.overdue_noticed)
    }

    /// The intent's description: the statement's, else "Payment for Billing Statement <number>".
    #[must_use]
    pub fn payment_description(&self, number: &str) -> Option<Description> {
        self.details
            .description
            .clone()
            .or_else(|| Description::new(format!("Payment for Billing Statement {number}")).ok())
    }

    #[must_use]
    pub fn created_at(&self) -> Timestamp {
        self.created_at
    }

    #[must_use]
    pub fn updated_at(&self) -> Timestamp {
        self.updated_at
    }

    #[must_use]
    pub fn version(&self) -> i64 {
        self.version
    }
}
