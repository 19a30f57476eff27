// EIP-1898 block hash object
>> {"jsonrpc":"2.0","id":1,"method":"eth_call","params":[{"from":"0x36b8af1befa5cf9662ac1d569939db652f7b13a4","input":"0x6d4ce63c","to":"0x5da1532f8cbfe5b6be37ecf9735d8597b6c49712"},{"blockHash":"0x633fe007d14b92e71eb35041516733bfab7ad39be5844138c98a7ea38df78586"}]}
<< {"jsonrpc":"2.0","id":1,"result":"0x000000000000000000000000000000000000000000000000000000000000002b"}
