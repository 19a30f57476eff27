>> {"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[]}
<< {"jsonrpc":"2.0","id":1,"result":"0xc72dd9d5e883e"}
