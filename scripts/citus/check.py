"""The sharding check behind scripts/citus-check: the service's tables distributed by account on a
Citus coordinator and two workers, and two instances of the service, under a load of charges,
refunds and webhook deliveries spread over many accounts (each request retried with its
Idempotency-Key until an instance answers it). Midway a third worker joins and the shards are
rebalanced while the load goes on.

Then it checks with SQL on the coordinator and on each worker: each account's rows, in every table,
live on one worker; every acknowledged charge and refund is stored once, no intent has two paid
payments, no payment is refunded beyond its amount; every event reached the webhook receiver
(duplicates allowed and counted); and every query the coordinator ran on several shards (its log)
is one of MULTI_SHARD, the documented exceptions. Prints the figures; exits 1 on any violation.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import threading
import time
from http.server import ThreadingHTTPServer
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from load import RETRIED, Load, Receiver, charge, check, check_delivered, check_money, post, run  # noqa: E402 (the scripts' own module)

CONCURRENCY = 8
EVENTS = ["payment_intent.succeeded", "payment.paid", "payment.refunded", "refund.created"]

# The queries that may run on every shard, each with why (docs/operations.md#sharding-by-account-on-citus):
# a pattern of the statement as the coordinator logs it. Any other multi-shard query fails the check.
MULTI_SHARD = [
    (r'^SELECT .* FROM "webhook_deliveries" WHERE \(+"webhook_deliveries"\."status" = \$1\) AND '
     r'\("webhook_deliveries"\."next_attempt_at_ms" <= \$2\)',
     "background: the webhook worker claims the deliveries due in every account"),
    (r'^SELECT .* FROM "(payment_intents|setup_intents|payouts)" WHERE \(+"\1"\."action_due_at" <= \$1\)',
     "background: the due actions (captures, cancellations, 3-D Secure timeouts, payouts) of every account"),
    (r'^SELECT .* FROM "checkout_sessions" WHERE \(\("checkout_sessions"\."status" = \$1\) AND '
     r'\("checkout_sessions"\."expires_at" <= \$2\)\)',
     "background: checkout sessions that expired, in every account"),
    (r'^SELECT .* FROM "billing_statements" WHERE \(\("billing_statements"\."status" = \$1\) AND '
     r'\("billing_statements"\."next_notice_at" <= \$2\)\)',
     "background: billing statements whose reminder is due, in every account"),
    (r'^SELECT .* FROM "payout_schedules" WHERE \("payout_schedules"\."next_payout_at" <= \$1\)',
     "background: payout schedules due, in every account"),
    (r'^SELECT .* FROM "mail_messages" WHERE \(\("mail_messages"\."status" = \$1\) AND '
     r'\("mail_messages"\."next_attempt_at" <= \$2\)\)',
     "background: the mail worker claims the messages due in every account"),
    (r'^(SELECT .* FROM "request_logs" GROUP BY|DELETE FROM "request_logs" WHERE \("request_logs"\."created_at" < \$1\))',
     "background: the request log is pruned by age and size across accounts"),
    (r'^DELETE FROM "idempotency_keys" WHERE \("idempotency_keys"\."created_at" < \$1\)',
     "background: idempotency keys older than a day are purged in every account"),
    (r'^(UPDATE "webhook_deliveries" SET "lease_owner" = \$1, "lease_until_ms" = \$2 WHERE \(+"webhook_deliveries"\."id" = ANY'
     r'|SELECT .* FROM "(webhooks|events)" WHERE \("\2"\."id" = ANY\(\$[12]\)\)$'
     r'|SELECT .* FROM "webhook_deliveries" WHERE \("webhook_deliveries"\."status" = \$1\)'
     r'|SELECT "webhook_deliveries"\."event_id", COUNT\(\*\) FROM "webhook_deliveries" WHERE .*'
     r'"webhook_deliveries"\."account_id" = ANY\(\$\d\)\)+ GROUP BY)',
     "background: the webhook worker leases the deliveries it claimed, reads their webhooks and events (with "
     "their outstanding deliveries, in several accounts), and counts the backlog for the metrics"),
    (r'^SELECT .* FROM "(checkout_sessions|billing_statements)" WHERE \("\1"\."id" = \$1\)$'
     r'|^SELECT .* FROM "(payment_intents|setup_intents)" WHERE \("\2"\."redirect_token" = \$1\)$',
     "a hosted page, found by the secret in its address, which names no account"),
    (r'^SELECT EXISTS \(SELECT 1 FROM \w+ WHERE id = \$1\) AS taken$|^-- The ledger of the payments and refunds',
     "the operator's import: whether another account holds an id it brings; the ledger of an older export"),
]


# The coordinator's commits in the service's database so far: each statement outside a transaction
# is one, as is each transaction.
COMMITS = "SELECT xact_commit FROM pg_stat_database WHERE datname = current_database()"


class Cluster:
    """The coordinator, and the workers as the coordinator lists them."""

    def __init__(self, url):
        self.url = url

    def sql(self, query, url=None):
        return run("psql", url or self.url, "-AtXc", query).strip()

    def workers(self):
        rows = self.sql("SELECT nodename || ':' || nodeport FROM pg_dist_node WHERE groupid > 0 ORDER BY nodeport")
        return rows.split()

    def node_url(self, worker):
        return re.sub(r"@[^/]+/", f"@{worker}/", self.url)

    def accounts_by_worker(self):
        """Each account that has rows, with the workers its rows are on: read on the workers, from
        every shard of every distributed table."""
        shards = self.sql("SELECT shard_name || ' ' || nodename || ':' || nodeport FROM citus_shards "
                          "WHERE citus_table_type = 'distributed'").splitlines()
        found = {}
        for line in shards:
            shard, worker = line.split()
            for account in self.sql(f"SELECT DISTINCT account_id FROM {shard}", self.node_url(worker)).split():
                found.setdefault(account, set()).add(worker)
        return found


def multi_shard_queries(log):
    """The statements the coordinator logged as multi-shard in the service's sessions (its
    `application_name`, in the log's line prefix), each with how often: the tests' own checks and
    this check's queries are not the service's."""
    counted = {}
    lines = Path(log).read_text(errors="replace").splitlines()
    for index, line in enumerate(lines):
        if " payments: WARNING:  multi-task query about to be executed" in line:
            for following in lines[index + 1:index + 4]:
                if "STATEMENT:" in following:
                    statement = following.split("STATEMENT:", 1)[1].strip()
                    counted[statement] = counted.get(statement, 0) + 1
                    break
    return counted


def routed_lookups(cluster, account):
    """Measures what the coordinator adds to a routed query: the same lookup of one intent by its key
    for 5 s with pgbench, through the coordinator and straight on the worker's shard."""
    intent = cluster.sql(f"SELECT id FROM payment_intents WHERE account_id = '{account}' LIMIT 1")
    shard, worker = cluster.sql(
        "SELECT shard_name || ' ' || nodename || ':' || nodeport FROM citus_shards WHERE table_name = 'payment_intents'::regclass "
        f"AND shardid = get_shard_id_for_distribution_column('payment_intents', '{account}')").split()
    pgbench = sorted(Path("/usr/lib/postgresql").glob("*/bin/pgbench"))[-1]
    rates = []
    for table, url in (("payment_intents", cluster.url), (shard, cluster.node_url(worker))):
        script = Path(f"/tmp/citus-check-lookup-{table}.sql")
        script.write_text(f"SELECT * FROM {table} WHERE account_id = '{account}' AND livemode = false AND id = '{intent}';\n")
        out = run(str(pgbench), "-n", "-T", "5", "-c", "8", "-j", "2", "-M", "prepared", "-f", str(script), url)
        rates.append(float(re.search(r"tps = ([0-9.]+)", out).group(1)))
    print(f"measured: a lookup by key, 8 clients: {rates[0]:.0f}/s through the coordinator, {rates[1]:.0f}/s on the "
          f"worker's shard alone ({1000 * 8 / rates[0] - 1000 * 8 / rates[1]:.2f} ms more per query through the coordinator)")


