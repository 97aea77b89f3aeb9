//! Payouts with their lines, and payout schedules, in the database. A payout takes the ledger's
//! entries by writing itself on them once, by the one update that claims every unpaid entry of the
//! scope available by the payout's time ([`super::balance::unpaid`]), so two payouts cannot take
//! one entry (and a line's `entry_id` is unique besides).

use super::balance::unpaid;
use super::error::{corrupt, store_error};
use super::json::{from_json, parse_id, to_json};
use super::schema::{balance_entries, customers, payments, payout_schedules, payout_transactions, payouts, refunds};
use super::session::DbSession;
use super::write_batch::Expect;
use diesel::prelude::*;
use payments_application::pagination::{Cursor, Page, PageRequest};
use payments_application::ports::{
    BalanceRepository, PayoutFilter, PayoutRepository, ReconciledPayment, ReconciliationLine, StoreError,
};
use payments_application::Scope;
use payments_domain::balance::Centavos;
use payments_domain::ids::{AccountId, BalanceEntryId, PaymentId, PayoutId, PayoutTransactionId};
use payments_domain::payout::{
    MadePayout, Payout, PayoutInterval, PayoutSchedule, PayoutStatus, PayoutTransaction, StoredPayout,
    TransactionSource, TransactionType,
};
use payments_domain::time::Timestamp;
use std::collections::HashMap;

#[derive(Insertable, AsChangeset, Queryable, Selectable)]
#[diesel(table_name = payouts, treat_none_as_null = true, treat_none_as_default_value = false)]
struct PayoutRow {
    #[diesel(skip_update)]
    id: String,
    #[diesel(skip_update)]
    account_id: String,
    #[diesel(skip_update)]
    livemode: bool,
    amount: i64,
    net_amount: i64,
    destination: String,
    status: String,
    failure_code: Option<String>,
    action_due_at: Option<i64>,
    version: i64,
    #[diesel(skip_update)]
    created_at: i64,
    updated_at: i64,
}

impl PayoutRow {
    fn from_domain(payout: &Payout) -> Result<Self, StoreError> {
        Ok(Self {
            id: payout.id().to_string(),
            account_id: payout.account_id().to_string(),
            livemode: payout.livemode(),
            amount: payout.amount().get(),
            net_amount: payout.net_amount().get(),
            destination: to_json(payout.destination())?,
            status: payout.status().as_str().to_owned(),
            failure_code: payout.failure_code().map(str::to_owned),
            action_due_at: payout.action_due_at().map(Timestamp::unix_seconds),
            version: payout.version(),
            created_at: payout.created_at().unix_seconds(),
            updated_at: payout.updated_at().unix_seconds(),
        })
    }

    fn into_domain(self) -> Result<Payout, StoreError> {
        Ok(Payout::restore(StoredPayout {
            id: parse_id("payout id", &self.id, PayoutId::parse)?,
            account_id: parse_id("account id", &self.account_id, AccountId::parse)?,
            livemode: self.livemode,
            amount: Centavos::new(self.amount),
            net_amount: Centavos::new(self.net_amount),
            destination: from_json(&self.destination)?,
            status: PayoutStatus::parse(&self.status).ok_or_else(|| corrupt("payout status", &self.status))?,
            failure_code: self.failure_code,
            action_due_at: self.action_due_at.map(Timestamp::from_unix_seconds),
            created_at: Timestamp::from_unix_seconds(self.created_at),
            updated_at: Timestamp::from_unix_seconds(self.updated_at),
            version: self.version,
        }))
    }
}

#[derive(Insertable, Queryable, Selectable)]
#[diesel(table_name = payout_transactions, treat_none_as_default_value = false)]
struct PayoutTransactionRow {
    id: String,
    account_id: String,
    livemode: bool,
    payout_id: String,
    entry_id: String,
    transaction_type: String,
    transaction_id: String,
    amount: i64,
    net_amount: i64,
    created_at: i64,
}

