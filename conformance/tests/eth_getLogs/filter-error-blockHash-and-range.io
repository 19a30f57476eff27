// blockHash excludes fromBlock/toBlock
>> {"jsonrpc":"2.0","id":1,"method":"eth_getLogs","params":[{"blockHash":"0x633fe007d14b92e71eb35041516733bfab7ad39be5844138c98a7ea38df78586","fromBlock":"0x9"}]}
<< {"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"invalid params"}}
