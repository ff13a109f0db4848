// Command refmodel is conform's reference model provider, served as a
// go-plugin "model" plugin. Run it through a host (conform plugin --plugin
// refmodel), not by hand: without the host's magic cookie it says so and
// exits.
package main

import "github.com/agentconform/conform/refplugin/model"

func main() { model.Serve(model.Faults{}) }
