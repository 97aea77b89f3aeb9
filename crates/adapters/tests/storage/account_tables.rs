//! The hand-kept lists of an account's tables (`db/account_data.rs`) against the migrated schema,
//! on both backends: every table with an `account_id` is deleted with its account, children before
//! parents; every one is exported or named below as the service's records; exported tables come
//! parents first; and every column of an exported table that names another object is checked on
//! import (`REFERENCES`).

use diesel::prelude::*;
use diesel::sql_types::Text;
use payments_adapters::db::Backend;
use payments_adapters::db::testing::{TestDatabase, EXPORTED_PARENTS_FIRST, REFERENCES, TABLES_CHILDREN_FIRST};
use std::collections::BTreeSet;

/// The tables with an `account_id` that hold the account itself, deleted with its row
/// (`db/account.rs`), not its data: its keys, and its payout schedules (made with the account; an
/// account imported into keeps its own).
const THE_ACCOUNT_ITSELF: [&str; 2] = ["api_keys", "payout_schedules"];

/// The tables an export leaves behind: the running service's records of an account, not its
/// objects (`docs/operations.md`).
const RECORDS: [&str; 6] =
    ["webhook_delivery_attempts", "webhook_deliveries", "mail_messages", "idempotency_keys", "request_logs", "console_sessions"];

/// Columns of exported tables that end in `_id` but name no stored object of the account, each
/// with why.
const NOT_REFERENCES: [(&str, &str, &str); 4] = [
    (
        "events",
        "object_id",
        "the object an event is about, of any table (and gone when it was deleted): the envelope is checked instead",
    ),
    ("checkout_sessions", "customer_reference_id", "the merchant's own reference, free text"),
    (
        "balance_entries",
        "source_id",
        "the payment, refund or payout whose money moved, of one of three tables: a record of what happened, kept as written",
    ),
    ("payout_transactions", "transaction_id", "the payment, refund or failed payout a line pays out, as its entry's source_id"),
];

#[derive(QueryableByName, Debug)]
struct Triple {
    #[diesel(sql_type = Text)]
    a: String,
    #[diesel(sql_type = Text)]
    b: String,
    #[diesel(sql_type = Text)]
    c: String,
}

/// What the schema says: every (table, column), and every foreign key (table, column, parent).
struct Schema {
    columns: Vec<(String, String)>,
    foreign_keys: Vec<(String, String, String)>,
}

fn postgres_schema(database: &TestDatabase) -> Schema {
    let mut connection = PgConnection::establish(database.url()).unwrap();
    let columns: Vec<Triple> = diesel::sql_query(
        "SELECT table_name::text AS a, column_name::text AS b, '' AS c FROM information_schema.columns \
         WHERE table_schema = 'public'",
    )
    .load(&mut connection)
    .unwrap();
    let foreign_keys: Vec<Triple> = diesel::sql_query(
        "SELECT child.relname::text AS a, attribute.attname::text AS b, parent.relname::text AS c \
         FROM pg_constraint AS constraint_ \
         JOIN pg_class AS child ON child.oid = constraint_.conrelid \
         JOIN pg_class AS parent ON parent.oid = constraint_.confrelid \
         JOIN pg_attribute AS attribute ON attribute.attrelid = child.oid AND attribute.attnum = ANY (constraint_.conkey) \
         WHERE constraint_.contype = 'f' AND child.relnamespace = 'public'::regnamespace",
    )
    .load(&mut connection)
    .unwrap();
    schema(columns, foreign_keys)
}

fn sqlite_schema(database: &TestDatabase) -> Schema {
    let path = database.url().trim_start_matches("sqlite://");
    let mut connection = SqliteConnection::establish(path).unwrap();
    let columns: Vec<Triple> = diesel::sql_query(
        "SELECT m.name AS a, c.name AS b, '' AS c FROM sqlite_master AS m JOIN pragma_table_info(m.name) AS c \
         WHERE m.type = 'table'",
    )
    .load(&mut connection)
    .unwrap();
    let foreign_keys: Vec<Triple> = diesel::sql_query(
        "SELECT m.name AS a, f.\"from\" AS b, f.\"table\" AS c FROM sqlite_master AS m \
         JOIN pragma_foreign_key_list(m.name) AS f WHERE m.type = 'table'",
    )
    .load(&mut connection)
    .unwrap();
    schema(columns, foreign_keys)
}

