//! Pages in the database: what the merchant set is read and written whole, as JSON beside the
//! title the lists show.

use super::error::{corrupt, store_error, versioned};
use super::json::{description, from_json, invalid, parse_id, to_json};
use super::prepared::Prepare;
use super::schema::pages;
use super::session::DbSession;
use diesel::prelude::*;
use payments_application::pagination::{Page, PageRequest};
use payments_application::ports::{PageRepository, StoreError};
use payments_application::Scope;
use payments_domain::ids::{AccountId, CustomFieldId, PageId, PriceId};
use payments_domain::money::Amount;
use payments_domain::page::{self, AfterPayment, CustomField, FieldKind, PageDetails, PageTemplate};
use payments_domain::payment_method::PaymentMethodType;
use payments_domain::redirect_url::RedirectUrl;
use payments_domain::time::Timestamp;
use serde::{Deserialize, Serialize};

/// A page as stored; `seq` is left to the database.
#[derive(Insertable, AsChangeset, Queryable, Selectable)]
#[diesel(table_name = pages, treat_none_as_null = true, treat_none_as_default_value = false)]
struct PageRow {
    #[diesel(skip_update)]
    id: String,
    #[diesel(skip_update)]
    account_id: String,
    #[diesel(skip_update)]
    livemode: bool,
    title: String,
    details: String,
    active: bool,
    version: i64,
    #[diesel(skip_update)]
    created_at: i64,
    updated_at: i64,
}

/// What the merchant set on a page, but its title, as the `details` column keeps it.
#[derive(Serialize, Deserialize)]
struct StoredDetails {
    description: Option<String>,
    template: StoredTemplate,
    custom_fields: Vec<StoredField>,
    payment_methods: Vec<String>,
    after_payment: StoredAfterPayment,
}

#[derive(Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum StoredTemplate {
    Storefront { prices: Vec<String> },
    FixedAmount { amount: i64 },
    CustomerChosenAmount { minimum: i64, maximum: i64 },
}

#[derive(Serialize, Deserialize)]
struct StoredField {
    id: String,
    name: String,
    kind: FieldKind,
    required: bool,
}

#[derive(Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum StoredAfterPayment {
    Message { message: String },
    Redirect { url: String },
}

impl StoredDetails {
    fn from_domain(details: &PageDetails) -> Self {
        Self {
            description: details.description.as_ref().map(|text| text.as_str().to_owned()),
            template: match &details.template {
                PageTemplate::Storefront { prices } => {
                    StoredTemplate::Storefront { prices: prices.iter().map(ToString::to_string).collect() }
                }
                PageTemplate::FixedAmount { amount } => StoredTemplate::FixedAmount { amount: amount.centavos() },
                PageTemplate::CustomerChosenAmount { minimum, maximum } => {
                    StoredTemplate::CustomerChosenAmount { minimum: minimum.centavos(), maximum: maximum.centavos() }
                }
            },
            custom_fields: details
                .custom_fields
                .iter()
                .map(|field| StoredField {
                    id: field.id.to_string(),
                    name: field.name.clone(),
                    kind: field.kind.clone(),
                    required: field.required,
                })
                .collect(),
            payment_methods: details.payment_methods.iter().map(|method| method.as_str().to_owned()).collect(),
            after_payment: match &details.after_payment {
                AfterPayment::Message(message) => StoredAfterPayment::Message { message: message.clone() },
                AfterPayment::Redirect(url) => StoredAfterPayment::Redirect { url: url.as_str().to_owned() },
            },
        }
    }

