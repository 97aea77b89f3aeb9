//! On PostgreSQL, a lookup by key that names its tenant keeps to the key's index in the generic plan
//! a prepared statement caches while its table is still empty. If it did not, the plan would walk the
//! account's listing index and filter by the key, and keep doing so as the table grew.

use diesel::connection::SimpleConnection;
use diesel::prelude::*;
use diesel::sql_types::Text;
use payments_adapters::db::testing::TestDatabase;

#[derive(QueryableByName)]
struct PlanLine {
    #[diesel(sql_type = Text, column_name = "QUERY PLAN")]
    line: String,
}

#[derive(QueryableByName)]
struct TableName {
    #[diesel(sql_type = Text)]
    table_name: String,
}

/// Every table with a tenant and an id, looked up by id, and the other keys requests look up by.
fn lookups(connection: &mut PgConnection) -> Vec<(String, &'static str)> {
    let tenant_tables: Vec<TableName> = diesel::sql_query(
        "SELECT table_name::text AS table_name FROM information_schema.columns \
         WHERE table_schema = 'public' AND column_name IN ('account_id', 'livemode', 'id') \
         GROUP BY table_name HAVING count(*) = 3 ORDER BY table_name",
    )
    .load(connection)
    .unwrap();
    assert!(tenant_tables.len() >= 13, "the tenant tables are found: {}", tenant_tables.len());
    let mut lookups: Vec<(String, &str)> = tenant_tables.into_iter().map(|table| (table.table_name, "id")).collect();
    for (table, key) in [
        ("checkout_sessions", "payment_intent_id"),
        ("billing_statements", "payment_intent_id"),
        ("customer_metadata", "customer_id"),
    ] {
        lookups.push((table.to_owned(), key));
    }
    lookups
}

fn generic_plan(connection: &mut PgConnection, statement: &str) -> Vec<String> {
    connection.batch_execute(&format!("PREPARE lookup AS {statement}")).unwrap();
    let plan: Vec<PlanLine> =
        diesel::sql_query("EXPLAIN EXECUTE lookup('acct_someone', false, 'key')").load(connection).unwrap();
    connection.batch_execute("DEALLOCATE lookup").unwrap();
    plan.into_iter().map(|line| line.line).collect()
}

#[test]
fn lookups_by_key_keep_to_their_key() {
    let database = TestDatabase::postgres();
    let mut connection = PgConnection::establish(database.url()).unwrap();
    connection.batch_execute("SET plan_cache_mode = force_generic_plan").unwrap();
    for (table, key) in lookups(&mut connection) {
        let condition = format!("account_id = $1 AND livemode = $2 AND {key} = $3");
        for statement in
            [format!("SELECT * FROM {table} WHERE {condition}"), format!("DELETE FROM {table} WHERE {condition}")]
        {
            let plan = generic_plan(&mut connection, &statement);
            let by_key = format!("({key} = $3)");
            assert!(
                plan.iter().any(|line| line.contains("Index Cond") && line.contains(&by_key)),
                "{statement}: the key is not an index condition in\n{}",
                plan.join("\n")
            );
        }
    }
}
