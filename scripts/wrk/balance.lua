-- wrk: GET /client/{id}/balance for a random client among ids 1..CLIENTS (seeded beforehand).
local clients = tonumber(os.getenv("CLIENTS") or "10000")

function init(args)
  math.randomseed(os.time() + math.floor(os.clock() * 1e6))
end

function request()
  return wrk.format("GET", "/client/" .. math.random(clients) .. "/balance")
end
