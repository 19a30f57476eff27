// a block without transactions has no receipts
>> {"jsonrpc":"2.0","id":1,"method":"eth_getBlockReceipts","params":["0x6"]}
<< {"jsonrpc":"2.0","id":1,"result":[]}
