// the head's blob base fee, from its excess blob gas
>> {"jsonrpc":"2.0","id":1,"method":"eth_blobBaseFee","params":[]}
<< {"jsonrpc":"2.0","id":1,"result":"0x1"}
