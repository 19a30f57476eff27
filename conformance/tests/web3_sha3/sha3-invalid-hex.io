>> {"jsonrpc":"2.0","id":1,"method":"web3_sha3","params":["0xzz"]}
<< {"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"invalid params"}}
