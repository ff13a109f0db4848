package jsonrpc

import "encoding/json"

// encode writes a message as json.Marshal writes a wireMsg, without
// marshalling its raw members a second time: json.Marshal validates and
// compacts every json.RawMessage it meets, and params and results here
// already come from json.Marshal (Notify, CallRaw, reply), so they are
// valid, compact and HTML-escaped as they are. That second pass was a
// tenth of a generated fuzz session's CPU (issue 25). What did not come
// from json.Marshal in this package, an id echoed from the peer, a method
// name that needs escaping, an error object, goes through json.Marshal as
// before, so the bytes are the same as json.Marshal(m) would write
// (TestEncodeIsMarshal).
func encode(m wireMsg) ([]byte, error) {
	b := make([]byte, 0, len(m.Params)+len(m.Result)+len(m.Method)+len(m.ID)+40)
	b = append(b, `{"jsonrpc":"2.0"`...)
	var err error
	if len(m.ID) > 0 {
		b = append(b, `,"id":`...)
		if b, err = appendID(b, m.ID); err != nil {
			return nil, err
		}
	}
	if m.Method != "" {
		b = append(b, `,"method":`...)
		b = appendName(b, m.Method)
	}
	if len(m.Params) > 0 {
		b = append(append(b, `,"params":`...), m.Params...)
	}
	if len(m.Result) > 0 {
		b = append(append(b, `,"result":`...), m.Result...)
	}
	if m.Error != nil {
		e, err := json.Marshal(m.Error)
		if err != nil {
			return nil, err
		}
		b = append(append(b, `,"error":`...), e...)
	}
	return append(b, '}'), nil
}

// appendID appends an id: ours and most peers' are integers, written as
// they are; any other is marshalled, which compacts and escapes it as
// json.Marshal always did.
func appendID(b []byte, id json.RawMessage) ([]byte, error) {
	for i, c := range id {
		if !(c >= '0' && c <= '9' || c == '-' && i == 0 && len(id) > 1) {
			raw, err := json.Marshal(id)
			if err != nil {
				return nil, err
			}
			return append(b, raw...), nil
		}
	}
	return append(b, id...), nil
}

// appendName appends a method name as a JSON string: one of plain ASCII
// letters, digits and /_.$- needs no escaping; any other is marshalled.
func appendName(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '/' || c == '_' || c == '.' || c == '$' || c == '-') {
			raw, _ := json.Marshal(s) // a string always marshals
			return append(b, raw...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}
