// D's own storage, written through its delegation
>> {"jsonrpc":"2.0","id":1,"method":"eth_getStorageAt","params":["0x561c459bbffd95f29256f0570302e21905f0732b","0x0","latest"]}
<< {"jsonrpc":"2.0","id":1,"result":"0x0000000000000000000000000000000000000000000000000000000000000007"}
