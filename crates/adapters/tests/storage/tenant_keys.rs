//! A lookup by key that names its tenant keeps to the key's index on both backends: on PostgreSQL in
//! the generic plan a prepared statement caches while its table is empty or growing, on SQLite in the
//! plan its planner makes without statistics. If it did not, the plan would walk the account's
//! listing index and filter by the key, and go on doing so as the table grew.
//!
//! On Citus (scripts/citus-check runs these tests against a coordinator) the coordinator's plan of a
//! statement that names the account is one task, on the one worker that holds the account: that is
//! what these tests check there (the router plan). The worker plans each task with its values bound,
//! not with a cached generic plan, so the index a cached plan would take does not arise.

use diesel::connection::SimpleConnection;
use diesel::prelude::*;
use diesel::sql_types::Text;
use payments_adapters::db::testing::TestDatabase;

#[derive(QueryableByName)]
struct PostgresPlanLine {
    #[diesel(sql_type = Text, column_name = "QUERY PLAN")]
    line: String,
}

#[derive(QueryableByName)]
struct SqlitePlanLine {
    #[diesel(sql_type = Text)]
    detail: String,
}

#[derive(QueryableByName)]
struct TableName {
    #[diesel(sql_type = Text)]
    name: String,
}

/// Every table with a tenant and an id, looked up by id, and the other keys requests look up by.
fn lookups(tenant_tables: Vec<TableName>) -> Vec<(String, &'static str)> {
    assert!(tenant_tables.len() >= 13, "the tenant tables are found: {}", tenant_tables.len());
    let mut lookups: Vec<(String, &str)> = tenant_tables.into_iter().map(|table| (table.name, "id")).collect();
    for (table, key) in [
        ("checkout_sessions", "payment_intent_id"),
        ("billing_statements", "payment_intent_id"),
        ("customer_metadata", "customer_id"),
    ] {
        lookups.push((table.to_owned(), key));
    }
    lookups
}

/// A lookup and a delete by `key` in the tenant, with `$1`-style or `?` parameters.
fn statements(table: &str, key: &str, parameter: impl Fn(u8) -> String) -> [String; 2] {
    let condition =
        format!("account_id = {} AND livemode = {} AND {key} = {}", parameter(1), parameter(2), parameter(3));
    [format!("SELECT * FROM {table} WHERE {condition}"), format!("DELETE FROM {table} WHERE {condition}")]
}

#[test]
fn lookups_by_key_keep_to_their_key_on_postgres() {
    let database = TestDatabase::postgres();
    let mut connection = PgConnection::establish(database.url()).unwrap();
    connection.batch_execute("SET plan_cache_mode = force_generic_plan").unwrap();
    let tables = diesel::sql_query(
        "SELECT table_name::text AS name FROM information_schema.columns \
         WHERE table_schema = 'public' AND column_name IN ('account_id', 'livemode', 'id') \
         GROUP BY table_name HAVING count(*) = 3",
    )
    .load(&mut connection)
    .unwrap();
    let citus = on_citus(&mut connection);
    for (table, key) in lookups(tables) {
        for statement in statements(&table, key, |n| format!("${n}")) {
            let plan = generic_plan(&mut connection, &statement, LOOKUP_ARGUMENTS);
            let by_key = format!("({key} = $3)");
            let keeps_to_key = |plan: &[String]| plan.iter().any(|line| line.contains("Index Cond") && line.contains(&by_key));
            assert_plan(citus, &statement, &plan, keeps_to_key, "the key is no index condition");
        }
    }
}