impl PayoutTransactionRow {
    fn from_domain(line: &PayoutTransaction) -> Self {
        Self {
            id: line.id.to_string(),
            account_id: line.account_id.to_string(),
            livemode: line.livemode,
            payout_id: line.payout_id.to_string(),
            entry_id: line.entry_id.to_string(),
            transaction_type: line.source.transaction_type().as_str().to_owned(),
            transaction_id: line.source.id().to_owned(),
            amount: line.amount.get(),
            net_amount: line.net_amount.get(),
            created_at: line.created_at.unix_seconds(),
        }
    }

    fn into_domain(self) -> Result<PayoutTransaction, StoreError> {
        Ok(PayoutTransaction {
            id: parse_id("payout transaction id", &self.id, PayoutTransactionId::parse)?,
            account_id: parse_id("account id", &self.account_id, AccountId::parse)?,
            livemode: self.livemode,
            payout_id: parse_id("payout id", &self.payout_id, PayoutId::parse)?,
            entry_id: parse_id("balance entry id", &self.entry_id, BalanceEntryId::parse)?,
            source: TransactionType::parse(&self.transaction_type)
                .and_then(|kind| TransactionSource::parse(kind, &self.transaction_id))
                .ok_or_else(|| corrupt("payout transaction", &self.transaction_id))?,
            amount: Centavos::new(self.amount),
            net_amount: Centavos::new(self.net_amount),
            created_at: Timestamp::from_unix_seconds(self.created_at),
        })
    }
}

#[derive(Insertable, AsChangeset, Queryable, Selectable)]
#[diesel(table_name = payout_schedules, treat_none_as_null = true, treat_none_as_default_value = false)]
struct PayoutScheduleRow {
    #[diesel(skip_update)]
    account_id: String,
    #[diesel(skip_update)]
    livemode: bool,
    payout_interval: String,
    weekly_anchor: Option<String>,
    monthly_anchor: Option<i32>,
    destination: String,
    next_payout_at: Option<i64>,
    version: i64,
}

impl PayoutScheduleRow {
    fn from_domain(schedule: &PayoutSchedule, version: i64) -> Result<Self, StoreError> {
        Ok(Self {
            account_id: schedule.account_id.to_string(),
            livemode: schedule.livemode,
            payout_interval: schedule.interval.as_str().to_owned(),
            weekly_anchor: schedule.interval.weekly_anchor().map(str::to_owned),
            monthly_anchor: schedule.interval.monthly_anchor().and_then(|day| i32::try_from(day).ok()),
            destination: to_json(&schedule.destination)?,
            next_payout_at: schedule.next_payout_at.map(Timestamp::unix_seconds),
            version,
        })
    }

    fn into_domain(self) -> Result<PayoutSchedule, StoreError> {
        let interval = PayoutInterval::parse(
            &self.payout_interval,
            self.weekly_anchor.as_deref(),
            self.monthly_anchor.map(i64::from),
        )
        .map_err(|_| corrupt("payout interval", &self.payout_interval))?;
        Ok(PayoutSchedule {
            account_id: parse_id("account id", &self.account_id, AccountId::parse)?,
            livemode: self.livemode,
            interval,
            destination: from_json(&self.destination)?,
            next_payout_at: self.next_payout_at.map(Timestamp::from_unix_seconds),
            version: self.version,
        })
    }
}

impl DbSession<'_> {
    fn payout_seq(&mut self, scope: &Scope, id: &str) -> Result<i64, StoreError> {
        let found = payouts::table
            .filter(in_scope!(payouts, scope))
            .filter(payouts::id.eq(id))
            .select(payouts::seq)
            .get_result(self.reading()?)
            .optional();
        super::cursor_seq(found)
    }

    fn payout_transaction_seq(&mut self, scope: &Scope, payout: &PayoutId, id: &str) -> Result<i64, StoreError> {
        let found = payout_transactions::table
            .filter(in_scope!(payout_transactions, scope))
            .filter(payout_transactions::payout_id.eq(payout.as_str()))
            .filter(payout_transactions::id.eq(id))
            .select(payout_transactions::seq)
            .get_result(self.reading()?)
            .optional();
        super::cursor_seq(found)
    }
}

