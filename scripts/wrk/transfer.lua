-- wrk: POST /transaction of 1 between two distinct random clients among ids 1..CLIENTS.
local clients = tonumber(os.getenv("CLIENTS") or "10000")
wrk.headers["Content-Type"] = "application/json"

function init(args)
  math.randomseed(os.time() + math.floor(os.clock() * 1e6))
end

function request()
  local from = math.random(clients)
  local to = math.random(clients - 1)
  if to >= from then to = to + 1 end
  local body = string.format('{"from_client_id":%d,"to_client_id":%d,"amount":1}', from, to)
  return wrk.format("POST", "/transaction", nil, body)
end
