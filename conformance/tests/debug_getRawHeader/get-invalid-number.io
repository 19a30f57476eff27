// a number without 0x
>> {"jsonrpc":"2.0","id":1,"method":"debug_getRawHeader","params":["2"]}
<< {"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"invalid params"}}
