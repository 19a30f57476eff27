// a block beyond the head
>> {"jsonrpc":"2.0","id":1,"method":"eth_getProof","params":["0x5da1532f8cbfe5b6be37ecf9735d8597b6c49712",[],"0x64"]}
<< {"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":"header not found"}}
