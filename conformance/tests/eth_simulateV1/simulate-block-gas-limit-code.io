// calls over the block's gas limit (-38015; ethSimulate-run-out-of-gas-in-block-38015)
>> {"jsonrpc":"2.0","id":1,"method":"eth_simulateV1","params":[{"blockStateCalls":[{"blockOverrides":{"gasLimit":"0x7530"},"calls":[{"from":"0xc000000000000000000000000000000000000000","gas":"0x5208","to":"0xc100000000000000000000000000000000000000"},{"from":"0xc000000000000000000000000000000000000000","gas":"0x5208","to":"0xc100000000000000000000000000000000000000"}]}]},"latest"]}
<< {"jsonrpc":"2.0","id":1,"error":{"code":-38015,"message":"block gas limit reached"}}
