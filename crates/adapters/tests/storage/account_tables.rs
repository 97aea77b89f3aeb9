//! The table catalogue (`db/tables.rs`) against the migrated schema, on both backends: every table
//! with an `account_id` is the account's own, its objects' or the service's records of it; deleting
//! an account's data walks children before parents, and exporting walks parents first; every column
//! of an exported table that names another object is checked on import, or says why not.

use diesel::prelude::*;
use diesel::sql_types::Text;
use payments_adapters::db::testing::{deleted_children_first, exported_parents_first, references, Role, TestDatabase, TABLES};
use payments_adapters::db::Backend;
use std::collections::BTreeSet;

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
    let the_account_itself: Vec<&str> =
        TABLES.iter().filter(|table| table.role == Role::TheAccount).map(|table| table.name).collect();
    let tenant_tables: BTreeSet<&str> = schema
        .columns
        .iter()
        .filter(|(table, column)| column == "account_id" && !the_account_itself.contains(&table.as_str()))
        .map(|(table, _)| table.as_str())
        .collect();
    let children_first = deleted_children_first();
    let deleted: BTreeSet<&str> = children_first.iter().copied().collect();
    assert_eq!(deleted, tenant_tables, "the catalogue deletes every table with an account_id");
    let exported: Vec<&str> = exported_parents_first().into_iter().map(|(table, _)| table).collect();

    for (child, column, parent) in &schema.foreign_keys {
        if let (Some(child_at), Some(parent_at)) =
            (position(&children_first, child), position(&children_first, parent))
        {
            assert!(child_at < parent_at, "the catalogue deletes {child} before {parent} ({column})");
        }
        if let (Some(child_at), Some(parent_at)) = (position(&exported, child), position(&exported, parent)) {
            assert!(parent_at < child_at, "the catalogue exports {parent} before {child} ({column})");
        }
    }

    let listed = references();
    let references: BTreeSet<(&str, &str)> = listed.iter().map(|(table, column, _)| (*table, *column)).collect();
    for (table, column, parent) in listed {
        assert!(schema.columns.contains(&(table.to_owned(), column.to_owned())), "REFERENCES names {table}.{column}");
        assert!(exported.contains(&parent), "REFERENCES' {table}.{column} names an exported table, not {parent}");
    }
    let not_references: BTreeSet<(&str, &str)> = TABLES
        .iter()
        .flat_map(|table| table.not_references.iter().map(move |(column, _)| (table.name, *column)))
        .collect();
    for (table, column) in &not_references {
        assert!(schema.columns.contains(&((*table).to_owned(), (*column).to_owned())), "not_references names {table}.{column}");
    }
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
        "each of {unlisted:?} names an object: list it once, in its table's references or not_references (db/tables.rs)"
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
