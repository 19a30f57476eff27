// a block hash object the chain does not have
>> {"jsonrpc":"2.0","id":1,"method":"eth_getBalance","params":["0x36b8af1befa5cf9662ac1d569939db652f7b13a4",{"blockHash":"0x00000000000000000000000000000000000000000000000000000000deadbeef"}]}
<< {"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":"header not found"}}
