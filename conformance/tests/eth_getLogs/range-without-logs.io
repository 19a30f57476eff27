>> {"jsonrpc":"2.0","id":1,"method":"eth_getLogs","params":[{"fromBlock":"earliest","toBlock":"0x3"}]}
<< {"jsonrpc":"2.0","id":1,"result":[]}
