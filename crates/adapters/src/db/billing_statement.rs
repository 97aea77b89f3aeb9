//! Billing statements and their line items in the database. A statement is read whole; its line
//! items are rewritten only after the versioned update of its row, in the same transaction.

use super::cursor_seq;
use super::error::{corrupt, store_error};
use super::json::{description, from_json, invalid, parse_id, to_json};
use super::schema::{billing_statement_line_items, billing_statements};
use super::session::DbSession;
use super::write_batch::Expect;
use diesel::prelude::*;
use payments_application::pagination::{Cursor, Page, PageRequest};
use payments_application::ports::{BillingStatementFilter, BillingStatementRepository, StoreError};
use payments_application::Scope;
use payments_domain::billing_statement::{
    BillingStatement, BillingStatementStatus, Finalization, LineItem, StatementDetails, StoredBillingStatement,
};
use payments_domain::checkout_session::BillingDetailsCollection;
use payments_domain::ids::{
    AccountId, BillingStatementId, BillingStatementLineItemId, ClientSecret, CustomerId, PaymentIntentId,
};
use payments_domain::money::Currency;
use payments_domain::statement_descriptor::StatementDescriptor;
use payments_domain::time::Timestamp;
use std::collections::HashMap;

#[derive(Insertable, AsChangeset, Queryable, Selectable)]
#[diesel(table_name = billing_statements, treat_none_as_null = true, treat_none_as_default_value = false)]
struct StatementRow {
    #[diesel(skip_update)]
    id: String,
    #[diesel(skip_update)]
    account_id: String,
    #[diesel(skip_update)]
    livemode: bool,
    status: String,
    customer_id: String,
    client_secret: String,
    currency: String,
    amount: i64,
    description: Option<String>,
    due_at: Option<i64>,
    billing_details_collection: String,
    payment_methods: String,
    statement_descriptor: Option<String>,
    metadata: Option<String>,
    billing_statement_number: Option<String>,
    payment_intent_id: Option<String>,
    url: Option<String>,
    finalized_at: Option<i64>,
    will_be_due_noticed: bool,
    overdue_noticed: bool,
    next_notice_at: Option<i64>,
    version: i64,
    #[diesel(skip_update)]
    created_at: i64,
    updated_at: i64,
}

#[derive(Insertable, Queryable, Selectable)]
#[diesel(table_name = billing_statement_line_items, treat_none_as_default_value = false)]
struct LineItemRow {
    id: String,
    billing_statement_id: String,
    account_id: String,
    livemode: bool,
    description: String,
    unit_price: i64,
    quantity: i64,
    created_at: i64,
    updated_at: i64,
}

impl LineItemRow {
    fn from_domain(statement: &BillingStatement, item: &LineItem) -> Self {
        Self {
            id: item.id.to_string(),
            billing_statement_id: statement.id().to_string(),
            account_id: statement.account_id().to_string(),
            livemode: statement.livemode(),
            description: item.description.clone(),
            unit_price: item.unit_price,
            quantity: item.quantity,
            created_at: item.created_at.unix_seconds(),
            updated_at: item.updated_at.unix_seconds(),
        }
    }

    fn into_domain(self) -> Result<LineItem, StoreError> {
        Ok(LineItem {
            id: parse_id("line item id", &self.id, BillingStatementLineItemId::parse)?,
            description: self.description,
            unit_price: self.unit_price,
            quantity: self.quantity,
            created_at: Timestamp::from_unix_seconds(self.created_at),
            updated_at: Timestamp::from_unix_seconds(self.updated_at),
        })
    }
}

