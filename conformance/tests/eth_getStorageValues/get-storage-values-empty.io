// no slots at all
>> {"jsonrpc":"2.0","id":1,"method":"eth_getStorageValues","params":[{}]}
<< {"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"invalid params"}}
