// gas below a transfer's 21000 (-38013; ethSimulate-instrict-gas-38013)
>> {"jsonrpc":"2.0","id":1,"method":"eth_simulateV1","params":[{"blockStateCalls":[{"calls":[{"from":"0xc000000000000000000000000000000000000000","gas":"0x4e20","to":"0xc100000000000000000000000000000000000000"}]}]},"latest"]}
<< {"jsonrpc":"2.0","id":1,"error":{"code":-38013,"message":"intrinsic gas too low"}}
