// Command refplugin is conform's reference tool provider and hook
// subscriber, served as a go-plugin "tool" plugin. Run it through a host
// (conform plugin --plugin refplugin), not by hand: without the host's
// magic cookie it says so and exits.
package main

import "github.com/agentconform/conform/refplugin"

func main() {
	refplugin.MaybeChild()
	refplugin.Serve(refplugin.Faults{})
}
