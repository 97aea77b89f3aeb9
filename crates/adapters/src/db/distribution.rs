//! Where each table lives on a PostgreSQL sharded by account with Citus
//! (docs/operations.md#sharding-by-account-on-citus). The migrations are the same everywhere; this
//! step runs after them, and only where the `citus` extension is installed in the database:
//!
//! - a merchant's rows are distributed by `account_id`, all tables co-located, so that a query that
//!   names the account (every query a request makes, [`in_scope!`](super::in_scope)) goes to the
//!   one worker that holds the account, and a unit of work's statements stay on that worker;
//! - the tables read before the account is known are reference tables, copied to every node.
//!
//! Tables not yet distributed are distributed in one transaction: the foreign keys that touch them
//! are dropped, the tables placed, and the keys made again (Citus cannot place a table that a local
//! table refers to, nor one that refers to a local table). A table a later migration adds is placed
//! at the next start; one that the catalogue (`tables.rs`) does not name fails the start, and a test
//! fails before that (`tests/storage/table_placement.rs`).

use super::tables::{placed, Placement, TABLES};
use diesel::connection::SimpleConnection;
use diesel::{PgConnection, QueryResult, RunQueryDsl};

/// The tables copied to every node (read before the account is known), of the catalogue.
fn reference_tables() -> Vec<&'static str> {
    placed(|placement| matches!(placement, Placement::Reference(_)))
}

/// The tables distributed by `account_id`, co-located with the first, of the catalogue.
fn account_tables() -> Vec<&'static str> {
    placed(|placement| matches!(placement, Placement::Account { .. }))
}

/// Places the tables not placed yet, when the database has the `citus` extension; does nothing
/// otherwise.
///
/// # Errors
/// What Citus refuses, with nothing placed (one transaction).
pub(crate) fn distribute(connection: &mut PgConnection) -> QueryResult<()> {
    if !has_citus(connection)? {
        return Ok(());
    }
    let unknown: Vec<String> = public_tables(connection)?.into_iter().filter(|table| !is_listed(table)).collect();
    if !unknown.is_empty() {
        return Err(diesel::result::Error::QueryBuilderError(
            format!("tables that crates/adapters/src/db/distribution.rs does not place: {}", unknown.join(", ")).into(),
        ));
    }
    let placed = placed_tables(connection)?;
    let unplaced = |table: &&str| !placed.iter().any(|name| name == table);
    let references: Vec<&str> = reference_tables().into_iter().filter(unplaced).collect();
    let distributed: Vec<&str> = account_tables().into_iter().filter(unplaced).collect();
    if references.is_empty() && distributed.is_empty() {
        return Ok(());
    }
    tracing::info!(?references, ?distributed, "placing tables on the Citus cluster");
    connection.batch_execute(&placement_sql(&references, &distributed))
}

/// Whether the database has the `citus` extension.
pub(crate) fn has_citus(connection: &mut PgConnection) -> QueryResult<bool> {
    diesel::select(diesel::dsl::sql::<diesel::sql_types::Bool>(
        "EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'citus')",
    ))
    .get_result(connection)
}

/// Whether the catalogue names `table`.
fn is_listed(table: &str) -> bool {
    TABLES.iter().any(|listed| listed.name == table)
}

/// The tables of the `public` schema, by name.
fn public_tables(connection: &mut PgConnection) -> QueryResult<Vec<String>> {
    names(connection, "SELECT tablename::text AS name FROM pg_tables WHERE schemaname = 'public' ORDER BY tablename")
}

fn placed_tables(connection: &mut PgConnection) -> QueryResult<Vec<String>> {
    names(connection, "SELECT logicalrelid::regclass::text AS name FROM pg_dist_partition")
}

/// What `sql` (a query of one text column, `name`) answers.
fn names(connection: &mut PgConnection, sql: &str) -> QueryResult<Vec<String>> {
    #[derive(diesel::QueryableByName)]
    struct Named {
        #[diesel(sql_type = diesel::sql_types::Text)]
        name: String,
    }
    let named: Vec<Named> = diesel::sql_query(sql).load(connection)?;
    Ok(named.into_iter().map(|named| named.name).collect())
}

/// The transaction that places `references` and `distributed` (table names of this module's
/// lists, never input), with the foreign keys that touch them dropped and made again.
fn placement_sql(references: &[&str], distributed: &[&str]) -> String {
    let names = |tables: &[&str]| tables.iter().map(|table| format!("'{table}'")).collect::<Vec<_>>().join(", ");
    let unplaced = names(&[references, distributed].concat());
    let colocated_with = account_tables().first().copied().unwrap_or_default();
    let mut sql = format!(
        "BEGIN;
         SET LOCAL citus.multi_shard_modify_mode TO 'sequential';
         CREATE TEMPORARY TABLE unplaced_keys ON COMMIT DROP AS
             SELECT conrelid::regclass::text AS table_name, conname AS name, pg_get_constraintdef(oid) AS definition
             FROM pg_constraint
             WHERE contype = 'f' AND (conrelid::regclass::text IN ({unplaced}) OR confrelid::regclass::text IN ({unplaced}));
         DO $$ DECLARE key record; BEGIN
             FOR key IN SELECT * FROM unplaced_keys LOOP
                 EXECUTE format('ALTER TABLE %I DROP CONSTRAINT %I', key.table_name, key.name);
             END LOOP;
         END $$;\n"
    );
    for table in references {
        sql.push_str(&format!("SELECT create_reference_table('{table}');\n"));
    }
    let logged = |name: &&&str| {
        TABLES.iter().any(|table| table.name == **name && table.placement == Placement::Account { logged: true })
    };
    for table in distributed.iter().filter(logged) {
        sql.push_str(&format!("ALTER TABLE {table} SET LOGGED;\n"));
    }
    for table in distributed {
        let colocate = if *table == colocated_with { "default" } else { colocated_with };
        sql.push_str(&format!(
            "SELECT create_distributed_table('{table}', 'account_id', colocate_with => '{colocate}');\n"
        ));
    }
    sql.push_str(
        "DO $$ DECLARE key record; BEGIN
             FOR key IN SELECT * FROM unplaced_keys LOOP
                 EXECUTE format('ALTER TABLE %I ADD CONSTRAINT %I %s', key.table_name, key.name, key.definition);
             END LOOP;
         END $$;
         COMMIT;",
    );
    sql
}
