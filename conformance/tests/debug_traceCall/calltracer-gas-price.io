// a legacy-priced value transfer
>> {"jsonrpc":"2.0","id":1,"method":"debug_traceCall","params":[{"from":"0x36b8af1befa5cf9662ac1d569939db652f7b13a4","gasPrice":"0x3b9aca00","to":"0x00000000000000000000000000000000000a11ce","value":"0x1"},"latest",{"tracer":"callTracer"}]}
<< {"jsonrpc":"2.0","id":1,"result":{"from":"0x36b8af1befa5cf9662ac1d569939db652f7b13a4","gas":"0x2faf080","gasUsed":"0x5208","to":"0x00000000000000000000000000000000000a11ce","input":"0x","value":"0x1","type":"CALL"}}
