package canon

import (
	"bytes"
	"encoding/json"
)

// JSON returns the canonical form of raw. Empty input is treated as null.
func JSON(raw []byte) ([]byte, error) {
	if len(bytes.TrimSpace(raw)) == 0 {
		return []byte("null"), nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	// Numbers stay json.Number so 1.0 and 1 remain different values and no
	// precision is lost to float64.
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	return encode(v)
}

// Value marshals v and returns its canonical form.
func Value(v any) ([]byte, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return JSON(raw)
}

// encode relies on encoding/json sorting map keys; HTML escaping is off so
// that the bytes are the plain JSON text.
func encode(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}
