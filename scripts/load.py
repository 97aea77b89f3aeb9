"""The client side of the deployment checks (scripts/compose/check.py, scripts/failover/check.py,
scripts/citus/check.py): a webhook receiver, charges and refunds made as docs/operations.md tells
a client to make them, each request retried with its Idempotency-Key until some instance answers
it, and the checks in SQL of what they left behind."""
import concurrent.futures
import itertools
import json
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from http.server import BaseHTTPRequestHandler

CARD = {"number": "4242424242424242", "exp_month": 12, "exp_year": 2035, "cvc": "123"}


def check(condition, message):
    """Prints `ok: message`, or `FAILED: message` and exits 1."""
    if not condition:
        print(f"FAILED: {message}", file=sys.stderr)
        sys.exit(1)
    print(f"ok: {message}")


def run(*command, check_status=True):
    """A command's standard output; its failure ends the check."""
    done = subprocess.run(command, capture_output=True, text=True)
    if check_status and done.returncode != 0:
        print(f"FAILED: {' '.join(command)}: {done.stdout[-2000:]}{done.stderr[-2000:]}", file=sys.stderr)
        sys.exit(1)
    return done.stdout


class Receiver(BaseHTTPRequestHandler):
    """Records every delivery's body and signature."""
    received = []
    lock = threading.Lock()

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", 0))).decode()
        with Receiver.lock:
            Receiver.received.append((body, self.headers.get("Payrex-Signature", "")))
        self.send_response(200)
        self.end_headers()

    def log_message(self, *_):
        pass


RETRIED = {}
RETRIED_LOCK = threading.Lock()


def retried(cause):
    with RETRIED_LOCK:
        RETRIED[cause] = RETRIED.get(cause, 0) + 1


def post(base_urls, key, path, form, idempotency_key):
    """A POST retried with its key until some instance answers it, trying the instances of
    `base_urls` (one URL, or several) in turn: a connection cut or refused, a 502 (no instance behind
    a proxy), a 503 or a 504 are retried. Answers the status, the body and how many tries it took."""
    base_urls = [base_urls] if isinstance(base_urls, str) else base_urls
    data = urllib.parse.urlencode(form, doseq=True).encode()
    tries = 0
    while True:
        base_url = base_urls[tries % len(base_urls)]
        tries += 1
        request = urllib.request.Request(f"{base_url}{path}", data=data, method="POST")
        request.add_header("Authorization", f"Bearer {key}")
        request.add_header("Idempotency-Key", idempotency_key)
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                return response.status, json.loads(response.read()), tries
        except urllib.error.HTTPError as error:
            if error.code not in (502, 503, 504) or tries > 600:
                return error.code, json.loads(error.read() or b"null"), tries
            retried(str(error.code))
        except OSError as error:
            if tries > 600:
                raise
            retried(type(error).__name__)
        time.sleep(0.1)


def get(base_urls, key, path):
    """A GET, tried on each instance of `base_urls` until one answers 200."""
    base_urls = [base_urls] if isinstance(base_urls, str) else base_urls
    for attempt in range(600):
        request = urllib.request.Request(f"{base_urls[attempt % len(base_urls)]}{path}")
        request.add_header("Authorization", f"Bearer {key}")
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                return json.loads(response.read())
        except (urllib.error.HTTPError, OSError) as error:
            if isinstance(error, urllib.error.HTTPError) and error.code not in (502, 503, 504):
                raise
            time.sleep(0.1)
    raise RuntimeError(f"no instance answered GET {path}")


def charge(base_urls, key, number, amount=None):
    """One charge: each step retried with its key; a step whose key is still held by a request that
    an instance's death or a failover cut off (409 idempotency_key_in_use) is not waited for: the
    client reads where that request got to and goes on with a new key. Answers the paid intent and
    the requests retried."""
    form = {"amount": amount or 10000 + number, "currency": "PHP", "payment_methods[]": "card"}
    status, intent, tries = post(base_urls, key, "/payment_intents", form, f"load-create-{number}")
    if status == 409:
        # The cut-off create may have made an intent nobody will pay: no money moves for it.
        status, intent, more = post(base_urls, key, "/payment_intents", form, f"load-create-{number}-again")
        tries += more
    if status != 200:
        raise RuntimeError(f"create {number}: {status} {intent}")
    attach = f"/payment_intents/{intent['id']}/attach"
    card = {"payment_method[type]": "card"} | {f"payment_method[card][{k}]": v for k, v in CARD.items()}
    status, paid, more = post(base_urls, key, attach, card, f"load-attach-{number}")
    tries += more
    if status == 409 and get(base_urls, key, f"/payment_intents/{intent['id']}")["status"] != "succeeded":
        status, paid, more = post(base_urls, key, attach, card, f"load-attach-{number}-again")
        tries += more
    elif status == 409:
        status, paid = 200, get(base_urls, key, f"/payment_intents/{intent['id']}")
    if status != 200 or paid["status"] != "succeeded":
        raise RuntimeError(f"attach {intent['id']}: {status} {paid}")
    return paid, tries - 2


