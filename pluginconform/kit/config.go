package kit

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"io"
	"maps"

	configv1 "github.com/agentconform/conform/api/gen/pluggableharness/config/v1"
)

// Canary draws a made-up secret from src (nil: crypto/rand), for a
// required sensitive attribute the user left out: if it ever comes back,
// the plugin echoed a secret.
func Canary(src io.Reader) (string, error) {
	if src == nil {
		src = rand.Reader
	}
	b := make([]byte, 12)
	if _, err := io.ReadFull(src, b); err != nil {
		return "", errors.New("drawing a canary secret: " + err.Error())
	}
	return "conform-canary-" + hex.EncodeToString(b), nil
}

// BuildConfig is the user's configuration given, with every required
// sensitive string attribute of schema it leaves out set to a canary drawn
// from src, and every sensitive value registered with the watch.
func BuildConfig(schema *configv1.ConfigSchema, given map[string]any, src io.Reader, watch *Secrets) (map[string]any, error) {
	cfg := maps.Clone(given)
	if cfg == nil {
		cfg = map[string]any{}
	}
	for _, a := range schema.GetAttributes() {
		if !a.GetSensitive() {
			continue
		}
		v, ok := cfg[a.GetName()]
		if !ok && a.GetRequired() {
			if a.GetType() != configv1.AttrType_ATTR_TYPE_STRING && a.GetType() != configv1.AttrType_ATTR_TYPE_UNSPECIFIED {
				continue // conform can only make up a string secret
			}
			c, err := Canary(src)
			if err != nil {
				return nil, err
			}
			cfg[a.GetName()], v = c, c
		}
		watch.AddValue(a.GetName(), v)
	}
	return cfg, nil
}

// Required names schema's required attributes, in order.
func Required(schema *configv1.ConfigSchema) []string {
	var out []string
	for _, a := range schema.GetAttributes() {
		if a.GetRequired() {
			out = append(out, a.GetName())
		}
	}
	return out
}

// AddValue watches every string in v (a configuration value of any
// shape) as a value of attribute attr.
func (s *Secrets) AddValue(attr string, v any) {
	switch v := v.(type) {
	case string:
		s.Add(attr, v)
	case []any:
		for _, e := range v {
			s.AddValue(attr, e)
		}
	case map[string]any:
		for _, e := range v {
			s.AddValue(attr, e)
		}
	}
}
