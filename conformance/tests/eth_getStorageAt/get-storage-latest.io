// C's slot 0 (last set(45))
>> {"jsonrpc":"2.0","id":1,"method":"eth_getStorageAt","params":["0x5da1532f8cbfe5b6be37ecf9735d8597b6c49712","0x0","latest"]}
<< {"jsonrpc":"2.0","id":1,"result":"0x000000000000000000000000000000000000000000000000000000000000002d"}