def one_account_charges(instance, key):
    """Measures full charges of one account, so all on the one worker that holds it, through the
    coordinator: bench/charge.lua with wrk, 32 connections for 10 s on one instance."""
    script = Path(__file__).resolve().parent.parent.parent / "bench" / "charge.lua"
    out = subprocess.run(["wrk", "-t2", "-c32", "-d10s", "-s", str(script), instance], capture_output=True, text=True,
                         env={**os.environ, "PAYMENTS_KEY": key}, check=True).stdout
    rate = float(re.search(r"Requests/sec:\s+([0-9.]+)", out).group(1)) / 2
    non_2xx = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    check(non_2xx is None, f"wrk's charges all answered 2xx ({non_2xx.group(1) if non_2xx else 0} did not)")
    print(f"measured: {rate:.0f} charges/s of one account (one worker), 32 connections to one instance for 10 s")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--work", required=True)
    parser.add_argument("--url", required=True, help="the coordinator's database")
    parser.add_argument("--instances", required=True, help="the instances' base URLs, comma-separated")
    parser.add_argument("--accounts", required=True, help="the accounts, one JSON object a line")
    parser.add_argument("--charges", type=int, default=3000, help="at most this many charges")
    parser.add_argument("--new-worker", required=True, help="host:port of the worker to add midway")
    parser.add_argument("--log", required=True, help="the coordinator's log")
    arguments = parser.parse_args()
    cluster = Cluster(arguments.url)
    instances = arguments.instances.split(",")
    accounts = [json.loads(line) for line in Path(arguments.accounts).read_text().splitlines()]
    keys = [account["test"]["secret_key"] for account in accounts]
    started = time.time()

    receiver = ThreadingHTTPServer(("127.0.0.1", 0), Receiver)
    threading.Thread(target=receiver.serve_forever, daemon=True).start()
    hook = {"url": f"http://127.0.0.1:{receiver.server_address[1]}/hooks", "events[]": EVENTS}
    for number, key in enumerate(keys):
        status, webhook, _ = post(instances, key, "/webhooks", hook, f"citus-webhook-{number}")
        if status != 200:
            check(False, f"a webhook of account {number} to the receiver ({status} {webhook})")
    print(f"measured: {len(accounts)} accounts, each with a webhook, on workers {cluster.workers()}")

    commits_before = int(cluster.sql(COMMITS))
    acknowledged = []  # (intent, acknowledged at)
    refunds = []
    lock = threading.Lock()

    def one(number):
        key = keys[number % len(keys)]
        paid, retries = charge(instances, key, number)
        with lock:
            acknowledged.append((paid["id"], time.time()))
        if number % 3 == 0:
            payment = paid["latest_payment"]["id"] if isinstance(paid["latest_payment"], dict) else paid["latest_payment"]
            form = {"payment_id": payment, "amount": 1000, "currency": "PHP", "reason": "others"}
            status, refund, more = post(instances, key, "/refunds", form, f"load-refund-{number}")
            if status != 200:
                check(False, f"refund {number} ({status} {refund})")
            with lock:
                refunds.append(refund["id"])
            retries += more - 1
        return retries

    def rate(since):
        done = [at for _, at in acknowledged if at >= since]
        return len(done) / max(time.time() - since, 0.001)

    load = Load(one, acknowledged, arguments.charges, CONCURRENCY)
    load.wait_for(50)
    measured_from = time.time()
    load.wait_for(200)
    before = rate(measured_from)
    print(f"measured: {before:.0f} charges/s on two workers ({len(acknowledged)} so far)")

    host, port = arguments.new_worker.split(":")
    cluster.sql(f"SELECT citus_add_node('{host}', {port})")
    moving_from = time.time()
    cluster.sql("SELECT citus_rebalance_start()")
    while (state := cluster.sql("SELECT state FROM citus_rebalance_status()")) != "finished":
        details = cluster.sql("SELECT details FROM citus_rebalance_status()")
        if state not in ("scheduled", "running") or '"message": "ERROR' in details or time.time() - moving_from > 600:
            print(details, file=sys.stderr)
            check(False, f"the rebalance finishes within 10 minutes, each move at its first try ({state})")
        time.sleep(0.5)
    moved = time.time() - moving_from
    during = rate(moving_from)
    moves = cluster.sql("SELECT count(*) FROM pg_dist_background_task WHERE job_id = (SELECT job_id FROM "
                        "citus_rebalance_status()) AND command LIKE '%citus_move_shard_placement%'")
    print(f"measured: the third worker joined and {moves} shard groups moved to it in {moved:.1f} s under the "
          f"load ({during:.0f} charges/s meanwhile)")

    load.wait_for(50)
    measured_from = time.time()
    load.wait_for(200)
    after = rate(measured_from)
    print(f"measured: {after:.0f} charges/s on three workers")
    retries = load.stop()

    print(f"measured: {len(acknowledged)} charges and {len(refunds)} refunds acknowledged, "
          f"{retries} requests retried with their Idempotency-Key {RETRIED}")

    placed = cluster.accounts_by_worker()
    ours = {account["id"] for account in accounts}
    split = {account: workers for account, workers in placed.items() if len(workers) > 1}
    check(not split, f"each account's rows live on one worker ({len(split)} split: {list(split.items())[:3]})")
    by_worker = {}
    for account, workers_of in placed.items():
        if account in ours:
            by_worker.setdefault(next(iter(workers_of)), []).append(account)
    print("measured: accounts per worker " + ", ".join(f"{worker} {len(held)}" for worker, held in sorted(by_worker.items())))
    check(arguments.new_worker in by_worker, f"the new worker holds accounts ({sorted(by_worker)})")

    names = ", ".join(f"'{account}'" for account in ours)
    scope = f"account_id IN ({names}) AND livemode = FALSE"
    check_money(cluster.sql, scope, {intent for intent, _ in acknowledged}, refunds)
    check_delivered(cluster.sql, scope, EVENTS)

    charges = len(acknowledged)
    tables = cluster.sql("SELECT logicalrelid::text FROM pg_dist_partition WHERE partmethod = 'h'").split()
    rows = cluster.sql(" + ".join(f"(SELECT count(*) FROM {table})" for table in tables).join(["SELECT ", ""]))
    commits = int(cluster.sql(COMMITS)) - commits_before
    print(f"measured: {int(rows) / charges:.1f} rows stored per charge (its refunds, events, deliveries, attempts, "
          f"ledger entries, idempotency keys and request log included); {commits / charges:.1f} transactions per charge "
          "on the coordinator")
    stored = cluster.sql("SELECT sum(citus_total_relation_size(logicalrelid)) FROM pg_dist_partition "
                         "WHERE partmethod = 'h'")
    print(f"measured: {int(stored) / charges / 1024:.1f} KiB stored per charge, indexes included "
          f"({int(stored) // 2**20} MiB for {charges} charges, {len(refunds)} refunds and their events and deliveries)")
    largest = cluster.sql("SELECT string_agg(format('%s %s KiB', logicalrelid, round(size / 1024.0 / " + str(charges) + ", 1)), ', ') "
                          "FROM (SELECT logicalrelid, citus_total_relation_size(logicalrelid) AS size FROM pg_dist_partition "
                          "WHERE partmethod = 'h' ORDER BY 2 DESC LIMIT 6) AS largest")
    print(f"measured: per charge, the largest tables: {largest}")

    routed_lookups(cluster, next(iter(ours)))
    one_account_charges(instances[0], keys[0])

    unexpected = {}
    for statement, count in multi_shard_queries(arguments.log).items():
        reasons = [reason for pattern, reason in MULTI_SHARD if re.search(pattern, statement)]
        if not reasons:
            unexpected[statement] = count
    for statement, count in unexpected.items():
        print(f"multi-shard, not an exception ({count}x): {statement[:400]}", file=sys.stderr)
    check(not unexpected, f"every multi-shard query is a documented exception ({len(unexpected)} are not)")
    print(f"measured: the check took {time.time() - started:.0f} s")


if __name__ == "__main__":
    main()
