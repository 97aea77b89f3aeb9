// Drives a running service with PayRex's official Node client (payrex-node), unchanged, as a
// merchant's backend would, and verifies the webhook events it receives with the client's
// parseEvent. Fails (exit status 1) on the first answer that is not what the client needs.
//
// payrex-node has no base URL setting: each service keeps the URL of its HTTP client, which is
// pointed at this service once the client is made (`pointedAt`). It has no attach either (a
// browser attaches with the public key): that one call goes through plain HTTP, as a page would.
//
// Usage: NODE_PATH=target/node/node_modules node .ci/payrex_node.js BASE_URL SECRET_KEY
'use strict';

const childProcess = require('child_process');
const http = require('http');
const readline = require('readline');
const Payrex = require('payrex-node');

const [baseUrl, secretKey] = process.argv.slice(2).map((arg) => arg.replace(/\/$/, ''));
const CARD = { number: '4242424242424242', exp_month: 12, exp_year: 2035, cvc: '123' };

function check(condition, message) {
  if (!condition) {
    console.error(`payrex-node check failed: ${message}`);
    process.exit(1);
  }
  console.log(`ok: ${message}`);
}

function pointedAt(client, url) {
  for (const service of Object.values(client)) {
    if (service && service.httpClient) service.httpClient.baseUrl = url;
  }
  return client;
}

// One attach as a page makes it (here with the secret key, which may attach too).
async function attach(intentId) {
  const body = new URLSearchParams({
    'payment_method[type]': 'card',
    'payment_method[card][number]': CARD.number,
    'payment_method[card][exp_month]': String(CARD.exp_month),
    'payment_method[card][exp_year]': String(CARD.exp_year),
    'payment_method[card][cvc]': CARD.cvc,
  });
  const response = await fetch(`${baseUrl}/payment_intents/${intentId}/attach`, {
    method: 'POST',
    headers: { Authorization: 'Basic ' + Buffer.from(`${secretKey}:`).toString('base64') },
    body,
  });
  return response.json();
}

// A receiver of webhook deliveries on a free loopback port: resolves with the deliveries seen.
function receiver() {
  const deliveries = [];
  const server = http.createServer((request, response) => {
    let payload = '';
    request.on('data', (chunk) => (payload += chunk));
    request.on('end', () => {
      deliveries.push({ payload, signature: request.headers['payrex-signature'] });
      response.writeHead(200).end('ok');
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ server, deliveries })));
}

