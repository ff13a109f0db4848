package canon

// Numbers is the reference kernel's reading doom_loop.number_identity
// (PROTOCOL.md §15, A-04): JSON keeps every number as it reaches it, so 1.5
// and 1.50 are different inputs to the doom-loop hash and no precision is
// lost to float64 (JSON decodes with UseNumber). An integral number reaches
// it already written as an integer (1.0 as 1): the kernel decodes every
// message with wire.Decode, which reads 1200.0 as 1200 the way the schemas'
// "integer" does. RFC 8785, the digest's suggestion, would compare numbers
// by value instead ("value").
const Numbers = "as_written"
