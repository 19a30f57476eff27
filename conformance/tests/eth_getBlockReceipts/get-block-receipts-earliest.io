>> {"jsonrpc":"2.0","id":1,"method":"eth_getBlockReceipts","params":["earliest"]}
<< {"jsonrpc":"2.0","id":1,"result":[]}
