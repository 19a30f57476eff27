// a storage key that is not hex
>> {"jsonrpc":"2.0","id":1,"method":"eth_getProof","params":["0x5da1532f8cbfe5b6be37ecf9735d8597b6c49712",["0xzz"],"latest"]}
<< {"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"invalid params"}}
