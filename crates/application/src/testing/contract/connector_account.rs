//! The accounts' live connectors: one per account, found by account and by id, removed, and how
//! the last call went recorded.

use super::*;
use payments_domain::connector_account::{ConnectorAccount, ConnectorKind, LastCall, SealedSecrets};
use payments_domain::ids::ConnectorAccountId;

fn connector(scope: &Scope, n: u32) -> ConnectorAccount {
    ConnectorAccount {
        id: ConnectorAccountId::from_random(&format!("conn{n}")),
        account_id: scope.account_id.clone(),
        kind: ConnectorKind::Stripe,
        api_base_url: "https://api.stripe.com".into(),
        publishable_key: format!("pk_live_{n}"),
        secrets: SealedSecrets(vec![0, 159, 146, 150, 255, n.to_le_bytes()[0]]),
        last_call: None,
        created_at: at(0),
        updated_at: at(0),
    }
}

pub fn connector_accounts_are_one_per_account_and_found_by_id(store: &dyn UnitOfWork) {
    let scope = account(store, "acme");
    let other = account(store, "other");
    let first = connector(&scope, 1);
    write(store, |r| r.connector_accounts().insert(&first));
    let twice = in_transaction(store, |r| Ok(r.connector_accounts().insert(&connector(&scope, 2))?));
    assert!(matches!(twice, Err(ApplicationError::Conflict)), "one per account: {twice:?}");
    assert_eq!(read(store, |r| r.connector_accounts().of_account(&scope.account_id)), Some(first.clone()));
    assert_eq!(read(store, |r| r.connector_accounts().find(&first.id)), Some(first.clone()), "the bytes kept as given");
    assert_eq!(read(store, |r| r.connector_accounts().of_account(&other.account_id)), None);

    let call = LastCall { answered: false, at: at(5) };
    write(store, |r| r.connector_accounts().record_call(&scope.account_id, call));
    write(store, |r| r.connector_accounts().record_call(&other.account_id, call));
    let recorded = read(store, |r| r.connector_accounts().find(&first.id)).unwrap();
    assert_eq!(recorded.last_call, Some(call));
    assert_eq!(read(store, |r| r.connector_accounts().of_account(&other.account_id)), None, "none made");

    assert!(!write(store, |r| r.connector_accounts().delete(&other.account_id)));
    assert!(write(store, |r| r.connector_accounts().delete(&scope.account_id)));
    assert_eq!(read(store, |r| r.connector_accounts().find(&first.id)), None);
    write(store, |r| r.connector_accounts().insert(&connector(&scope, 3)));
}
