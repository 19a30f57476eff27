// a hash the chain does not have
>> {"jsonrpc":"2.0","id":1,"method":"debug_getRawHeader","params":["0x00000000000000000000000000000000000000000000000000000000deadbeef"]}
<< {"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":"header not found"}}
