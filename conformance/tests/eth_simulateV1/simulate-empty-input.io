// no blocks (ethSimulate-empty-ethSimulate)
>> {"jsonrpc":"2.0","id":1,"method":"eth_simulateV1","params":[{"blockStateCalls":[]},"latest"]}
<< {"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"invalid params"}}
