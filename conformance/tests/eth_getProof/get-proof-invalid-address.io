// an address that is not 20 bytes
>> {"jsonrpc":"2.0","id":1,"method":"eth_getProof","params":["0x1234",[],"latest"]}
<< {"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"invalid params"}}
