// EIP-1898 block number object
>> {"jsonrpc":"2.0","id":1,"method":"eth_getBalance","params":["0x36b8af1befa5cf9662ac1d569939db652f7b13a4",{"blockNumber":"0x2"}]}
<< {"jsonrpc":"2.0","id":1,"result":"0x3635c7f7ae1b981f20"}
