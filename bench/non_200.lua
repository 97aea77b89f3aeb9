-- Counts the answers other than 200 over every wrk thread and prints "non-200 answers: N" at the
-- end, for bench/run to read. A request script loads it with dofile (wrk runs from the repository).
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
