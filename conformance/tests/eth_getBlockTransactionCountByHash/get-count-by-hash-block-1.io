>> {"jsonrpc":"2.0","id":1,"method":"eth_getBlockTransactionCountByHash","params":["0xb100b3c2415c29c55ddf142b0ea5559c310b8105c014765d40c7429c4941258f"]}
<< {"jsonrpc":"2.0","id":1,"result":"0x2"}
