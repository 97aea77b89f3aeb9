-- localstripe, the peer: POST /v1/payment_intents with a Stripe-style form body.
wrk.method = "POST"
wrk.path = "/v1/payment_intents"
wrk.headers["Authorization"] = "Bearer sk_test_bench"
wrk.headers["Content-Type"] = "application/x-www-form-urlencoded"
wrk.body = "amount=10000&currency=php&payment_method_types[]=card"

local threads = {}

function setup(thread)
  table.insert(threads, thread)
end

failures = 0

function response(status, headers, body)
  if status ~= 200 then
    failures = failures + 1
  end
end

function done(summary, latency, requests)
  local failed = 0
  for _, thread in ipairs(threads) do
    failed = failed + thread:get("failures")
  end
  io.write(string.format("non-200 answers: %d\n", failed))
end
