// an EOA has no code
>> {"jsonrpc":"2.0","id":1,"method":"eth_getCode","params":["0x36b8af1befa5cf9662ac1d569939db652f7b13a4","latest"]}
<< {"jsonrpc":"2.0","id":1,"result":"0x"}
