// C.get() after block 4
>> {"jsonrpc":"2.0","id":1,"method":"debug_traceCall","params":[{"from":"0x36b8af1befa5cf9662ac1d569939db652f7b13a4","input":"0x6d4ce63c","to":"0x5da1532f8cbfe5b6be37ecf9735d8597b6c49712"},"0x4",{"tracer":"callTracer"}]}
<< {"jsonrpc":"2.0","id":1,"result":{"from":"0x36b8af1befa5cf9662ac1d569939db652f7b13a4","gas":"0x2faf080","gasUsed":"0x5aad","to":"0x5da1532f8cbfe5b6be37ecf9735d8597b6c49712","input":"0x6d4ce63c","output":"0x000000000000000000000000000000000000000000000000000000000000002a","value":"0x0","type":"CALL"}}
