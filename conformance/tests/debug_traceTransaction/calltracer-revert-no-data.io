// C.failSilently(): reverted without data
>> {"jsonrpc":"2.0","id":1,"method":"debug_traceTransaction","params":["0x8396a6978c85bc6475cc9bdbf7f134298e14416aa0dd7b21f846a386623fc72b",{"tracer":"callTracer"}]}
<< {"jsonrpc":"2.0","id":1,"result":{"from":"0x899fb28829fd298b3b8952dcd09db3e1009b5183","gas":"0x186a0","gasUsed":"0x52b0","to":"0x5da1532f8cbfe5b6be37ecf9735d8597b6c49712","input":"0xb6fc6939","error":"execution reverted","value":"0x0","type":"CALL"}}
