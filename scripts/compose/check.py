"""The deployment check behind scripts/compose-check: the real docker-compose.yml, brought up with
podman-compose, driven through nginx on the published port.

1. Two instances start at the same moment on an empty database: migrations run once (under the
   advisory lock) and both become healthy.
2. PayRex's official Python client takes payments, refunds one, registers a webhook to a receiver on
   this host and verifies the signed events it gets.
3. A steady load of charges with Idempotency-Keys while one instance is killed (kill -9 of its
   container) and started again, then the other is stopped gracefully (SIGTERM) and started again:
   every charge completes exactly once (payments per intent counted in PostgreSQL), every event
   reaches the receiver (duplicates, which the at-least-once rule allows, are counted), and the
   instances carry on.
4. `compose down` and `up` again keeps every object (the volume).

Prints what it measured; exits 1 on the first failure.
"""
import argparse
import concurrent.futures
import json
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from http.server import ThreadingHTTPServer
from pathlib import Path

from payrex import Client

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from load import CARD, RETRIED, Receiver, charge, check, run  # noqa: E402 (the scripts' own module, found above)

CHARGES = 240
CONCURRENCY = 8


class Deployment:
    def __init__(self, project, base_url):
        self.project, self.base_url = project, base_url

    def compose(self, *arguments):
        return run("podman-compose", "-p", self.project, *arguments)

    def container(self, service, number=1):
        return f"{self.project}_{service}_{number}"

    def sql(self, query):
        return run("podman", "exec", self.container("postgres"), "psql", "-U", "payments", "-d", "payments",
                   "-AtXc", query).strip()

    def health(self, number):
        """The instance's health check, run now: Podman schedules health checks with systemd timers,
        which a machine without systemd does not have."""
        checked = subprocess.run(["podman", "healthcheck", "run", self.container("payments", number)],
                                 capture_output=True, text=True)
        return "healthy" if checked.returncode == 0 else (checked.stdout.strip() or "unhealthy")

    def wait_ready(self, within=180):
        """Until both instances are healthy and nginx answers /readyz."""
        deadline = time.time() + within
        while time.time() < deadline:
            healthy = all(self.health(n) == "healthy" for n in (1, 2))
            if healthy and self.get("/readyz")[0] == 200:
                return time.time()
            time.sleep(1)
        check(False, f"both instances healthy within {within} s ({self.health(1)}, {self.health(2)})")

    def get(self, path):
        try:
            with urllib.request.urlopen(f"{self.base_url}{path}", timeout=5) as response:
                return response.status, response.read()
        except urllib.error.HTTPError as error:
            return error.code, error.read()
        except OSError:
            return None, b""

    def gateway(self):
        """The host's address on the compose network, where the receiver listens."""
        network = f"{self.project}_default"
        return run("podman", "network", "inspect", network, "--format",
                   "{{range .Subnets}}{{.Gateway}}{{end}}").strip()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--project", required=True)
    parser.add_argument("--base-url", required=True)
    arguments = parser.parse_args()
    deployment = Deployment(arguments.project, arguments.base_url.rstrip("/"))
    base_url = deployment.base_url

    # 1. Up on an empty database: both instances at once, migrations once.
    started = time.time()
    deployment.compose("up", "-d")
    ready_at = deployment.wait_ready()
    print(f"measured: up to both instances healthy in {ready_at - started:.0f} s")
    migrations = len([d for d in Path("migrations/postgres").iterdir() if d.is_dir()])
    recorded = deployment.sql("SELECT count(*), count(DISTINCT version) FROM __diesel_schema_migrations")
    check(recorded == f"{migrations}|{migrations}", f"every migration recorded once ({recorded} of {migrations})")

    # 2. The official client through nginx.
    # (A container's name server may take a moment to know the others after a start.)
    for _ in range(30):
        created = subprocess.run(["podman", "exec", deployment.container("payments"), "payments", "accounts",
                                  "create", "--name", "Compose check"], capture_output=True, text=True)
        if created.returncode == 0:
            break
        time.sleep(1)
    check(created.returncode == 0, f"an account is created in a container ({created.stderr[-300:]})")
    account = json.loads(created.stdout)
    key = account["test"]["secret_key"]
    client = Client(key)
    client.config.api_base_url = base_url
    receiver = ThreadingHTTPServer(("0.0.0.0", 0), Receiver)
    threading.Thread(target=receiver.serve_forever, daemon=True).start()
    hook_url = f"http://{deployment.gateway()}:{receiver.server_address[1]}/hooks"
    webhook = client.webhooks.create({"url": hook_url, "events": ["payment_intent.succeeded", "payment.paid",
                                                                   "payment.refunded", "refund.created"]})
    intent = client.payment_intents.create({"amount": 25000, "currency": "PHP", "payment_methods": ["card"]})
    paid = client.payment_intents.attach(intent.id, {"payment_method": {"type": "card", "card": CARD}})
    check(paid.status == "succeeded", "payrex-python pays an intent through nginx")
    refund = client.refunds.create({"payment_id": paid.latest_payment["id"], "amount": 25000, "currency": "PHP",
                                    "reason": "others"})
    check(refund.status == "succeeded", "and refunds it")
    deadline = time.time() + 30
    while time.time() < deadline and len(Receiver.received) < 4:
        time.sleep(0.2)
    verified = {client.webhooks.parse_event(body, signature, webhook.secret_key).type
                for body, signature in list(Receiver.received)}
    check({"payment_intent.succeeded", "payment.paid", "payment.refunded", "refund.created"} <= verified,
          f"the receiver gets the four signed events and payrex-python verifies them ({sorted(verified)})")

    # 3. Load, a kill -9, a graceful stop.
    done = [0]
    results = []

    def one(number):
        outcome = charge(base_url, key, number)
        done[0] += 1
        return outcome

    with concurrent.futures.ThreadPoolExecutor(CONCURRENCY) as pool:
        futures = [pool.submit(one, n) for n in range(CHARGES)]
        while done[0] < CHARGES // 3:
            time.sleep(0.05)
        killed_at = time.time()
        run("podman", "kill", "--signal", "KILL", deployment.container("payments", 1))
        print(f"measured: killed {deployment.container('payments', 1)} after {done[0]} charges")
        run("podman", "start", deployment.container("payments", 1))
        while deployment.health(1) != "healthy":
            time.sleep(0.5)
        print(f"measured: it was healthy again {time.time() - killed_at:.1f} s after the kill")
        while done[0] < 2 * CHARGES // 3:
            time.sleep(0.05)
        stop_started = time.time()
        run("podman", "stop", "--time", "15", deployment.container("payments", 2))
        stopped_in = time.time() - stop_started
        exit_code = run("podman", "inspect", "--format", "{{.State.ExitCode}}",
                        deployment.container("payments", 2)).strip()
        print(f"measured: {deployment.container('payments', 2)} stopped gracefully in {stopped_in:.1f} s, exit code {exit_code}")
        check(exit_code == "0", "the gracefully stopped instance exits with 0")
        run("podman", "start", deployment.container("payments", 2))
        for future in futures:
            results.append(future.result())
    retries_made = sum(retries for _, retries in results)
    print(f"measured: {CHARGES} charges, {retries_made} requests retried with their Idempotency-Key {RETRIED}")
    ids = [paid["id"] for paid, _ in results]
    check(len(set(ids)) == CHARGES, "every charge made its own intent")
    counted = deployment.sql(
        "SELECT count(*) FILTER (WHERE paid = 1), count(*) FILTER (WHERE paid <> 1) FROM ("
        "SELECT i.id, count(p.id) FILTER (WHERE p.status = 'paid') AS paid FROM payment_intents i "
        f"LEFT JOIN payments p ON p.payment_intent_id = i.id WHERE i.account_id = '{account['id']}' "
        "AND i.amount BETWEEN 10000 AND 20000 GROUP BY i.id) AS per_intent")
    once, otherwise = (int(n) for n in counted.split("|"))
    unpaid = deployment.sql(f"SELECT count(*) FROM payment_intents WHERE account_id = '{account['id']}' "
                            "AND amount BETWEEN 10000 AND 20000 AND status <> 'succeeded'")
    check(once == CHARGES and otherwise == int(unpaid),
          f"every charge paid exactly once in PostgreSQL ({once} intents paid once, {otherwise} not paid, none twice)")
    paid_ids = set(deployment.sql(f"SELECT id FROM payment_intents WHERE account_id = '{account['id']}' "
                                  "AND amount BETWEEN 10000 AND 20000 AND status = 'succeeded'").split())
    check(paid_ids == set(ids), "the paid intents are exactly the client's charges")
    print(f"measured: {unpaid} intents made by a create the kill cut off and left unpaid (no money moved)")

    # Every event of the account reaches the receiver; duplicates are counted, not failed.
    expected = set(deployment.sql(f"SELECT id FROM events WHERE account_id = '{account['id']}' AND event_type IN "
                                  "('payment_intent.succeeded', 'payment.paid', 'payment.refunded', "
                                  "'refund.created')").split())
    deadline = time.time() + 120
    while time.time() < deadline:
        got = {json.loads(body)["id"] for body, _ in list(Receiver.received)}
        if expected <= got:
            break
        time.sleep(0.5)
    arrivals = [json.loads(body)["id"] for body, _ in list(Receiver.received)]
    lost = expected - set(arrivals)
    check(not lost, f"every one of {len(expected)} events reached the receiver ({len(lost)} lost)")
    duplicates = len(arrivals) - len(set(arrivals))
    print(f"measured: {len(arrivals)} deliveries of {len(expected)} events, {duplicates} duplicates "
          f"(at least once: sends cut off by the kill)")
    deployment.wait_ready()
    after, _ = charge(base_url, key, CHARGES + 1)
    check(after["id"].startswith("pi_"), "both instances carry on: a new charge succeeds")

    # 4. Down and up: the volume keeps everything.
    counts = "SELECT (SELECT count(*) FROM payment_intents), (SELECT count(*) FROM payments), " \
             "(SELECT count(*) FROM events), (SELECT count(*) FROM accounts)"
    before = deployment.sql(counts)
    deployment.compose("down")
    deployment.compose("up", "-d")
    deployment.wait_ready()
    check(deployment.sql(counts) == before, f"compose down and up keeps every object ({before})")
    check(client.payment_intents.retrieve(ids[0]).status == "succeeded", "and the client reads them back")
    print(f"measured: the check took {time.time() - started:.0f} s after the image build")


if __name__ == "__main__":
    main()