def check_money(sql, scope, paid_ids, refund_ids):
    """Checks with `sql` (a function of a query that answers its text) that every acknowledged charge
    (`paid_ids`, intents) and refund is stored in `scope` (a condition on a table's rows), that no
    intent has two paid payments and that no payment is refunded beyond its amount."""
    stored = set(sql(f"SELECT id FROM payment_intents WHERE {scope} AND status = 'succeeded'").split())
    check(paid_ids <= stored, f"every one of {len(paid_ids)} acknowledged charges is stored ({len(paid_ids - stored)} lost)")
    twice = sql(f"SELECT count(*) FROM (SELECT payment_intent_id FROM payments WHERE {scope} "
                "AND status = 'paid' GROUP BY account_id, payment_intent_id HAVING count(*) > 1) AS twice")
    check(twice == "0", f"no intent has two paid payments ({twice})")
    payments = sql(f"SELECT count(*) FROM payments WHERE {scope} AND status = 'paid'")
    check(int(payments) == len(stored), f"one paid payment per succeeded intent ({payments} for {len(stored)})")
    stored_refunds = set(sql(f"SELECT id FROM refunds WHERE {scope}").split())
    check(set(refund_ids) <= stored_refunds, f"every one of {len(refund_ids)} acknowledged refunds is stored")
    over = sql(f"SELECT count(*) FROM payments p WHERE {scope} AND p.amount < (SELECT COALESCE(SUM(r.amount), 0) "
               "FROM refunds r WHERE r.account_id = p.account_id AND r.payment_id = p.id)")
    check(over == "0", f"no payment refunded beyond its amount ({over})")


def check_delivered(sql, scope, event_types, within=120):
    """Checks that every event of `event_types` stored in `scope` reached the Receiver (waiting up to
    `within` seconds), and prints how many arrived more than once."""
    types = ", ".join(repr(event) for event in event_types)
    expected = set(sql(f"SELECT id FROM events WHERE {scope} AND event_type IN ({types})").split())
    deadline = time.time() + within
    while time.time() < deadline and not expected <= {json.loads(body)["id"] for body, _ in list(Receiver.received)}:
        time.sleep(0.5)
    arrivals = [json.loads(body)["id"] for body, _ in list(Receiver.received)]
    lost = expected - set(arrivals)
    check(not lost, f"every one of {len(expected)} events reached the receiver ({len(lost)} lost)")
    print(f"measured: {len(arrivals)} deliveries of {len(expected)} events, "
          f"{len(arrivals) - len(set(arrivals))} duplicates (at least once)")


class Load:
    """A load of numbered pieces of work (a charge, say) on `concurrency` threads: `one(number)` does
    one and answers how many requests it retried; it goes on until `limit` numbers are done or
    `stop()`. `acknowledged` is the list `one` appends to as work is acknowledged."""

    def __init__(self, one, acknowledged, limit, concurrency):
        self.one, self.acknowledged, self.limit = one, acknowledged, limit
        self.numbers, self.stopping = itertools.count(), threading.Event()
        self.pool = concurrent.futures.ThreadPoolExecutor(concurrency)
        self.workers = [self.pool.submit(self.work) for _ in range(concurrency)]

    def work(self):
        retries = 0
        for number in self.numbers:
            if self.stopping.is_set() or number >= self.limit:
                return retries
            retries += self.one(number)
        return retries

    def wait_for(self, more):
        """Until `more` pieces more than now are acknowledged, while the load goes on."""
        target = len(self.acknowledged) + more
        while len(self.acknowledged) < target and not any(worker.done() for worker in self.workers):
            time.sleep(0.05)
        check(len(self.acknowledged) >= target, f"the load goes on ({len(self.acknowledged)} of at most {self.limit})")

    def stop(self):
        """Stops the load once the pieces under way are done; answers the requests retried."""
        self.stopping.set()
        retries = sum(worker.result() for worker in self.workers)
        self.pool.shutdown()
        return retries
