// contract C holds nothing
>> {"jsonrpc":"2.0","id":1,"method":"eth_getBalance","params":["0x5da1532f8cbfe5b6be37ecf9735d8597b6c49712","latest"]}
<< {"jsonrpc":"2.0","id":1,"result":"0x0"}