/// A payment's id, description, metadata (JSON) and customer, as a payout's line reconciles to it.
type PaymentToReconcile = (String, Option<String>, Option<String>, Option<String>);

/// Rows written at once, within what both databases take as the parameters of one statement.
const ROWS_PER_INSERT: usize = 2_000;

impl PayoutRepository for DbSession<'_> {
    fn insert(&mut self, made: &MadePayout) -> Result<(), StoreError> {
        let scope = Scope::of(made.payout.account_id(), made.payout.livemode());
        let cutoff = made.payout.created_at().unix_seconds();
        // Claims every unpaid entry available by the payout's time: exactly its lines, or another
        // writer came between the read and this, and the whole change is retried.
        let claimed = diesel::update(
            balance_entries::table
                .filter(in_scope!(balance_entries, scope))
                .filter(unpaid())
                .filter(balance_entries::available_at.le(cutoff)),
        )
        .set(balance_entries::payout_id.eq(made.payout.id().as_str()))
        .execute(self.write_now()?)
        .map_err(store_error)?;
        if claimed != made.transactions.len() {
            return Err(StoreError::Conflict);
        }
        let row = PayoutRow::from_domain(&made.payout)?;
        diesel::insert_into(payouts::table).values(row).execute(self.write_now()?).map_err(store_error)?;
        for chunk in made.transactions.chunks(ROWS_PER_INSERT) {
            let rows: Vec<PayoutTransactionRow> = chunk.iter().map(PayoutTransactionRow::from_domain).collect();
            self.insert(payout_transactions::table, rows)?;
        }
        BalanceRepository::insert(self, &made.entry)
    }

    fn find(&mut self, scope: &Scope, id: &PayoutId) -> Result<Option<Payout>, StoreError> {
        payouts::table
            .filter(in_scope!(payouts, scope))
            .filter(payouts::id.eq(id.as_str()))
            .select(PayoutRow::as_select())
            .get_result(self.reading()?)
            .optional()
            .map_err(store_error)?
            .map(PayoutRow::into_domain)
            .transpose()
    }

    fn update(&mut self, payout: &Payout, expected_version: i64) -> Result<(), StoreError> {
        let update = diesel::update(
            payouts::table
                .filter(in_scope!(payouts, payout.account_id(), payout.livemode()))
                .filter(payouts::id.eq(payout.id().to_string()))
                .filter(payouts::version.eq(expected_version)),
        )
        .set(PayoutRow::from_domain(payout)?);
        self.write(update, Expect::OneRow)
    }

    fn list(&mut self, scope: &Scope, filter: &PayoutFilter, page: &PageRequest) -> Result<Page<Payout>, StoreError> {
        let mut query = payouts::table
            .filter(listed!(payouts, scope))
            .select(PayoutRow::as_select())
            .limit(i64::from(page.limit()) + 1)
            .into_boxed();
        if let Some(status) = filter.status {
            query = query.filter(payouts::status.eq(status.as_str()));
        }
        if let Some(from) = filter.created_from {
            query = query.filter(payouts::created_at.ge(from.unix_seconds()));
        }
        if let Some(to) = filter.created_to {
            query = query.filter(payouts::created_at.le(to.unix_seconds()));
        }
        let query = match page.cursor() {
            None => query.order(payouts::seq.desc()),
            Some(Cursor::After(id)) => {
                query.filter(payouts::seq.lt(self.payout_seq(scope, id)?)).order(payouts::seq.desc())
            }
            Some(Cursor::Before(id)) => {
                query.filter(payouts::seq.gt(self.payout_seq(scope, id)?)).order(payouts::seq.asc())
            }
        };
        let rows = query.load::<PayoutRow>(self.reading()?).map_err(store_error)?;
        let found = rows.into_iter().map(PayoutRow::into_domain).collect::<Result<Vec<_>, _>>()?;
        Ok(Page::from_overfetched(found, page))
    }

    fn transactions(
        &mut self,
        scope: &Scope,
        id: &PayoutId,
        page: &PageRequest,
    ) -> Result<Page<PayoutTransaction>, StoreError> {
        let query = payout_transactions::table
            .filter(in_scope!(payout_transactions, scope))
            .filter(payout_transactions::payout_id.eq(id.as_str()))
            .select(PayoutTransactionRow::as_select())
            .limit(i64::from(page.limit()) + 1)
            .into_boxed();
        let query = match page.cursor() {
            None => query.order(payout_transactions::seq.desc()),
            Some(Cursor::After(line)) => query
                .filter(payout_transactions::seq.lt(self.payout_transaction_seq(scope, id, line)?))
                .order(payout_transactions::seq.desc()),
            Some(Cursor::Before(line)) => query
                .filter(payout_transactions::seq.gt(self.payout_transaction_seq(scope, id, line)?))
                .order(payout_transactions::seq.asc()),
        };
        let rows = query.load::<PayoutTransactionRow>(self.reading()?).map_err(store_error)?;
        let found = rows.into_iter().map(PayoutTransactionRow::into_domain).collect::<Result<Vec<_>, _>>()?;
        Ok(Page::from_overfetched(found, page))
    }

    fn reconciliation(
        &mut self,
        scope: &Scope,
        id: &PayoutId,
        after: Option<&PayoutTransactionId>,
        limit: u32,
    ) -> Result<Vec<ReconciliationLine>, StoreError> {
        let after = match after {
            Some(line) => self.payout_transaction_seq(scope, id, line.as_str())?,
            None => 0,
        };
        let lines = payout_transactions::table
            .filter(in_scope!(payout_transactions, scope))
            .filter(payout_transactions::payout_id.eq(id.as_str()))
            .filter(payout_transactions::seq.gt(after))
            .order(payout_transactions::seq.asc())
            .limit(i64::from(limit))
            .select(PayoutTransactionRow::as_select())
            .load::<PayoutTransactionRow>(self.reading()?)
            .map_err(store_error)?
            .into_iter()
            .map(PayoutTransactionRow::into_domain)
            .collect::<Result<Vec<_>, _>>()?;
        // The payments the lines reconcile to, in three reads whatever the lines hold: the refunds'
        // payments, the payments, their customers' e-mails.
        let refund_ids: Vec<&str> = lines
            .iter()
            .filter_map(|line| match &line.source {
                TransactionSource::Refund(refund) => Some(refund.as_str()),
                TransactionSource::Payment(_) | TransactionSource::Adjustment(_) => None,
            })
            .collect();
        let refunded: HashMap<String, String> = refunds::table
            .filter(in_scope!(refunds, scope))
            .filter(refunds::id.eq_any(&refund_ids))
            .select((refunds::id, refunds::payment_id))
            .load::<(String, String)>(self.reading()?)
            .map_err(store_error)?
            .into_iter()
            .collect();
        let payment_of = |line: &PayoutTransaction| match &line.source {
            TransactionSource::Payment(payment) => Some(payment.as_str().to_owned()),
            TransactionSource::Refund(refund) => refunded.get(refund.as_str()).cloned(),
            TransactionSource::Adjustment(_) => None,
        };
        let payment_ids: Vec<String> = lines.iter().filter_map(payment_of).collect();
        let found: Vec<PaymentToReconcile> = payments::table
            .filter(in_scope!(payments, scope))
            .filter(payments::id.eq_any(&payment_ids))
            .select((payments::id, payments::description, payments::metadata, payments::customer_id))
            .load(self.reading()?)
            .map_err(store_error)?;
        let customer_ids: Vec<&str> = found.iter().filter_map(|(_, _, _, customer)| customer.as_deref()).collect();
        let emails: HashMap<String, String> = customers::table
            .filter(in_scope!(customers, scope))
            .filter(customers::id.eq_any(&customer_ids))
            .filter(customers::deleted_at.is_null())
            .select((customers::id, customers::email))
            .load::<(String, String)>(self.reading()?)
            .map_err(store_error)?
            .into_iter()
            .collect();
        let mut payments_by_id = HashMap::new();
        for (payment, description, metadata, customer) in found {
            let reconciled = ReconciledPayment {
                id: parse_id("payment id", &payment, PaymentId::parse)?,
                description,
                metadata: metadata.as_deref().map(from_json).transpose()?,
                customer_email: customer.and_then(|customer| emails.get(&customer).cloned()),
            };
            payments_by_id.insert(payment, reconciled);
        }
        Ok(lines
            .into_iter()
            .map(|line| {
                let payment = payment_of(&line).and_then(|payment| payments_by_id.get(&payment).cloned());
                ReconciliationLine { line, payment }
            })
            .collect())
    }

    fn due(&mut self, within: Option<&Scope>, now: Timestamp, limit: u32) -> Result<Vec<Payout>, StoreError> {
        let mut query = payouts::table.into_boxed();
        if let Some(scope) = within {
            query = query.filter(in_scope!(payouts, scope));
        }
        query
            .filter(payouts::action_due_at.le(now.unix_seconds()))
            .order(payouts::action_due_at.asc())
            .limit(i64::from(limit))
            .select(PayoutRow::as_select())
            .load(self.reading()?)
            .map_err(store_error)?
            .into_iter()
            .map(PayoutRow::into_domain)
            .collect()
    }

    fn schedule(&mut self, scope: &Scope) -> Result<Option<PayoutSchedule>, StoreError> {
        payout_schedules::table
            .filter(in_scope!(payout_schedules, scope))
            .select(PayoutScheduleRow::as_select())
            .get_result(self.reading()?)
            .optional()
            .map_err(store_error)?
            .map(PayoutScheduleRow::into_domain)
            .transpose()
    }

    fn save_schedule(&mut self, schedule: &PayoutSchedule, expected_version: Option<i64>) -> Result<(), StoreError> {
        match expected_version {
            None => {
                let row = PayoutScheduleRow::from_domain(schedule, 0)?;
                // A schedule another writer made first is a conflict: the caller reads it and retries.
                match diesel::insert_into(payout_schedules::table).values(row).execute(self.write_now()?) {
                    Ok(_) => Ok(()),
                    Err(error) => match store_error(error) {
                        StoreError::UniqueViolation(_) => Err(StoreError::Conflict),
                        other => Err(other),
                    },
                }
            }
            Some(version) => {
                let update = diesel::update(
                    payout_schedules::table
                        .filter(in_scope!(payout_schedules, schedule.account_id, schedule.livemode))
                        .filter(payout_schedules::version.eq(version)),
                )
                .set(PayoutScheduleRow::from_domain(schedule, version + 1)?);
                self.write(update, Expect::OneRow)
            }
        }
    }

    fn due_schedules(
        &mut self,
        within: Option<&Scope>,
        now: Timestamp,
        limit: u32,
    ) -> Result<Vec<PayoutSchedule>, StoreError> {
        let mut query = payout_schedules::table.into_boxed();
        if let Some(scope) = within {
            query = query.filter(in_scope!(payout_schedules, scope));
        }
        query
            .filter(payout_schedules::next_payout_at.le(now.unix_seconds()))
            .order(payout_schedules::next_payout_at.asc())
            .limit(i64::from(limit))
            .select(PayoutScheduleRow::as_select())
            .load(self.reading()?)
            .map_err(store_error)?
            .into_iter()
            .map(PayoutScheduleRow::into_domain)
            .collect()
    }
}
