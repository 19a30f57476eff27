// D before its delegation
>> {"jsonrpc":"2.0","id":1,"method":"eth_getCode","params":["0x561c459bbffd95f29256f0570302e21905f0732b","0x6"]}
<< {"jsonrpc":"2.0","id":1,"result":"0x"}
