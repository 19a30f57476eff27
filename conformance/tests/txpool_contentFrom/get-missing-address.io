>> {"jsonrpc":"2.0","id":1,"method":"txpool_contentFrom","params":[]}
<< {"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"invalid params"}}
