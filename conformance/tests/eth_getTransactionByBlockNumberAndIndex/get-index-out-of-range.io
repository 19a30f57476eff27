>> {"jsonrpc":"2.0","id":1,"method":"eth_getTransactionByBlockNumberAndIndex","params":["0x4","0x5"]}
<< {"jsonrpc":"2.0","id":1,"result":null}
