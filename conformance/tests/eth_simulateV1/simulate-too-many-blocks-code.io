// a block 257 after the base: more than 256 blocks (-38026; ethSimulate-add-more-non-defined-BlockStateCalls-than-fit)
>> {"jsonrpc":"2.0","id":1,"method":"eth_simulateV1","params":[{"blockStateCalls":[{"blockOverrides":{"number":"0x115"},"calls":[]}]},"latest"]}
<< {"jsonrpc":"2.0","id":1,"error":{"code":-38026,"message":"too many blocks"}}
