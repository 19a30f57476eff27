// a tracer name the node does not have
>> {"jsonrpc":"2.0","id":1,"method":"debug_traceTransaction","params":["0x4306b04bc1a3a34def29ba601d855ded752782bdda55edab417122be6c1299f8",{"tracer":"noSuchTracer"}]}
<< {"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"unknown tracer"}}
