//! The tables, as diesel sees them on both backends. The primary keys named here are SQLite's; on
//! PostgreSQL each key of a merchant's rows also names the account (migration
//! `2026-12-04-000029_keys_of_the_account`), and no statement leans on the difference.

diesel::table! {
    checkout_sessions (seq) {
        seq -> BigInt,
        id -> Text,
        account_id -> Text,
        livemode -> Bool,
        status -> Text,
        client_secret -> Text,
        url -> Text,
        payment_intent_id -> Text,
        line_items -> Text,
        amount -> BigInt,
        currency -> Text,
        success_url -> Text,
        cancel_url -> Text,
        payment_methods -> Text,
        card_options -> Text,
        customer_reference_id -> Nullable<Text>,
        billing_details_collection -> Text,
        description -> Nullable<Text>,
        submit_type -> Text,
        statement_descriptor -> Nullable<Text>,
        metadata -> Nullable<Text>,
        expires_at -> BigInt,
        version -> BigInt,
        created_at -> BigInt,
        updated_at -> BigInt,
    }
}

diesel::table! {
    accounts (id) {
        id -> Text,
        name -> Text,
        created_at -> BigInt,
        test_clock_offset_ms -> BigInt,
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
    idempotency_keys (account_id, livemode, key_kind, idempotency_key) {
        account_id -> Text,
        livemode -> Bool,
        key_kind -> Text,
        idempotency_key -> Text,
        fingerprint -> Text,
        response_status -> Nullable<Integer>,
        response_body -> Nullable<Text>,
        created_at -> BigInt,
    }
}

diesel::table! {
    customer_sessions (seq) {
        seq -> BigInt,
        id -> Text,
        account_id -> Text,
        livemode -> Bool,
        customer_id -> Text,
        client_secret -> Text,
        components -> Text,
        expired_at -> BigInt,
        created_at -> BigInt,
        updated_at -> BigInt,
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

diesel::table! {
    customer_metadata (customer_id, key) {
        customer_id -> Text,
        account_id -> Text,
        livemode -> Bool,
        key -> Text,
        value -> Text,
    }
}

diesel::table! {
    payment_intents (seq) {
        seq -> BigInt,
        id -> Text,
        account_id -> Text,
        livemode -> Bool,
        amount -> BigInt,
        amount_received -> BigInt,
        amount_capturable -> BigInt,
        currency -> Text,
        payment_methods -> Text,
        statement_descriptor -> Nullable<Text>,
        status -> Text,
        client_secret -> Text,
        description -> Nullable<Text>,
        last_payment_error -> Nullable<Text>,
        latest_payment_id -> Nullable<Text>,
        metadata -> Nullable<Text>,
        return_url -> Nullable<Text>,
        payment_method_id -> Nullable<Text>,
        card_options -> Text,
        capture_before_at -> Nullable<BigInt>,
        customer_id -> Nullable<Text>,
        pending_attempt -> Nullable<Text>,
        redirect_token -> Nullable<Text>,
        action_due_at -> Nullable<BigInt>,
        owner -> Nullable<Text>,
        version -> BigInt,
        created_at -> BigInt,
        updated_at -> BigInt,
        page_session -> Nullable<Text>,
    }
}

diesel::table! {
    setup_intents (seq) {
        seq -> BigInt,
        id -> Text,
        account_id -> Text,
        livemode -> Bool,
        customer_id -> Text,
        payment_methods -> Text,
        usage -> Text,
        status -> Text,
        client_secret -> Text,
        description -> Nullable<Text>,
        metadata -> Nullable<Text>,
        return_url -> Nullable<Text>,
        card_options -> Text,
        last_setup_error -> Nullable<Text>,
        payment_method_id -> Nullable<Text>,
        pending_payment_method_id -> Nullable<Text>,
        pending_card -> Nullable<Text>,
        pending_billing -> Nullable<Text>,
        pending_reference -> Nullable<Text>,
        redirect_token -> Nullable<Text>,
        redirect_url -> Nullable<Text>,
        action_due_at -> Nullable<BigInt>,
        version -> BigInt,
        created_at -> BigInt,
        updated_at -> BigInt,
    }
}

diesel::table! {
    payment_methods (seq) {
        seq -> BigInt,
        id -> Text,
        account_id -> Text,
        livemode -> Bool,
        customer_id -> Text,
        card -> Text,
        billing -> Nullable<Text>,
        processor_reference -> Text,
        usage -> Text,
        created_at -> BigInt,
        updated_at -> BigInt,
    }
}

diesel::table! {
    payments (seq) {
        seq -> BigInt,
        id -> Text,
        account_id -> Text,
        livemode -> Bool,
        amount -> BigInt,
        amount_refunded -> BigInt,
        billing -> Nullable<Text>,
        currency -> Text,
        description -> Nullable<Text>,
        fee -> BigInt,
        metadata -> Nullable<Text>,
        net_amount -> BigInt,
        payment_intent_id -> Text,
        customer_id -> Nullable<Text>,
        origin -> Text,
        status -> Text,
        payment_method -> Text,
        refunded -> Bool,
        version -> BigInt,
        created_at -> BigInt,
        updated_at -> BigInt,
        page_session -> Nullable<Text>,
        page_id -> Nullable<Text>,
    }
}

diesel::table! {
    refunds (seq) {
        seq -> BigInt,
        id -> Text,
        account_id -> Text,
        livemode -> Bool,
        amount -> BigInt,
        currency -> Text,
        status -> Text,
        description -> Nullable<Text>,
        reason -> Text,
        remarks -> Nullable<Text>,
        metadata -> Nullable<Text>,
        payment_id -> Text,
        version -> BigInt,
        created_at -> BigInt,
        updated_at -> BigInt,
    }
}

diesel::table! {
    events (seq) {
        seq -> BigInt,
        id -> Text,
        account_id -> Text,
        livemode -> Bool,
        event_type -> Text,
        created_at -> BigInt,
        body -> Text,
        object_id -> Text,
        txid -> BigInt,
    }
}

diesel::table! {
    webhooks (seq) {
        seq -> BigInt,
        id -> Text,
        account_id -> Text,
        livemode -> Bool,
        url -> Text,
        events -> Text,
        description -> Nullable<Text>,
        secret_key -> Text,
        status -> Text,
        version -> BigInt,
        created_at -> BigInt,
        updated_at -> BigInt,
        unanswered_attempts -> BigInt,
        previous_secret_key -> Nullable<Text>,
        previous_secret_expires_at_ms -> Nullable<BigInt>,
        retry_at_ms -> BigInt,
    }
}

diesel::table! {
    webhook_deliveries (id) {
        id -> Text,
        account_id -> Text,
        livemode -> Bool,
        webhook_id -> Text,
        event_id -> Text,
        status -> Text,
        attempts -> BigInt,
        next_attempt_at_ms -> BigInt,
        lease_owner -> Nullable<Text>,
        lease_until_ms -> BigInt,
        created_at_ms -> BigInt,
    }
}

diesel::table! {
    webhook_delivery_attempts (seq) {
        seq -> BigInt,
        delivery_id -> Text,
        webhook_id -> Text,
        event_id -> Text,
        attempted_at_ms -> BigInt,
        status_code -> Nullable<Integer>,
        error -> Nullable<Text>,
        duration_ms -> BigInt,
        account_id -> Text,
        livemode -> Bool,
        response_excerpt -> Nullable<Text>,
    }
}

diesel::table! {
    billing_statements (seq) {
        seq -> BigInt,
        id -> Text,
        account_id -> Text,
        livemode -> Bool,
        status -> Text,
        customer_id -> Text,
        client_secret -> Text,
        currency -> Text,
        amount -> BigInt,
        description -> Nullable<Text>,
        due_at -> Nullable<BigInt>,
        billing_details_collection -> Text,
        payment_methods -> Text,
        statement_descriptor -> Nullable<Text>,
        metadata -> Nullable<Text>,
        billing_statement_number -> Nullable<Text>,
        payment_intent_id -> Nullable<Text>,
        url -> Nullable<Text>,
        will_be_due_noticed -> Bool,
        overdue_noticed -> Bool,
        next_notice_at -> Nullable<BigInt>,
        version -> BigInt,
        created_at -> BigInt,
        updated_at -> BigInt,
        finalized_at -> Nullable<BigInt>,
    }
}

diesel::table! {
    billing_statement_line_items (seq) {
        seq -> BigInt,
        id -> Text,
        billing_statement_id -> Text,
        account_id -> Text,
        livemode -> Bool,
        description -> Text,
        unit_price -> BigInt,
        quantity -> BigInt,
        created_at -> BigInt,
        updated_at -> BigInt,
    }
}

diesel::table! {
    mail_messages (seq) {
        seq -> BigInt,
        id -> Text,
        account_id -> Text,
        livemode -> Bool,
        billing_statement_id -> Nullable<Text>,
        sender -> Text,
        recipient -> Text,
        subject -> Text,
        message_id -> Text,
        text_body -> Text,
        html_body -> Text,
        status -> Text,
        attempts -> BigInt,
        next_attempt_at -> BigInt,
        last_error -> Nullable<Text>,
        version -> BigInt,
        created_at -> BigInt,
        updated_at -> BigInt,
    }
}

diesel::table! {
    request_logs (seq) {
        seq -> BigInt,
        id -> Text,
        account_id -> Text,
        livemode -> Bool,
        source -> Text,
        key_kind -> Text,
        method -> Text,
        path -> Text,
        query -> Text,
        status -> Integer,
        duration_ms -> BigInt,
        idempotency_key -> Nullable<Text>,
        replayed -> Bool,
        object_id -> Nullable<Text>,
        request_body -> Nullable<Text>,
        response_body -> Nullable<Text>,
        created_at -> BigInt,
        size_bytes -> BigInt,
    }
}

diesel::table! {
    console_sessions (digest) {
        digest -> Text,
        account_id -> Text,
        livemode -> Bool,
        form_token -> Text,
        created_at -> BigInt,
        last_seen_at -> BigInt,
    }
}

diesel::table! {
    payment_intent_metadata (payment_intent_id, key) {
        payment_intent_id -> Text,
        account_id -> Text,
        livemode -> Bool,
        key -> Text,
        value -> Text,
    }
}

diesel::table! {
    balance_entries (seq) {
        seq -> BigInt,
        id -> Text,
        account_id -> Text,
        livemode -> Bool,
        entry_type -> Text,
        source_id -> Text,
        amount -> BigInt,
        fee -> BigInt,
        net_amount -> BigInt,
        available_at -> BigInt,
        created_at -> BigInt,
        payout_id -> Nullable<Text>,
    }
}

diesel::table! {
    payouts (seq) {
        seq -> BigInt,
        id -> Text,
        account_id -> Text,
        livemode -> Bool,
        amount -> BigInt,
        net_amount -> BigInt,
        destination -> Text,
        status -> Text,
        failure_code -> Nullable<Text>,
        action_due_at -> Nullable<BigInt>,
        version -> BigInt,
        created_at -> BigInt,
        updated_at -> BigInt,
    }
}

diesel::table! {
    payout_transactions (seq) {
        seq -> BigInt,
        id -> Text,
        account_id -> Text,
        livemode -> Bool,
        payout_id -> Text,
        entry_id -> Text,
        transaction_type -> Text,
        transaction_id -> Text,
        amount -> BigInt,
        net_amount -> BigInt,
        created_at -> BigInt,
    }
}

diesel::table! {
    payout_schedules (seq) {
        seq -> BigInt,
        account_id -> Text,
        livemode -> Bool,
        payout_interval -> Text,
        weekly_anchor -> Nullable<Text>,
        monthly_anchor -> Nullable<Integer>,
        destination -> Text,
        next_payout_at -> Nullable<BigInt>,
        version -> BigInt,
    }
}

diesel::table! {
    processor_operations (seq) {
        seq -> BigInt,
        id -> Text,
        account_id -> Text,
        livemode -> Bool,
        payment_intent_id -> Text,
        payment_id -> Text,
        kind -> Text,
        refund_id -> Nullable<Text>,
        amount -> BigInt,
        state -> Text,
        processor_reference -> Nullable<Text>,
        refused_code -> Nullable<Text>,
        refused_detail -> Nullable<Text>,
        checks -> BigInt,
        next_check_at -> Nullable<BigInt>,
        version -> BigInt,
        created_at -> BigInt,
        updated_at -> BigInt,
        attempt -> BigInt,
        sent_at -> BigInt,
    }
}

diesel::table! {
    connector_accounts (seq) {
        seq -> BigInt,
        id -> Text,
        account_id -> Text,
        kind -> Text,
        api_base_url -> Text,
        publishable_key -> Text,
        sealed_secrets -> Text,
        last_call_answered -> Nullable<Bool>,
        last_call_at -> Nullable<BigInt>,
        created_at -> BigInt,
        updated_at -> BigInt,
    }
}

diesel::table! {
    processor_events (seq) {
        seq -> BigInt,
        id -> Text,
        account_id -> Text,
        livemode -> Bool,
        object_kind -> Text,
        object_reference -> Text,
        received_at -> BigInt,
        processed_at -> Nullable<BigInt>,
    }
}

diesel::table! {
    products (seq) {
        seq -> BigInt,
        id -> Text,
        account_id -> Text,
        livemode -> Bool,
        name -> Text,
        description -> Nullable<Text>,
        image -> Nullable<Text>,
        active -> Bool,
        version -> BigInt,
        created_at -> BigInt,
        updated_at -> BigInt,
    }
}

diesel::table! {
    prices (seq) {
        seq -> BigInt,
        id -> Text,
        account_id -> Text,
        livemode -> Bool,
        product_id -> Text,
        amount -> BigInt,
        description -> Nullable<Text>,
        active -> Bool,
        version -> BigInt,
        created_at -> BigInt,
        updated_at -> BigInt,
    }
}

diesel::table! {
    pages (seq) {
        seq -> BigInt,
        id -> Text,
        account_id -> Text,
        livemode -> Bool,
        title -> Text,
        details -> Text,
        active -> Bool,
        version -> BigInt,
        created_at -> BigInt,
        updated_at -> BigInt,
    }
}

diesel::allow_tables_to_appear_in_same_query!(
    balance_entries,
    billing_statements,
    billing_statement_line_items,
    mail_messages,
    checkout_sessions,
    console_sessions,
    connector_accounts,
    accounts,
    api_keys,
    customer_metadata,
    customer_sessions,
    customers,
    events,
    idempotency_keys,
    pages,
    payment_intents,
    payment_intent_metadata,
    payment_methods,
    payments,
    payout_schedules,
    payout_transactions,
    payouts,
    prices,
    processor_events,
    processor_operations,
    products,
    refunds,
    request_logs,
    setup_intents,
    webhook_deliveries,
    webhook_delivery_attempts,
    webhooks,
);