/// The plan a prepared lookup of a payment intent caches stays on its key while the table grows
/// from empty, before it has statistics: the case the charge benchmark met, where the account's
/// listing index, shorter than the key's, won the tie from about a hundred rows on and the cached
/// plan then walked every intent of the account on each charge.
#[test]
fn a_lookup_keeps_to_its_key_as_its_table_grows_on_postgres() {
    let database = TestDatabase::postgres();
    let account = "acct_9ZxQwErTyUiOpAsDfGhJkLmN";
    database.execute(&format!("INSERT INTO accounts (id, name, created_at) VALUES ('{account}', 'Acme', 0)"));
    let mut connection = PgConnection::establish(database.url()).unwrap();
    connection.batch_execute("SET plan_cache_mode = force_generic_plan").unwrap();
    let citus = on_citus(&mut connection);
    for rows in (0..=300).step_by(10) {
        let lookup = "SELECT * FROM payment_intents WHERE account_id = $1 AND livemode = $2 AND id = $3";
        let plan = generic_plan(&mut connection, lookup, LOOKUP_ARGUMENTS);
        let keeps_to_key = |plan: &[String]| plan.iter().any(|line| line.contains("Index Cond") && line.contains("(id = $3)"));
        assert_plan(citus, lookup, &plan, keeps_to_key, &format!("with {rows} rows the key is no index condition"));
        // Ten more intents the width the service makes them.
        database.execute(&format!(
            "INSERT INTO payment_intents (id, account_id, livemode, amount, amount_received, amount_capturable, \
             currency, payment_methods, status, client_secret, card_options, version, created_at, updated_at) \
             SELECT 'pi_' || md5(n::text), '{account}', false, 10000, 0, 0, 'PHP', '[\"card\"]', \
             'awaiting_payment_method', 'pi_' || md5(n::text) || '_secret_' || md5((n * 7)::text), '{{}}', 1, 0, 0 \
             FROM generate_series({}, {}) AS n",
            rows + 1,
            rows + 10
        ));
    }
}

/// A lookup's account, livemode and key.
const LOOKUP_ARGUMENTS: &str = "'acct_someone', false, 'key'";

/// Whether the database is a Citus coordinator's, whose plans are routed to workers.
fn on_citus(connection: &mut PgConnection) -> bool {
    let found: Vec<TableName> =
        diesel::sql_query("SELECT extname::text AS name FROM pg_extension WHERE extname = 'citus'").load(connection).unwrap();
    !found.is_empty()
}

/// Checks `plan` of `statement`: on Citus, that it runs as one task on one worker (a router plan);
/// on one server, `single_server` (what its lines must show), with `what` saying why not.
fn assert_plan(citus: bool, statement: &str, plan: &[String], single_server: impl Fn(&[String]) -> bool, what: &str) {
    if citus {
        assert!(
            plan.iter().any(|line| line.trim() == "Task Count: 1"),
            "{statement}: not one task on one worker in\n{}",
            plan.join("\n")
        );
    } else {
        assert!(single_server(plan), "{statement}: {what} in\n{}", plan.join("\n"));
    }
}

/// On PostgreSQL, the plan of `statement` run with `arguments` as `connection` would cache it.
fn generic_plan(connection: &mut PgConnection, statement: &str, arguments: &str) -> Vec<String> {
    connection.batch_execute(&format!("PREPARE lookup AS {statement}")).unwrap();
    let plan: Vec<PostgresPlanLine> =
        diesel::sql_query(format!("EXPLAIN EXECUTE lookup({arguments})")).load(connection).unwrap();
    connection.batch_execute("DEALLOCATE lookup").unwrap();
    plan.into_iter().map(|line| line.line).collect()
}

/// Whether `table` has an `id` column, the key lookups name.
fn has_key_column(connection: &mut PgConnection, table: &str) -> bool {
    let found: Vec<IndexDefinition> = diesel::sql_query(format!(
        "SELECT column_name AS definition FROM information_schema.columns \
         WHERE table_name = '{table}' AND column_name = 'id'"
    ))
    .load(connection)
    .unwrap();
    !found.is_empty()
}

#[derive(QueryableByName)]
struct IndexDefinition {
    #[diesel(sql_type = Text)]
    definition: String,
}

