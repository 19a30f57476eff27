>> {"jsonrpc":"2.0","id":1,"method":"debug_traceTransaction","params":["0xa03abc80015d6f137e5b1019b4e00287f0e30daff22b21f889b1fa042a0f05eb",{"tracer":"noopTracer"}]}
<< {"jsonrpc":"2.0","id":1,"result":{}}
