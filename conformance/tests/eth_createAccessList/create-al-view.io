// C.get() reads slot 0; gasUsed is with the list applied
>> {"jsonrpc":"2.0","id":1,"method":"eth_createAccessList","params":[{"from":"0x36b8af1befa5cf9662ac1d569939db652f7b13a4","input":"0x6d4ce63c","to":"0x5da1532f8cbfe5b6be37ecf9735d8597b6c49712"},"latest"]}
<< {"jsonrpc":"2.0","id":1,"result":{"accessList":[{"address":"0x5da1532f8cbfe5b6be37ecf9735d8597b6c49712","storageKeys":["0x0000000000000000000000000000000000000000000000000000000000000000"]}],"gasUsed":"0x63a9"}}