/// The rule that keeps the plans above: on PostgreSQL an index led by the tenant is unique (a key
/// the lookup names whole), or partial on `seq > 0`, which only lists state, and a list takes it; or
/// partial on another condition no lookup states (what falls due in a scope), which a lookup never
/// takes.
#[test]
fn only_lists_and_due_scans_take_an_index_led_by_the_tenant_on_postgres() {
    let database = TestDatabase::postgres();
    let mut connection = PgConnection::establish(database.url()).unwrap();
    let led_by_tenant: Vec<IndexDefinition> = diesel::sql_query(
        "SELECT pg_get_indexdef(i.indexrelid) AS definition FROM pg_index AS i \
         JOIN pg_attribute AS a ON a.attrelid = i.indrelid AND a.attnum = i.indkey[0] \
         WHERE a.attname IN ('account_id', 'livemode') AND NOT i.indisunique",
    )
    .load(&mut connection)
    .unwrap();
    assert!(led_by_tenant.len() >= 7, "the listing indexes are found: {}", led_by_tenant.len());
    connection.batch_execute("SET plan_cache_mode = force_generic_plan").unwrap();
    let citus = on_citus(&mut connection);
    for index in led_by_tenant {
        assert!(index.definition.contains(") WHERE "), "a lookup could take {}", index.definition);
        let name = index.definition.trim_start_matches("CREATE INDEX ").split(' ').next().unwrap();
        let table = index.definition.split(" ON public.").nth(1).and_then(|rest| rest.split(' ').next()).unwrap();
        if !index.definition.ends_with("WHERE (seq > 0)") {
            if !has_key_column(&mut connection, table) {
                // Rows without a key of their own (attempts, say) are never looked up by one.
                continue;
            }
            let lookup = format!("SELECT * FROM {table} WHERE account_id = $1 AND livemode = $2 AND id = $3");
            let plan = generic_plan(&mut connection, &lookup, LOOKUP_ARGUMENTS);
            let keeps_off = |plan: &[String]| !plan.iter().any(|line| line.contains(&format!(" {name} ")));
            assert_plan(citus, &lookup, &plan, keeps_off, "the lookup takes a listing index");
            continue;
        }
        let list = format!(
            "SELECT * FROM {table} WHERE account_id = $1 AND livemode = $2 AND \"{table}\".\"seq\" > 0 \
             ORDER BY seq DESC LIMIT 11"
        );
        let plan = generic_plan(&mut connection, &list, "'acct_someone', false");
        let takes_it = |plan: &[String]| plan.iter().any(|line| line.contains(&format!("Index Scan Backward using {name} ")));
        assert_plan(citus, &list, &plan, takes_it, "the list does not take its index");
    }
}

#[test]
fn lookups_by_key_keep_to_their_key_on_sqlite() {
    let (database, _migrated) = super::repositories::connect(payments_adapters::db::Backend::Sqlite);
    let mut connection = SqliteConnection::establish(database.url().trim_start_matches("sqlite://")).unwrap();
    let tables = diesel::sql_query(
        "SELECT m.name AS name FROM sqlite_master AS m, pragma_table_info(m.name) AS c \
         WHERE m.type = 'table' AND c.name IN ('account_id', 'livemode', 'id') \
         GROUP BY m.name HAVING count(*) = 3",
    )
    .load(&mut connection)
    .unwrap();
    for (table, key) in lookups(tables) {
        for statement in statements(&table, key, |_| "?".to_owned()) {
            let plan: Vec<SqlitePlanLine> =
                diesel::sql_query(format!("EXPLAIN QUERY PLAN {statement}")).load(&mut connection).unwrap();
            assert!(
                plan.iter().any(|line| {
                    line.detail.contains(" USING ")
                        && (line.detail.contains(&format!("({key}=?")) || line.detail.contains(&format!(" {key}=?")))
                }),
                "{statement}: the key is no index condition in\n{}",
                plan.iter().map(|line| line.detail.as_str()).collect::<Vec<_>>().join("\n")
            );
        }
    }
}

