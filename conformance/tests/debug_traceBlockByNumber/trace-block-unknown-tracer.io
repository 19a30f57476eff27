>> {"jsonrpc":"2.0","id":1,"method":"debug_traceBlockByNumber","params":["0x9",{"tracer":"noSuchTracer"}]}
<< {"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"invalid params"}}
