//! Setup intents in the database.

use super::error::{corrupt, store_error};
use super::json::{description, from_json, invalid, parse_id, to_json};
use super::schema::setup_intents;
use super::session::DbSession;
use super::write_batch::Expect;
use diesel::prelude::*;
use payments_application::ports::{SetupIntentRepository, StoreError};
use payments_application::Scope;
use payments_domain::ids::{AccountId, ClientSecret, CustomerId, PaymentMethodId, SetupIntentId};
use payments_domain::payment_method::{Usage, VerifiedCard};
use payments_domain::redirect_url::RedirectUrl;
use payments_domain::setup_intent::{PendingSetup, SetupIntent, SetupIntentStatus, StoredSetupIntent};
use payments_domain::time::Timestamp;

#[derive(Insertable, AsChangeset, Queryable, Selectable)]
#[diesel(table_name = setup_intents, treat_none_as_null = true, treat_none_as_default_value = false)]
struct SetupIntentRow {
    #[diesel(skip_update)]
    id: String,
    #[diesel(skip_update)]
    account_id: String,
    #[diesel(skip_update)]
    livemode: bool,
    customer_id: String,
    payment_methods: String,
    usage: String,
    status: String,
    client_secret: String,
    description: Option<String>,
    metadata: Option<String>,
    return_url: Option<String>,
    card_options: String,
    last_setup_error: Option<String>,
    payment_method_id: Option<String>,
    pending_payment_method_id: Option<String>,
    pending_card: Option<String>,
    pending_billing: Option<String>,
    pending_reference: Option<String>,
    redirect_token: Option<String>,
    redirect_url: Option<String>,
    action_due_at: Option<i64>,
    version: i64,
    #[diesel(skip_update)]
    created_at: i64,
    updated_at: i64,
}

impl SetupIntentRow {
    fn from_domain(intent: &SetupIntent) -> Result<Self, StoreError> {
        let pending = intent.pending();
        Ok(Self {
            id: intent.id().to_string(),
            account_id: intent.account_id().to_string(),
            livemode: intent.livemode(),
            customer_id: intent.customer_id().to_string(),
            payment_methods: to_json(&intent.payment_methods())?,
            usage: intent.usage().as_str().to_owned(),
            status: intent.status().as_str().to_owned(),
            client_secret: intent.client_secret().reveal().to_owned(),
            description: intent.description().map(|text| text.as_str().to_owned()),
            metadata: intent.metadata().map(to_json).transpose()?,
            return_url: intent.return_url().map(str::to_owned),
            card_options: to_json(intent.card_options())?,
            last_setup_error: intent.last_setup_error().map(to_json).transpose()?,
            payment_method_id: intent.payment_method_id().map(ToString::to_string),
            pending_payment_method_id: pending.map(|p| p.payment_method_id.to_string()),
            pending_card: pending.map(|p| to_json(&p.verified.card)).transpose()?,
            pending_billing: pending.and_then(|p| p.verified.billing.as_ref()).map(to_json).transpose()?,
            pending_reference: pending.map(|p| p.verified.processor_reference.clone()),
            redirect_token: intent.redirect_token().map(str::to_owned),
            redirect_url: intent.redirect_url().map(str::to_owned),
            action_due_at: intent.action_due_at().map(Timestamp::unix_seconds),
            version: intent.version(),
            created_at: intent.created_at().unix_seconds(),
            updated_at: intent.updated_at().unix_seconds(),
        })
    }

