// a blob transaction
>> {"jsonrpc":"2.0","id":1,"method":"debug_traceTransaction","params":["0x09f6c3932981d7df85b393d958025c95b397780b8ed311ea96dc322269b694ea",{"tracer":"callTracer"}]}
<< {"jsonrpc":"2.0","id":1,"result":{"from":"0x8089d307225c0b22e084781a7ae62bcf3f577c8c","gas":"0x5208","gasUsed":"0x5208","to":"0x00000000000000000000000000000000000a11ce","input":"0x","value":"0x8","type":"CALL"}}
