// a transaction of block 1
>> {"jsonrpc":"2.0","id":1,"method":"base_transactionStatus","params":["0xafd3ad103bb2c25cd3931c4c5083a6f70dbdad330a4e99218c04f9b35417c4fe"]}
<< {"jsonrpc":"2.0","id":1,"result":{"status":"Known"}}
