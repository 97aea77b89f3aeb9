//! The accounts' live connectors in the database: the secrets as the sealer sealed them (hex), and
//! times in milliseconds.

use super::error::{corrupt, store_error};
use super::json::parse_id;
use super::schema::connector_accounts;
use super::session::DbSession;
use super::write_batch::Expect;
use diesel::prelude::*;
use payments_application::ports::{ConnectorAccountRepository, StoreError};
use payments_domain::connector_account::{ConnectorAccount, ConnectorKind, LastCall, SealedSecrets};
use payments_domain::ids::{AccountId, ConnectorAccountId};
use payments_domain::time::Timestamp;

#[derive(Insertable, Queryable, Selectable)]
#[diesel(table_name = connector_accounts)]
struct ConnectorRow {
    id: String,
    account_id: String,
    kind: String,
    api_base_url: String,
    publishable_key: String,
    sealed_secrets: String,
    last_call_answered: Option<bool>,
    last_call_at: Option<i64>,
    created_at: i64,
    updated_at: i64,
}

impl ConnectorRow {
    fn from_domain(connector: &ConnectorAccount) -> Self {
        Self {
            id: connector.id.to_string(),
            account_id: connector.account_id.to_string(),
            kind: connector.kind.as_str().to_owned(),
            api_base_url: connector.api_base_url.clone(),
            publishable_key: connector.publishable_key.clone(),
            sealed_secrets: hex::encode(&connector.secrets.0),
            last_call_answered: connector.last_call.map(|call| call.answered),
            last_call_at: connector.last_call.map(|call| call.at.unix_millis()),
            created_at: connector.created_at.unix_millis(),
            updated_at: connector.updated_at.unix_millis(),
        }
    }

    fn into_domain(self) -> Result<ConnectorAccount, StoreError> {
        let last_call = match (self.last_call_answered, self.last_call_at) {
            (Some(answered), Some(at)) => Some(LastCall { answered, at: Timestamp::from_unix_millis(at) }),
            _ => None,
        };
        Ok(ConnectorAccount {
            id: parse_id("connector id", &self.id, ConnectorAccountId::parse)?,
            account_id: parse_id("account id", &self.account_id, AccountId::parse)?,
            kind: ConnectorKind::parse(&self.kind).ok_or_else(|| corrupt("connector kind", &self.kind))?,
            api_base_url: self.api_base_url,
            publishable_key: self.publishable_key,
            secrets: SealedSecrets(
                hex::decode(&self.sealed_secrets).map_err(|error| corrupt("sealed secrets", error))?,
            ),
            last_call,
            created_at: Timestamp::from_unix_millis(self.created_at),
            updated_at: Timestamp::from_unix_millis(self.updated_at),
        })
    }
}

impl ConnectorAccountRepository for DbSession<'_> {
    fn of_account(&mut self, account: &AccountId) -> Result<Option<ConnectorAccount>, StoreError> {
        connector_accounts::table
            .filter(connector_accounts::account_id.eq(account.as_str()))
            .select(ConnectorRow::as_select())
            .get_result(self.reading()?)
            .optional()
            .map_err(store_error)?
            .map(ConnectorRow::into_domain)
            .transpose()
    }

    fn find(&mut self, id: &ConnectorAccountId) -> Result<Option<ConnectorAccount>, StoreError> {
        connector_accounts::table
            .filter(connector_accounts::id.eq(id.as_str()))
            .select(ConnectorRow::as_select())
            .get_result(self.reading()?)
            .optional()
            .map_err(store_error)?
            .map(ConnectorRow::into_domain)
            .transpose()
    }

    fn insert(&mut self, connector: &ConnectorAccount) -> Result<(), StoreError> {
        self.write(
            diesel::insert_into(connector_accounts::table).values(ConnectorRow::from_domain(connector)),
            Expect::AnyRows,
        )
    }

    fn delete(&mut self, account: &AccountId) -> Result<bool, StoreError> {
        let kept = self.of_account(account)?.is_some();
        if kept {
            let account = account.to_string();
            self.write(
                diesel::delete(connector_accounts::table.filter(connector_accounts::account_id.eq(account))),
                Expect::AnyRows,
            )?;
        }
        Ok(kept)
    }

    fn record_call(&mut self, account: &AccountId, call: LastCall) -> Result<(), StoreError> {
        let account = account.to_string();
        self.write(
            diesel::update(connector_accounts::table.filter(connector_accounts::account_id.eq(account))).set((
                connector_accounts::last_call_answered.eq(Some(call.answered)),
                connector_accounts::last_call_at.eq(Some(call.at.unix_millis())),
            )),
            Expect::AnyRows,
        )
    }
}
