// Command refmemory is conform's reference memory provider, served as a
// go-plugin "memory" plugin; with -ratify it declares ratification (a
// legal variant). Run it through a host (conform plugin --category memory
// --plugin refmemory), not by hand.
package main

import (
	"os"

	"github.com/agentconform/conform/refplugin/refmemory"
)

func main() {
	f := refmemory.Faults{}
	for _, a := range os.Args[1:] {
		if a == "-ratify" || a == "--ratify" {
			f.Ratify = true
		}
	}
	refmemory.Serve(f)
}
