>> {"jsonrpc":"2.0","id":1,"method":"debug_traceBlockByNumber","params":["0x64"]}
<< {"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":"block #100 not found"}}
