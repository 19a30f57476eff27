// block timestamps must not decrease (-38021; ethSimulate-block-timestamp-order-38021)
>> {"jsonrpc":"2.0","id":1,"method":"eth_simulateV1","params":[{"blockStateCalls":[{"blockOverrides":{"time":"0x6553f204"},"calls":[]},{"blockOverrides":{"time":"0x6553f203"},"calls":[]}]},"latest"]}
<< {"jsonrpc":"2.0","id":1,"error":{"code":-38021,"message":"block timestamps must be in order"}}
