-- wrk script: JSON-RPC requests whose body varies per request over 1,024
-- addresses (never one repeated body), as design.md's anchor figures.
-- Usage: wrk -t2 -c64 -d6s -s rpc.lua URL -- METHOD TAG
--   METHOD: getBalance | call   TAG: latest | pending
-- For call, TOKEN names the ERC-20 whose balanceOf is called (env var).
local addrs = {}
for i = 1, 1024 do
  addrs[i] = string.format("%040x", i * 7919)
end
local method, tag, token = "getBalance", "latest", os.getenv("TOKEN") or "0x0000000000000000000000000000000000000000"

function init(args)
  method = args[1] or method
  tag = args[2] or tag
end

local i = 0
function request()
  i = i % 1024 + 1
  local body
  if method == "call" then
    body = '{"jsonrpc":"2.0","id":' .. i .. ',"method":"eth_call","params":[{"to":"' .. token ..
      '","data":"0x70a08231000000000000000000000000' .. addrs[i] .. '"},"' .. tag .. '"]}'
  else
    body = '{"jsonrpc":"2.0","id":' .. i .. ',"method":"eth_getBalance","params":["0x' .. addrs[i] .. '","' .. tag .. '"]}'
  end
  return wrk.format("POST", "/", { ["Content-Type"] = "application/json" }, body)
end

local errors = 0
function response(status, headers, body)
  if status ~= 200 or not string.find(body, '"result"', 1, true) then
    errors = errors + 1
  end
end

function done(summary, latency, requests)
  io.write(string.format("rpc-errors %d\n", errors))
end