impl StatementRow {
    fn from_domain(statement: &BillingStatement) -> Result<Self, StoreError> {
        let details = statement.details();
        let finalization = statement.finalization();
        let (will_be_due_noticed, overdue_noticed) = statement.notices();
        Ok(Self {
            id: statement.id().to_string(),
            account_id: statement.account_id().to_string(),
            livemode: statement.livemode(),
            status: statement.status().as_str().to_owned(),
            customer_id: statement.customer_id().to_string(),
            client_secret: statement.client_secret().reveal().to_owned(),
            currency: details.currency.code().to_owned(),
            amount: statement.amount(),
            description: details.description.as_ref().map(|text| text.as_str().to_owned()),
            due_at: details.due_at.map(Timestamp::unix_seconds),
            billing_details_collection: details.billing_details_collection.as_str().to_owned(),
            payment_methods: to_json(&details.payment_methods)?,
            statement_descriptor: details.statement_descriptor.as_ref().map(|text| text.as_str().to_owned()),
            metadata: details.metadata.as_ref().map(to_json).transpose()?,
            billing_statement_number: finalization.map(|done| done.number.clone()),
            payment_intent_id: finalization.map(|done| done.payment_intent_id.to_string()),
            url: finalization.map(|done| done.url.clone()),
            finalized_at: finalization.map(|done| done.finalized_at.unix_seconds()),
            will_be_due_noticed,
            overdue_noticed,
            next_notice_at: statement.next_notice_at().map(Timestamp::unix_seconds),
            version: statement.version(),
            created_at: statement.created_at().unix_seconds(),
            updated_at: statement.updated_at().unix_seconds(),
        })
    }

    fn into_domain(self, line_items: Vec<LineItem>) -> Result<BillingStatement, StoreError> {
        let details = StatementDetails {
            currency: Currency::parse(&self.currency).map_err(invalid("currency"))?,
            description: description(self.description)?,
            due_at: self.due_at.map(Timestamp::from_unix_seconds),
            billing_details_collection: BillingDetailsCollection::parse(&self.billing_details_collection)
                .map_err(invalid("billing details collection"))?,
            payment_methods: from_json(&self.payment_methods)?,
            statement_descriptor: self
                .statement_descriptor
                .map(StatementDescriptor::new)
                .transpose()
                .map_err(invalid("statement descriptor"))?,
            metadata: self.metadata.as_deref().map(from_json).transpose()?,
        };
        let finalization = match (self.billing_statement_number, self.payment_intent_id, self.url, self.finalized_at) {
            (Some(number), Some(intent), Some(url), Some(finalized_at)) => Some(Finalization {
                number,
                payment_intent_id: parse_id("payment intent id", &intent, PaymentIntentId::parse)?,
                url,
                finalized_at: Timestamp::from_unix_seconds(finalized_at),
            }),
            (None, None, None, None) => None,
            _ => return Err(corrupt("billing statement finalization", &self.id)),
        };
        Ok(BillingStatement::restore(StoredBillingStatement {
            id: parse_id("billing statement id", &self.id, BillingStatementId::parse)?,
            account_id: parse_id("account id", &self.account_id, AccountId::parse)?,
            livemode: self.livemode,
            status: BillingStatementStatus::parse(&self.status)
                .ok_or_else(|| corrupt("billing statement status", &self.status))?,
            customer_id: parse_id("customer id", &self.customer_id, CustomerId::parse)?,
            client_secret: ClientSecret::from_stored(self.client_secret),
            details,
            line_items,
            finalization,
            will_be_due_noticed: self.will_be_due_noticed,
            overdue_noticed: self.overdue_noticed,
            created_at: Timestamp::from_unix_seconds(self.created_at),
            updated_at: Timestamp::from_unix_seconds(self.updated_at),
            version: self.version,
        }))
    }
}

