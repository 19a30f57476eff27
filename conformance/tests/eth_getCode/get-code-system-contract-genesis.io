// the EIP-2935 history contract in the genesis alloc
>> {"jsonrpc":"2.0","id":1,"method":"eth_getCode","params":["0x0000f90827f1c53a10cb7a02335b175320002935","earliest"]}
<< {"jsonrpc":"2.0","id":1,"result":"0x3373fffffffffffffffffffffffffffffffffffffffe14604657602036036042575f35600143038111604257611fff81430311604257611fff9006545f5260205ff35b5f5ffd5b5f35611fff60014303065500"}
