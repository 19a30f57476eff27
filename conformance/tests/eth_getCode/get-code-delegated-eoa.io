// D's EIP-7702 delegation designator (0xef0100 || C)
>> {"jsonrpc":"2.0","id":1,"method":"eth_getCode","params":["0x561c459bbffd95f29256f0570302e21905f0732b","latest"]}
<< {"jsonrpc":"2.0","id":1,"result":"0xef01005da1532f8cbfe5b6be37ecf9735d8597b6c49712"}
