// block numbers must increase (-38020; ethSimulate-block-num-order-38020)
>> {"jsonrpc":"2.0","id":1,"method":"eth_simulateV1","params":[{"blockStateCalls":[{"blockOverrides":{"number":"0x16"},"calls":[]},{"blockOverrides":{"number":"0x15"},"calls":[]}]},"latest"]}
<< {"jsonrpc":"2.0","id":1,"error":{"code":-38020,"message":"block numbers must be in order"}}
