>> {"jsonrpc":"2.0","id":1,"method":"debug_getRawBlock","params":["0x00000000000000000000000000000000000000000000000000000000deadbeef"]}
<< {"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":"header not found"}}
