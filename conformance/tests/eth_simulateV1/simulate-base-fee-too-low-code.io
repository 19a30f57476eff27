// validation: a fee cap below the base fee (-38012; ethSimulate-basefee-too-low-with-validation-38012)
>> {"jsonrpc":"2.0","id":1,"method":"eth_simulateV1","params":[{"blockStateCalls":[{"blockOverrides":{"baseFeePerGas":"0xa"},"calls":[{"from":"0x36b8af1befa5cf9662ac1d569939db652f7b13a4","maxFeePerGas":"0x5","to":"0x00000000000000000000000000000000000a11ce"}]}],"validation":true},"latest"]}
<< {"jsonrpc":"2.0","id":1,"error":{"code":-38012,"message":"max fee per gas less than block base fee"}}
