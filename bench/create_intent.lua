-- POST /payment_intents with a PayRex-style form body.
wrk.method = "POST"
wrk.path = "/payment_intents"
wrk.headers["Authorization"] = "Bearer " .. os.getenv("PAYMENTS_KEY")
wrk.headers["Content-Type"] = "application/x-www-form-urlencoded"
wrk.body = "amount=10000&currency=PHP&payment_methods[]=card&payment_methods[]=gcash"

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
