>> {"jsonrpc":"2.0","id":1,"method":"debug_getRawReceipts","params":["0x6"]}
<< {"jsonrpc":"2.0","id":1,"result":[]}
