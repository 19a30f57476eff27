>> {"jsonrpc":"2.0","id":1,"method":"debug_traceCall","params":[{"to":"0x1234"},"latest"]}
<< {"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"invalid params"}}
