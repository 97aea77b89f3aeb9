//! The ledger in the database: balance entries, never changed once written but for the payout that
//! claims them ([`super::payout`]); the balance summed from the unpaid entries alone, through their
//! partial index (the ledger's invariant, `payments_domain::balance`).

use super::error::{corrupt, store_error};
use super::json::parse_id;
use super::schema::balance_entries;
use super::session::DbSession;
use super::write_batch::Expect;
use diesel::prelude::*;
use payments_application::ports::{BalanceRepository, StoreError};
use payments_application::Scope;
use payments_domain::balance::{Balance, BalanceEntry, Centavos, EntrySource, EntryType, StoredBalanceEntry};
use payments_domain::ids::{AccountId, BalanceEntryId};
use payments_domain::time::Timestamp;

#[derive(Insertable, Queryable, Selectable)]
#[diesel(table_name = balance_entries, treat_none_as_default_value = false)]
struct BalanceEntryRow {
    id: String,
    account_id: String,
    livemode: bool,
    entry_type: String,
    source_id: String,
    amount: i64,
    fee: i64,
    net_amount: i64,
    available_at: i64,
    created_at: i64,
}

impl BalanceEntryRow {
    fn from_domain(entry: &BalanceEntry) -> Self {
        let stored = entry.stored();
        Self {
            id: stored.id.to_string(),
            account_id: stored.account_id.to_string(),
            livemode: stored.livemode,
            entry_type: stored.source.entry_type().as_str().to_owned(),
            source_id: stored.source.id().to_owned(),
            amount: stored.amount,
            fee: stored.fee,
            net_amount: stored.net_amount,
            available_at: stored.available_at.unix_seconds(),
            created_at: stored.created_at.unix_seconds(),
        }
    }

    fn into_domain(self) -> Result<BalanceEntry, StoreError> {
        let source = EntryType::parse(&self.entry_type)
            .and_then(|kind| EntrySource::parse(kind, &self.source_id))
            .ok_or_else(|| corrupt("balance entry source", &self.source_id))?;
        BalanceEntry::restore(StoredBalanceEntry {
            id: parse_id("balance entry id", &self.id, BalanceEntryId::parse)?,
            account_id: parse_id("account id", &self.account_id, AccountId::parse)?,
            livemode: self.livemode,
            source,
            amount: self.amount,
            fee: self.fee,
            net_amount: self.net_amount,
            available_at: Timestamp::from_unix_seconds(self.available_at),
            created_at: Timestamp::from_unix_seconds(self.created_at),
        })
        .map_err(|invalid| corrupt("balance entry", invalid.detail))
    }
}

impl BalanceRepository for DbSession<'_> {
    fn insert(&mut self, entry: &BalanceEntry) -> Result<(), StoreError> {
        let row = BalanceEntryRow::from_domain(entry);
        self.write(diesel::insert_into(balance_entries::table).values(row), Expect::AnyRows)
    }

    fn find(&mut self, scope: &Scope, id: &BalanceEntryId) -> Result<Option<BalanceEntry>, StoreError> {
        balance_entries::table
            .filter(in_scope!(balance_entries, scope))
            .filter(balance_entries::id.eq(id.as_str()))
            .select(BalanceEntryRow::as_select())
            .get_result(self.reading()?)
            .optional()
            .map_err(store_error)?
            .map(BalanceEntryRow::into_domain)
            .transpose()
    }

    fn balance(&mut self, scope: &Scope, now: Timestamp) -> Result<Balance, StoreError> {
        let now = now.unix_seconds();
        // A sum of BIGINTs is NUMERIC on PostgreSQL: cast back, as the sums fit.
        let total = || {
            diesel::dsl::sql::<diesel::sql_types::Nullable<diesel::sql_types::BigInt>>(
                "CAST(SUM(balance_entries.net_amount) AS BIGINT)",
            )
        };
        // Every payout's entry takes out exactly what the entries it claimed put in (its net amount
        // is their sum, and a failed payout's money comes back as an entry of its own), so the sum
        // of every entry is the sum of the unpaid ones: only they are read, through their index,
        // and the balance costs what awaits payout, not the account's whole history.
        let made = || {
            balance_entries::table
                .filter(in_scope!(balance_entries, scope))
                .filter(unpaid())
                .filter(balance_entries::created_at.le(now))
        };
        let available: Option<i64> = made()
            .filter(balance_entries::available_at.le(now))
            .select(total())
            .get_result(self.reading()?)
            .map_err(store_error)?;
        let pending: Option<i64> = made()
            .filter(balance_entries::available_at.gt(now))
            .select(total())
            .get_result(self.reading()?)
            .map_err(store_error)?;
        Ok(Balance { available: Centavos::new(available.unwrap_or(0)), pending: Centavos::new(pending.unwrap_or(0)) })
    }

    fn unpaid(&mut self, scope: &Scope, at: Timestamp) -> Result<Vec<BalanceEntry>, StoreError> {
        balance_entries::table
            .filter(in_scope!(balance_entries, scope))
            .filter(unpaid())
            .filter(balance_entries::available_at.le(at.unix_seconds()))
            .order(balance_entries::seq.asc())
            .select(BalanceEntryRow::as_select())
            .load(self.reading()?)
            .map_err(store_error)?
            .into_iter()
            .map(BalanceEntryRow::into_domain)
            .collect()
    }
}

/// The entries no payout has claimed, other than payouts' own: the predicate of the partial index
/// `balance_entries_unpaid`, written as its text (a bound parameter would keep PostgreSQL's generic
/// plans from proving that the index holds the rows).
pub(super) fn unpaid() -> diesel::expression::SqlLiteral<diesel::sql_types::Bool> {
    diesel::dsl::sql::<diesel::sql_types::Bool>(
        "balance_entries.payout_id IS NULL AND balance_entries.entry_type <> 'payout'",
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_unpaid_predicate_names_the_payout_entries_as_the_domain_does() {
        let text = diesel::debug_query::<diesel::sqlite::Sqlite, _>(&unpaid()).to_string();
        assert!(text.contains(&format!("entry_type <> '{}'", EntryType::Payout.as_str())), "{text}");
    }
}
