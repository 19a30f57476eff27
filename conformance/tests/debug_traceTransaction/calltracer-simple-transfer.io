>> {"jsonrpc":"2.0","id":1,"method":"debug_traceTransaction","params":["0xafd3ad103bb2c25cd3931c4c5083a6f70dbdad330a4e99218c04f9b35417c4fe",{"tracer":"callTracer"}]}
<< {"jsonrpc":"2.0","id":1,"result":{"from":"0x36b8af1befa5cf9662ac1d569939db652f7b13a4","gas":"0x5208","gasUsed":"0x5208","to":"0x00000000000000000000000000000000000a11ce","input":"0x","value":"0x1","type":"CALL"}}
