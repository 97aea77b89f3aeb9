-- GET /payment_intents/:id of one intent ($PAYMENTS_INTENT), over and over: a read's whole path.
wrk.method = "GET"
wrk.path = "/payment_intents/" .. os.getenv("PAYMENTS_INTENT")
wrk.headers["Authorization"] = "Bearer " .. os.getenv("PAYMENTS_KEY")

dofile("bench/non_200.lua")
