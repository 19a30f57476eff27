// movePrecompileToAddress naming its own address (-38022; ethSimulate-move-to-address-itself-reference-38022)
>> {"jsonrpc":"2.0","id":1,"method":"eth_simulateV1","params":[{"blockStateCalls":[{"calls":[],"stateOverrides":{"0x0000000000000000000000000000000000000001":{"movePrecompileToAddress":"0x0000000000000000000000000000000000000001"}}}]},"latest"]}
<< {"jsonrpc":"2.0","id":1,"error":{"code":-38022,"message":"movePrecompileToAddress references itself"}}
