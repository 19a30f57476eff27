// a value the sender does not have (-38014; ethSimulate-gas-fees-and-value-error-38014)
>> {"jsonrpc":"2.0","id":1,"method":"eth_simulateV1","params":[{"blockStateCalls":[{"calls":[{"from":"0xc000000000000000000000000000000000000000","to":"0xc100000000000000000000000000000000000000","value":"0x1"}]}]},"latest"]}
<< {"jsonrpc":"2.0","id":1,"error":{"code":-38014,"message":"insufficient funds for transfer"}}
