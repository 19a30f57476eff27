// the network id is the chain id, in decimal
>> {"jsonrpc":"2.0","id":1,"method":"net_version","params":[]}
<< {"jsonrpc":"2.0","id":1,"result":"3503995874084926"}
