>> {"jsonrpc":"2.0","id":1,"method":"debug_traceCall","params":[{"from":"0x36b8af1befa5cf9662ac1d569939db652f7b13a4","input":"0x6d4ce63c","to":"0x5da1532f8cbfe5b6be37ecf9735d8597b6c49712"},"latest",{"tracer":"noSuchTracer"}]}
<< {"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"invalid params"}}
