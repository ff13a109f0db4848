// Package plain writes values into failure texts in no programming
// language's dialect: the people who read them write kernels in Python,
// TypeScript or Go alike, and the wire they share is JSON.
//
// JSON writes a value as compact JSON (not Go's map[string]any{...});
// Diff compares two values line by line as indented JSON (not go-cmp's Go
// syntax); USD writes money as a decimal of sensible precision (not
// 0.009824999999999999); Count and Ints write counts and lists as prose
// ("1 ordinary turn", "2, 4 and 6"). The checks of harness/steps use them
// wherever a value reaches a message. The package serves no requirement
// of its own; it serves every failure text (issue 26).
package plain
