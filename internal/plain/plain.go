package plain

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// JSON is v as compact JSON, without HTML escaping. A value JSON cannot
// encode (a channel, a NaN) is written with %v, so a message never loses
// it.
func JSON(v any) string {
	b, err := marshal(v, "")
	if err != nil {
		return fmt.Sprintf("%v", v)
	}
	return string(b)
}

func marshal(v any, indent string) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", indent)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// USD is an amount of dollars as a decimal rounded to 10 places (a tenth
// of a nano-dollar, below every tolerance the cost checks allow), trailing
// zeros dropped: 0.009824999999999999 is "0.009825", 2 is "2". No "$":
// callers write it where the sentence wants it.
func USD(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return strconv.FormatFloat(v, 'g', -1, 64)
	}
	s := strconv.FormatFloat(v, 'f', 10, 64)
	s = strings.TrimRight(s, "0")
	s = strings.TrimSuffix(s, ".")
	if s == "-0" {
		s = "0"
	}
	return s
}

// Count is n and a noun, the noun made plural by an "s" unless n is 1:
// Count(1, "ordinary turn") is "1 ordinary turn", Count(3, "call") is
// "3 calls". CountOf takes the plural for nouns that do not take an "s".
func Count(n int, one string) string { return CountOf(n, one, one+"s") }

// CountOf is Count with the plural given.
func CountOf(n int, one, many string) string {
	if n == 1 || n == -1 {
		return strconv.Itoa(n) + " " + one
	}
	return strconv.Itoa(n) + " " + many
}

// Ints lists numbers as prose: "none", "2", "2 and 4", "2, 4 and 6".
func Ints(ns []int) string {
	parts := make([]string, len(ns))
	for i, n := range ns {
		parts[i] = strconv.Itoa(n)
	}
	return And(parts)
}

// And joins words as prose: "none", "a", "a and b", "a, b and c".
func And(words []string) string {
	switch len(words) {
	case 0:
		return "none"
	case 1:
		return words[0]
	}
	return strings.Join(words[:len(words)-1], ", ") + " and " + words[len(words)-1]
}
