// a sender of the chain with nothing pooled
>> {"jsonrpc":"2.0","id":1,"method":"txpool_contentFrom","params":["0x36b8af1befa5cf9662ac1d569939db652f7b13a4"]}
<< {"jsonrpc":"2.0","id":1,"result":{"pending":{},"queued":{}}}
