>> {"jsonrpc":"2.0","id":1,"method":"eth_getBlockByNumber","params":["0xzz",false]}
<< {"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"invalid params"}}
