// the hydrated flag is required
>> {"jsonrpc":"2.0","id":1,"method":"eth_getBlockByNumber","params":["0x1"]}
<< {"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"invalid params"}}
