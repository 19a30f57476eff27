>> {"jsonrpc":"2.0","id":1,"method":"eth_getBlockTransactionCountByNumber","params":["0x64"]}
<< {"jsonrpc":"2.0","id":1,"result":null}