/// Repository methods whose queries name no tenant, each for a reason of its kind; every other
/// method's statements name their account and mode (`in_scope!`, `listed!`, `newest_first!`, or the event stream's
/// `streamed`). The list is exact: a new method that names no tenant fails the test below until it
/// is added here, with its reason, and a method that came to name one must leave it.
const NAME_NO_TENANT: [(&str, &str, Why); 64] = [
    ("AccountRepository", "insert", Why::TheTenantItself),
    ("BalanceRepository", "insert", Why::RowsCarryTheirTenant),
    ("AccountRepository", "find_key", Why::TheTenantItself),
    ("AccountRepository", "find", Why::TheTenantItself),
    ("AccountRepository", "count", Why::TheTenantItself),
    ("AccountRepository", "lock_first_account", Why::TheTenantItself),
    ("AccountRepository", "test_clock_offset", Why::TheTenantItself),
    ("AccountRepository", "move_test_clock", Why::TheTenantItself),
    ("AccountRepository", "with_moved_test_clock", Why::TheTenantItself),
    ("AccountRepository", "list", Why::TheTenantItself),
    ("AccountRepository", "delete_test_data", Why::TheTenantItself),
    ("AccountRepository", "delete", Why::TheTenantItself),
    ("AccountRepository", "has_test_data", Why::TheTenantItself),
    ("AccountRepository", "export_test_data", Why::TheTenantItself),
    ("AccountRepository", "import_test_data", Why::TheTenantItself),
    ("AccountRepository", "schema_versions", Why::NoTenantTable),
    ("BillingStatementRepository", "insert", Why::RowsCarryTheirTenant),
    ("BillingStatementRepository", "find_for_page", Why::ACapability),
    ("CheckoutSessionRepository", "insert", Why::RowsCarryTheirTenant),
    ("CheckoutSessionRepository", "find_for_page", Why::ACapability),
    ("ConnectorAccountRepository", "of_account", Why::TheTenantItself),
    ("ConnectorAccountRepository", "find", Why::ACapability),
    ("ConnectorAccountRepository", "insert", Why::RowsCarryTheirTenant),
    ("ConnectorAccountRepository", "delete", Why::TheTenantItself),
    ("ConnectorAccountRepository", "record_call", Why::TheTenantItself),
    ("ConsoleSessionRepository", "insert", Why::RowsCarryTheirTenant),
    ("ConsoleSessionRepository", "find", Why::ACapability),
    ("ConsoleSessionRepository", "touch", Why::ACapability),
    ("ConsoleSessionRepository", "delete", Why::ACapability),
    ("ConsoleSessionRepository", "delete_seen_before", Why::TheWorker),
    ("CustomerRepository", "insert", Why::RowsCarryTheirTenant),
    ("CustomerSessionRepository", "insert", Why::RowsCarryTheirTenant),
    ("EventRepository", "append", Why::RowsCarryTheirTenant),
    ("EventRepository", "find_many", Why::TheWorker),
    ("IdempotencyRepository", "find", Why::ACapability),
    ("IdempotencyRepository", "insert", Why::RowsCarryTheirTenant),
    ("IdempotencyRepository", "complete", Why::ACapability),
    ("IdempotencyRepository", "delete", Why::ACapability),
    ("IdempotencyRepository", "delete_created_before", Why::TheWorker),
    ("MailMessageRepository", "insert", Why::RowsCarryTheirTenant),
    ("MailMessageRepository", "due", Why::TheWorker),
    ("PageRepository", "insert", Why::RowsCarryTheirTenant),
    ("PageRepository", "find_public", Why::ACapability),
    ("PaymentRepository", "insert", Why::RowsCarryTheirTenant),
    ("PaymentIntentRepository", "insert", Why::RowsCarryTheirTenant),
    ("PaymentIntentRepository", "find_by_redirect_token", Why::ACapability),
    ("PaymentIntentRepository", "find_for_page", Why::ACapability),
    ("PaymentMethodRepository", "insert", Why::RowsCarryTheirTenant),
    ("ProcessorEventRepository", "insert", Why::RowsCarryTheirTenant),
    ("ProcessorOperationRepository", "insert", Why::RowsCarryTheirTenant),
    ("PriceRepository", "insert", Why::RowsCarryTheirTenant),
    ("ProductRepository", "insert", Why::RowsCarryTheirTenant),
    ("RefundRepository", "insert", Why::RowsCarryTheirTenant),
    ("RequestLogRepository", "append", Why::RowsCarryTheirTenant),
    ("RequestLogRepository", "prune", Why::TheWorker),
    ("SetupIntentRepository", "insert", Why::RowsCarryTheirTenant),
    ("SetupIntentRepository", "find_by_redirect_token", Why::ACapability),
    ("WebhookRepository", "insert", Why::RowsCarryTheirTenant),
    ("WebhookRepository", "endpoints", Why::TheWorker),
    ("DeliveryRepository", "insert", Why::RowsCarryTheirTenant),
    ("DeliveryRepository", "due", Why::TheWorker),
    ("DeliveryRepository", "claim", Why::TheWorker),
    ("DeliveryRepository", "release", Why::TheWorker),
    ("DeliveryRepository", "record_attempts", Why::RowsCarryTheirTenant),
];

