// the identity precompile moved: its address runs no code
>> {"jsonrpc":"2.0","id":1,"method":"debug_traceCall","params":[{"input":"0x1234","to":"0x0000000000000000000000000000000000000004"},"latest",{"stateOverrides":{"0x0000000000000000000000000000000000000004":{"movePrecompileToAddress":"0x000000000000000000000000000000000000beef"}},"tracer":"callTracer"}]}
<< {"jsonrpc":"2.0","id":1,"result":{"from":"0x0000000000000000000000000000000000000000","gas":"0x2faf080","gasUsed":"0x5258","to":"0x0000000000000000000000000000000000000004","input":"0x1234","value":"0x0","type":"CALL"}}
