-- wrk script: JSON-RPC requests whose body varies per request over 1,024
-- addresses (never one repeated body), as design.md's anchor figures.
-- Usage: wrk -t2 -c64 -d6s -s rpc.lua URL -- METHOD TAG
--   METHOD: getBalance | call   TAG: latest | pending
-- For call, TOKEN names the ERC-20 whose balanceOf is called (env var).
--
-- The 1,024 requests are built once, in init, and sent in turn: built per
-- request (string concatenation and wrk.format each time), they cost wrk
-- about 1 µs of its user time a request, a tenth of its whole cost, and
-- with one thread wrk, not the server, set the rate of the fastest
-- servers (PERFORMANCE.md, "What a run can show"). The bytes sent are the
-- same.
local method, tag, token = "getBalance", "latest", os.getenv("TOKEN") or "0x0000000000000000000000000000000000000000"
local prebuilt = {}

local function body(i, addr)
  if method == "call" then
    return '{"jsonrpc":"2.0","id":' .. i .. ',"method":"eth_call","params":[{"to":"' .. token ..
      '","data":"0x70a08231000000000000000000000000' .. addr .. '"},"' .. tag .. '"]}'
  end
  return '{"jsonrpc":"2.0","id":' .. i .. ',"method":"eth_getBalance","params":["0x' .. addr .. '","' .. tag .. '"]}'
end

function init(args)
  method = args[1] or method
  tag = args[2] or tag
  for i = 1, 1024 do
    prebuilt[i] = wrk.format("POST", "/", { ["Content-Type"] = "application/json" },
      body(i, string.format("%040x", i * 7919)))
  end
end

local i = 0
function request()
  i = i % 1024 + 1
  return prebuilt[i]
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
