// a hash that is not 32 bytes
>> {"jsonrpc":"2.0","id":1,"method":"eth_getBlockByHash","params":["0x1234",false]}
<< {"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"invalid params"}}
