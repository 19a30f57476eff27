// D's nonce was bumped by its EIP-7702 authorization
>> {"jsonrpc":"2.0","id":1,"method":"eth_getTransactionCount","params":["0x561c459bbffd95f29256f0570302e21905f0732b","latest"]}
<< {"jsonrpc":"2.0","id":1,"result":"0x1"}