    fn into_domain(self, title: String) -> Result<PageDetails, StoreError> {
        let amount = |centavos: i64| Amount::new(centavos).map_err(invalid("page amount"));
        Ok(PageDetails {
            title,
            description: description(self.description)?,
            template: match self.template {
                StoredTemplate::Storefront { prices } => PageTemplate::Storefront {
                    prices: prices
                        .iter()
                        .map(|id| parse_id("price id", id, PriceId::parse))
                        .collect::<Result<_, _>>()?,
                },
                StoredTemplate::FixedAmount { amount: centavos } => {
                    PageTemplate::FixedAmount { amount: amount(centavos)? }
                }
                StoredTemplate::CustomerChosenAmount { minimum, maximum } => {
                    PageTemplate::CustomerChosenAmount { minimum: amount(minimum)?, maximum: amount(maximum)? }
                }
            },
            custom_fields: self
                .custom_fields
                .into_iter()
                .map(|field| {
                    Ok(CustomField {
                        id: parse_id("custom field id", &field.id, CustomFieldId::parse)?,
                        name: field.name,
                        kind: field.kind,
                        required: field.required,
                    })
                })
                .collect::<Result<_, StoreError>>()?,
            payment_methods: self
                .payment_methods
                .iter()
                .map(|method| PaymentMethodType::parse(method).map_err(invalid("payment method")))
                .collect::<Result<_, _>>()?,
            after_payment: match self.after_payment {
                StoredAfterPayment::Message { message } => AfterPayment::Message(message),
                StoredAfterPayment::Redirect { url } => AfterPayment::Redirect(RedirectUrl::trusted(url)),
            },
        })
    }
}

impl PageRow {
    fn from_domain(page: &page::Page) -> Result<Self, StoreError> {
        Ok(Self {
            id: page.id.to_string(),
            account_id: page.account_id.to_string(),
            livemode: page.livemode,
            title: page.details.title.clone(),
            details: to_json(&StoredDetails::from_domain(&page.details))?,
            active: page.active,
            version: page.version,
            created_at: page.created_at.unix_seconds(),
            updated_at: page.updated_at.unix_seconds(),
        })
    }

    fn into_domain(self) -> Result<page::Page, StoreError> {
        Ok(page::Page {
            id: PageId::parse(&self.id).ok_or_else(|| corrupt("page id", &self.id))?,
            account_id: AccountId::parse(&self.account_id).ok_or_else(|| corrupt("account id", &self.account_id))?,
            livemode: self.livemode,
            details: from_json::<StoredDetails>(&self.details)?.into_domain(self.title)?,
            active: self.active,
            version: self.version,
            created_at: Timestamp::from_unix_seconds(self.created_at),
            updated_at: Timestamp::from_unix_seconds(self.updated_at),
        })
    }
}

impl PageRepository for DbSession<'_> {
    fn insert(&mut self, page: &page::Page) -> Result<(), StoreError> {
        self.insert(pages::table, vec![PageRow::from_domain(page)?])
    }

    fn find(&mut self, scope: &Scope, id: &PageId) -> Result<Option<page::Page>, StoreError> {
        pages::table
            .filter(in_scope!(pages, scope))
            .filter(pages::id.eq(id.as_str()))
            .select(PageRow::as_select())
            .get_result(self.reading()?)
            .optional()
            .map_err(store_error)?
            .map(PageRow::into_domain)
            .transpose()
    }

    fn find_public(&mut self, id: &PageId) -> Result<Option<page::Page>, StoreError> {
        pages::table
            .filter(pages::id.eq(id.as_str()))
            .select(PageRow::as_select())
            .get_result(self.reading()?)
            .optional()
            .map_err(store_error)?
            .map(PageRow::into_domain)
            .transpose()
    }

    fn update(&mut self, page: &page::Page, expected_version: i64) -> Result<(), StoreError> {
        let updated = diesel::update(
            pages::table
                .filter(in_scope!(pages, page.account_id, page.livemode))
                .filter(pages::id.eq(page.id.as_str()))
                .filter(pages::version.eq(expected_version)),
        )
        .set(PageRow::from_domain(page)?)
        .prepared()
        .execute(self.write_now()?)
        .map_err(store_error)?;
        versioned(updated)
    }

    fn list(&mut self, scope: &Scope, page: &PageRequest) -> Result<Page<page::Page>, StoreError> {
        newest_first!(self, pages, PageRow, scope, pages::table.into_boxed(), page)
    }
}
