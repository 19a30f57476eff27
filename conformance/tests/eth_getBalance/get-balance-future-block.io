// a block number beyond the head
>> {"jsonrpc":"2.0","id":1,"method":"eth_getBalance","params":["0x36b8af1befa5cf9662ac1d569939db652f7b13a4","0x64"]}
<< {"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":"header not found"}}
