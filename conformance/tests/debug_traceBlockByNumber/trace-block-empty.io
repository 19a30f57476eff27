// a block without transactions traces to []
>> {"jsonrpc":"2.0","id":1,"method":"debug_traceBlockByNumber","params":["0x6",{"tracer":"callTracer"}]}
<< {"jsonrpc":"2.0","id":1,"result":[]}
