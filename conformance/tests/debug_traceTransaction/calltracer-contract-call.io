// C.set(42)
>> {"jsonrpc":"2.0","id":1,"method":"debug_traceTransaction","params":["0xa03abc80015d6f137e5b1019b4e00287f0e30daff22b21f889b1fa042a0f05eb",{"tracer":"callTracer"}]}
<< {"jsonrpc":"2.0","id":1,"result":{"from":"0x36b8af1befa5cf9662ac1d569939db652f7b13a4","gas":"0x186a0","gasUsed":"0xc26f","to":"0x5da1532f8cbfe5b6be37ecf9735d8597b6c49712","input":"0x60fe47b1000000000000000000000000000000000000000000000000000000000000002a","value":"0x0","type":"CALL"}}
