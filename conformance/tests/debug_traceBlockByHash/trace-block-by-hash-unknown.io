>> {"jsonrpc":"2.0","id":1,"method":"debug_traceBlockByHash","params":["0x00000000000000000000000000000000000000000000000000000000deadbeef"]}
<< {"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":"block not found"}}
