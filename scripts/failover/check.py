"""The failover check behind scripts/failover-check: a pg_auto_failover formation (a monitor, a
primary and a synchronous secondary on loopback ports) and two instances of the service connected
with its multi-host URL, under a load of charges and refunds with Idempotency-Key retries that
goes on through every step (30 charges at least between steps and after the last):

1. the primary's PostgreSQL is killed with `kill -9`: the monitor promotes the secondary, and the
   killed node's keeper brings it back as the new secondary;
2. later the new primary is stopped gracefully, as an operator does for maintenance: `pg_autoctl
   enable maintenance --allow-failover` hands its role to the other node, then `pg_autoctl stop`;
3. then the stopped node is started again, leaves maintenance and comes back as a secondary.

It then checks with SQL on whichever node is primary: every charge acknowledged to the client
exists exactly once, no intent has two paid payments, refunds never exceed their payment, every
event reached the webhook receiver (duplicates allowed and counted); and it measures the time from
each step to the first charge begun after it and acknowledged. Prints the figures; exits 1
on any violation.
"""
import argparse
import json
import subprocess
import sys
import threading
import time
from http.server import ThreadingHTTPServer
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from load import RETRIED, Load, Receiver, charge, check, check_delivered, check_money, post, run  # noqa: E402 (the scripts' own module)

CONCURRENCY = 6
EVENTS = ["payment_intent.succeeded", "payment.paid", "payment.refunded", "refund.created"]


