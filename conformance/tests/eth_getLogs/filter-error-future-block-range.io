// toBlock beyond the head
>> {"jsonrpc":"2.0","id":1,"method":"eth_getLogs","params":[{"fromBlock":"0x10","toBlock":"0x20"}]}
<< {"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":"invalid block range"}}
