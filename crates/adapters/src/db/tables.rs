//! Every table of the service, once, with what the code that walks tables by name needs to know of
//! it: what its rows are to an account (deleted with it, exported with its objects, or neither), in
//! which order they are written, which of its columns name another object, and where it lives on
//! Citus. Every list of tables is derived from here (deletion, export and import in
//! `account_data.rs`, placement in `distribution.rs`, the checks against the schema in
//! `tests/storage/`), so a new table is one entry; a table the migrations make that is not here
//! fails those checks.

/// One table.
#[derive(Debug, Clone, Copy)]
pub struct Table {
    pub name: &'static str,
    pub role: Role,
    pub placement: Placement,
    /// The columns that name another object of the account, each with that object's table: an
    /// imported row may name one no longer stored, but never one of another account or mode.
    pub references: &'static [(&'static str, &'static str)],
    /// The columns that end in `_id` but name no stored object of the account, each with why (read
    /// by the check against the schema, which builds with the `testing` feature).
    #[cfg_attr(not(feature = "testing"), allow(dead_code))]
    pub not_references: &'static [(&'static str, &'static str)],
}

/// What a table's rows are to an account.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// No account's: the accounts themselves, the migrations' record.
    TheService,
    /// The account itself (its keys, its payout schedules): deleted with its row, kept by an import.
    TheAccount,
    /// The merchant's objects: deleted with the account or its mode, exported and imported, written
    /// in the order `written_in` (the columns that order its rows).
    Objects { written_in: &'static str },
    /// The running service's records of an account (deliveries, mail, the request log, idempotency
    /// keys, console sessions): deleted with it, left behind by an export.
    Records,
}

/// Where a table lives on PostgreSQL sharded by account with Citus.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Placement {
    /// Copied to every node, read before the account is known (why).
    Reference(&'static str),
    /// Distributed by `account_id`, co-located with the others; an unlogged table is logged once
    /// distributed (`logged`), since Citus moves a shard by logical replication.
    Account { logged: bool },
    /// Stays where it is.
    Local,
}

const ACCOUNT: Placement = Placement::Account { logged: false };
const NONE: &[(&str, &str)] = &[];

