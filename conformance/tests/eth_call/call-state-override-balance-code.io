// override an empty account's code (return SELFBALANCE) and balance
>> {"jsonrpc":"2.0","id":1,"method":"eth_call","params":[{"from":"0x36b8af1befa5cf9662ac1d569939db652f7b13a4","to":"0x000000000000000000000000000000000000beef"},"latest",{"0x000000000000000000000000000000000000beef":{"balance":"0x1234","code":"0x475f5260205ff3"}}]}
<< {"jsonrpc":"2.0","id":1,"result":"0x0000000000000000000000000000000000000000000000000000000000001234"}
