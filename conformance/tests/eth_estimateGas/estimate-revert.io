// a call that always reverts cannot be estimated
>> {"jsonrpc":"2.0","id":1,"method":"eth_estimateGas","params":[{"from":"0x36b8af1befa5cf9662ac1d569939db652f7b13a4","input":"0xa9cc4718","to":"0x5da1532f8cbfe5b6be37ecf9735d8597b6c49712"}]}
<< {"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":"execution reverted"}}
