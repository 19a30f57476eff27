// balance after block 9, by number
>> {"jsonrpc":"2.0","id":1,"method":"eth_getBalance","params":["0x36b8af1befa5cf9662ac1d569939db652f7b13a4","0x9"]}
<< {"jsonrpc":"2.0","id":1,"result":"0x3635c3790168e2fc67"}
