// validation: a nonce above A's (-38011; ethSimulate-transaction-too-high-nonce)
>> {"jsonrpc":"2.0","id":1,"method":"eth_simulateV1","params":[{"blockStateCalls":[{"calls":[{"from":"0x36b8af1befa5cf9662ac1d569939db652f7b13a4","maxFeePerGas":"0x3b9aca00","nonce":"0x10","to":"0x00000000000000000000000000000000000a11ce"}]}],"validation":true},"latest"]}
<< {"jsonrpc":"2.0","id":1,"error":{"code":-38011,"message":"nonce too high"}}
