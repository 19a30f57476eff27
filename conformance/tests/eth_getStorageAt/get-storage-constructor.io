// slot 0 as the constructor left it
>> {"jsonrpc":"2.0","id":1,"method":"eth_getStorageAt","params":["0x5da1532f8cbfe5b6be37ecf9735d8597b6c49712","0x0","0x2"]}
<< {"jsonrpc":"2.0","id":1,"result":"0x0000000000000000000000000000000000000000000000000000000000000001"}
