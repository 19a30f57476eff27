>> {"jsonrpc":"2.0","id":1,"method":"txpool_status","params":[]}
<< {"jsonrpc":"2.0","id":1,"result":{"pending":"0x0","queued":"0x0"}}
