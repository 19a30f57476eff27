>> {"jsonrpc":"2.0","id":1,"method":"txpool_content","params":[]}
<< {"jsonrpc":"2.0","id":1,"result":{"pending":{},"queued":{}}}
