//! Prices in the database.

use super::error::{corrupt, store_error, versioned};
use super::json::{description, invalid};
use super::prepared::Prepare;
use super::schema::prices;
use super::session::DbSession;
use diesel::prelude::*;
use payments_application::pagination::{Page, PageRequest};
use payments_application::ports::{PriceRepository, StoreError};
use payments_application::Scope;
use payments_domain::ids::{AccountId, PriceId, ProductId};
use payments_domain::money::Amount;
use payments_domain::price::Price;
use payments_domain::time::Timestamp;

/// A price as stored; `seq` is left to the database.
#[derive(Insertable, AsChangeset, Queryable, Selectable)]
#[diesel(table_name = prices, treat_none_as_null = true, treat_none_as_default_value = false)]
struct PriceRow {
    #[diesel(skip_update)]
    id: String,
    #[diesel(skip_update)]
    account_id: String,
    #[diesel(skip_update)]
    livemode: bool,
    #[diesel(skip_update)]
    product_id: String,
    #[diesel(skip_update)]
    amount: i64,
    description: Option<String>,
    active: bool,
    version: i64,
    #[diesel(skip_update)]
    created_at: i64,
    updated_at: i64,
}

impl PriceRow {
    fn from_domain(price: &Price) -> Self {
        Self {
            id: price.id.to_string(),
            account_id: price.account_id.to_string(),
            livemode: price.livemode,
            product_id: price.product_id.to_string(),
            amount: price.amount.centavos(),
            description: price.description.as_ref().map(|text| text.as_str().to_owned()),
            active: price.active,
            version: price.version,
            created_at: price.created_at.unix_seconds(),
            updated_at: price.updated_at.unix_seconds(),
        }
    }

    fn into_domain(self) -> Result<Price, StoreError> {
        Ok(Price {
            id: PriceId::parse(&self.id).ok_or_else(|| corrupt("price id", &self.id))?,
            account_id: AccountId::parse(&self.account_id).ok_or_else(|| corrupt("account id", &self.account_id))?,
            livemode: self.livemode,
            product_id: ProductId::parse(&self.product_id).ok_or_else(|| corrupt("product id", &self.product_id))?,
            amount: Amount::new(self.amount).map_err(invalid("price amount"))?,
            description: description(self.description)?,
            active: self.active,
            version: self.version,
            created_at: Timestamp::from_unix_seconds(self.created_at),
            updated_at: Timestamp::from_unix_seconds(self.updated_at),
        })
    }
}

impl PriceRepository for DbSession<'_> {
    fn insert(&mut self, price: &Price) -> Result<(), StoreError> {
        self.insert(prices::table, vec![PriceRow::from_domain(price)])
    }

    fn find(&mut self, scope: &Scope, id: &PriceId) -> Result<Option<Price>, StoreError> {
        prices::table
            .filter(in_scope!(prices, scope))
            .filter(prices::id.eq(id.as_str()))
            .select(PriceRow::as_select())
            .get_result(self.reading()?)
            .optional()
            .map_err(store_error)?
            .map(PriceRow::into_domain)
            .transpose()
    }

    fn find_many(&mut self, scope: &Scope, ids: &[PriceId]) -> Result<Vec<Price>, StoreError> {
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        let ids: Vec<&str> = ids.iter().map(PriceId::as_str).collect();
        prices::table
            .filter(in_scope!(prices, scope))
            .filter(prices::id.eq_any(ids))
            .select(PriceRow::as_select())
            .load::<PriceRow>(self.reading()?)
            .map_err(store_error)?
            .into_iter()
            .map(PriceRow::into_domain)
            .collect()
    }

    fn update(&mut self, price: &Price, expected_version: i64) -> Result<(), StoreError> {
        let updated = diesel::update(
            prices::table
                .filter(in_scope!(prices, price.account_id, price.livemode))
                .filter(prices::id.eq(price.id.as_str()))
                .filter(prices::version.eq(expected_version)),
        )
        .set(PriceRow::from_domain(price))
        .prepared()
        .execute(self.write_now()?)
        .map_err(store_error)?;
        versioned(updated)
    }

    fn list(
        &mut self,
        scope: &Scope,
        product: Option<&ProductId>,
        page: &PageRequest,
    ) -> Result<Page<Price>, StoreError> {
        let mut query = prices::table.into_boxed();
        if let Some(product) = product {
            query = query.filter(prices::product_id.eq(product.as_str().to_owned()));
        }
        newest_first!(self, prices, PriceRow, scope, query, page)
    }
}
