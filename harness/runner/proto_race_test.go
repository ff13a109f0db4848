//go:build race

package runner

// protoRace: under the race detector conform reads messages about ten times
// slower, so the flood cases that need 50,000 messages are skipped and the
// others are scaled down (hostile_proto_test.go).
const protoRace = true