impl DbSession<'_> {
    /// `rows` with their line items, read in one query per tenant among them (one for a request).
    fn with_line_items(&mut self, rows: Vec<StatementRow>) -> Result<Vec<BillingStatement>, StoreError> {
        let mut ids_by_tenant: HashMap<(&str, bool), Vec<&str>> = HashMap::new();
        for row in &rows {
            ids_by_tenant.entry((row.account_id.as_str(), row.livemode)).or_default().push(row.id.as_str());
        }
        let mut by_statement: HashMap<String, Vec<LineItem>> = HashMap::new();
        for ((account_id, livemode), ids) in ids_by_tenant {
            let items: Vec<LineItemRow> = billing_statement_line_items::table
                .filter(in_scope!(billing_statement_line_items, account_id, livemode))
                .filter(billing_statement_line_items::billing_statement_id.eq_any(&ids))
                .order(billing_statement_line_items::seq.asc())
                .select(LineItemRow::as_select())
                .load(self.reading()?)
                .map_err(store_error)?;
            for item in items {
                by_statement.entry(item.billing_statement_id.clone()).or_default().push(item.into_domain()?);
            }
        }
        rows.into_iter()
            .map(|row| {
                let items = by_statement.remove(&row.id).unwrap_or_default();
                row.into_domain(items)
            })
            .collect()
    }

    fn one_statement(
        &mut self,
        row: QueryResult<Option<StatementRow>>,
    ) -> Result<Option<BillingStatement>, StoreError> {
        match row.map_err(store_error)? {
            Some(row) => Ok(self.with_line_items(vec![row])?.pop()),
            None => Ok(None),
        }
    }

    fn statement_seq(&mut self, scope: &Scope, id: &str) -> Result<i64, StoreError> {
        let found = billing_statements::table
            .filter(in_scope!(billing_statements, scope))
            .filter(billing_statements::id.eq(id))
            .select(billing_statements::seq)
            .get_result(self.reading()?)
            .optional();
        cursor_seq(found)
    }
}