/// Why a repository method's statements may name no tenant.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Why {
    /// An insert: every row it writes carries its account and mode.
    RowsCarryTheirTenant,
    /// The accounts' own records: the tenant is what they are about (the operator API, sign-in).
    TheTenantItself,
    /// Found by a secret that names one object or record, whoever holds it: a hosted page's client
    /// secret, a redirect page's token, a console session's or an idempotency key's digest, the
    /// unguessable id of a connector in a processor's webhook address.
    ACapability,
    /// The background workers and housekeeping, which work across accounts and check each object's
    /// account themselves; never a request's path.
    TheWorker,
    /// It reads no tenant's table: the store's own bookkeeping (the migrations applied).
    NoTenantTable,
}

/// `DeliveryRepository::backlog` (the metrics' view of every account's pending deliveries) is the
/// workers' too; it is a statement over the whole table by design.
const WHOLE_TABLE: [(&str, &str); 1] = [("DeliveryRepository", "backlog")];

#[test]
fn every_repository_query_names_its_tenant_or_says_why_not() {
    let directory = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/db");
    let mut naming_none = Vec::new();
    for file in std::fs::read_dir(directory).unwrap() {
        let source = std::fs::read_to_string(file.unwrap().path()).unwrap();
        for (repository, methods) in repository_impls(&source) {
            for (method, body) in methods {
                let names_tenant = ["in_scope!", "listed!", "newest_first!", "streamed("].iter().any(|mark| body.contains(mark));
                if !names_tenant {
                    naming_none.push((repository.clone(), method));
                }
            }
        }
    }
    let allowed: Vec<(String, String)> = NAME_NO_TENANT
        .iter()
        .map(|(repository, method, _)| (*repository, *method))
        .chain(WHOLE_TABLE)
        .map(|(repository, method)| (repository.to_owned(), method.to_owned()))
        .collect();
    for found in &naming_none {
        assert!(
            allowed.contains(found),
            "{}::{} names no tenant: make it, or say why in NAME_NO_TENANT",
            found.0,
            found.1
        );
    }
    for listed in &allowed {
        assert!(naming_none.contains(listed), "{}::{} names its tenant now: take it off the list", listed.0, listed.1);
    }
}

/// The `impl …Repository for DbSession` blocks of a source file: the repository, and each method's
/// name and body.
fn repository_impls(source: &str) -> Vec<(String, Vec<(String, String)>)> {
    let mut found = Vec::new();
    let mut rest = source;
    while let Some(at) = rest.find("impl ") {
        rest = &rest[at + 5..];
        let Some((repository, after)) = rest.split_once(" for DbSession<'_> {") else { break };
        if !repository.ends_with("Repository") || repository.contains('\n') {
            continue;
        }
        // The block ends where its braces close.
        let mut depth = 1;
        let end = after
            .char_indices()
            .find_map(|(index, c)| {
                depth += match c {
                    '{' => 1,
                    '}' => -1,
                    _ => 0,
                };
                (depth == 0).then_some(index)
            })
            .unwrap_or(after.len());
        let block = &after[..end];
        let mut methods = Vec::new();
        let starts: Vec<usize> = block.match_indices("\n    fn ").map(|(index, _)| index).collect();
        for (n, start) in starts.iter().enumerate() {
            let body = &block[*start..starts.get(n + 1).copied().unwrap_or(block.len())];
            let name = body.trim_start_matches("\n    fn ").split('(').next().unwrap_or_default().to_owned();
            methods.push((name, body.to_owned()));
        }
        found.push((repository.to_owned(), methods));
        rest = &after[end..];
    }
    found
}
