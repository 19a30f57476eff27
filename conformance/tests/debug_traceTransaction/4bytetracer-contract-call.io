// the selector and calldata size of C.emitPair(3,4)
>> {"jsonrpc":"2.0","id":1,"method":"debug_traceTransaction","params":["0x46f3f97985571a38b21f9a1272ff9b650ac1b5d5219a03a36231289ade54bba0",{"tracer":"4byteTracer"}]}
<< {"jsonrpc":"2.0","id":1,"result":{"0x1a73514c-64":1}}
