// balance after block 4, by number
>> {"jsonrpc":"2.0","id":1,"method":"eth_getBalance","params":["0x36b8af1befa5cf9662ac1d569939db652f7b13a4","0x4"]}
<< {"jsonrpc":"2.0","id":1,"result":"0x3635c51735f0d13b83"}
