// a node serving an imported chain is not syncing
>> {"jsonrpc":"2.0","id":1,"method":"eth_syncing","params":[]}
<< {"jsonrpc":"2.0","id":1,"result":false}
