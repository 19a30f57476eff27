// an account override with both state and stateDiff
>> {"jsonrpc":"2.0","id":1,"method":"eth_simulateV1","params":[{"blockStateCalls":[{"calls":[],"stateOverrides":{"0xc000000000000000000000000000000000000000":{"state":{},"stateDiff":{}}}}]},"latest"]}
<< {"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"invalid params"}}
