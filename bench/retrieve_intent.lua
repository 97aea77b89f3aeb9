-- GET /payment_intents/:id of one intent ($PAYMENTS_INTENT), over and over: a read's whole path.
wrk.method = "GET"
wrk.path = "/payment_intents/" .. os.getenv("PAYMENTS_INTENT")
wrk.headers["Authorization"] = "Bearer " .. os.getenv("PAYMENTS_KEY")

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
