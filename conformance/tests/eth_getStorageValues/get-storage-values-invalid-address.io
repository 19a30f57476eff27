>> {"jsonrpc":"2.0","id":1,"method":"eth_getStorageValues","params":[{"0x1234":["0x0000000000000000000000000000000000000000000000000000000000000000"]},"latest"]}
<< {"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"invalid params"}}