    fn into_domain(self) -> Result<SetupIntent, StoreError> {
        let pending = match (self.pending_payment_method_id, self.pending_card, self.pending_reference) {
            (Some(id), Some(card), Some(processor_reference)) => Some(PendingSetup {
                payment_method_id: parse_id("payment method id", &id, PaymentMethodId::parse)?,
                verified: VerifiedCard {
                    card: from_json(&card)?,
                    billing: self.pending_billing.as_deref().map(from_json).transpose()?,
                    processor_reference,
                },
            }),
            _ => None,
        };
        Ok(SetupIntent::restore(StoredSetupIntent {
            id: parse_id("setup intent id", &self.id, SetupIntentId::parse)?,
            account_id: parse_id("account id", &self.account_id, AccountId::parse)?,
            livemode: self.livemode,
            customer_id: parse_id("customer id", &self.customer_id, CustomerId::parse)?,
            payment_methods: from_json(&self.payment_methods)?,
            usage: Usage::parse(&self.usage).map_err(invalid("usage"))?,
            status: SetupIntentStatus::parse(&self.status)
                .ok_or_else(|| corrupt("setup intent status", &self.status))?,
            client_secret: ClientSecret::from_stored(self.client_secret),
            description: description(self.description)?,
            metadata: self.metadata.as_deref().map(from_json).transpose()?,
            return_url: self.return_url.map(RedirectUrl::trusted),
            card_options: from_json(&self.card_options)?,
            last_setup_error: self.last_setup_error.as_deref().map(from_json).transpose()?,
            payment_method_id: self
                .payment_method_id
                .map(|id| parse_id("payment method id", &id, PaymentMethodId::parse))
                .transpose()?,
            pending,
            redirect_token: self.redirect_token,
            redirect_url: self.redirect_url,
            action_due_at: self.action_due_at.map(Timestamp::from_unix_seconds),
            created_at: Timestamp::from_unix_seconds(self.created_at),
            updated_at: Timestamp::from_unix_seconds(self.updated_at),
            version: self.version,
        }))
    }
}

impl SetupIntentRepository for DbSession<'_> {
    fn insert(&mut self, intent: &SetupIntent) -> Result<(), StoreError> {
        self.write(
            diesel::insert_into(setup_intents::table).values(SetupIntentRow::from_domain(intent)?),
            Expect::AnyRows,
        )
    }

    fn find(&mut self, scope: &Scope, id: &SetupIntentId) -> Result<Option<SetupIntent>, StoreError> {
        setup_intents::table
            .filter(in_scope!(setup_intents, scope))
            .filter(setup_intents::id.eq(id.as_str()))
            .select(SetupIntentRow::as_select())
            .get_result(self.reading()?)
            .optional()
            .map_err(store_error)?
            .map(SetupIntentRow::into_domain)
            .transpose()
    }

    fn update(&mut self, intent: &SetupIntent, expected_version: i64) -> Result<(), StoreError> {
        let update = diesel::update(
            setup_intents::table
                .filter(in_scope!(setup_intents, intent.account_id(), intent.livemode()))
                .filter(setup_intents::id.eq(intent.id().to_string()))
                .filter(setup_intents::version.eq(expected_version)),
        )
        .set(SetupIntentRow::from_domain(intent)?);
        self.write(update, Expect::OneRow)
    }

    fn find_by_redirect_token(&mut self, token: &str) -> Result<Option<SetupIntent>, StoreError> {
        setup_intents::table
            .filter(setup_intents::redirect_token.eq(token))
            .select(SetupIntentRow::as_select())
            .get_result(self.reading()?)
            .optional()
            .map_err(store_error)?
            .map(SetupIntentRow::into_domain)
            .transpose()
    }

    fn due(&mut self, within: Option<&Scope>, now: Timestamp, limit: u32) -> Result<Vec<SetupIntent>, StoreError> {
        let mut query = setup_intents::table.into_boxed();
        if let Some(scope) = within {
            query = query.filter(in_scope!(setup_intents, scope));
        }
        query
            .filter(setup_intents::action_due_at.le(now.unix_seconds()))
            .filter(setup_intents::status.eq_any(with_due_actions()))
            .order(setup_intents::action_due_at.asc())
            .limit(i64::from(limit))
            .select(SetupIntentRow::as_select())
            .load(self.reading()?)
            .map_err(store_error)?
            .into_iter()
            .map(SetupIntentRow::into_domain)
            .collect()
    }
}

/// The statuses with a background action, as stored.
fn with_due_actions() -> Vec<&'static str> {
    SetupIntentStatus::with_due_actions().map(SetupIntentStatus::as_str).collect()
}
