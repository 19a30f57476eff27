// an account that never existed
>> {"jsonrpc":"2.0","id":1,"method":"eth_getBalance","params":["0x00000000000000000000000000000000deadbeef","latest"]}
<< {"jsonrpc":"2.0","id":1,"result":"0x0"}
