// W at the head: withdrawals (in Gwei) and a transfer
>> {"jsonrpc":"2.0","id":1,"method":"eth_getBalance","params":["0x000000000000000000000000000000000000cafe","latest"]}
<< {"jsonrpc":"2.0","id":1,"result":"0xae9f7bcc00a"}
