// two precompiles moved to the same address (-38023; ethSimulate-move-two-accounts-to-same-38023)
>> {"jsonrpc":"2.0","id":1,"method":"eth_simulateV1","params":[{"blockStateCalls":[{"calls":[],"stateOverrides":{"0x0000000000000000000000000000000000000001":{"movePrecompileToAddress":"0xc700000000000000000000000000000000000000"},"0x0000000000000000000000000000000000000002":{"movePrecompileToAddress":"0xc700000000000000000000000000000000000000"}}}]},"latest"]}
<< {"jsonrpc":"2.0","id":1,"error":{"code":-38023,"message":"both moved to the same address"}}