/// Every table, parents first: a table comes after those it refers to (so the reverse deletes
/// children first).
pub const TABLES: &[Table] = &[
    Table {
        name: "accounts",
        role: Role::TheService,
        placement: Placement::Reference("every request's account, and the operator's list of accounts"),
        references: NONE,
        not_references: NONE,
    },
    Table {
        name: "api_keys",
        role: Role::TheAccount,
        placement: Placement::Reference("a request's key is looked up by its digest to learn the account"),
        references: NONE,
        not_references: NONE,
    },
    Table {
        name: "console_sessions",
        role: Role::Records,
        placement: Placement::Reference("a console request's cookie is looked up by its digest to learn the account"),
        references: NONE,
        not_references: NONE,
    },
    Table {
        name: "customers",
        role: Role::Objects { written_in: "seq" },
        placement: ACCOUNT,
        references: NONE,
        not_references: NONE,
    },
    Table {
        name: "customer_metadata",
        role: Role::Objects { written_in: "customer_id, key" },
        placement: ACCOUNT,
        references: &[("customer_id", "customers")],
        not_references: NONE,
    },
    Table {
        name: "products",
        role: Role::Objects { written_in: "seq" },
        placement: ACCOUNT,
        references: NONE,
        not_references: NONE,
    },
    Table {
        name: "prices",
        role: Role::Objects { written_in: "seq" },
        placement: ACCOUNT,
        references: &[("product_id", "products")],
        not_references: NONE,
    },
    Table { name: "pages", role: Role::Objects { written_in: "seq" }, placement: ACCOUNT, references: NONE, not_references: NONE },
    Table {
        name: "payment_methods",
        role: Role::Objects { written_in: "seq" },
        placement: ACCOUNT,
        references: &[("customer_id", "customers")],
        not_references: NONE,
    },
    Table {
        name: "setup_intents",
        role: Role::Objects { written_in: "seq" },
        placement: ACCOUNT,
        references: &[
            ("customer_id", "customers"),
            ("payment_method_id", "payment_methods"),
            ("pending_payment_method_id", "payment_methods"),
        ],
        not_references: NONE,
    },
    Table {
        name: "payment_intents",
        role: Role::Objects { written_in: "seq" },
        placement: ACCOUNT,
        references: &[
            ("customer_id", "customers"),
            ("payment_method_id", "payment_methods"),
            ("latest_payment_id", "payments"),
        ],
        not_references: NONE,
    },
    Table {
        name: "payment_intent_metadata",
        role: Role::Objects { written_in: "payment_intent_id, key" },
        placement: ACCOUNT,
        references: &[("payment_intent_id", "payment_intents")],
        not_references: NONE,
    },
    Table {
        name: "payments",
        role: Role::Objects { written_in: "seq" },
        placement: ACCOUNT,
        references: &[("payment_intent_id", "payment_intents"), ("customer_id", "customers"), ("page_id", "pages")],
        not_references: NONE,
    },
    Table {
        name: "refunds",
        role: Role::Objects { written_in: "seq" },
        placement: ACCOUNT,
        references: &[("payment_id", "payments")],
        not_references: NONE,
    },
    Table {
        name: "checkout_sessions",
        role: Role::Objects { written_in: "seq" },
        placement: ACCOUNT,
        references: &[("payment_intent_id", "payment_intents")],
        not_references: &[("customer_reference_id", "the merchant's own reference, free text")],
    },
    Table {
        name: "billing_statements",
        role: Role::Objects { written_in: "seq" },
        placement: ACCOUNT,
        references: &[("customer_id", "customers"), ("payment_intent_id", "payment_intents")],
        not_references: NONE,
    },
    Table {
        name: "billing_statement_line_items",
        role: Role::Objects { written_in: "seq" },
        placement: ACCOUNT,
        references: &[("billing_statement_id", "billing_statements")],
        not_references: NONE,
    },
    Table {
        name: "customer_sessions",
        role: Role::Objects { written_in: "seq" },
        placement: ACCOUNT,
        references: &[("customer_id", "customers")],
        not_references: NONE,
    },
    Table {
        name: "webhooks",
        role: Role::Objects { written_in: "seq" },
        placement: ACCOUNT,
        references: NONE,
        not_references: NONE,
    },
    Table {
        name: "events",
        role: Role::Objects { written_in: "seq" },
        placement: ACCOUNT,
        references: NONE,
        not_references: &[(
            "object_id",
            "the object an event is about, of any table (and gone when it was deleted): the envelope is checked instead",
        )],
    },
    Table { name: "webhook_deliveries", role: Role::Records, placement: ACCOUNT, references: NONE, not_references: NONE },
    Table {
        name: "webhook_delivery_attempts",
        role: Role::Records,
        placement: ACCOUNT,
        references: NONE,
        not_references: NONE,
    },
    Table { name: "mail_messages", role: Role::Records, placement: ACCOUNT, references: NONE, not_references: NONE },
    Table {
        name: "request_logs",
        role: Role::Records,
        placement: Placement::Account { logged: true },
        references: NONE,
        not_references: NONE,
    },
    Table { name: "idempotency_keys", role: Role::Records, placement: ACCOUNT, references: NONE, not_references: NONE },
    Table {
        name: "payouts",
        role: Role::Objects { written_in: "seq" },
        placement: ACCOUNT,
        references: NONE,
        not_references: NONE,
    },
    Table {
        name: "balance_entries",
        role: Role::Objects { written_in: "seq" },
        placement: ACCOUNT,
        references: &[("payout_id", "payouts")],
        not_references: &[(
            "source_id",
            "the payment, refund or payout whose money moved, of one of three tables: a record of what happened, kept as written",
        )],
    },
    Table {
        name: "payout_transactions",
        role: Role::Objects { written_in: "seq" },
        placement: ACCOUNT,
        references: &[("payout_id", "payouts"), ("entry_id", "balance_entries")],
        not_references: &[("transaction_id", "the payment, refund or failed payout a line pays out, as its entry's source_id")],
    },
    Table {
        name: "processor_operations",
        role: Role::Records,
        placement: ACCOUNT,
        references: &[("payment_intent_id", "payment_intents")],
        not_references: &[
            ("payment_id", "the payment an operation is for, reserved before the processor is asked and stored once it answers"),
            ("refund_id", "the refund a refund operation is for, stored once the processor answers"),
        ],
    },
    Table {
        name: "connector_accounts",
        role: Role::TheAccount,
        placement: Placement::Reference("a processor's webhook names its connector by the connector's id, before the account is known"),
        references: NONE,
        not_references: NONE,
    },
    Table {
        name: "processor_events",
        role: Role::Records,
        placement: ACCOUNT,
        references: NONE,
        not_references: NONE,
    },
    Table { name: "payout_schedules", role: Role::TheAccount, placement: ACCOUNT, references: NONE, not_references: NONE },
    Table {
        name: "__diesel_schema_migrations",
        role: Role::TheService,
        placement: Placement::Local,
        references: NONE,
        not_references: NONE,
    },
];

/// The tables of an account's data (its objects and the service's records of it), children before
/// their parents: what deleting a mode's or the whole account's rows walks.
#[must_use]
pub fn deleted_children_first() -> Vec<&'static str> {
    TABLES
        .iter()
        .rev()
        .filter(|table| matches!(table.role, Role::Objects { .. } | Role::Records))
        .map(|table| table.name)
        .collect()
}

/// The tables of a mode's objects, parents before their children, each with the order its rows
/// were written in: what an export writes and an import reads.
#[must_use]
pub fn exported_parents_first() -> Vec<(&'static str, &'static str)> {
    TABLES
        .iter()
        .filter_map(|table| match table.role {
            Role::Objects { written_in } => Some((table.name, written_in)),
            Role::TheService | Role::TheAccount | Role::Records => None,
        })
        .collect()
}

/// Every column of an exported table that names another object, with its table and that object's.
#[must_use]
pub fn references() -> Vec<(&'static str, &'static str, &'static str)> {
    TABLES
        .iter()
        .flat_map(|table| table.references.iter().map(move |(column, parent)| (table.name, *column, *parent)))
        .collect()
}

/// The tables with `placement`, in the catalogue's order.
#[must_use]
pub fn placed(placement: fn(&Placement) -> bool) -> Vec<&'static str> {
    TABLES.iter().filter(|table| placement(&table.placement)).map(|table| table.name).collect()
}
