// a base block beyond the head
>> {"jsonrpc":"2.0","id":1,"method":"eth_simulateV1","params":[{"blockStateCalls":[{"calls":[]}]},"0x64"]}
<< {"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":"header not found"}}