async function main() {
  const payrex = pointedAt(Payrex(secretKey), baseUrl);
  const { server, deliveries } = await receiver();
  const hookUrl = `http://127.0.0.1:${server.address().port}/hooks`;
  const webhook = await payrex.webhooks.create({
    url: hookUrl,
    events: ['payment_intent.succeeded', 'refund.created'],
    description: 'payrex-node',
  });
  check(webhook.secretKey.startsWith('whsk_'), 'a webhook is created with its secret');

  const customer = await payrex.customers.create({ name: 'Node Client', email: 'node@example.com', currency: 'PHP' });
  check(customer.id.startsWith('cus_'), 'a customer is created');
  const found = await payrex.customers.list({ email: 'node@example.com', limit: 100 });
  check(found.data.some((c) => c.id === customer.id), 'and listed by e-mail');

  const intent = await payrex.paymentIntents.create({
    amount: 10000,
    currency: 'PHP',
    payment_methods: ['card'],
    payment_method_options: { card: { capture_type: 'manual' } },
  });
  check(intent.status === 'awaiting_payment_method', 'a payment intent is created');
  const held = await attach(intent.id);
  check(held.status === 'awaiting_capture', 'a card holds the amount');
  const captured = await payrex.paymentIntents.capture(intent.id, { amount: 10000 });
  check(captured.status === 'succeeded' && captured.latestPayment.status === 'paid', 'and it is captured');
  const payment = await payrex.payments.retrieve(captured.latestPayment.id);
  check(payment.amount === 10000 && payment.paymentIntentId === intent.id, 'the payment is retrieved');
  const refund = await payrex.refunds.create({
    amount: 2500,
    currency: 'PHP',
    payment_id: payment.id,
    reason: 'requested_by_customer',
  });
  check(refund.status === 'succeeded' || refund.status === 'pending', 'a refund is made');

  const checkout = await payrex.checkoutSessions.create({
    line_items: [{ name: 'Mug', amount: 150000, quantity: 1 }],
    success_url: 'https://shop.example/done',
    cancel_url: 'https://shop.example/cart',
    payment_methods: ['card'],
    customer_reference_id: `node-${Date.now()}`,
  });
  const byReference = await payrex.checkoutSessions.list({ customer_reference_id: checkout.customerReferenceId });
  check(byReference.data.map((s) => s.id).join() === checkout.id, 'checkout sessions are listed by reference');
  await payrex.checkoutSessions.expire(checkout.id);
  const expired = await payrex.checkoutSessions.list({ status: 'expired', limit: 100 });
  check(expired.data.some((s) => s.id === checkout.id), 'and by status');

  const statement = await payrex.billingStatements.create({
    customer_id: customer.id,
    due_at: Math.floor(Date.now() / 1000) + 7 * 24 * 3600,
    payment_settings: { payment_methods: ['card'] },
  });
  await payrex.billingStatementLineItems.create({
    billing_statement_id: statement.id,
    description: 'Plan',
    unit_price: 150000,
    quantity: 1,
  });
  const opened = await payrex.billingStatements.finalize(statement.id);
  check(opened.status === 'open' && typeof opened.finalizedAt === 'number', 'a billing statement is finalized');
  const open = await payrex.billingStatements.list({ customer_id: customer.id, status: 'open' });
  check(open.data.map((s) => s.id).join() === statement.id, 'and listed by customer and status');
  const voided = await payrex.billingStatements.void(statement.id);
  check(voided.status === 'void', 'and voided');

  const session = await payrex.customerSessions.create({ customer_id: customer.id });
  check((await payrex.customerSessions.retrieve(session.id)).customerId === customer.id, 'a customer session');

  try {
    await payrex.paymentIntents.create({});
    check(false, 'an empty payment intent is refused');
  } catch (error) {
    const parameters = error.errors.map((e) => e.parameter).sort();
    check(error.name === 'RequestInvalidError' && parameters.join() === 'amount,currency,payment_methods',
      'an empty create is a RequestInvalidError naming all three parameters');
  }

  for (let waited = 0; deliveries.length < 2 && waited < 100; waited++) {
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  check(deliveries.length >= 2, 'the webhook receives the events');
  for (const delivery of deliveries) {
    const event = payrex.webhooks.parseEvent(delivery.payload, delivery.signature, webhook.secretKey);
    check(['payment_intent.succeeded', 'refund.created'].includes(event.type), `parseEvent verifies ${event.type}`);
  }
  try {
    payrex.webhooks.parseEvent(deliveries[0].payload.replace('"livemode":false', '"livemode":true'),
      deliveries[0].signature, webhook.secretKey);
    check(false, 'a tampered event is refused');
  } catch (error) {
    check(error.name === 'SignatureInvalidError', 'parseEvent refuses a tampered event');
  }

  await payrex.webhooks.disable(webhook.id);
  const disabled = await payrex.webhooks.list({ status: 'disabled', limit: 100 });
  check(disabled.data.some((w) => w.id === webhook.id), 'webhooks are listed by status');
  check((await payrex.webhooks.delete(webhook.id)).deleted === true, 'and deleted');
  server.close();
  await checkPages(payrex);
  await checkPayouts(payrex);
  await checkListen(payrex);
}

// A customer's order on a storefront page (made through this service's own API, which the client
// has no calls for), paid: payments.retrieve's Payment carries it as pageSession.
async function checkPages(payrex) {
  const made = async (path, body) => {
    const response = await fetch(`${baseUrl}${path}`, {
      method: 'POST',
      headers: { Authorization: `Basic ${Buffer.from(`${secretKey}:`).toString('base64')}`, 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    });
    return response.json();
  };
  const product = await made('/products', { name: 'Mug' });
  const price = await made('/prices', { product_id: product.id, amount: 25000 });
  const page = await made('/pages', {
    title: 'Merch', template: 'storefront', prices: [price.id], payment_methods: ['card'],
    custom_fields: [{ name: 'Note', type: 'text' }],
  });
  const note = page.custom_fields[0].id;
  const order = new URLSearchParams({ [`quantity[${price.id}]`]: '3', [`custom_fields[${note}]`]: 'gift' });
  const placed = await fetch(`${baseUrl}/p/${page.id}`, { method: 'POST', body: order, redirect: 'manual' });
  check(placed.status === 303, 'an order on the page goes on to its payment page');
  const intentId = placed.headers.get('location').replace('/o/', '').split('_secret_')[0];
  const paid = await attach(intentId);
  const payment = await payrex.payments.retrieve(paid.latest_payment.id);
  const session = payment.pageSession;
  check(session && session.custom_fields[0].value === 'gift', 'payments.retrieve reads pageSession\'s answers');
  const line = session.line_items[0];
  check(line.price_id === price.id && line.quantity === 3 && line.total_amount === 75000, 'and its line: quantity × price amount');
}

// The payouts service: four days on the account's test clock pay its payments out, and
// listTransactions lists the payout's lines, the payment's among them.
async function checkPayouts(payrex) {
  const intent = await payrex.paymentIntents.create({ amount: 10000, currency: 'PHP', payment_methods: ['card'] });
  const paid = await attach(intent.id);
  const call = async (method, path, body) => {
    const response = await fetch(`${baseUrl}${path}`, {
      method,
      headers: { Authorization: `Basic ${Buffer.from(`${secretKey}:`).toString('base64')}`, 'Content-Type': 'application/x-www-form-urlencoded' },
      body,
    });
    return response.json();
  };
  await call('POST', '/test_helpers/clock/advance', 'seconds=345600');
  const payouts = await call('GET', '/payouts?limit=100');
  check(payouts.data.length > 0, 'the clock made payouts');
  let found = false;
  for (const payout of payouts.data) {
    const lines = await payrex.payouts.listTransactions(payout.id, { limit: 100 });
    check(lines.data.every((line) => line.transactionType && line.netAmount !== undefined), 'listTransactions reads each line');
    found = found || lines.data.some((line) => line.transactionId === paid.latest_payment.id && line.transactionType === 'payment');
  }
  check(found, 'payouts.listTransactions finds the payment paid out');
}

// `payments listen` forwards a triggered event to a local receiver, signed with the secret it
// prints: parseEvent verifies it.
async function checkListen(payrex) {
  const { server, deliveries } = await receiver();
  const bin = process.env.PAYMENTS_BIN || 'target/debug/payments';
  const env = { ...process.env, PAYMENTS_API_BASE: baseUrl, PAYMENTS_KEY: secretKey };
  const url = `http://127.0.0.1:${server.address().port}/webhooks`;
  const listen = childProcess.spawn(bin, ['listen', '--json', '--forward-to', url], { env });
  const ready = await new Promise((resolve) => {
    readline.createInterface({ input: listen.stdout }).once('line', (line) => resolve(JSON.parse(line)));
  });
  childProcess.execFileSync(bin, ['trigger', 'payment_intent.succeeded'], { env, stdio: 'ignore' });
  for (let waited = 0; deliveries.length < 2 && waited < 100; waited++) {
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  listen.kill();
  server.close();
  const types = deliveries.map((delivery) => payrex.webhooks.parseEvent(delivery.payload, delivery.signature, ready.secret).type);
  check(types.sort().join() === 'payment.paid,payment_intent.succeeded',
    `parseEvent verifies what payments listen forwards (${types.join(', ')})`);
}

main().catch((error) => {
  console.error('payrex-node run failed:', error.name, error.message, JSON.stringify(error.errors || []));
  process.exit(1);
});