fn schema(columns: Vec<Triple>, foreign_keys: Vec<Triple>) -> Schema {
    Schema {
        columns: columns.into_iter().map(|t| (t.a, t.b)).collect(),
        foreign_keys: foreign_keys.into_iter().map(|t| (t.a, t.b, t.c)).collect(),
    }
}

fn position(list: &[&str], table: &str) -> Option<usize> {
    list.iter().position(|listed| *listed == table)
}

fn check(schema: &Schema) {
    let tenant_tables: BTreeSet<&str> = schema
        .columns
        .iter()
        .filter(|(table, column)| column == "account_id" && !THE_ACCOUNT_ITSELF.contains(&table.as_str()))
        .map(|(table, _)| table.as_str())
        .collect();
    let deleted: BTreeSet<&str> = TABLES_CHILDREN_FIRST.into_iter().collect();
    assert_eq!(deleted, tenant_tables, "TABLES_CHILDREN_FIRST names every table with an account_id");
    let exported: Vec<&str> = EXPORTED_PARENTS_FIRST.iter().map(|(table, _)| *table).collect();
    let left_behind: BTreeSet<&str> = tenant_tables.iter().copied().filter(|t| !exported.contains(t)).collect();
    assert_eq!(left_behind, RECORDS.into_iter().collect(), "a tenant table is exported or one of the RECORDS");

    for (child, column, parent) in &schema.foreign_keys {
        if let (Some(child_at), Some(parent_at)) =
            (position(&TABLES_CHILDREN_FIRST, child), position(&TABLES_CHILDREN_FIRST, parent))
        {
            assert!(child_at < parent_at, "TABLES_CHILDREN_FIRST deletes {child} before {parent} ({column})");
        }
        if let (Some(child_at), Some(parent_at)) = (position(&exported, child), position(&exported, parent)) {
            assert!(parent_at < child_at, "EXPORTED_PARENTS_FIRST exports {parent} before {child} ({column})");
        }
    }

    let references: BTreeSet<(&str, &str)> = REFERENCES.iter().map(|(table, column, _)| (*table, *column)).collect();
    for (table, column, parent) in REFERENCES {
        assert!(schema.columns.contains(&(table.to_owned(), column.to_owned())), "REFERENCES names {table}.{column}");
        assert!(exported.contains(&parent), "REFERENCES' {table}.{column} names an exported table, not {parent}");
    }
    for (table, column, _) in NOT_REFERENCES {
        assert!(schema.columns.contains(&(table.to_owned(), column.to_owned())), "NOT_REFERENCES names {table}.{column}");
    }
    let not_references: BTreeSet<(&str, &str)> = NOT_REFERENCES.iter().map(|(table, column, _)| (*table, *column)).collect();
    let unlisted: Vec<String> = schema
        .columns
        .iter()
        .filter(|(table, column)| {
            let named = (table.as_str(), column.as_str());
            column.ends_with("_id")
                && column != "account_id"
                && exported.contains(&table.as_str())
                && references.contains(&named) == not_references.contains(&named)
        })
        .map(|(table, column)| format!("{table}.{column}"))
        .collect();
    assert!(
        unlisted.is_empty(),
        "each of {unlisted:?} names an object: list it once, in REFERENCES (db/account_data.rs) or NOT_REFERENCES"
    );
}

#[test]
fn the_account_table_lists_match_the_sqlite_schema() {
    let (database, _migrated) = crate::repositories::connect(Backend::Sqlite);
    check(&sqlite_schema(&database));
}

#[test]
fn the_account_table_lists_match_the_postgres_schema() {
    let (database, _migrated) = crate::repositories::connect(Backend::Postgres);
    check(&postgres_schema(&database));
}