impl BillingStatementRepository for DbSession<'_> {
    fn insert(&mut self, statement: &BillingStatement) -> Result<(), StoreError> {
        self.write(
            diesel::insert_into(billing_statements::table).values(StatementRow::from_domain(statement)?),
            Expect::AnyRows,
        )?;
        self.replace_line_items(statement)
    }

    fn find(&mut self, scope: &Scope, id: &BillingStatementId) -> Result<Option<BillingStatement>, StoreError> {
        let row = billing_statements::table
            .filter(in_scope!(billing_statements, scope))
            .filter(billing_statements::id.eq(id.as_str()))
            .select(StatementRow::as_select())
            .get_result(self.reading()?)
            .optional();
        self.one_statement(row)
    }

    fn find_for_page(&mut self, id: &BillingStatementId) -> Result<Option<BillingStatement>, StoreError> {
        let row = billing_statements::table
            .filter(billing_statements::id.eq(id.as_str()))
            .select(StatementRow::as_select())
            .get_result(self.reading()?)
            .optional();
        self.one_statement(row)
    }

    fn find_by_payment_intent(
        &mut self,
        scope: &Scope,
        payment_intent_id: &PaymentIntentId,
    ) -> Result<Option<BillingStatement>, StoreError> {
        let row = billing_statements::table
            .filter(in_scope!(billing_statements, scope))
            .filter(billing_statements::payment_intent_id.eq(payment_intent_id.as_str()))
            .select(StatementRow::as_select())
            .get_result(self.reading()?)
            .optional();
        self.one_statement(row)
    }

    fn find_by_line_item(
        &mut self,
        scope: &Scope,
        id: &BillingStatementLineItemId,
    ) -> Result<Option<BillingStatement>, StoreError> {
        let statement_id: Option<String> = billing_statement_line_items::table
            .filter(in_scope!(billing_statement_line_items, scope))
            .filter(billing_statement_line_items::id.eq(id.as_str()))
            .select(billing_statement_line_items::billing_statement_id)
            .get_result(self.reading()?)
            .optional()
            .map_err(store_error)?;
        match statement_id.as_deref().and_then(BillingStatementId::parse) {
            Some(statement_id) => self.find(scope, &statement_id),
            None => Ok(None),
        }
    }

    fn update(&mut self, statement: &BillingStatement, expected_version: i64) -> Result<(), StoreError> {
        let update = diesel::update(
            billing_statements::table
                .filter(in_scope!(billing_statements, statement.account_id(), statement.livemode()))
                .filter(billing_statements::id.eq(statement.id().to_string()))
                .filter(billing_statements::version.eq(expected_version)),
        )
        .set(StatementRow::from_domain(statement)?);
        self.write(update, Expect::OneRow)
    }

    fn replace_line_items(&mut self, statement: &BillingStatement) -> Result<(), StoreError> {
        let delete = diesel::delete(
            billing_statement_line_items::table
                .filter(in_scope!(billing_statement_line_items, statement.account_id(), statement.livemode()))
                .filter(billing_statement_line_items::billing_statement_id.eq(statement.id().to_string())),
        );
        self.write(delete, Expect::AnyRows)?;
        let rows: Vec<LineItemRow> =
            statement.line_items().iter().map(|item| LineItemRow::from_domain(statement, item)).collect();
        self.insert(billing_statement_line_items::table, rows)
    }

    fn delete(&mut self, statement: &BillingStatement, expected_version: i64) -> Result<(), StoreError> {
        let line_items = diesel::delete(
            billing_statement_line_items::table
                .filter(in_scope!(billing_statement_line_items, statement.account_id(), statement.livemode()))
                .filter(billing_statement_line_items::billing_statement_id.eq(statement.id().to_string())),
        );
        self.write(line_items, Expect::AnyRows)?;
        let statement = diesel::delete(
            billing_statements::table
                .filter(in_scope!(billing_statements, statement.account_id(), statement.livemode()))
                .filter(billing_statements::id.eq(statement.id().to_string()))
                .filter(billing_statements::version.eq(expected_version)),
        );
        self.write(statement, Expect::OneRow)
    }

    fn list(
        &mut self,
        scope: &Scope,
        filter: &BillingStatementFilter,
        page: &PageRequest,
    ) -> Result<Page<BillingStatement>, StoreError> {
        let mut query = billing_statements::table
            .filter(listed!(billing_statements, scope))
            .select(StatementRow::as_select())
            .limit(i64::from(page.limit()) + 1)
            .into_boxed();
        if let Some(customer_id) = &filter.customer_id {
            query = query.filter(billing_statements::customer_id.eq(customer_id.to_string()));
        }
        if let Some(status) = filter.status {
            query = query.filter(billing_statements::status.eq(status.as_str()));
        }
        let query = match page.cursor() {
            None => query.order(billing_statements::seq.desc()),
            Some(Cursor::After(id)) => query
                .filter(billing_statements::seq.lt(self.statement_seq(scope, id)?))
                .order(billing_statements::seq.desc()),
            Some(Cursor::Before(id)) => query
                .filter(billing_statements::seq.gt(self.statement_seq(scope, id)?))
                .order(billing_statements::seq.asc()),
        };
        let rows = query.load(self.reading()?).map_err(store_error)?;
        let statements = self.with_line_items(rows)?;
        Ok(Page::from_overfetched(statements, page))
    }

    fn with_notice_due(
        &mut self,
        within: Option<&Scope>,
        now: Timestamp,
        limit: u32,
    ) -> Result<Vec<BillingStatement>, StoreError> {
        let mut query = billing_statements::table.into_boxed();
        if let Some(scope) = within {
            query = query.filter(in_scope!(billing_statements, scope));
        }
        let rows = query
            .filter(billing_statements::status.eq(BillingStatementStatus::Open.as_str()))
            .filter(billing_statements::next_notice_at.le(now.unix_seconds()))
            .order(billing_statements::next_notice_at.asc())
            .limit(i64::from(limit))
            .select(StatementRow::as_select())
            .load(self.reading()?)
            .map_err(store_error)?;
        self.with_line_items(rows)
    }
}
