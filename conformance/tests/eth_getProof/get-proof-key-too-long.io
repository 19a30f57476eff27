// a storage key longer than 32 bytes
>> {"jsonrpc":"2.0","id":1,"method":"eth_getProof","params":["0x5da1532f8cbfe5b6be37ecf9735d8597b6c49712",["0x11111111111111111111111111111111111111111111111111111111111111111"],"latest"]}
<< {"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"invalid params"}}
