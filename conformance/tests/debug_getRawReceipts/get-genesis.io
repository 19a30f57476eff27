// the genesis block has no receipts
>> {"jsonrpc":"2.0","id":1,"method":"debug_getRawReceipts","params":["0x0"]}
<< {"jsonrpc":"2.0","id":1,"result":[]}
