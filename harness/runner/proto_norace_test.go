//go:build !race

package runner

const protoRace = false
