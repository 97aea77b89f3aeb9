// Drives a running service's live mode with PayRex's official Node client (payrex-node), unchanged,
// with the account's Stripe-API processor at localstripe: a hold captured in part, a refund, both
// done at the processor. A card is a payment method made at the processor, as the browser makes
// it, and the attach (a browser's call, which payrex-node lacks) sends only its id, over plain HTTP.
// Fails (exit status 1) on the first answer that is not what the client needs.
//
// Usage: NODE_PATH=target/node/node_modules node .ci/payrex_node_live.js BASE_URL LIVE_SECRET_KEY \
//          PROCESSOR_URL PROCESSOR_SECRET_KEY
'use strict';

const Payrex = require('payrex-node');

const [baseUrl, liveKey, processorUrl, processorKey] = process.argv.slice(2).map((arg) => arg.replace(/\/$/, ''));

function check(condition, message) {
  if (!condition) {
    console.error(`payrex-node live check failed: ${message}`);
    process.exit(1);
  }
  console.log(`ok: ${message}`);
}

function basic(key) {
  return 'Basic ' + Buffer.from(`${key}:`).toString('base64');
}

async function atProcessor(method, path, fields) {
  const response = await fetch(processorUrl + path, {
    method,
    headers: { Authorization: basic(processorKey) },
    body: fields ? new URLSearchParams(fields) : undefined,
  });
  return response.json();
}

async function main() {
  const payrex = Payrex(liveKey);
  for (const service of Object.values(payrex)) {
    if (service && service.httpClient) service.httpClient.baseUrl = baseUrl;
  }
  const intent = await payrex.paymentIntents.create({
    amount: 10000,
    currency: 'PHP',
    payment_methods: ['card'],
    payment_method_options: { card: { capture_type: 'manual' } },
  });
  check(intent.livemode === true, 'a live payment intent is created');
  const card = await atProcessor('POST', '/v1/payment_methods', {
    type: 'card', 'card[number]': '4242424242424242', 'card[exp_month]': '12', 'card[exp_year]': '2035', 'card[cvc]': '123',
  });
  const attached = await fetch(`${baseUrl}/payment_intents/${intent.id}/attach`, {
    method: 'POST',
    headers: { Authorization: basic(liveKey) },
    body: new URLSearchParams({ 'payment_method[type]': 'card', 'payment_method[card][token]': card.id }),
  });
  check((await attached.json()).status === 'awaiting_capture', 'the processor holds the card');
  const captured = await payrex.paymentIntents.capture(intent.id, { amount: 6000 });
  check(captured.status === 'succeeded' && captured.amountReceived === 6000, '6000 of the hold is captured');
  const refund = await payrex.refunds.create({
    amount: 2500,
    currency: 'PHP',
    payment_id: captured.latestPayment.id,
    reason: 'requested_by_customer',
  });
  check(refund.status === 'succeeded', 'a live refund succeeds');
  const made = (await atProcessor('GET', '/v1/payment_intents?limit=100')).data
    .filter((at) => at.metadata.payrex_payment === captured.latestPayment.id);
  const charge = made.length === 1 ? made[0].charges.data[0] : {};
  // localstripe captures less than the hold as the whole and a refund of the rest: 4000 + 2500.
  check(charge.captured === true && charge.amount_refunded === 6500, 'the processor captured 6000 and refunded 2500');
}

main().catch((error) => {
  console.error(`payrex-node live check failed: ${error.stack || error}`);
  process.exit(1);
});