class Formation:
    """The pg_auto_failover formation, driven with pg_autoctl as the postgres user."""

    def __init__(self, work, url):
        self.work, self.url = Path(work), url

    def as_postgres(self, command):
        """`command` as the postgres user, with the formation's own pg_autoctl state directories."""
        xdg = self.work / "xdg"
        return (f"export PATH=/usr/lib/postgresql/15/bin:$PATH XDG_CONFIG_HOME={xdg}/config "
                f"XDG_DATA_HOME={xdg}/data XDG_RUNTIME_DIR={xdg}/run; {command}")

    def autoctl(self, *arguments):
        return run("su", "postgres", "-c", self.as_postgres("pg_autoctl " + " ".join(arguments)))

    def state(self):
        """Each node's name, reported state and port, and whether the monitor has it settled: the
        state it was assigned reached, and its health check passing."""
        shown = json.loads(self.autoctl("show", "state", "--json", "--pgdata", str(self.work / "monitor")))
        return [(node["nodename"], node["current_group_state"], node["nodeport"],
                 node["current_group_state"] == node["assigned_group_state"] and node["health"] == 1)
                for node in shown]

    def node_dir(self, port):
        return self.work / f"node{port % 10}"

    def primary_port(self, other_than=None):
        """The port of the node that takes writes (with a secondary, or alone while the other is
        away), other than `other_than`: waits for it up to 60 s."""
        for _ in range(600):
            primaries = [port for _, state, port, _ in self.state()
                         if state in ("primary", "wait_primary", "single") and port != other_than]
            if len(primaries) == 1:
                return primaries[0]
            time.sleep(0.1)
        check(False, f"one primary within 60 s ({self.state()})")

    def wait_for(self, states, within=180, settled=True):
        """Until the nodes report exactly `states` (a sorted list), each settled unless told not to:
        a step that asks the monitor for a failover (maintenance) goes wrong on a node it does not
        yet count as healthy."""
        deadline = time.time() + within
        while time.time() < deadline:
            nodes = self.state()
            if sorted(state for _, state, _, _ in nodes) == states and (not settled or all(ready for *_, ready in nodes)):
                return
            time.sleep(0.5)
        check(False, f"the formation reports {states} within {within} s ({self.state()})")

    def wait_for_change(self, states, within=60):
        """Until the nodes report something other than `states`: the monitor has seen the loss."""
        deadline = time.time() + within
        while time.time() < deadline:
            if sorted(state for _, state, _, _ in self.state()) != states:
                return
            time.sleep(0.1)
        check(False, f"the monitor sees the loss within {within} s ({self.state()})")

    def sql(self, query):
        return run("psql", self.url, "-AtXc", query).strip()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--work", required=True)
    parser.add_argument("--url", required=True)
    parser.add_argument("--instances", required=True, help="the instances' base URLs, comma-separated")
    parser.add_argument("--account", required=True)
    parser.add_argument("--key", required=True)
    parser.add_argument("--charges", type=int, default=3000, help="at most this many charges")
    arguments = parser.parse_args()
    formation = Formation(arguments.work, arguments.url)
    instances = arguments.instances.split(",")
    key, account = arguments.key, arguments.account
    started = time.time()

    receiver = ThreadingHTTPServer(("127.0.0.1", 0), Receiver)
    threading.Thread(target=receiver.serve_forever, daemon=True).start()
    hook = {"url": f"http://127.0.0.1:{receiver.server_address[1]}/hooks", "events[]": EVENTS}
    status, webhook, _ = post(instances, key, "/webhooks", hook, "failover-webhook")
    check(status == 200, f"a webhook to the receiver ({status} {webhook})")

    acknowledged = []  # (intent, acknowledged at, started at)
    refunds = []
    lock = threading.Lock()

    def one(number):
        begun = time.time()
        paid, retries = charge(instances, key, number)
        done_at = time.time()
        payment = paid["latest_payment"]["id"] if isinstance(paid.get("latest_payment"), dict) else paid["latest_payment"]
        with lock:
            acknowledged.append((paid["id"], payment, paid["amount"], done_at, begun))
        if number % 3 == 0:
            form = {"payment_id": payment, "amount": 1000, "currency": "PHP", "reason": "others"}
            status, refund, more = post(instances, key, "/refunds", form, f"load-refund-{number}")
            if status == 200:
                with lock:
                    refunds.append(refund["id"])
            retries += more - 1
        return retries

    moments = {}
    load = Load(one, acknowledged, arguments.charges, CONCURRENCY)
    load.wait_for(30)
    primary = formation.primary_port()
    pid = (formation.node_dir(primary) / "postmaster.pid").read_text().split()[0]
    moments["kill"] = time.time()
    run("kill", "-9", pid)
    print(f"measured: killed the primary's PostgreSQL (port {primary}, pid {pid}) after {len(acknowledged)} charges")
    formation.wait_for_change(["primary", "secondary"])
    formation.wait_for(["primary", "secondary"])
    print(f"measured: a primary and a secondary again {time.time() - moments['kill']:.1f} s after the kill")

    load.wait_for(30)
    primary = formation.primary_port()
    moments["switchover"] = time.time()
    # A planned stop: the monitor hands the primary's role over first, then the node stops.
    formation.autoctl("enable", "maintenance", "--allow-failover", "--pgdata", str(formation.node_dir(primary)))
    other = formation.primary_port(other_than=primary)
    formation.autoctl("stop", "--pgdata", str(formation.node_dir(primary)))
    print(f"measured: the primary (port {primary}) handed over to port {other} and stopped gracefully "
          f"{time.time() - moments['switchover']:.1f} s after maintenance began, after {len(acknowledged)} charges")

    load.wait_for(30)
    moments["return"] = time.time()
    subprocess.Popen(["su", "postgres", "-c", formation.as_postgres(f"pg_autoctl run --pgdata {formation.node_dir(primary)}")],
                     stdout=open(Path(arguments.work) / f"node{primary % 10}-again.log", "w"),
                     stderr=subprocess.STDOUT)
    formation.wait_for(["maintenance", "wait_primary"], within=60, settled=False)
    formation.autoctl("disable", "maintenance", "--pgdata", str(formation.node_dir(primary)))
    formation.wait_for(["primary", "secondary"])
    print(f"measured: the stopped node is a secondary again {time.time() - moments['return']:.1f} s after it started")
    load.wait_for(30)
    retries = load.stop()

    print(f"measured: {len(acknowledged)} charges and {len(refunds)} refunds acknowledged, "
          f"{retries} requests retried with their Idempotency-Key {RETRIED}")
    after = {moment: min(done for _, _, _, done, begun in acknowledged if begun >= at) - at
             for moment, at in moments.items()}
    recovery = after["kill"]
    print(f"measured: the first charge begun after each step was acknowledged after: kill -9 {after['kill']:.1f} s, "
          f"switchover {after['switchover']:.1f} s, the node's return {after['return']:.1f} s")

    scope = f"account_id = '{account}' AND livemode = FALSE"
    check_money(formation.sql, scope, {intent for intent, *_ in acknowledged}, refunds)
    check_delivered(formation.sql, scope, EVENTS)
    check(recovery < 15, f"a charge acknowledged within 15 s of the kill ({recovery:.1f} s)")
    print(f"measured: the check took {time.time() - started:.0f} s")


if __name__ == "__main__":
    main()
