>> {"jsonrpc":"2.0","id":1,"method":"eth_getTransactionByBlockNumberAndIndex","params":["0x64","0x0"]}
<< {"jsonrpc":"2.0","id":1,"result":null}
