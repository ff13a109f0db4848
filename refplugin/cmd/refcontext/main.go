// Command refcontext is conform's reference context provider, served as a
// go-plugin "context" plugin; with -compactor it declares compactor (a
// legal variant). Run it through a host (conform plugin --category
// context --plugin refcontext), not by hand.
package main

import (
	"os"

	"github.com/agentconform/conform/refplugin/refcontext"
)

func main() {
	f := refcontext.Faults{}
	for _, a := range os.Args[1:] {
		if a == "-compactor" || a == "--compactor" {
			f.Compactor = true
		}
	}
	refcontext.Serve(f)
}
