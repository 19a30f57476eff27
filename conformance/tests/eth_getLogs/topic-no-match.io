>> {"jsonrpc":"2.0","id":1,"method":"eth_getLogs","params":[{"fromBlock":"0x0","toBlock":"latest","topics":["0x00000000000000000000000000000000000000000000000000000000deadbeef"]}]}
<< {"jsonrpc":"2.0","id":1,"result":[]}
