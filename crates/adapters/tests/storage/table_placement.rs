//! The table catalogue (`db/tables.rs`) against the migrated PostgreSQL schema: every table the
//! migrations make is in it once, with its place on Citus, and every table it names exists.

use diesel::prelude::*;
use diesel::sql_types::Text;
use payments_adapters::db::testing::{TestDatabase, TABLES};

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
    let mut listed: Vec<&str> = TABLES.iter().map(|table| table.name).collect();
    listed.sort_unstable();
    assert_eq!(listed, made, "each table the migrations make is listed once, and each listed table exists");
}
