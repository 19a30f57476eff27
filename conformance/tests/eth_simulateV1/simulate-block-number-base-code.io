// the first block's number must be above the base's (-38020)
>> {"jsonrpc":"2.0","id":1,"method":"eth_simulateV1","params":[{"blockStateCalls":[{"blockOverrides":{"number":"0x14"},"calls":[]}]},"latest"]}
<< {"jsonrpc":"2.0","id":1,"error":{"code":-38020,"message":"block numbers must be in order"}}
