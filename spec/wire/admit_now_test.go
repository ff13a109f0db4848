package wire

import "encoding/json"

var admit = func(method, part string, raw json.RawMessage) error { return Admit(method, part, raw) }
