//! The tables, as diesel sees them on both backends.

diesel::table! {
    accounts (id) {
        id -> Text,
        name -> Text,
        created_at -> BigInt,
    }
}

diesel::table! {
    api_keys (key_digest) {
        key_digest -> Text,
        account_id -> Text,
        kind -> Text,
        livemode -> Bool,
        created_at -> BigInt,
    }
}

diesel::table! {
    idempotency_keys (account_id, livemode, idempotency_key) {
        account_id -> Text,
        livemode -> Bool,
        idempotency_key -> Text,
        fingerprint -> Text,
        response_status -> Nullable<Integer>,
        response_body -> Nullable<Text>,
        created_at -> BigInt,
    }
}

diesel::table! {
    customers (seq) {
        seq -> BigInt,
        id -> Text,
        account_id -> Text,
        livemode -> Bool,
        name -> Text,
        email -> Text,
        currency -> Text,
        billing_statement_prefix -> Text,
        next_billing_statement_sequence_number -> BigInt,
        billing -> Nullable<Text>,
        metadata -> Nullable<Text>,
        version -> BigInt,
        created_at -> BigInt,
        updated_at -> BigInt,
        deleted_at -> Nullable<BigInt>,
    }
}

diesel::joinable!(api_keys -> accounts (account_id));
diesel::joinable!(customers -> accounts (account_id));
diesel::allow_tables_to_appear_in_same_query!(accounts, api_keys, customers, idempotency_keys);
