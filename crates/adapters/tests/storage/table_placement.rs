//! The hand-kept lists of where each table lives on Citus (`db/distribution.rs`) against the
//! migrated PostgreSQL schema: every table the migrations make is placed once, as a reference table,
//! an account's table or a local one, and every listed table exists.

use diesel::prelude::*;
use diesel::sql_types::Text;
use payments_adapters::db::testing::{TestDatabase, ACCOUNT_TABLES, LOCAL_TABLES, REFERENCE_TABLES};

#[derive(QueryableByName)]
struct TableName {
    #[diesel(sql_type = Text)]
    name: String,
}

#[test]
fn every_table_the_migrations_make_has_one_place() {
    let database = TestDatabase::postgres();
    let mut connection = PgConnection::establish(database.url()).unwrap();
    let made: Vec<TableName> =
        diesel::sql_query("SELECT tablename::text AS name FROM pg_tables WHERE schemaname = 'public' ORDER BY 1")
            .load(&mut connection)
            .unwrap();
    let made: Vec<&str> = made.iter().map(|table| table.name.as_str()).collect();
    let mut listed: Vec<&str> = REFERENCE_TABLES
        .iter()
        .map(|(table, _)| *table)
        .chain(ACCOUNT_TABLES.iter().copied())
        .chain(LOCAL_TABLES.iter().copied())
        .collect();
    listed.sort_unstable();
    assert_eq!(listed, made, "each table the migrations make is listed once, and each listed table exists");
}
