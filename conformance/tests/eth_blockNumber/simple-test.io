>> {"jsonrpc":"2.0","id":1,"method":"eth_blockNumber","params":[]}
<< {"jsonrpc":"2.0","id":1,"result":"0x14"}
