//! Products in the database.

use super::error::{corrupt, store_error, versioned};
use super::json::{description, invalid};
use super::prepared::Prepare;
use super::schema::products;
use super::session::DbSession;
use super::write_batch::Expect;
use diesel::prelude::*;
use payments_application::pagination::{Page, PageRequest};
use payments_application::ports::{ProductRepository, StoreError};
use payments_application::Scope;
use payments_domain::ids::{AccountId, ProductId};
use payments_domain::product::{Product, ProductName};
use payments_domain::time::Timestamp;

/// A product as stored; `seq` is left to the database.
#[derive(Insertable, AsChangeset, Queryable, Selectable)]
#[diesel(table_name = products, treat_none_as_null = true, treat_none_as_default_value = false)]
struct ProductRow {
    #[diesel(skip_update)]
    id: String,
    #[diesel(skip_update)]
    account_id: String,
    #[diesel(skip_update)]
    livemode: bool,
    name: String,
    description: Option<String>,
    image: Option<String>,
    active: bool,
    version: i64,
    #[diesel(skip_update)]
    created_at: i64,
    updated_at: i64,
}

impl ProductRow {
    fn from_domain(product: &Product) -> Self {
        Self {
            id: product.id.to_string(),
            account_id: product.account_id.to_string(),
            livemode: product.livemode,
            name: product.name.as_str().to_owned(),
            description: product.description.as_ref().map(|text| text.as_str().to_owned()),
            image: product.image.clone(),
            active: product.active,
            version: product.version,
            created_at: product.created_at.unix_seconds(),
            updated_at: product.updated_at.unix_seconds(),
        }
    }

    fn into_domain(self) -> Result<Product, StoreError> {
        Ok(Product {
            id: ProductId::parse(&self.id).ok_or_else(|| corrupt("product id", &self.id))?,
            account_id: AccountId::parse(&self.account_id).ok_or_else(|| corrupt("account id", &self.account_id))?,
            livemode: self.livemode,
            name: ProductName::new(self.name).map_err(invalid("product name"))?,
            description: description(self.description)?,
            image: self.image,
            active: self.active,
            version: self.version,
            created_at: Timestamp::from_unix_seconds(self.created_at),
            updated_at: Timestamp::from_unix_seconds(self.updated_at),
        })
    }
}

impl ProductRepository for DbSession<'_> {
    fn insert(&mut self, product: &Product) -> Result<(), StoreError> {
        self.insert(products::table, vec![ProductRow::from_domain(product)])
    }

    fn find(&mut self, scope: &Scope, id: &ProductId) -> Result<Option<Product>, StoreError> {
        products::table
            .filter(in_scope!(products, scope))
            .filter(products::id.eq(id.as_str()))
            .select(ProductRow::as_select())
            .get_result(self.reading()?)
            .optional()
            .map_err(store_error)?
            .map(ProductRow::into_domain)
            .transpose()
    }

    fn find_many(&mut self, scope: &Scope, ids: &[ProductId]) -> Result<Vec<Product>, StoreError> {
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        let ids: Vec<&str> = ids.iter().map(ProductId::as_str).collect();
        products::table
            .filter(in_scope!(products, scope))
            .filter(products::id.eq_any(ids))
            .select(ProductRow::as_select())
            .load::<ProductRow>(self.reading()?)
            .map_err(store_error)?
            .into_iter()
            .map(ProductRow::into_domain)
            .collect()
    }

    fn update(&mut self, product: &Product, expected_version: i64) -> Result<(), StoreError> {
        let updated = diesel::update(
            products::table
                .filter(in_scope!(products, product.account_id, product.livemode))
                .filter(products::id.eq(product.id.as_str()))
                .filter(products::version.eq(expected_version)),
        )
        .set(ProductRow::from_domain(product))
        .prepared()
        .execute(self.write_now()?)
        .map_err(store_error)?;
        versioned(updated)
    }

    fn delete(&mut self, scope: &Scope, id: &ProductId) -> Result<(), StoreError> {
        let delete =
            diesel::delete(products::table.filter(in_scope!(products, scope)).filter(products::id.eq(id.to_string())));
        self.write(delete, Expect::AnyRows)
    }

    fn list(&mut self, scope: &Scope, page: &PageRequest) -> Result<Page<Product>, StoreError> {
        newest_first!(self, products, ProductRow, scope, products::table.into_boxed(), page)
    }
}
